"""Withdrawals from a tournament (rule book 9.1, decision 15): for good, the game in play
ends with a ruling for the other team, the next round is drawn without the player."""

from __future__ import annotations

from typing import Any

from tests.service.inprocess import HANDS, Live, live_service

PLAYERS = [f"w{i}" for i in range(8)]


def _cup(live: Live, tid: str) -> list[dict[str, Any]]:
    r = live.post("/api/tournaments", {"id": tid, "name": tid, "players": PLAYERS, "seed": 11},
                  status=201)
    return list(r.json()["rounds"][0]["tables"])


def test_a_withdrawal_ends_the_game_in_play_with_a_ruling_for_the_other_team(tmp_path):
    with live_service(tmp_path, players=PLAYERS) as live:
        t1, _ = _cup(live, "wd1")
        gid, leaver = t1["game"], t1["seats"][1]
        live.append(gid, [{"type": "dealt", "hands": HANDS}])
        r = live.post("/api/tournaments/wd1/withdrawals", {"player": leaver, "reason": "ill"},
                      role=leaver, status=201)
        w = r.json()
        assert (w["player"], w["round"], w["game"], w["reason"]) == (leaver, 1, gid, "ill")
        assert w["by"].startswith("player token ")
        assert w["ruling"]["score"] == [162, 0] and w["ruling"]["round"] == 1
        assert w["ruling"]["reason"] == f"withdrawal of {leaver}"

        evs = live.events(gid)
        ruling, note = evs[-2:]
        assert ruling["type"] == "ruling" and ruling["seq"] == w["ruling"]["seq"]
        assert note["type"] == "note" and leaver in note["text"] and note["seat"] == 1
        audit = live.get(f"/api/games/{gid}/audit")
        assert audit["totals"] == [162, 0]

        st = live.get("/api/tournaments/wd1", role="public")
        table = st["rounds"][0]["tables"][0]
        assert table["finished"] and table["winner"] == 0 and table["forfeit"] == leaver
        assert table["winners"] == t1["seats"][0::2]
        assert [x["player"] for x in st["withdrawn"]] == [leaver]
        assert st["status"] == "playing"  # table 2 still plays


def test_a_player_withdraws_once_and_cannot_re_enter(tmp_path):
    with live_service(tmp_path, players=PLAYERS) as live:
        t1, _ = _cup(live, "wd2")
        leaver = t1["seats"][0]
        live.post("/api/tournaments/wd2/withdrawals", {"player": leaver}, status=201)
        r = live.post("/api/tournaments/wd2/withdrawals", {"player": leaver}, role=leaver)
        assert r.status_code == 409 and r.json()["code"] == "already_withdrawn"
        assert "cannot re-enter" in r.json()["message"]
        # no ruling the second time: the game was decided once
        assert [e["type"] for e in live.events(t1["game"])].count("note") == 1


def test_who_may_withdraw_whom(tmp_path):
    with live_service(tmp_path, players=PLAYERS) as live:
        t1, t2 = _cup(live, "wd3")
        r = live.post("/api/tournaments/wd3/withdrawals", {"player": t1["seats"][0]},
                      role=t2["seats"][0])
        assert r.status_code == 403 and r.json()["code"] == "other_player"
        r = live.post("/api/tournaments/wd3/withdrawals", {"player": t1["seats"][0]},
                      role="referee")
        assert r.status_code == 403 and r.json()["code"] == "forbidden"
        r = live.post("/api/tournaments/wd3/withdrawals", {"player": "nobody"})
        assert r.status_code == 404 and r.json()["code"] == "no_such_player"
        r = live.post("/api/tournaments/nope/withdrawals", {"player": "w1"})
        assert r.status_code == 404 and r.json()["code"] == "no_such_tournament"
        r = live.post("/api/tournaments/wd3/withdrawals", {"player": "w 1"})
        assert r.status_code == 422


def test_the_next_round_is_drawn_without_the_withdrawn_players(tmp_path):
    with live_service(tmp_path, players=PLAYERS) as live:
        t1, t2 = _cup(live, "wd4")
        live.append(t1["game"], [{"type": "dealt", "hands": HANDS}])
        a, b = t1["seats"][1], t2["seats"][0]
        live.post("/api/tournaments/wd4/withdrawals", {"player": a}, status=201)
        live.clock.advance(60)
        w = live.post("/api/tournaments/wd4/withdrawals", {"player": b}, status=201).json()
        assert w["ruling"] is None  # table 2 had dealt nothing: no round to rule, a note
        assert live.events(t2["game"])[-1]["type"] == "note"
        st = live.get("/api/tournaments/wd4")
        assert st["status"] == "round_over"
        winners = [p for t in st["rounds"][0]["tables"] for p in t["winners"]]
        assert a not in winners and b not in winners and len(winners) == 4

        # a winner leaves between rounds: their place goes to a player of a losing team
        gone = winners[0]
        live.clock.advance(60)
        w = live.post("/api/tournaments/wd4/withdrawals", {"player": gone}, status=201).json()
        assert (w["game"], w["ruling"]) == (None, None)
        st = live.post("/api/tournaments/wd4/rounds", status=201).json()
        [final] = st["rounds"][1]["tables"]
        assert gone not in final["seats"] and a not in final["seats"] and b not in final["seats"]
        lucky = set(final["seats"]) - set(winners)
        partners = {t1["seats"][3], t2["seats"][2]}  # the partners of a and b
        assert len(lucky) == 1 and lucky <= partners

        # in the final a withdrawal decides the tournament
        leaver = final["seats"][2]
        live.clock.advance(60)
        live.post("/api/tournaments/wd4/withdrawals", {"player": leaver}, status=201)
        st = live.get("/api/tournaments/wd4")
        assert st["status"] == "finished"
        assert st["champions"] == final["seats"][1::2]
        assert st["runner_up"] == final["seats"][0::2]
        r = live.post("/api/tournaments/wd4/withdrawals", {"player": final["seats"][1]})
        assert r.status_code == 409 and r.json()["code"] == "tournament_over"
        assert [x["player"] for x in st["withdrawn"]] == [a, b, gone, leaver]


def test_the_move_clock_leaves_a_game_decided_by_a_withdrawal_alone(tmp_path):
    with live_service(tmp_path, players=PLAYERS) as live:
        t1, _ = _cup(live, "wd5")
        live.append(t1["game"], [{"type": "dealt", "hands": HANDS}])
        live.post("/api/tournaments/wd5/withdrawals", {"player": t1["seats"][0]}, status=201)
        live.append(t1["game"], [{"type": "dealt", "hands": HANDS}])  # the table deals on
        live.clock_check("wd5")
        live.clock.advance(120)
        assert all(e["game"] != t1["game"] for e in live.clock_check("wd5"))
