"""Two clocks in the service (rule book 9.1, decision 14), and who may append the events that
repair a record (decisions 9-11): the real app on a real SQLite file, its clock a
ManualClock, so that every stamp and every move time is known in advance."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.play.sim import simulate_game
from jaslog.service import create_app
from jaslog.store import open_store
from jaslog.store.clock import ManualClock
from tests.service.conftest import SEATS, body_of

with warnings.catch_warnings():  # Starlette's notice that it would rather have httpx2
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient

START = "2026-12-01T20:00:00.000Z"


@dataclass
class App:
    client: TestClient
    clock: ManualClock
    db: Path
    tokens: dict[str, str]

    def call(self, method: str, url: str, role: str, body: Any = None) -> Any:
        return self.client.request(method, url, json=body,
                                   headers={"Authorization": f"Bearer {self.tokens[role]}"})

    def append(self, game: str, events: list[dict[str, Any]], role: str = "scorer",
               expected: int | None = None) -> Any:
        """POST the events at ``expected`` (default: the game's next seq)."""
        seq = self.next_seq(game) if expected is None else expected
        body: dict[str, Any] = {"events": events, "expected_seq": seq}
        return self.call("POST", f"/api/games/{game}/events", role, body)

    def events(self, game: str) -> list[dict[str, Any]]:
        r = self.call("GET", f"/api/games/{game}/events", "admin")
        assert r.status_code == 200, r.text
        return list(r.json()["events"])

    def next_seq(self, game: str) -> int:
        return int(self.call("GET", f"/api/games/{game}/head", "admin").json()["next_seq"])


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    """The service on a fresh SQLite store, its clock stopped at :data:`START`."""
    clock = ManualClock(START)
    db = tmp_path / "service.sqlite"
    application = create_app(str(db), clock=clock)
    assert application.state.clock is clock
    svc = application.state.service
    tokens = {"admin": svc.tokens.create("admin")[0], "referee": svc.tokens.create("referee")[0],
              "scorer": svc.tokens.create("scorer", table="1")[0],
              "scorer2": svc.tokens.create("scorer", table="2")[0],
              "player": svc.tokens.create("player", player=SEATS[2])[0],
              "public": svc.tokens.create("public")[0]}
    with TestClient(application) as client:
        yield App(client, clock, db, tokens)


def new_game(app: App, gid: str, seed: int = 3, role: str = "scorer") -> list[dict[str, Any]]:
    """Create ``gid`` at table 1 (a simulated game's start); its simulated events."""
    events = simulate_game(gid, "amsterdam", seed=seed, seats=SEATS)
    r = app.call("POST", "/api/games", role, {"game": gid, "ruleset": "amsterdam",
                                              "seats": SEATS, "dealer": events[0]["dealer"],
                                              "meta": {"table": "1"}})
    assert r.status_code == 201, r.text
    return events


# ---------------------------------------------------------------------- recorded_at


def test_every_event_is_stamped_by_the_service_clock(app: App) -> None:
    events = new_game(app, "c-1")
    app.clock.advance(40)
    assert app.append("c-1", body_of(events[1:2])).status_code == 200  # the deal
    app.clock.advance(12.5)
    assert app.append("c-1", body_of(events[2:4])).status_code == 200  # the bid and the lead
    told = {**body_of(events[4:5])[0], "at": "2026-12-01T19:59:58Z"}   # the table's own time
    app.clock.advance(3)
    assert app.append("c-1", [told]).status_code == 200
    got = [(e["seq"], e.get("at"), e["recorded_at"]) for e in app.events("c-1")]
    assert got == [
        (0, START, START),
        (1, "2026-12-01T20:00:40.000Z", "2026-12-01T20:00:40.000Z"),
        (2, "2026-12-01T20:00:52.500Z", "2026-12-01T20:00:52.500Z"),
        (3, "2026-12-01T20:00:52.500Z", "2026-12-01T20:00:52.500Z"),
        (4, "2026-12-01T19:59:58Z", "2026-12-01T20:00:55.500Z"),
    ]


def test_a_client_recorded_at_is_refused(app: App) -> None:
    events = new_game(app, "c-2")
    sent = {**body_of(events[1:2])[0], "recorded_at": "2026-12-01T20:00:00Z"}
    r = app.append("c-2", [sent], expected=1)
    assert r.status_code == 422
    assert r.json()["code"] == "recorded_at_given"
    assert "recorded_at is set by the store's own clock; leave it out" in r.json()["message"]
    assert app.next_seq("c-2") == 1
    r = app.call("POST", "/api/games", "admin", {"game": "c-2b", "ruleset": "amsterdam",
                                                 "seats": SEATS, "recorded_at": START})
    assert (r.status_code, r.json()["code"]) == (422, "recorded_at_given")
    assert app.call("GET", "/api/games/c-2b", "admin").status_code == 404
    # the API's schema does not offer it
    schema = app.client.get("/openapi.json").json()["components"]["schemas"]["GameIn"]
    assert "recorded_at" not in schema["properties"]


def test_an_at_more_than_5_minutes_ahead_is_refused(app: App) -> None:
    events = new_game(app, "c-3")
    deal, bid = body_of(events[1:3])
    r = app.append("c-3", [deal, {**bid, "at": "2026-12-01T20:06:00Z"}], expected=1)
    assert r.status_code == 422
    body = r.json()
    assert (body["code"], body["seq"]) == ("at_in_future", 2)
    assert body["message"].startswith("game c-3 seq 2: at 2026-12-01T20:06:00Z is more than 5 "
                                      "minutes ahead of the store's clock (2026-12-01T20:00:00.000Z)")
    assert app.next_seq("c-3") == 1  # not even the deal
    r = app.append("c-3", [deal, {**bid, "at": "2026-12-01T20:04:00Z"}], expected=1)
    assert r.status_code == 200, r.text
    r = app.call("POST", "/api/games", "admin", {"game": "c-3b", "ruleset": "amsterdam",
                                                 "seats": SEATS, "at": "2026-12-01T20:06:00Z"})
    assert (r.status_code, r.json()["code"]) == (422, "at_in_future")


@pytest.mark.parametrize("with_at", [False, True])
def test_a_retry_after_the_clock_moved_is_recognised(app: App, with_at: bool) -> None:
    events = new_game(app, "c-4")
    batch = [{**e, "id": f"00000000-0000-4000-8000-{i:012d}"}
             for i, e in enumerate(body_of(events[1:6]), 1)]
    if with_at:
        batch = [{**e, "at": "2026-12-01T19:59:00Z"} for e in batch]
    first = app.append("c-4", batch, expected=1).json()
    assert (first["appended"], first["already_stored"]) == (5, 0)
    app.clock.advance(20)  # the answer was lost; the client sends the batch again later
    again = app.append("c-4", batch, expected=1)
    assert again.status_code == 200, again.text
    assert (again.json()["appended"], again.json()["already_stored"]) == (0, 5)
    assert again.json()["head_hash"] == first["head_hash"]
    assert {e["recorded_at"] for e in app.events("c-4")[1:]} == {START}


# ---------------------------------------------------------------------- timing


def test_a_live_game_is_timed_on_recorded_at(app: App) -> None:
    events = new_game(app, "c-5")
    # the table's at says every move took 1 s; the store's clock says otherwise
    sent = [{**e, "at": f"2026-12-01T19:00:{i:02d}Z"} for i, e in enumerate(body_of(events[1:6]))]
    for e, wait in zip(sent, (10, 45, 5, 31, 29.5), strict=True):
        app.clock.advance(wait)
        assert app.append("c-5", [e]).status_code == 200
    t = app.call("GET", "/api/games/c-5/timing?limit=30", "admin").json()
    assert t["clock"] == "recorded_at"
    assert (t["moves"], t["untimed"], t["longest"]) == (4, 0, 45.0)
    assert [(x["seq"], x["type"], x["seconds"]) for x in t["exceeded"]] == \
        [(2, "bid", 45.0), (4, "play", 31.0)]
    replay = app.call("GET", "/api/games/c-5/replay", "admin").json()
    assert replay["timing"]["clock"] == "recorded_at"


def test_an_imported_archive_is_timed_on_at(app: App) -> None:
    events = simulate_game("c-6", "amsterdam", seed=6, seats=SEATS, at="2026-11-20T19:00:00Z")
    with open_store(str(app.db)) as s:
        assert s.import_lines([orjson.dumps(e) + b"\n" for e in events]).ok
    t = app.call("GET", "/api/games/c-6/timing?limit=30", "admin").json()
    assert t["clock"] == "at"
    # the simulator's table takes 40 s from a deal to its first bid, 4-9 s for other moves
    assert (t["untimed"], t["longest"]) == (0, 40.0)
    rounds = sum(e["type"] == "dealt" for e in events)
    assert [(x["type"], x["seconds"]) for x in t["exceeded"]] == [("bid", 40.0)] * rounds


# ---------------------------------------------------------------------- who may repair a record


def typo(app: App, gid: str) -> list[dict[str, Any]]:
    """A game at table 1 whose seq 3 is a scorer's typo: seat 2 led AS; it led JS."""
    events = new_game(app, gid)
    assert app.append(gid, body_of(events[1:3]), expected=1).status_code == 200
    assert events[3]["card"] == "JS"
    wrong = {"type": "play", "seat": 2, "card": "AS"}
    assert app.append(gid, [wrong], expected=3).status_code == 200
    return events


def test_a_scorer_corrects_a_typo_at_its_own_table(app: App) -> None:
    events = typo(app, "r-1")
    fix = {"type": "correction", "retracts": [3], "reason": "typo: JS was led"}
    r = app.append("r-1", [fix], expected=4)
    assert r.status_code == 200, r.text
    assert app.append("r-1", body_of(events[3:8]), expected=5).status_code == 200
    audit = app.call("GET", "/api/games/r-1/audit", "scorer").json()
    assert [(x["seq"], x["by"], x["reason"]) for x in audit["retracted"]] == \
        [(3, 4, "typo: JS was led")]
    assert audit["violations"] == []  # the game goes on as if AS was never led
    stored = app.events("r-1")
    assert stored[3]["card"] == "AS" and stored[4]["type"] == "correction"  # kept in the log


def test_a_scorer_of_another_table_may_not_correct(app: App) -> None:
    typo(app, "r-2")
    r = app.append("r-2", [{"type": "correction", "retracts": [3], "reason": "x"}], "scorer2", 4)
    assert (r.status_code, r.json()["code"]) == (403, "other_table")
    for kind in ({"type": "irregularity", "kind": "exposed_card", "seat": 1, "cards": ["7H"]},
                 {"type": "round_score", "round": 1, "score": [100, 62]}):
        r = app.append("r-2", [kind], "scorer2", 4)
        assert (r.status_code, r.json()["code"]) == (403, "other_table")
    assert app.next_seq("r-2") == 4


def test_a_referee_corrects_any_game(app: App) -> None:
    typo(app, "r-3")
    r = app.append("r-3", [{"type": "correction", "retracts": [3], "reason": "typo"}],
                   "referee", 4)
    assert r.status_code == 200, r.text
    r = app.append("r-3", [{"type": "irregularity", "kind": "lead_out_of_turn", "seat": 1,
                            "cards": ["10C"], "text": "bob led before cor"}], "referee", 5)
    assert r.status_code == 200, r.text
    # still no plays for a referee
    r = app.append("r-3", [{"type": "play", "seat": 2, "card": "JS"}], "referee", 6)
    assert (r.status_code, r.json()["code"]) == (403, "scorer_only")
    assert "a referee appends rulings, notes, corrections, irregularities and round scores" \
        in r.json()["message"]


def test_scorer_and_referee_record_a_round_by_its_score(app: App) -> None:
    new_game(app, "r-4")
    r = app.append("r-4", [{"type": "round_score", "round": 1, "score": [100, 62]}], "scorer", 1)
    assert r.status_code == 200, r.text
    r = app.append("r-4", [{"type": "round_score", "round": 2, "score": [90, 72]}], "referee", 2)
    assert r.status_code == 200, r.text
    assert app.call("GET", "/api/games/r-4", "admin").json()["totals"] == [190, 134]


def test_a_player_never_corrects(app: App) -> None:
    typo(app, "r-5")
    for role in ("player", "public"):
        r = app.append("r-5", [{"type": "correction", "retracts": [3], "reason": "x"}], role, 4)
        assert (r.status_code, r.json()["code"]) == (403, "forbidden")
        assert r.json()["role"] == role
    assert app.next_seq("r-5") == 4


@pytest.mark.parametrize(("retracts", "code", "seq"), [
    ([2], "retract_not_latest", 4),   # the bid, not the latest event
    ([9], "retract_unknown_seq", 4),  # not in the log
    ([3, 3], "retract_twice", 4),
])
def test_a_correction_the_fold_refuses_reaches_the_client_with_its_code(
        app: App, retracts: list[int], code: str, seq: int) -> None:
    typo(app, "r-6")
    r = app.append("r-6", [{"type": "correction", "retracts": retracts, "reason": "x"}], "scorer", 4)
    assert r.status_code == 422, r.text
    body = r.json()
    assert (body["code"], body["seq"], body["game"]) == (code, seq, "r-6")
    assert body["message"] and f"[{code}]" in body["detail"]
    assert app.next_seq("r-6") == 4  # nothing stored


def test_a_scorer_does_not_retract_a_ruling_nor_record_a_timeout(app: App) -> None:
    typo(app, "r-7")
    r = app.append("r-7", [{"type": "ruling", "round": 1, "score": [0, 162], "reason": "r"}],
                   "referee", 4)
    assert r.status_code == 200, r.text
    r = app.append("r-7", [{"type": "correction", "retracts": [4], "reason": "x"}], "scorer", 5)
    assert (r.status_code, r.json()["code"], r.json()["seq"]) == (403, "referee_only", 4)
    for role in ("scorer", "referee"):
        r = app.append("r-7", [{"type": "timeout", "seat": 2, "seconds": 31}], role, 5)
        assert (r.status_code, r.json()["code"]) == (403, "service_only")
    assert app.next_seq("r-7") == 5
