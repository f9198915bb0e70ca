"""The service in this process, for tests that move its clock: ``create_app`` on a real
SQLite file and a :class:`~jaslog.store.clock.ManualClock`, requests through Starlette's
TestClient (real HTTP semantics, no socket), a token for every role."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from jaslog.cards import CARD_TEXT
from jaslog.service import create_app
from jaslog.store.clock import ManualClock, stamp, system_clock

with warnings.catch_warnings():  # Starlette's notice that it would rather have httpx2
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient

#: A deal whose hands are known: seat s holds every card whose rank is s modulo 4 (seat 0
#: the sevens and jacks, 1 the eights and queens, 2 the nines and kings, 3 tens and aces).
HANDS = [[CARD_TEXT[c] for c in range(32) if c % 4 == s] for s in range(4)]


@dataclass
class Live:
    app: FastAPI
    client: TestClient
    clock: ManualClock
    db: Path
    tokens: dict[str, str] = field(default_factory=dict)

    def as_(self, role: str) -> dict[str, str]:
        """The headers of a request made with the token of ``role``."""
        return {"Authorization": f"Bearer {self.tokens[role]}"}

    def get(self, url: str, role: str = "admin") -> Any:
        r = self.client.get(url, headers=self.as_(role))
        assert r.status_code == 200, r.text
        return r.json()

    def post(self, url: str, body: Any = None, role: str = "admin",
             status: int | None = None) -> Any:
        r = self.client.post(url, json=body, headers=self.as_(role))
        if status is not None:
            assert r.status_code == status, r.text
        return r

    def append(self, game: str, events: list[dict[str, Any]], role: str = "admin") -> Any:
        head = self.get(f"/api/games/{game}/head")
        r = self.post(f"/api/games/{game}/events",
                      {"expected_seq": head["next_seq"], "events": events}, role)
        assert r.status_code == 200, r.text
        return r.json()

    def events(self, game: str) -> list[dict[str, Any]]:
        return list(self.get(f"/api/games/{game}/events")["events"])

    def clock_check(self, tid: str) -> list[dict[str, Any]]:
        """``POST /api/tournaments/{tid}/clock``: the events the move clock appended."""
        r = self.post(f"/api/tournaments/{tid}/clock", status=200)
        return list(r.json()["appended"])


@contextmanager
def live_service(tmp: Path, *, background: float | None = None,
                 players: list[str] | None = None) -> Iterator[Live]:
    """The service on ``tmp``/service.sqlite, its clock a ManualClock set to the machine's
    time now (events the service stamps on arrival are then never ahead of it). The
    background move clock runs every ``background`` seconds (None: not at all)."""
    db = tmp / "service.sqlite"
    clock = ManualClock(stamp(system_clock()))
    app = create_app(str(db), clock=clock)
    app.state.move_clock_every = background or 0
    svc = app.state.service
    tokens = {"admin": svc.tokens.create("admin")[0], "referee": svc.tokens.create("referee")[0],
              "public": svc.tokens.create("public")[0]}
    for p in players or []:
        tokens[p] = svc.tokens.create("player", player=p)[0]
    with TestClient(app) as client:
        yield Live(app, client, clock, db, tokens)
