"""A real jaslog service for the tests: `jaslog serve` on 127.0.0.1, a free port, a temporary
SQLite store, and a token for every role. Requests go over real HTTP with httpx."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from jaslog.service.auth import Tokens
from jaslog.service.db import service_engine
from jaslog.store import open_store

ROOT = Path(__file__).resolve().parents[2]
JASLOG = [sys.executable, "-m", "jaslog"]

#: The players of the games the tests record (seats 0-3).
SEATS = ["ann", "bob", "cor", "dirk"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    url: str
    db: Path
    proc: subprocess.Popen[bytes]
    log: Path
    tokens: dict[str, str] = field(default_factory=dict)

    def client(self, role: str | None = None, **kw: Any) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.tokens[role]}"} if role else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30, **kw)

    def token(self, role: str, **kw: Any) -> str:
        """A new token straight from the token tables (as `jaslog token create` makes)."""
        text, _ = Tokens(service_engine(str(self.db))).create(role, **kw)
        return text


def start_server(db: Path, log: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    """``jaslog serve`` on the store ``db`` (and the options ``extra``), on a free port."""
    for _ in range(5):
        port = free_port()
        with open(log, "ab") as out:
            proc = subprocess.Popen(
                [*JASLOG, "serve", "--db", str(db), "--host", "127.0.0.1", "--port", str(port),
                 "--log-level", "warning", "--auth-failures", "100000",  # the tests guess a lot
                 *extra],
                stdout=out, stderr=subprocess.STDOUT, cwd=ROOT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if httpx.get(url + "/openapi.json", timeout=2).status_code == 200:
                    return proc, url
            except httpx.TransportError:
                time.sleep(0.1)
        proc.kill()
        proc.wait()
    raise RuntimeError(f"the server did not start; see {log}:\n{log.read_text()[-3000:]}")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def make_server(tmp: Path, *extra: str) -> Generator[Server, None, None]:
    db = tmp / "service.sqlite"
    open_store(str(db)).close()
    tokens = Tokens(service_engine(str(db)))
    made = {
        "admin": tokens.create("admin", label="tests")[0],
        "referee": tokens.create("referee")[0],
        "scorer": tokens.create("scorer", table="1")[0],
        "scorer2": tokens.create("scorer", table="2")[0],
        "public": tokens.create("public")[0],
    }
    for i, p in enumerate(SEATS):
        made[f"player{i}"] = tokens.create("player", player=p)[0]
    tokens.engine.dispose()
    log = tmp / "server.log"
    proc, url = start_server(db, log, *extra)
    try:
        yield Server(url, db, proc, log, made)
    finally:
        stop_server(proc)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One service for the session's tests (games get unique ids), at log level info: its
    access log, every request with its query string, is in ``server.log`` for the tests
    that read it (no token may be there)."""
    yield from make_server(tmp_path_factory.mktemp("service"), "--log-level", "info")


_counter = iter(range(1_000_000))


@pytest.fixture
def gid(request: pytest.FixtureRequest) -> str:
    """A fresh game id for this test."""
    name = "".join(c if c.isalnum() else "-" for c in request.node.name)[:60]
    return f"{name}-{next(_counter)}-{os.getpid()}"


_RECORDED_AT = re.compile(r'"recorded_at":"[^"]*"')
_LONGEST = re.compile(r'"longest":[0-9.eE+-]+')


def unstamped(text: str) -> str:
    """An answer with what the service's clock said blanked: each ``recorded_at`` (the moment
    an event arrived, which differs between two games recorded one after the other) and the
    longest move timed on it.

    >>> unstamped('{"seq":1,"recorded_at":"2026-12-01T20:00:00.000Z","seat":2}')
    '{"seq":1,"recorded_at":"-","seat":2}'
    """
    return _LONGEST.sub('"longest":-', _RECORDED_AT.sub('"recorded_at":"-"', text))


def as_sent(e: dict[str, Any], *drop: str) -> dict[str, Any]:
    """A stored event as its client sent it: without ``recorded_at`` (which it must carry:
    the store stamps every event appended live) nor the fields ``drop``."""
    assert isinstance(e.get("recorded_at"), str) and e["recorded_at"].endswith("Z"), e
    return {k: v for k, v in e.items() if k != "recorded_at" and k not in drop}


def body_of(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Simulated events as a client sends them: without game and seq."""
    return [{k: v for k, v in e.items() if k not in ("game", "seq")} for e in events]


def create(c: httpx.Client, gid: str, started: dict[str, Any], **meta: Any) -> httpx.Response:
    body = {"game": gid, "ruleset": started["ruleset"], "seats": started["seats"],
            "dealer": started["dealer"]}
    if started.get("options"):
        body["options"] = started["options"]
    if meta:
        body["meta"] = meta
    if started.get("at"):
        body["at"] = started["at"]
    return c.post("/api/games", json=body)


def record(c: httpx.Client, gid: str, events: list[dict[str, Any]], start: int = 1,
           batch: int = 50) -> None:
    """Append ``events`` (seq ``start`` on) in batches, asserting each batch is stored."""
    for i in range(0, len(events), batch):
        part = events[i:i + batch]
        r = c.post(f"/api/games/{gid}/events",
                   json={"expected_seq": start + i, "events": body_of(part)})
        assert r.status_code == 200, r.text


def timed(events: list[dict[str, Any]], step: float = 5.0, slow: dict[int, float] | None = None,
          start: str = "2026-11-27T19:30:00") -> list[dict[str, Any]]:
    """The events with ``at`` times ``step`` seconds apart (``slow``: seq -> seconds instead)."""
    from datetime import datetime, timedelta

    t = datetime.fromisoformat(start)
    out = []
    for e in events:
        if e["seq"]:
            t += timedelta(seconds=(slow or {}).get(e["seq"], step))
        out.append({**e, "at": t.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"})
    return out


def sim(gid: str, seed: int = 1, *, seats: list[str] | None = None, ruleset: str = "amsterdam",
        options: dict[str, Any] | None = None, **kw: Any) -> list[dict[str, Any]]:
    """A simulated game at the tests' seats."""
    from jaslog.play.sim import simulate_game

    return simulate_game(gid, ruleset, options, seed=seed, seats=seats or SEATS, **kw)


#: The browser the web pages are tested in, and how it is started.
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A real headless Chromium (Playwright), one per test module that asks for it."""
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        pytest.fail("Chromium is missing: `apt-get install chromium` (scripts/setup does it)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
