"""The seat's page of an online game (``/play/{game}``) in a real Chromium: four browser
contexts, one a seat each, play a one-deal Klaverjas game from their links (one reloading in
the middle of the round); each page sends its nonce, shows only legal cards and marks the
revealed deal as checked; the stored game verifies, deals included. A soak test (``make
soak``): the browser smoke test of ``make test`` is the games page
(tests/service/test_games_page.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any, get_args

import httpx
import pytest

from jaslog.events import EVENT_MODELS
from tests.service.conftest import Server

#: Every word a bid may say (the event format's): the page shows those the rules take now.
WORDS = get_args(EVENT_MODELS["bid"].model_fields["call"].annotation)


def act(page: Any, offered: list[set[str]]) -> bool:
    """Make the page's seat move when it is due: a bid (the first the rules take; the calls
    the page offered are added to ``offered``) or the first card the page lets it play.
    Whether it moved."""
    if page.evaluate("document.getElementById('status').dataset.mine") != "yes":
        return False
    if page.is_visible("#bids"):
        shown = page.eval_on_selector_all("#bid-buttons button",
                                          "bs => bs.map(b => b.dataset.call)")
        if shown:
            offered.append(set(shown))
        # the page offers only the calls the rules take now: the first is taken
        try:
            page.locator("#bid-buttons button").first.click(timeout=2000)
        except Exception:  # the turn passed meanwhile (the redraw found no call to click)
            return False
        page.wait_for_timeout(150)
        assert not page.is_visible("#error"), page.inner_text("#error")
        return True
    legal = page.locator("#hand button.card:not([disabled])")
    assert legal.count() <= page.locator("#hand button.card").count()
    if legal.count() == 0:
        return False
    try:  # the page redraws its hand as it polls: the locator finds the card again
        legal.first.click(timeout=2000)
    except Exception:  # the turn passed meanwhile (the redraw found no card to click)
        return False
    page.wait_for_timeout(100)
    return True


@pytest.mark.soak
@pytest.mark.slow
def test_four_seats_play_an_online_game_in_their_browsers(server: Server, browser: Any) -> None:
    with server.client("admin") as c:
        r = c.post("/api/games", json={
            "online": True, "ruleset": "klaverjas-online-501", "clock": 60,
            "seats": ["ann", "bob", "cor", "dirk"],
            "options": {"game_end": {"type": "deals", "count": 1}}})
        assert r.status_code == 201, r.text
        out = r.json()
    game = out["game"]
    pages, errors = [], []
    for s in out["seat_tokens"]:
        ctx = browser.new_context()
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url + s["link"])
        pages.append(page)
    # the token left the address bar for the browser's storage
    assert "#token" not in pages[0].url
    moves, reloaded, deadline = 0, False, time.monotonic() + 120
    offered: list[set[str]] = []  # the calls each page showed when it was to bid
    while time.monotonic() < deadline:
        with server.client("admin") as c:
            g = c.get(f"/api/games/{game}").json()
        if g["finished"]:
            break
        for page in pages:
            if act(page, offered):
                moves += 1
        if moves >= 12 and not reloaded:  # mid-round: the seat resumes from its storage
            pages[2].reload()
            reloaded = True
        pages[0].wait_for_timeout(200)
    assert g["finished"], g
    assert reloaded and moves >= 32
    assert offered and all(shown <= set(WORDS) for shown in offered)
    assert any(len(shown) < len(WORDS) for shown in offered)  # never every word at once
    for page in pages:
        page.wait_for_function(
            "document.getElementById('deals').dataset.checked === '1'", timeout=10_000)
        assert "deal checked" in page.inner_text("#deals")
    assert not errors, errors
    with server.client("admin") as c:
        types = [e["type"] for e in c.get(f"/api/games/{game}/events").json()["events"]]
    assert types.count("nonce") == 4 and types.count("deal_revealed") == 1
    out2 = subprocess.run([sys.executable, "-m", "jaslog", "verify", game, "--deals", "--db",
                           str(server.db)], capture_output=True, text=True, check=False,
                          env=dict(os.environ))
    assert out2.returncode == 0, out2.stdout + out2.stderr
    assert "1 deal by the server checked, every one fair" in out2.stdout


def test_the_stream_and_the_server_log_never_show_a_seed_before_its_round_ends(
        server: Server) -> None:
    from sqlalchemy import create_engine, select

    from jaslog.service import db

    with server.client("admin") as c:
        out = c.post("/api/games", json={"online": True, "ruleset": "klaverjas-online-501",
                                         "seats": ["ann", "bob", "cor", "dirk"]}).json()
    game = out["game"]
    engine = create_engine(f"sqlite:///{server.db}")
    with engine.connect() as conn:
        secret = str(conn.execute(select(db.deal_seeds.c.seed).where(
            db.deal_seeds.c.game == game)).scalar())
    engine.dispose()
    assert len(secret) == 64
    for token in [*(s["token"] for s in out["seat_tokens"]), server.tokens["public"]]:
        seen = ""
        with httpx.Client(base_url=server.url, timeout=10) as c, c.stream(
                "GET", f"/api/games/{game}/stream", params={"since": 0},
                headers={"Authorization": f"Bearer {token}"}) as r:
            assert r.status_code == 200
            start = time.monotonic()
            for chunk in r.iter_text():
                seen += chunk
                if "deal_committed" in seen or time.monotonic() - start > 3:
                    break
        assert secret not in seen
        if token != server.tokens["public"]:
            assert "deal_committed" in seen
    assert secret not in server.log.read_text()
