"""``jaslog tournament new|show|draw|withdraw`` on a real SQLite store, and the service
reading the same tournaments (one implementation for both)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli import jaslog
from tests.service.inprocess import HANDS, live_service

PLAYERS = "p1,p2,p3,p4,p5,p6,p7,p8"


def ok(*args: str) -> str:
    r = jaslog(*args, text=True)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    return r.stdout


def refused(code: int, *args: str) -> tuple[str, str]:
    """A refusal: its exit code, a sentence on stderr, never a traceback."""
    r = jaslog(*args, text=True)
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert r.stderr.startswith("jaslog: ") and "Traceback" not in r.stderr + r.stdout
    return r.stdout, " ".join(r.stderr.split())


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "service.sqlite")


def _new(db: str, *extra: str) -> dict[str, Any]:
    out = ok("tournament", "new", "--db", db, "--name", "Torneo veloce", "--players", PLAYERS,
             "--id", "cup", "--seed", "3", "--json", *extra)
    return dict(json.loads(out))


def test_new_draws_round_one_and_show_says_the_same(db):
    st = _new(db, "--on-timeout", "autoplay", "--move-limit", "20")
    assert (st["id"], st["status"], st["move_limit_s"], st["on_timeout"]) == \
        ("cup", "playing", 20, "autoplay")
    tables = st["rounds"][0]["tables"]
    assert sorted(p for t in tables for p in t["seats"]) == PLAYERS.split(",")
    assert json.loads(ok("tournament", "show", "cup", "--db", db, "--json")) == st
    text = ok("tournament", "show", "cup", "--db", db)
    assert "Torneo veloce (tournament cup): 8 players, 2 rounds" in " ".join(text.split())
    assert "cup-r1-t1" in text and "cup-r1-t2" in text and "not started" in text


def test_options_on_top_of_the_tournament_defaults(db):
    st = _new(db, "-o", "game_end=target:1500", "-r", "amsterdam")
    assert st["ruleset"] == "amsterdam"
    assert st["options"] == {"game_end": {"type": "target", "points": 1500}}


def test_draw_refuses_while_the_round_is_played_with_its_code(db):
    _new(db)
    out, err = refused(3, "tournament", "draw", "cup", "--db", db)
    assert "round 1 is not over" in err and "(round_not_over)" in err and out == ""
    out, _ = refused(3, "tournament", "draw", "cup", "--db", db, "--json")
    assert json.loads(out) == {"ok": False, "error": {
        "code": "round_not_over", "exit": 3,
        "message": "round 1 is not over: cup-r1-t1, cup-r1-t2 still being played"}}


def test_withdraw_for_good_then_draw_without_them(db):
    st = _new(db)
    t1, t2 = st["rounds"][0]["tables"]
    a, b = t1["seats"][0], t2["seats"][3]
    said = " ".join(ok("tournament", "withdraw", "cup", a, "--db", db, "--reason", "ill").split())
    assert said == f"{a} withdrew from tournament cup (round 1); game cup-r1-t1 ends (no round " \
                   "in play), won by the other team"
    _, err = refused(3, "tournament", "withdraw", "cup", a, "--db", db)
    assert "cannot re-enter" in err and "(already_withdrawn)" in err
    w = json.loads(ok("tournament", "withdraw", "cup", b, "--db", db, "--json"))
    assert (w["player"], w["game"], w["by"]) == (b, "cup-r1-t2", "jaslog tournament withdraw")

    st = json.loads(ok("tournament", "draw", "cup", "--db", db, "--json"))
    [final] = st["rounds"][1]["tables"]
    assert a not in final["seats"] and b not in final["seats"]
    assert sorted(final["seats"]) == sorted(t1["seats"][1::2] + t2["seats"][0::2])
    text = " ".join(ok("tournament", "show", "cup", "--db", db).split())
    assert f"{a} withdrew in round 1" in text and ": ill" in text
    assert f"({a} withdrew)" in text


@pytest.mark.parametrize(("args", "code", "words"), [
    (("--players", "p1,p2,p3,p4,p5"), 2, "needs 4, 8, 16, 32... players"),
    (("--players", "p1,p2,,p4"), 2, "'' is not a player id"),
    (("--players", "p1,p2,p3,p4", "-r", "kloepper"), 2, "(bad_ruleset)"),
    (("--players", "p1,p2,p3,p4", "-r", "nope"), 2, "unknown ruleset 'nope'"),
    (("--players", "p1,p2,p3,p4", "-o", "bogus=1"), 2, "bogus"),
    (("--players", "p1,p2,p3,p4", "--on-timeout", "kick"), 2, "(bad_on_timeout)"),
    (("--players", "p1,p2,p3,p4", "--id", "no way"), 2, "(bad_id)"),
])
def test_new_refuses_bad_input_in_a_sentence(db, args, code, words):
    _, err = refused(code, "tournament", "new", "--db", db, "--name", "x", *args)
    assert words in err


def test_the_parser_refuses_a_time_limit_under_one_second(db):
    r = jaslog("tournament", "new", "--db", db, "--name", "x", "--players", "p1,p2,p3,p4",
               "--move-limit", "0", text=True)
    assert r.returncode == 2 and "--move-limit" in r.stderr and "Traceback" not in r.stderr


def test_unknown_store_tournament_or_player(db, tmp_path):
    _, err = refused(2, "tournament", "show", "cup", "--db", str(tmp_path / "none.sqlite"))
    assert "none.sqlite" in err
    assert not (tmp_path / "none.sqlite").exists()  # reading does not make a store
    _new(db)
    _, err = refused(2, "tournament", "show", "nope", "--db", db)
    assert "no tournament 'nope' (no_such_tournament)" in err
    _, err = refused(2, "tournament", "withdraw", "cup", "zed", "--db", db)
    assert "(no_such_player)" in err


def test_the_service_and_the_command_line_share_their_tournaments(tmp_path):
    db = str(tmp_path / "service.sqlite")
    st = _new(db)
    gid = st["rounds"][0]["tables"][0]["game"]
    with live_service(tmp_path) as live:
        assert live.get("/api/tournaments/cup") == st
        live.append(gid, [{"type": "dealt", "hands": HANDS}])
        leaver = st["rounds"][0]["tables"][0]["seats"][1]
        live.post("/api/tournaments/cup/withdrawals", {"player": leaver}, status=201)
        _, err = refused(3, "tournament", "withdraw", "cup", leaver, "--db", db)
        assert "already_withdrawn" in err
        shown = json.loads(ok("tournament", "show", "cup", "--db", db, "--json"))
        assert shown == live.get("/api/tournaments/cup")
        assert shown["rounds"][0]["tables"][0]["forfeit"] == leaver
        assert shown["rounds"][0]["tables"][0]["totals"] == [162, 0]
