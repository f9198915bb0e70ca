"""Teams are numbered 1 and 2 on every page, as `jaslog tournament show` and the viewer number
them: the round page's deal names each seat's team so (headless Chromium via Playwright)."""

from __future__ import annotations

import pytest

from tests.service.conftest import create, record, sim

#: A real browser (a Chromium process, pages rendered).
pytestmark = pytest.mark.soak


def test_the_round_page_numbers_the_teams_1_and_2(browser, server):
    gid = "team-numbers-round"
    events = sim(gid, seed=5)
    with server.client("admin") as c:
        if create(c, gid, events[0]).status_code == 201:
            record(c, gid, events[1:40])
    page = browser.new_context().new_page()
    page.goto(f"{server.url}/static/round.html#token={server.tokens['referee']}"
              f"&game={gid}&round=1")
    page.wait_for_selector("#main:not([hidden]) .deal-seat")
    who = [page.inner_text(f'.deal-seat[data-seat="{s}"] .who') for s in range(4)]
    seats = events[0]["seats"]
    assert who == [f"{seats[s]} ({s}) · team {s % 2 + 1}" for s in range(4)], who
