"""The statistics page end to end in headless Chromium: a question's answer drawn as a bar
chart (inline SVG, one bar per row, the bar lengths the answer's figures), grouped another
way, another figure picked; the public's page says whose figures it shows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from jaslog.service.auth import Tokens
from jaslog.service.db import service_engine
from tests.service.conftest import start_server, stop_server
from tests.service.stats_club import Club, make_club
from tests.service.test_stats import cli_answer

pytestmark = pytest.mark.soak


@pytest.fixture(scope="module")
def club_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Club, dict[str, str]]]:
    """``jaslog serve --dataset`` on the club's store and export; an admin and a public token."""
    folder = tmp_path_factory.mktemp("club")
    club = make_club(folder)
    tokens = Tokens(service_engine(str(club.db)))
    made = {"admin": tokens.create("admin")[0], "public": tokens.create("public")[0]}
    tokens.engine.dispose()
    proc, url = start_server(club.db, folder / "server.log", "--dataset", str(club.dataset))
    try:
        yield url, club, made
    finally:
        stop_server(proc)


def bars(page: Any) -> list[tuple[str, float, float]]:
    """The chart's bars: (label, value, drawn width)."""
    return [(b["label"], float(b["value"]), float(b["width"])) for b in page.eval_on_selector_all(
        "#chart rect.bar", "bs => bs.map(b => ({label: b.dataset.label, value: b.dataset.value, "
        "width: b.getAttribute('width')}))")]


def test_the_page_draws_each_answer_as_a_chart(browser, club_server, tmp_path):
    url, club, tokens = club_server
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{url}/static/stats.html#token={tokens['admin']}&q=declarer_success")
    page.wait_for_selector("#chart rect.bar")
    assert page.inner_text("#view-note").startswith("Every game of the export")
    want = cli_answer(club, "declarer_success")
    drawn = bars(page)
    # one bar per row of the answer, labelled by the dimension, as long as its figure
    assert [b[0] for b in drawn] == [r["ruleset"] for r in want["rows"]]
    assert [b[1] for b in drawn] == pytest.approx([r["made_rate"] for r in want["rows"]])
    widths = {b[0]: b[2] for b in drawn}
    rates = {r["ruleset"]: r["made_rate"] for r in want["rows"]}
    a, b = sorted(rates, key=rates.__getitem__)
    assert widths[a] < widths[b]
    assert "%" in page.inner_text("#chart-box")  # a rate, as a percentage
    assert page.locator("#answer tbody tr").count() == len(want["rows"])
    assert "Klaverjas rounds only (Klaberjass makers: klaberjass_makers; Kloepper: " \
        "kloepper_queens), played out" in page.inner_text("#notes")  # one text, not its lines

    # grouped otherwise: one bar per trump suit
    page.select_option("#by", "trump")
    page.wait_for_function("document.querySelector('#chart rect.bar') && "
                           "[...document.querySelectorAll('#chart rect.bar')]"
                           ".some(b => b.dataset.label === 'clubs')")
    by_trump = cli_answer(club, "declarer_success", "--by", "trump")
    assert sorted(b[0] for b in bars(page)) == sorted(str(r["trump"]) for r in by_trump["rows"])
    assert "by=trump" in page.evaluate("location.hash")
    # another figure: the rounds
    page.select_option("#measure", "rounds")
    page.wait_for_function("document.querySelector('#chart').dataset.y === 'rounds'")
    assert sorted(b[1] for b in bars(page)) == sorted(float(r["rounds"]) for r in by_trump["rows"])

    # another question: the revokes, a bar per rule broken
    page.select_option("#question", "revokes")
    page.wait_for_function("document.querySelector('#asked').textContent.includes('revokes')")
    page.wait_for_selector("#chart rect.bar")
    revokes = cli_answer(club, "revokes")
    assert len(bars(page)) == len(revokes["rows"])
    shot = tmp_path / "stats.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10000
    assert not errors, errors


def test_the_public_page_says_whose_figures_it_shows(browser, club_server):
    url, club, tokens = club_server
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}/static/stats.html#token={tokens['public']}&q=overview&by=kind&y=violations")
    page.wait_for_selector("#chart rect.bar")
    assert "finished games only" in page.inner_text("#view-note")
    public = cli_answer(club, "overview", "--by", "kind", "--public")
    drawn = bars(page)
    assert [b[0] for b in drawn] == [r["kind"] for r in public["rows"]]
    assert [b[1] for b in drawn] == [r["violations"] for r in public["rows"]]
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # fits a phone
    assert not errors, errors


def test_the_answer_is_shown_once_it_is_drawn(browser, club_server):
    """The page is shown with its questions while the answer is asked for; the answer's panel
    once its chart and table are drawn (it showed empty before, for whoever looked then)."""
    url, club, tokens = club_server
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    held: list[Any] = []

    def hold(route: Any) -> None:  # the answer, let through when the test says
        if held and held[0] is None:
            route.continue_()
        else:
            held.append(route)

    page.route("**/api/stats/*", hold)
    page.goto(f"{url}/static/stats.html#token={tokens['admin']}&q=declarer_success")
    page.wait_for_selector("#main:not([hidden])")
    for _ in range(400):
        if held:
            break
        page.wait_for_timeout(25)
    assert held, "the page never asked for the answer"
    panel = "section[aria-label='the answer']"
    assert page.is_hidden(panel)
    routes, held[:] = held[:], [None]
    for route in routes:
        route.continue_()
    page.wait_for_selector(f"{panel}:not([hidden])")
    want = cli_answer(club, "declarer_success")
    # read at once: what is shown is drawn
    assert page.locator("#answer tbody tr").count() == len(want["rows"]) > 0
    assert len(bars(page)) == len(want["rows"])
    assert page.inner_text("#asked") == want["question"]
    page.context.close()
