"""The solver behind ``POST /api/oracle`` holds nothing up: a hard deal's solve runs in a
worker thread (the compiled core without the GIL) while the service answers everyone else
at once; it stops at its budget with 422 ``too_hard``; a token gets so many solves a minute
(429 ``too_many_solves``, ``Retry-After``). The hard solves run at once beside a server
answering are a load test: ``make soak``."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from jaslog.analysis import Budget
from jaslog.service.solves import ANALYSIS_NODES, SolveLimits, SolveRate
from jaslog.store import open_store
from tests.analysis.test_solver_budget import HARD_DEAL
from tests.service.conftest import start_server, stop_server
from tests.service.inprocess import live_service

#: an easy question for the solver: the last two tricks
EASY = {"op": "solve", "ruleset": "amsterdam", "trump": "H", "chooser": 0, "leader": 1,
        "hands": [["JH", "AS"], ["8S"], ["QC", "10C"], ["7D", "AC"]], "trick": ["KS"],
        "tricks": [4, 2], "points": [63, 30], "roem": [20, 0]}


@pytest.mark.soak
def test_the_service_answers_at_once_while_hard_solves_run(tmp_path: Path) -> None:
    """Three solves of a deal hill-climbed to be hard, each allowed 4 s, run at once; the
    whole while, a public token's /api/whoami answers within a second, every time. Then each
    solve is 422 too_hard, past its 4 s and well before the minute it would take whole."""
    from jaslog.service.auth import Tokens
    from jaslog.service.db import service_engine

    db = tmp_path / "service.sqlite"
    open_store(str(db)).close()
    tokens = Tokens(service_engine(str(db)))
    public = tokens.create("public")[0]
    tokens.engine.dispose()
    proc, url = start_server(db, tmp_path / "server.log", "--solve-seconds", "4",
                             "--solve-nodes", "0")
    headers = {"Authorization": f"Bearer {public}"}
    answers: list[tuple[httpx.Response, float]] = []

    def solve() -> None:
        started = time.monotonic()
        r = httpx.post(f"{url}/api/oracle", json=HARD_DEAL, headers=headers, timeout=120)
        answers.append((r, time.monotonic() - started))

    try:
        solvers = [threading.Thread(target=solve) for _ in range(3)]
        for t in solvers:
            t.start()
        time.sleep(0.5)  # the solves are under way
        waits: list[float] = []
        with httpx.Client(base_url=url, headers=headers, timeout=60) as c:
            while any(t.is_alive() for t in solvers) and len(waits) < 40:
                started = time.monotonic()
                r = c.get("/api/whoami")
                waits.append(time.monotonic() - started)
                assert r.status_code == 200 and r.json()["role"] == "public"
                time.sleep(0.1)
        for t in solvers:
            t.join()
    finally:
        stop_server(proc)
    assert len(waits) >= 5, waits
    assert max(waits) < 1.0, waits
    assert len(answers) == 3
    for r, took in answers:
        assert r.status_code == 422 and r.json()["code"] == "too_hard", r.text
        assert "too hard to solve within the budget of 4 s" in r.json()["message"]
        assert 4 <= took < 30, took


def _limits(nodes: int = 0, seconds: float = 0.0, per_minute: int = 30) -> SolveLimits:
    return SolveLimits(Budget(nodes=nodes, seconds=seconds), SolveRate(limit=per_minute))


def test_a_solve_past_its_budget_is_too_hard(tmp_path: Path) -> None:
    with live_service(tmp_path) as live:
        live.app.state.solve_limits = _limits(nodes=100_000)
        started = time.monotonic()
        r = live.post("/api/oracle", HARD_DEAL, role="public", status=422)
        body: dict[str, Any] = r.json()
        assert body["code"] == "too_hard" and body["budget"] == {"nodes": 100_000, "seconds": 0}
        assert body["nodes"] >= 100_000
        assert "100,000 positions" in body["message"]
        assert time.monotonic() - started < 20
        # an easy position is answered within the budget, as the oracle answers it
        r = live.post("/api/oracle", EASY, role="public", status=200)
        assert r.json() == {"par": 122, "best": ["QC", "10C"], "values": {"QC": 122, "10C": 122}}


def test_the_default_budget_stops_a_hard_deal_within_seconds(tmp_path: Path) -> None:
    with live_service(tmp_path) as live:
        started = time.monotonic()
        r = live.post("/api/oracle", HARD_DEAL, role="public", status=422)
        took = time.monotonic() - started
        assert r.json()["code"] == "too_hard", r.text
        assert took < 5, took


def test_a_token_gets_so_many_solves_a_minute(tmp_path: Path) -> None:
    with live_service(tmp_path, players=["ann"]) as live:
        live.app.state.solve_limits = _limits(per_minute=3)
        for _ in range(3):
            live.post("/api/oracle", EASY, role="public", status=200)
        r = live.post("/api/oracle", EASY, role="public", status=429)
        assert r.json()["code"] == "too_many_solves"
        wait = int(r.headers["Retry-After"])
        assert 1 <= wait <= 60 and r.json()["retry_after"] == wait
        assert "3 solves within 60 s" in r.json()["message"]
        # the other questions of the oracle are not solves, and another token has its own
        live.post("/api/oracle", {"op": "winner", "ruleset": "amsterdam", "trump": "H",
                                  "trick": ["AS", "7H"]}, role="public", status=200)
        live.post("/api/oracle", EASY, role="ann", status=200)
        # a query the oracle cannot read is still said as such
        r = live.post("/api/oracle", {**EASY, "hands": [["JH"]]}, role="ann", status=422)
        assert r.json()["code"] == "bad_query"


def test_a_round_too_hard_to_analyse_within_the_budget_is_too_hard(tmp_path: Path) -> None:
    """The analysis of a round has a budget of its own: past it, 422 too_hard naming the
    game and round; nothing of it is cached, so within a larger one it is answered."""
    from jaslog.play.sim import simulate_game

    events = simulate_game("hard-1", seed=4)
    with live_service(tmp_path) as live:
        first = {k: v for k, v in events[0].items() if k not in ("type", "seq")}
        live.post("/api/games", first, status=201)
        live.append("hard-1", [{k: v for k, v in e.items() if k not in ("game", "seq")}
                               for e in events[1:40]])
        live.app.state.solve_limits = SolveLimits(analysis=Budget(nodes=2_000))
        r = live.client.get("/api/games/hard-1/analysis?round=1", headers=live.as_("referee"))
        assert r.status_code == 422, r.text
        body = r.json()
        assert (body["code"], body["game"], body["round"]) == ("too_hard", "hard-1", 1)
        assert body["budget"] == {"nodes": 2_000, "seconds": 0.0}
        # the default positions, its seconds off: a busy machine's slowness is not the point
        live.app.state.solve_limits = SolveLimits(analysis=Budget(nodes=ANALYSIS_NODES))
        assert live.get("/api/games/hard-1/analysis?round=1", "referee")["round"] == 1
