"""The games page end to end in headless Chromium: search by a player, page, sort, and open
a game in the viewer at the right event (a live game at its newest, a finished game with a
violation at the first violation)."""

from __future__ import annotations

import os

import pytest

from jaslog.engine.sim import Faults
from tests.service.conftest import Server, create, record, sim

pytestmark = pytest.mark.slow


def test_search_page_sort_and_open_a_game_at_its_event(browser, server: Server):
    me = f"pg{os.getpid()}x{id(server) % 10000}"
    made: list[str] = []
    with server.client("admin") as c:
        for i in range(12):
            gid = f"{me}-g{i:02d}"
            events = sim(gid, seed=100 + i, seats=[me, "bob", "cor", "dirk"],
                         faults=Faults(revoke_rate=0.3) if i == 4 else Faults())
            if i == 7:
                events = events[:60]  # left live
            assert create(c, gid, events[0]).status_code == 201
            record(c, gid, events[1:], batch=300)
            made.append(gid)
        audit = c.get(f"/api/games/{made[4]}/audit").json()
    first_violation = min(v["seq"] for v in audit["violations"])

    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.url}/static/games.html#token={server.tokens['referee']}&limit=10")
    page.wait_for_selector("#rows tr")  # every game first, newest stored last
    page.fill("#f-player", me)
    page.click("#search")
    page.wait_for_function(f"document.querySelector('#rows tr').dataset.game === '{made[0]}'")

    def shown() -> list[str]:
        return list(page.eval_on_selector_all("#rows tr", "rs => rs.map(r => r.dataset.game)"))

    assert shown() == made[:10]
    page.click("#next")
    page.wait_for_function("document.querySelectorAll('#rows tr').length === 2")
    assert shown() == made[10:] and page.is_disabled("#next")
    page.click("#prev")
    page.wait_for_function("document.querySelectorAll('#rows tr').length === 10")

    # Started: the service's order, newest first
    page.click("th[data-key=created_at]")
    page.wait_for_function(f"document.querySelector('#rows tr').dataset.game === '{made[-1]}'")
    assert shown() == made[::-1][:10]
    # the search is in the address (the token is not): a link gives the same page
    link = page.url
    assert f"player={me}" in link and "order=newest" in link and "limit=10" in link
    assert "token" not in link
    again = ctx.new_page()
    again.goto(link)
    again.wait_for_function(f"document.querySelector('#rows tr')?.dataset.game === '{made[-1]}'")
    assert again.input_value("#f-player") == me
    again.close()
    # another column sorts the page shown
    page.click("th[data-key=events]")
    counts = [int(x) for x in page.eval_on_selector_all(
        "#rows td:nth-child(9)", "ts => ts.map(t => t.textContent)")]
    assert counts == sorted(counts) and len(counts) == 10
    assert page.get_attribute("th[data-key=events]", "aria-sort") == "ascending"
    # the column's sort is in the address too: the link gives the same order
    assert "col=events" in page.url and "desc" not in page.url
    page.click("th[data-key=events]")
    assert "col=events" in page.url and "desc=1" in page.url
    again = ctx.new_page()
    again.goto(page.url)
    again.wait_for_selector("#rows tr")
    again.wait_for_function("document.querySelectorAll('#rows tr').length === 10")
    assert again.get_attribute("th[data-key=events]", "aria-sort") == "descending"
    assert again.eval_on_selector_all("#rows tr", "rs => rs.map(r => r.dataset.game)") == shown()
    again.close()
    page.click("th[data-key=events]")
    row = page.locator(f"tr[data-game='{made[7]}']")
    assert row.locator("td").nth(4).inner_text() == "live"
    # a live row is drawn as every other row (no style of the viewer's leaks into it)
    other = page.locator(f"tr[data-game='{made[6]}']")
    for prop in ("font-size", "white-space"):
        assert row.locator("td").first.evaluate(f"td => getComputedStyle(td)['{prop}']") == \
            other.locator("td").first.evaluate(f"td => getComputedStyle(td)['{prop}']"), prop

    # the live game opens at its newest event
    href = row.locator("td").first.locator("a").get_attribute("href")
    assert href == f"/viewer#game={made[7]}&seq=59"
    row.locator("td").first.locator("a").click()
    page.wait_for_selector("#main:not([hidden])")
    page.wait_for_function("location.hash.includes('seq=59')")
    assert page.input_value("#game-picker") == made[7]

    # a finished game with violations opens at the first one
    page.goto(f"{server.url}/static/games.html#limit=10&player={me}")
    page.wait_for_function("document.querySelectorAll('#rows tr').length === 10")
    link = page.locator(f"tr[data-game='{made[4]}'] td:first-child a")
    assert link.get_attribute("href") == f"/viewer#game={made[4]}&seq={first_violation}"
    link.click()
    page.wait_for_selector("#main:not([hidden])")
    page.wait_for_function(f"location.hash.includes('seq={first_violation}')")
    assert page.input_value("#slider") is not None
    assert not errors, errors
    ctx.close()
