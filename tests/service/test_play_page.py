"""The seat's page of an online game (``/play/{game}``) in a real Chromium: four browser
contexts, one a seat each, play a one-deal Klaverjas game from their links (one reloading in
the middle of the round); each page sends its nonce, shows only legal cards and marks the
revealed deal as checked; the stored game verifies, deals included."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any


from tests.service.conftest import Server


def act(page: Any) -> bool:
    """Make the page's seat move when it is due: a bid (the first the rules take) or the
    first card the page lets it play. Whether it moved."""
    if page.evaluate("document.getElementById('status').dataset.mine") != "yes":
        return False
    before = page.evaluate("document.getElementById('status').textContent")
    if page.is_visible("#bids"):
        for call in ("pass", "C", "D", "H", "S"):
            page.click(f"#bid-buttons [data-call='{call}']")
            page.wait_for_timeout(150)
            if not page.is_visible("#error"):
                return True
        return False
    legal = page.query_selector_all("#hand button.card:not([disabled])")
    every = page.query_selector_all("#hand button.card")
    assert legal, before
    assert len(legal) <= len(every)
    legal[0].click()
    page.wait_for_timeout(100)
    return True


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
    while time.monotonic() < deadline:
        with server.client("admin") as c:
            g = c.get(f"/api/games/{game}").json()
        if g["finished"]:
            break
        for page in pages:
            if act(page):
                moves += 1
        if moves >= 12 and not reloaded:  # mid-round: the seat resumes from its storage
            pages[2].reload()
            reloaded = True
        pages[0].wait_for_timeout(200)
    assert g["finished"], g
    assert reloaded and moves >= 32
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
