"""The service when its database fails it: read-only, a lock held past the lock timeout, a
full disk, a PostgreSQL restart. Each answer is the service's JSON error with a code: 503
with ``Retry-After`` for what may pass (busy, unreachable, full), 503 without it for a
read-only store; reading goes on where the database lets it; never a plain-text 500 or a
traceback. What was acknowledged stays stored, once, and every chain verifies."""

from __future__ import annotations

import sqlite3
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from jaslog.play.sim import simulate_game
from jaslog.service import create_app
from jaslog.store import open_store
from tests.service.conftest import body_of
from tests.store.faults import read_only, restartable_pg, small_disk

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient


@contextmanager
def service_on(url: str, prepare: Any = None) -> Iterator[tuple[TestClient, dict[str, str]]]:
    """The service on the store at ``url`` (made, with an admin token, before ``prepare``
    runs: a read-only store needs its tables first)."""
    open_store(url).close()
    from jaslog.service.auth import Tokens
    from jaslog.service.db import service_engine

    engine = service_engine(url)
    token = Tokens(engine).create("admin")[0]
    engine.dispose()
    with (prepare() if prepare is not None else _nothing()), TestClient(create_app(url)) as c:
        yield c, {"Authorization": f"Bearer {token}"}


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def _start(c: TestClient, auth: dict[str, str], gid: str) -> list[dict[str, Any]]:
    g = simulate_game(gid, seed=3)
    r = c.post("/api/games", json={"game": gid, "ruleset": "amsterdam", "seats": g[0]["seats"],
                                   "dealer": g[0]["dealer"]}, headers=auth)
    assert r.status_code == 201, r.text
    return body_of(g)


def _append(c: TestClient, auth: dict[str, str], gid: str, seq: int,
            events: list[dict[str, Any]]) -> httpx.Response:
    return c.post(f"/api/games/{gid}/events", json={"expected_seq": seq, "events": events},
                  headers=auth)


def _unavailable(r: httpx.Response, code: str, retry: bool) -> None:
    assert r.status_code == 503, r.text
    assert r.headers["content-type"] == "application/json"
    assert r.json()["code"] == code and r.json()["message"]
    assert ("retry-after" in r.headers) is retry, r.headers


def test_a_lock_held_past_the_timeout_is_503_busy(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JASLOG_LOCK_TIMEOUT", "0.3")
    db = str(tmp_path / "s.sqlite")
    with service_on(db) as (c, auth):
        g = _start(c, auth, "busy-1")
        assert _append(c, auth, "busy-1", 1, g[1:10]).status_code == 200
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            r = _append(c, auth, "busy-1", 10, g[10:20])
            _unavailable(r, "store_busy", retry=True)
            assert r.headers["retry-after"] == "5"
            assert c.get("/api/games/busy-1/head", headers=auth).json()["next_seq"] == 10
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert _append(c, auth, "busy-1", 10, g[10:20]).status_code == 200
    with open_store(db) as s:
        assert s.head("busy-1").next_seq == 20 and s.verify().ok


def test_a_read_only_store_is_read_and_writes_are_503(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    with service_on(str(db)) as (c, auth):
        g = _start(c, auth, "ro-1")
        assert _append(c, auth, "ro-1", 1, g[1:10]).status_code == 200
    with service_on(str(db), lambda: read_only(db)) as (c, auth):
        assert c.get("/api/games/ro-1/head", headers=auth).json()["next_seq"] == 10
        _unavailable(_append(c, auth, "ro-1", 10, g[10:20]), "store_read_only", retry=False)
        r = c.post("/api/games", json={"ruleset": "amsterdam", "seats": ["a", "b", "c", "d"]},
                   headers=auth)
        _unavailable(r, "store_read_only", retry=False)
    with open_store(str(db)) as s:
        assert s.head("ro-1").next_seq == 10 and s.verify().ok


def test_a_full_disk_is_503_and_keeps_what_was_acknowledged(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", "700k") as disk:
        db = str(disk / "s.sqlite")
        acknowledged: dict[str, int] = {}
        with service_on(db) as (c, auth):
            for i in range(300):
                gid = f"full-{i}"
                sim = simulate_game(gid, seed=i)
                r = c.post("/api/games", json={"game": gid, "ruleset": "amsterdam",
                                               "seats": sim[0]["seats"],
                                               "dealer": sim[0]["dealer"]}, headers=auth)
                if r.status_code != 201:
                    break
                acknowledged[gid] = 1
                r = _append(c, auth, gid, 1, body_of(sim)[1:200])
                if r.status_code != 200:
                    break
                acknowledged[gid] = 200
            _unavailable(r, "store_full", retry=True)
            assert "the store's disk is full" in r.json()["message"]
        with open_store(db) as s:
            assert s.verify().ok
            for gid, n in acknowledged.items():
                assert s.head(gid).next_seq == n


def test_a_postgresql_restart_is_503_then_goes_on(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JASLOG_KEYS", str(tmp_path / "keys"))
    with restartable_pg() as server, service_on(server.url) as (c, auth):
        g = _start(c, auth, "pg-1")
        assert _append(c, auth, "pg-1", 1, g[1:10]).status_code == 200
        server.stop(remove=False)
        for r in (c.get("/api/games", headers=auth), c.get("/api/games/pg-1/head", headers=auth),
                  _append(c, auth, "pg-1", 10, g[10:20])):
            _unavailable(r, "store_unreachable", retry=True)
        server.start()
        assert _append(c, auth, "pg-1", 10, g[10:20]).status_code == 200
        assert c.get("/api/games/pg-1/head", headers=auth).json()["next_seq"] == 20
        with open_store(server.url) as s:
            assert s.verify().ok and [e.seq for e in s.events("pg-1")] == list(range(20))
