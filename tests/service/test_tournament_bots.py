"""``jaslog tournament play CUP --bots`` and ``jaslog simulate --game``: bots play a
tournament's games on a real SQLite store, through the append a scorer's batch takes, and
the standings show them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jaslog.service.core import Service
from jaslog.store import open_store
from tests.cli import jaslog

PLAYERS = "b1,b2,b3,b4,b5,b6,b7,b8"


def ok(*args: str) -> tuple[str, str]:
    r = jaslog(*args, text=True)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    return r.stdout, r.stderr


def refused(code: int, *args: str) -> str:
    r = jaslog(*args, text=True)
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert r.stderr.startswith("jaslog: ") and "Traceback" not in r.stderr + r.stdout
    return " ".join(r.stderr.split())


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "bots.sqlite")
    ok("tournament", "new", "--db", path, "--name", "Robot beker", "--players", PLAYERS,
       "--id", "cup", "--seed", "11", "-o", "game_end=deals:2")
    return path


def show(db: str) -> dict[str, Any]:
    return dict(json.loads(ok("tournament", "show", "cup", "--db", db, "--json")[0]))


def test_bots_play_a_round_whose_standing_then_shows(db):
    out, err = ok("tournament", "play", "cup", "--bots", "--db", db)
    # one progress line a table, then the round as `show` prints it
    lines = err.strip().splitlines()
    assert [ln.split(" (")[0] for ln in lines] == ["table 1", "table 2"], err
    assert all("2 deals" in ln and "won by" in ln for ln in lines), err
    st = show(db)
    assert st["status"] == "round_over"
    tables = st["rounds"][0]["tables"]
    assert all(t["finished"] and isinstance(t["winner"], int) for t in tables)
    assert all(t["rounds"] == 2 and sum(t["totals"]) > 0 for t in tables)
    for t in tables:
        assert f"won by {' & '.join(t['winners'])}" in " ".join(out.split())
    # the events went through the store's rules, as a scorer's batch: a clean audit
    with open_store(db, create=False) as store:
        for t in tables:
            assert store.head(t["game"]).next_seq > 60
            assert not any(e.type == "note" for e in store.events(t["game"]))
    # the next round is drawn from the winners, and the bots play it too (--json)
    ok("tournament", "draw", "cup", "--db", db)
    done = json.loads(ok("tournament", "play", "cup", "--bots", "--db", db, "--json")[0])
    assert done["round"] == 2 and [t["played"] for t in done["tables"]] == [True]
    final = show(db)
    assert final["status"] == "finished" and final["champions"] == done["tables"][0]["winners"]


def test_a_game_begun_or_over_is_left_as_it_is(db):
    ok("simulate", "--game", "cup-r1-t2", "--db", db, "--seed", "4")
    before = show(db)["rounds"][0]["tables"][1]
    assert before["finished"]
    done = json.loads(ok("tournament", "play", "cup", "--bots", "--round", "1", "--db", db,
                         "--json")[0])
    played = {t["table"]: t for t in done["tables"]}
    assert played[1]["played"] and not played[2]["played"]
    assert "is over" in played[2]["reason"]
    assert show(db)["rounds"][0]["tables"][1] == before


def test_the_same_seed_plays_the_same_games(tmp_path, db):
    other = str(tmp_path / "again.sqlite")
    ok("tournament", "new", "--db", other, "--name", "Robot beker", "--players", PLAYERS,
       "--id", "cup", "--seed", "11", "-o", "game_end=deals:2")
    for path in (db, other):
        ok("tournament", "play", "cup", "--bots", "--db", path)
    assert [t["totals"] for t in show(db)["rounds"][0]["tables"]] == \
        [t["totals"] for t in show(other)["rounds"][0]["tables"]]


def test_refusals_say_what_to_do(db):
    assert "--bots" in refused(2, "tournament", "play", "cup", "--db", db)
    assert "no round 5" in refused(2, "tournament", "play", "cup", "--bots", "--round", "5",
                                   "--db", db)
    assert "unknown bot" in refused(2, "tournament", "play", "cup", "--bots", "--bot", "wizard",
                                    "--db", db)
    # simulate targets a stored game only with a store; a tournament's says which command
    said = refused(2, "simulate", "--game", "cup-r1-t1")
    assert "give --db" in said and "jaslog tournament play cup --bots" in said
    ok("tournament", "play", "cup", "--bots", "--db", db)
    # a bad bot is said although no game is left to play
    assert "unknown bot" in refused(2, "tournament", "play", "cup", "--bots", "--bot", "x",
                                    "--db", db)
    said = refused(2, "simulate", "--game", "cup-r1-t1", "--db", db)
    assert "is over" in said and "jaslog tournament play cup --bots" in said
    assert "(game_begun)" in said


def test_bots_append_through_the_service(tmp_path):
    """The service's append is the path: a game begun by a scorer is not the bots'."""
    from jaslog.service.bots import BotPlayError, play_stored_game
    from jaslog.service.tournaments import Tournaments

    path = str(tmp_path / "svc.sqlite")
    open_store(path).close()
    svc = Service(path, pool_size=1)
    try:
        ts = Tournaments(svc)
        ts.create(name="x", players=["q1", "q2", "q3", "q4"], ruleset=None,
                  options={"game_end": {"type": "deals", "count": 1}}, move_limit=None,
                  seed=2, tid="mini", on_timeout=None)
        svc.append("mini-r1-t1", [{"type": "note", "seat": 0, "text": "we begin"}], 1)
        with pytest.raises(BotPlayError) as e:
            play_stored_game(svc, "mini-r1-t1")
        assert e.value.code == "game_begun" and "in play (2 events)" in e.value.message
    finally:
        svc.close()
