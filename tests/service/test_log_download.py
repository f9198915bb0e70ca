"""GET /api/games/{id}/log: a game's log as a file, byte for byte what `jaslog dump` writes of
the same store with the same sight, and never more than the token may see."""

from __future__ import annotations

import pytest

from jaslog.events import Dealt, GameStarted, parse_event
from jaslog.play.fold import fold
from tests.cli import jaslog
from tests.service.conftest import ROOT, Server, create, record, sim


@pytest.fixture(scope="module")
def live_game(server: Server) -> str:
    """A game whose second round is being played (seat hands hidden from the others)."""
    gid = "log-download-live"
    events = sim(gid, seed=11)[:45]
    with server.client("admin") as c:
        if create(c, gid, events[0]).status_code == 201:
            record(c, gid, events[1:])
    return gid


def dumped(server: Server, game: str, *flags: str) -> bytes:
    """What ``jaslog dump`` writes (run in this process: its real process is tested with the
    store's commands, tests/test_cli_store.py)."""
    out = jaslog("dump", game, "--db", str(server.db), *flags, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize(("role", "query", "flags", "name"), [
    ("admin", {}, [], "log-download-live.jsonl"),
    ("admin", {"format": "text", "bare": "true"}, ["--format", "text", "--bare"],
     "log-download-live.txt"),
    ("admin", {"sight": "seat:1"}, ["--seat", "1"], "log-download-live-seat1.jsonl"),
    ("player2", {}, ["--seat", "2"], "log-download-live-seat2.jsonl"),
    ("player2", {"sight": "public", "format": "text"}, ["--public", "--format", "text"],
     "log-download-live-public.txt"),
    ("public", {}, ["--public"], "log-download-live-public.jsonl"),
])
def test_the_log_is_what_dump_writes(server, live_game, role, query, flags, name):
    with server.client(role) as c:
        r = c.get(f"/api/games/{live_game}/log", params=query)
    assert r.status_code == 200, r.text
    assert r.content == dumped(server, live_game, *flags)
    assert r.headers["content-disposition"] == f'attachment; filename="{name}"'
    want = "text/plain" if query.get("format") == "text" else "application/x-ndjson"
    assert r.headers["content-type"].startswith(want)


def test_a_seat_s_log_hides_the_other_hands_and_still_folds(server, live_game):
    with server.client("player2") as c:
        r = c.get(f"/api/games/{live_game}/log")
    events = [parse_event(line) for line in r.content.splitlines()]
    assert isinstance(events[0], GameStarted) and (events[0].meta or {})["shared"]["seat"] == 2
    deals = [e for e in events if isinstance(e, Dealt)]
    assert deals[0].hands is not None and deals[-1].hands is None  # the live round's: none
    assert len(fold(events).state.rounds) == 2


@pytest.mark.parametrize(("role", "sight", "status", "code"), [
    ("player2", "seat:1", 403, "not_visible"),
    ("player2", "full", 403, "not_visible"),
    ("public", "seat:0", 403, "not_visible"),
    ("admin", "seat:9", 422, "bad_request"),
    ("admin", "everyone", 422, "bad_request"),
])
def test_a_sight_beyond_the_token_is_refused(server, live_game, role, sight, status, code):
    with server.client(role) as c:
        r = c.get(f"/api/games/{live_game}/log", params={"sight": sight})
    assert r.status_code == status, r.text
    assert r.json()["code"] == code


def test_unknown_parameters_formats_and_games_are_refused(server, live_game):
    with server.client("admin") as c:
        r = c.get(f"/api/games/{live_game}/log", params={"seat": "1"})
        assert r.status_code == 422 and r.json()["code"] == "unknown_parameter", r.text
        assert "sight" in r.json()["message"]
        r = c.get(f"/api/games/{live_game}/log", params={"format": "pgn"})
        assert r.status_code == 422 and r.json()["code"] == "bad_request", r.text
        r = c.get("/api/games/no-such-game-here/log")
        assert r.status_code == 404 and r.json()["code"] == "no_such_game", r.text
    with server.client() as c:
        assert c.get(f"/api/games/{live_game}/log").status_code == 401


def test_a_full_log_round_trips(server, live_game):
    with server.client("referee") as c:
        r = c.get(f"/api/games/{live_game}/log")
    events = [parse_event(line) for line in r.content.splitlines()]
    assert len(events) == 45 and events[0].type == "game_started"
