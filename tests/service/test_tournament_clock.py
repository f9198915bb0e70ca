"""Move clocks of tournaments (rule book 9.1, decision 15): on a ManualClock, the service
records a timeout for the seat due once its wait is over the limit, once per wait, and with
``on_timeout: autoplay`` plays for it."""

from __future__ import annotations

import json
import time
from typing import Any

from jaslog.cards import CARD_TEXT, parse_card
from jaslog.events import parse_event
from jaslog.play.fold import start_fold
from jaslog.service.move_clock import autoplay_event, lowest_card
from tests.service.inprocess import HANDS, Live, live_service

PLAYERS = ["ann", "bob", "cor", "dirk"]


def _tournament(live: Live, tid: str, **body: Any) -> dict[str, Any]:
    r = live.post("/api/tournaments", {"id": tid, "name": tid, "players": PLAYERS, "seed": 5,
                                       **body}, status=201)
    game = r.json()["rounds"][0]["tables"][0]
    info = live.get(f"/api/games/{game['game']}")
    return {**game, "dealer": info["dealer"], "meta": info["meta"]}


def _types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def test_a_timeout_is_recorded_once_per_wait_and_the_seat_keeps_its_turn(tmp_path):
    with live_service(tmp_path) as live:
        g = _tournament(live, "clk1")
        gid, forehand = g["game"], (g["dealer"] + 1) % 4
        assert g["meta"]["on_timeout"] == "record" and g["meta"]["move_limit_s"] == 30
        live.append(gid, [{"type": "dealt", "hands": HANDS}])
        assert live.clock_check("clk1") == []            # the wait has just begun
        live.clock.advance(30)
        assert live.clock_check("clk1") == []            # 30 s is in time
        live.clock.advance(1)
        [t] = live.clock_check("clk1")
        assert (t["type"], t["seat"], t["seconds"]) == ("timeout", forehand, 31)
        stored = live.events(gid)[-1]
        assert stored["type"] == "timeout" and stored["seq"] == t["seq"]
        assert stored["recorded_at"] == stored["at"]     # stamped by the service's clock

        # the same wait: no second timeout, however often or late the clock looks
        live.clock.advance(60)
        assert live.clock_check("clk1") == []
        assert live.get("/api/tournaments/clk1")["time_limit"]["timeouts"][0]["seq"] == t["seq"]
        assert _types(live.events(gid)).count("timeout") == 1

        # record: the seat is still due; its bid (late) starts the next wait
        live.append(gid, [{"type": "bid", "seat": forehand, "call": "H"}])
        live.clock.advance(31)
        [t2] = live.clock_check("clk1")
        assert t2["seat"] == forehand and t2["seconds"] == 31  # forehand leads the first trick
        st = live.get("/api/tournaments/clk1", role="referee")
        assert [(x["player"], x["seconds"], x["autoplayed"]) for x in st["time_limit"]["timeouts"]] \
            == [(g["seats"][forehand], 31, False)] * 2
        assert st["on_timeout"] == "record"
        # the public sees the round's events, its timeouts too, once the round is over
        assert live.get("/api/tournaments/clk1", role="public")["time_limit"]["timeouts"] == []


def test_autoplay_chooses_the_first_suit_it_may_then_plays_the_lowest_legal_card(tmp_path):
    with live_service(tmp_path) as live:
        g = _tournament(live, "clk2", on_timeout="autoplay")
        gid, forehand = g["game"], (g["dealer"] + 1) % 4
        live.append(gid, [{"type": "dealt", "hands": HANDS}])
        live.clock_check("clk2")
        live.clock.advance(31)
        timeout, bid = live.clock_check("clk2")
        assert timeout["type"] == "timeout" and timeout["seat"] == forehand
        # the online-501 rules make forehand choose: a pass is not taken, clubs is
        assert (bid["type"], bid["seat"], bid["call"]) == ("bid", forehand, "C")
        assert live.clock_check("clk2") == []            # the lead's wait began with the bid

        live.clock.advance(45)
        timeout, play = live.clock_check("clk2")
        assert (timeout["seat"], timeout["seconds"]) == (forehand, 45)
        # forehand holds the ranks r with r % 4 == forehand in every suit, clubs are trumps:
        # the lowest card is the lower of its two cards of diamonds (a plain suit)
        held = [parse_card(c) for c in HANDS[forehand]]
        diamonds = sorted(c for c in held if c >> 3 == 1)
        assert play["card"] == CARD_TEXT[diamonds[0]]
        assert (play["type"], play["seat"]) == ("play", forehand)

        # the next seat follows suit with its lowest diamond
        nxt = (forehand + 1) % 4
        live.clock.advance(31)
        _, follow = live.clock_check("clk2")
        low = min(parse_card(c) for c in HANDS[nxt] if c.endswith("D"))
        assert (follow["seat"], follow["card"]) == (nxt, CARD_TEXT[low])
        audit = live.get(f"/api/games/{gid}/audit")
        assert audit["violations"] == []
        st = live.get("/api/tournaments/clk2")
        assert [x["autoplayed"] for x in st["time_limit"]["timeouts"]] == [True, True, True]


