"""A player's page: GET /api/players/{id} (games, results, roles, rating over time, the
rules broken most often), and /players/{id} in headless Chromium, linked from the games page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from jaslog.service.auth import Tokens
from jaslog.service.db import service_engine
from jaslog.stats.ratings import export_ratings
from tests.club.conftest import Season
from tests.service.conftest import start_server, stop_server
from tests.service.inprocess import Live


def test_the_players_answer(season: Season, live: Live) -> None:
    page = live.get("/api/players/Stella%20Ster", "admin")
    assert page["player"] == "star" and page["name"] == "Stella Ster" and page["view"] == "full"
    played = [g for g in season.games if "star" in g.seats]
    assert [g["game"] for g in page["games"]] == [g.game for g in sorted(
        played, key=lambda g: g.at, reverse=True)]
    kv = {r["kind"]: r for r in page["results"]}["klaverjas"]
    assert (kv["games"], kv["finished"], kv["won"], kv["lost"]) == (13, 12, 12, 0)
    assert [r["rating"] for r in page["ratings"]] == [
        round(r.rating, 3) for r in export_ratings(season.dataset) if r.player == "star"]
    assert len(page["ratings"]) == 12
    roles = {r["kind"]: r for r in page["roles"]}["klaverjas"]
    assert roles["declarer"] + roles["partner"] + roles["defending"] == roles["rounds"] > 0


def test_the_public_sees_finished_games_and_an_unknown_player_is_404(live: Live) -> None:
    page = live.get("/api/players/star", "public")
    assert page["view"] == "public" and "comp-live" not in {g["game"] for g in page["games"]}
    r = live.client.get("/api/players/nobody", headers=live.as_("admin"))
    assert r.status_code == 404 and r.json()["code"] == "no_such_player"


@pytest.fixture(scope="module")
def served(season: Season, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """``jaslog serve --dataset`` on the season's store and export, and an admin token."""
    tokens = Tokens(service_engine(str(season.db)))
    admin = tokens.create("admin")[0]
    tokens.engine.dispose()
    proc, url = start_server(season.db, tmp_path_factory.mktemp("log") / "server.log",
                             "--dataset", str(season.dataset))
    try:
        yield url, admin
    finally:
        stop_server(proc)


@pytest.mark.soak  # a browser test beyond make test's one (the games page)
@pytest.mark.slow
def test_the_page_in_a_browser_linked_from_the_games_page(browser: Any,
                                                          served: tuple[str, str]) -> None:
    url, admin = served
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}/static/games.html#token={admin}&player=star&limit=10")
    link = page.wait_for_selector("#rows a.player[href='/players/star']")
    assert link is not None
    link.click()
    page.wait_for_selector("#games tr td")
    assert page.url == f"{url}/players/star"
    assert "Stella Ster" in page.inner_text("#title")
    results = page.inner_text("#results")
    assert "klaverjas" in results and "12" in results
    assert page.eval_on_selector_all("#rating-chart polyline", "ls => ls.length") == 1
    assert len(page.query_selector_all("#games tr")) == 14  # a header and 13 games
    partner = page.query_selector("#games a[href^='/players/']")
    assert partner is not None
    assert not errors, errors
