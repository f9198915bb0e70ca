"""The analysis on the service (``GET /api/games/{game}/analysis?round=R``): a round's par and
what each costly play cost, as ``jaslog analyze --json`` gives it, shown as the round's hands
are: the referee at any time, a seat once the round's last card is played, the public once the
round is over; and in the web viewer, a badge on each costly card."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jaslog.analysis import Budget
from jaslog.play.sim import simulate_game
from jaslog.service.solves import ANALYSIS_NODES, SolveLimits
from tests.cli import jaslog
from tests.service.conftest import ROOT, SEATS, Server, record
from tests.service.inprocess import Live, live_service

REPLAYS = ROOT / "replays"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """The service, its analysis held to the positions of its budget but not to its seconds:
    how long a busy machine takes is not what these tests are about (the budget's seconds are
    tests/service/test_solver_limits.py's), and ``jaslog analyze`` has none."""
    with live_service(tmp_path_factory.mktemp("analysis"), players=SEATS) as lv:
        lv.app.state.solve_limits = SolveLimits(analysis=Budget(nodes=ANALYSIS_NODES))
        yield lv


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def store(live: Live, events: list[dict[str, Any]]) -> str:
    s = events[0]
    gid = s["game"]
    first = {k: v for k, v in s.items() if k not in ("type", "seq")}
    live.post("/api/games", first, status=201)
    body = [{k: v for k, v in e.items() if k not in ("game", "seq")} for e in events[1:]]
    live.post(f"/api/games/{gid}/events", {"expected_seq": 1, "events": body}, status=200)
    return gid


def ask(live: Live, gid: str, rnd: int, role: str = "referee", status: int = 200) -> Any:
    r = live.client.get(f"/api/games/{gid}/analysis?round={rnd}", headers=live.as_(role))
    assert r.status_code == status, r.text
    return r.json()


def cli_rounds(path: Path) -> dict[str, Any]:
    r = jaslog("analyze", str(path), "--json", text=True)
    assert r.returncode == 0, r.stderr
    return dict(json.loads(r.stdout))


#: `make test` compares the Klaberjass game (its annulled round too); the soak run also the
#: Klaverjas one, whose eight-card rounds take the solver longer
@pytest.mark.parametrize("name", [pytest.param("amsterdam-revoke-ruling", marks=pytest.mark.soak),
                                  "klaberjass-full"])
def test_every_round_is_what_jaslog_analyze_says(live: Live, name: str) -> None:
    path = REPLAYS / f"{name}.jsonl"
    gid = store(live, read(path))
    want = cli_rounds(path)
    assert want["game"] == gid
    for r in want["rounds"]:
        got = ask(live, gid, r["round"])
        assert {k: got.pop(k) for k in ("game", "view", "seat", "solver")} == \
            {"game": gid, "view": "full", "seat": None, "solver": want["solver"]}
        assert got == r
        assert ask(live, gid, r["round"]) == {**got, "game": gid, "view": "full", "seat": None,
                                               "solver": want["solver"]}  # from the cache
    costly = [p for r in want["rounds"] for p in r["costly"]]
    assert costly and any(p["mistake"] for p in costly)
    # the public sees a finished game's rounds as the referee does
    r1 = ask(live, gid, 1, "public")
    assert r1["view"] == "public" and r1["costly"] == want["rounds"][0]["costly"]
    if name == "klaberjass-full":  # an annulled round: no par, and its hands stay secret
        eight = ask(live, gid, 8)
        assert eight["no_par"] == "annulled (all pass): no play" and eight["par"] is None
        no = ask(live, gid, 8, "public", 403)
        assert no["code"] == "not_visible" and "stay secret" in no["message"]
        ask(live, gid, 8, "ann", 403)


def test_a_round_being_played_is_the_referee_s_until_its_last_card(live: Live) -> None:
    events = simulate_game("an-live", "amsterdam", seed=4, seats=SEATS)
    assert [e["type"] for e in events[35:37]] == ["play", "dealt"]  # round 2 from seq 36
    gid = store(live, events[:50])
    # round 1 is over: everyone sees it; a seat as a seat
    one = ask(live, gid, 1, "ann")
    assert (one["view"], one["seat"]) == ("seat", 0)
    assert {k: v for k, v in one.items() if k not in ("view", "seat")} == \
        {k: v for k, v in ask(live, gid, 1, "public").items() if k not in ("view", "seat")}
    # round 2 is being played: the referee sees the par so far, nobody else anything
    two = ask(live, gid, 2)
    played = sum(e["type"] == "play" for e in events[36:50])
    assert len(two["pars"]) == played + 1  # the par before each card played, then after
    for role in ("ann", "bob", "public"):
        no = ask(live, gid, 2, role, 403)
        assert no["code"] == "not_visible" and "round 2 is still being played" in no["message"]
    assert ask(live, gid, 3, "referee", 404)["code"] == "no_such_round"
    assert ask(live, gid, 3, "public", 404)["code"] == "no_such_round"
    r = live.client.get("/api/games/no-such/analysis?round=1", headers=live.as_("referee"))
    assert (r.status_code, r.json()["code"]) == (404, "no_such_game")
    r = live.client.get(f"/api/games/{gid}/analysis", headers=live.as_("referee"))
    assert r.status_code == 422
    # its last card: the seats and the public see it, and the referee's answer follows the head
    live.append(gid, [{k: v for k, v in e.items() if k not in ("game", "seq")}
                      for e in events[50:70]])
    whole = ask(live, gid, 2)
    assert len(whole["pars"]) == 32 + 1 and whole["pars"][:played] == two["pars"][:played]
    assert ask(live, gid, 2, "bob")["costly"] == whole["costly"]
    assert ask(live, gid, 2, "public")["par"] == whole["par"]


# ---------------------------------------------------------------------- the viewer



@pytest.mark.soak
def test_the_viewer_marks_a_costly_card_with_its_loss(browser: Any, server: Server) -> None:
    from tests.service.test_viewer import open_page

    path = REPLAYS / "amsterdam-free.jsonl"
    events = read(path)
    gid = events[0]["game"]
    with server.client("admin") as c:
        first = {k: v for k, v in events[0].items() if k not in ("type", "seq")}
        r = c.post("/api/games", json=first)
        assert r.status_code in (201, 409), r.text
        if r.status_code == 201:
            record(c, gid, events[1:], batch=200)
    want = cli_rounds(path)["rounds"][0]
    p = want["costly"][0]
    page, errors = open_page(browser, server, "referee", gid)
    page.wait_for_selector("#main:not([hidden])")
    page.goto(f"{server.url}/viewer#game={gid}&seq={p['seq']}")
    page.reload()
    badge = page.wait_for_selector(f'#trick .card[data-card="{p["card"]}"] .loss-badge')
    assert badge is not None and badge.inner_text() == f"−{p['loss']}"
    line = page.inner_text("#analysis-line")
    assert f"cost {p['loss']}" in line and "best" in line
    assert f"par {want['par_result']}" in page.inner_text("#round-score")
    # the public sees the same finished round, as the referee does
    page2, errors2 = open_page(browser, server, "public", gid)
    page2.wait_for_selector("#main:not([hidden])")
    page2.goto(f"{server.url}/viewer#game={gid}&seq={p['seq']}")
    page2.reload()
    badge2 = page2.wait_for_selector(f'#trick .card[data-card="{p["card"]}"] .loss-badge')
    assert badge2 is not None and badge2.inner_text() == f"−{p['loss']}"
    # a card that kept the par has no badge
    kept = [c for c in page.eval_on_selector_all("#trick .card", "els => els.map(e => e.dataset.card)")
            if c != p["card"] and not any(q["card"] == c for q in want["costly"])]
    for c in kept:
        assert page.locator(f'#trick .card[data-card="{c}"] .loss-badge').count() == 0
    assert not errors and not errors2, errors + errors2
