"""The state at a clock time: ``?at=`` on the state, replay and audit routes and ``jaslog
replay --at``, by the store's recorded_at or else the events' at, under the rules of sight
of ``?seq=``; and every route refuses a parameter it does not take."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from jaslog.play.attime import AtError, seq_at
from jaslog.play.sim import simulate_game
from jaslog.store.clock import stamp
from tests.cli import jaslog
from tests.club.conftest import Season
from tests.service.inprocess import Live, live_service

GAME = "clock-1"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Live, list[str]]]:
    """A game appended through the service in batches a minute apart on its clock: the
    events' recorded_at. Returns the service and each batch's stamp."""
    with live_service(tmp_path_factory.mktemp("at")) as lv:
        evs = simulate_game(GAME, "amsterdam", seed=4, seats=["ann", "bob", "cor", "dirk"])
        evs = [{k: v for k, v in e.items() if k != "as_of"} for e in evs]
        r = lv.post("/api/games", {k: v for k, v in evs[0].items()
                                   if k not in ("seq", "type")}, status=201)
        assert r.json()["game"] == GAME
        stamps = [stamp(lv.clock())]
        for i in range(1, 60, 10):
            lv.clock.advance(60)
            lv.append(GAME, evs[i:i + 10])
            stamps.append(stamp(lv.clock()))
        yield lv, stamps


def test_at_between_two_appends_gives_the_state_after_the_earlier(
        played: tuple[Live, list[str]]) -> None:
    lv, stamps = played
    # 30 seconds after the third batch (seqs 21-30) went in, before the fourth
    at = (datetime.fromisoformat(stamps[3].replace("Z", "+00:00")) + timedelta(seconds=30)
          ).isoformat().replace("+00:00", "Z")
    state = lv.get(f"/api/games/{GAME}/state?at={at}")
    assert state["as_of"] == {"at": at, "by": "recorded_at", "seq": 30, "event_time": stamps[3]}
    assert state["seq"] == 30
    assert {k: v for k, v in state.items() if k != "as_of"} == lv.get(f"/api/games/{GAME}/state?seq=30")
    # exactly at a batch's stamp: that batch is in
    assert lv.get(f"/api/games/{GAME}/state?at={stamps[4]}")["seq"] == 40
    # a time of day on the game's date
    assert lv.get(f"/api/games/{GAME}/state?at={at[11:16]}")["seq"] in (20, 30)


def test_replay_and_audit_as_the_game_stood(played: tuple[Live, list[str]]) -> None:
    lv, stamps = played
    at = stamps[2]
    replay = lv.get(f"/api/games/{GAME}/replay?at={at}")
    assert replay["as_of"]["seq"] == 20 and replay["frames"][-1]["seq"] == 20
    audit = lv.get(f"/api/games/{GAME}/audit?at={at}")
    assert audit["as_of"]["seq"] == 20
    whole = lv.get(f"/api/games/{GAME}/audit")
    assert "as_of" not in whole and len(audit["rounds"]) <= len(whole["rounds"])


def test_the_same_rules_of_sight(played: tuple[Live, list[str]]) -> None:
    lv, stamps = played
    head = lv.get(f"/api/games/{GAME}/replay")
    live = head["live_round"]
    assert live == 2
    deal = next(f["seq"] for f in head["frames"] if f["type"] == "dealt" and f["round"] == live)
    # seq 60 is in the round being played now: the public may not see it, by seq or by time
    for url in (f"/api/games/{GAME}/state?at={stamps[6]}", f"/api/games/{GAME}/state?seq=60"):
        r = lv.client.get(url, headers=lv.as_("public"))
        assert r.status_code == 403 and r.json()["code"] == "not_visible"
    r = lv.client.get(f"/api/games/{GAME}/replay?at={stamps[6]}", headers=lv.as_("public"))
    assert r.status_code == 200 and r.json()["live_round"] == 2
    assert [f["seq"] for f in r.json()["frames"]] == list(range(deal))  # up to its deal
    # seq 30 was in round 1, played out since: the public sees it now, by seq and by time
    r = lv.client.get(f"/api/games/{GAME}/replay?at={stamps[3]}", headers=lv.as_("public"))
    assert r.status_code == 200 and r.json()["live_round"] is None
    state = lv.get(f"/api/games/{GAME}/state?seq=30", "public")
    assert r.json()["frames"][-1] == {k: v for k, v in state.items()
                                      if k not in ("game", "view", "seat")}
    assert lv.get(f"/api/games/{GAME}/state?at={stamps[3]}", "public")["seq"] == 30


def test_a_time_before_the_game_or_unreadable_is_said(played: tuple[Live, list[str]]) -> None:
    lv, _ = played
    for at, words in (("2020-01-01T00:00:00Z", "had not begun"), ("teatime", "RFC 3339")):
        r = lv.client.get(f"/api/games/{GAME}/state?at={at}", headers=lv.as_("admin"))
        assert r.status_code == 422 and r.json()["code"] == "bad_time", r.text
        assert words in r.json()["message"]
    r = lv.client.get(f"/api/games/{GAME}/state?at=21:00&seq=3", headers=lv.as_("admin"))
    assert r.status_code == 422 and "not both" in r.json()["message"]


@pytest.mark.parametrize("url", [f"/api/games/{GAME}/state?upto=3", f"/api/games/{GAME}/head?at=1",
                                 "/api/stats?by=month", f"/api/games/{GAME}/events?after=2",
                                 "/api/ratings?player=ann", "/api/games?offset=3"])
def test_every_route_refuses_a_parameter_it_does_not_take(
        played: tuple[Live, list[str]], url: str) -> None:
    lv, _ = played
    r = lv.client.get(url, headers=lv.as_("admin"))
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["code"] == "unknown_parameter"
    name = url.split("?")[1].split("=")[0]
    assert body["parameters"] == [name] and f"no parameter {name}" in body["message"]


def test_a_stream_takes_its_token_in_the_query(played: tuple[Live, list[str]]) -> None:
    lv, _ = played
    with lv.client.stream("GET", f"/api/games/{GAME}/stream?access_token={lv.tokens['admin']}"
                          "&since=0&bogus=1") as r:
        assert r.status_code == 422
        assert "bogus" in r.read().decode()


def test_by_the_events_at_when_the_store_has_no_recorded_at(season: Season) -> None:
    game = season.games[0]
    events = game.events
    found = seq_at([type("E", (), e) for e in events], "2026-03-03T19:45:00Z")
    assert found.by == "at"
    last = max(e["seq"] for e in events if e.get("at", "") <= "2026-03-03T19:45:00Z")
    assert found.seq == last
    with pytest.raises(AtError, match="no times"):
        seq_at([type("E", (), {"game": "g", "seq": 0})], "21:00")


def test_replay_at_on_the_command_line(season: Season, tmp_path: Path) -> None:
    game = season.games[0]
    r = jaslog("replay", f"store:{game.game}", "--db", str(season.db), "--at", "19:45",
               text=True, env={"COLUMNS": "200"})
    assert r.returncode == 0, r.stderr
    last = max(e["seq"] for e in game.events if e.get("at", "") <= "2026-03-03T19:45:00Z")
    assert f"at 2026-03-03T19:45:00Z (by at): the game up to seq {last}" in r.stdout
    to = jaslog("replay", f"store:{game.game}", "--db", str(season.db), "--to", str(last),
                text=True, env={"COLUMNS": "200"})
    assert r.stdout.split("\n", 1)[1] == to.stdout
    bad = jaslog("replay", f"store:{game.game}", "--db", str(season.db), "--at", "noon",
                 text=True)
    assert bad.returncode == 2 and "--at 'noon'" in bad.stderr