def test_autoplay_records_only_the_timeout_when_the_hands_are_unknown(tmp_path):
    with live_service(tmp_path) as live:
        g = _tournament(live, "clk3", on_timeout="autoplay")
        gid, forehand = g["game"], (g["dealer"] + 1) % 4
        live.append(gid, [{"type": "dealt"}, {"type": "bid", "seat": forehand, "call": "S"}])
        live.clock_check("clk3")
        live.clock.advance(40)
        [t] = live.clock_check("clk3")
        assert (t["type"], t["seat"], t["seconds"]) == ("timeout", forehand, 40)
        assert _types(live.events(gid))[-1] == "timeout"


def test_reading_the_tournament_runs_the_clock_and_a_dealt_game_is_not_timed(tmp_path):
    with live_service(tmp_path) as live:
        g = _tournament(live, "clk4")
        live.clock.advance(300)  # nobody has dealt: the deal is the scorer's, not a move
        assert live.clock_check("clk4") == []
        live.append(g["game"], [{"type": "dealt", "hands": HANDS}])
        live.get("/api/tournaments/clk4")
        live.clock.advance(31)
        st = live.get("/api/tournaments/clk4", role="referee")  # a GET is enough
        assert len(st["time_limit"]["timeouts"]) == 1
        assert _types(live.events(g["game"]))[-1] == "timeout"


def test_the_background_clock_records_a_timeout_nobody_asked_for(tmp_path):
    with live_service(tmp_path, background=0.05) as live:
        g = _tournament(live, "clk5")
        live.append(g["game"], [{"type": "dealt", "hands": HANDS}])
        time.sleep(0.3)  # the background clock has seen the wait begin
        live.clock.advance(31)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "timeout" not in _types(live.events(g["game"])):
            time.sleep(0.05)
        evs = live.events(g["game"])
        assert _types(evs).count("timeout") == 1
        time.sleep(0.3)  # it keeps running: still one
        assert _types(live.events(g["game"])).count("timeout") == 1


def test_clocks_racing_on_one_wait_store_one_timeout(tmp_path):
    """Two move clocks (as two service processes on one store have) check the same wait at
    the same moment, again and again: the timeout is stored once."""
    from concurrent.futures import ThreadPoolExecutor

    from jaslog.service.move_clock import MoveClock
    from jaslog.service.tournaments import Tournaments

    with live_service(tmp_path) as live:
        g = _tournament(live, "clk7", on_timeout="autoplay")
        live.append(g["game"], [{"type": "dealt", "hands": HANDS}])
        svc = live.app.state.service
        clocks = [MoveClock(svc), MoveClock(svc)]
        live.clock.advance(31)
        with ThreadPoolExecutor(4) as pool:
            done = list(pool.map(lambda i: Tournaments(svc).check_clocks("clk7", clocks[i % 2]),
                                 range(8)))
        assert sum(len(d) for d in done) == 2  # one timeout and one bid, by one of them
        assert _types(live.events(g["game"])).count("timeout") == 1
        assert _types(live.events(g["game"])).count("bid") == 1


def test_only_an_admin_or_a_referee_runs_the_clock(tmp_path):
    with live_service(tmp_path) as live:
        _tournament(live, "clk6")
        r = live.post("/api/tournaments/clk6/clock", role="public")
        assert r.status_code == 403 and r.json()["code"] == "forbidden"
        assert live.post("/api/tournaments/clk6/clock", role="referee").status_code == 200
        r = live.post("/api/tournaments/nope/clock")
        assert r.status_code == 404 and r.json()["code"] == "no_such_tournament"
        r = live.post("/api/tournaments", {"name": "x", "players": PLAYERS, "on_timeout": "kick"})
        assert r.status_code == 422


def _fold(ruleset_options: dict[str, Any], events: list[str]) -> Any:
    f = start_fold(parse_event('{"game":"g","seq":0,"type":"game_started","ruleset":"amsterdam",'
                               '"seats":["a","b","c","d"],"dealer":3,"options":'
                               + json.dumps(ruleset_options) + "}"))
    for i, text in enumerate(events, 1):
        f.apply(parse_event(text.replace("SEQ", str(i))))
    return f


def test_autoplay_passes_when_the_seat_may_pass():
    hands = json.dumps(HANDS)
    f = _fold({"trump_selection": "free"},
              ['{"game":"g","seq":SEQ,"type":"dealt","hands":' + hands + "}"])
    assert autoplay_event(f, "bid", 0) == {"type": "bid", "seat": 0, "call": "pass"}
    # after four passes the starter must choose: the first suit the rules take
    for s in range(4):
        f.apply(parse_event(f'{{"game":"g","seq":{f.next_seq},"type":"bid","seat":{s},'
                            '"call":"pass"}'))
    assert autoplay_event(f, "bid", 0) == {"type": "bid", "seat": 0, "call": "C"}
    assert autoplay_event(f, "turn", 3) is None  # a turned trump card is never made up


def test_the_lowest_card_is_a_plain_card_before_a_trump_and_the_weakest_in_its_suit():
    def lowest(cards: str, trump: int | None) -> str:
        return CARD_TEXT[lowest_card(sum(1 << parse_card(c) for c in cards.split()), trump)]

    assert lowest("9H JH 7S AS", trump=3) == "9H"   # 7S is a trump; in hearts 9 is below J
    assert lowest("10H KH", trump=None) == "KH"     # plain order: 7 8 9 J Q K 10 A
    assert lowest("9S JS AS", trump=3) == "AS"      # trump order: 7 8 Q K 10 A 9 J
    assert lowest("QD QC", trump=None) == "QC"      # equal: clubs first
