"""The home page and the one header of every page, end to end in headless Chromium: what is
in play (followed live), the results with their scores, the tournaments, the search box; the
same header (its links, the token's role, sign in and out) on every page; every page at
390 px without sideways scrolling and printed without the header; the log downloaded from
the viewer and the round page."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.conftest import Server, create, record, sim

pytestmark = [pytest.mark.slow, pytest.mark.soak]

#: every page of the site, as a club member opens it (the id of the game, the round, the
#: tournament filled in)
PAGES = ["/", "/viewer#game={live}", "/static/games.html", "/static/round.html#game={done}&round=1",
         "/static/tournament.html", "/static/tournament.html#id=homecup", "/static/stats.html",
         "/static/players.html", "/players/ann", "/record/{live}",
         "/static/print.html#game={done}", "/static/board.html#game={done}&round=1&pos=16",
         "/static/director.html#id=homecup"]


@pytest.fixture(scope="module")
def club(server: Server) -> dict[str, str]:
    """A finished game, a game in play (its second round going on) and a tournament."""
    ids = {"done": "home-finished", "live": "home-in-play"}
    with server.client("admin") as c:
        for key, gid in ids.items():
            events = sim(gid, seed=21)
            if key == "live":
                events = events[:48]
            if create(c, gid, events[0]).status_code == 201:
                record(c, gid, events[1:], batch=300)
        ids["totals"] = "–".join(map(str, c.get(f"/api/games/{ids['done']}").json()["totals"]))
        r = c.post("/api/tournaments", json={"id": "homecup", "name": "Thuis beker",
                                             "players": [f"hc{i}" for i in range(8)], "seed": 2})
        assert r.status_code in (201, 409), r.text
    return ids


def opened(browser: Any, server: Server, path: str, role: str | None = "referee",
           width: int = 1280) -> tuple[Any, list[str]]:
    page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    base, _, frag = path.partition("#")
    token = f"token={server.tokens[role]}" if role else ""
    page.goto(f"{server.url}{base}#" + "&".join(x for x in (token, frag) if x))
    return page, errors


def test_the_home_page_shows_play_results_and_tournaments_and_follows_live(browser, server, club):
    page, errors = opened(browser, server, "/")
    page.wait_for_selector(f'#results tr[data-game="{club["done"]}"]')
    done = page.locator(f'#results tr[data-game="{club["done"]}"]')
    assert club["totals"] in done.locator("td.score").inner_text()
    assert done.locator("a.game-link").get_attribute("href").startswith(f"/viewer#game={club['done']}")
    live = page.locator(f'#live tr[data-game="{club["live"]}"]')
    assert live.locator("td.round").inner_text() == "round 2"
    assert page.locator('#tournaments tr[data-id="homecup"]').inner_text().startswith("Thuis beker")
    page.wait_for_selector("#live-mark:not([hidden])")
    # followed live: the game in play finishes and moves to the results without a reload
    events = sim(club["live"], seed=21)
    with server.client("admin") as c:
        record(c, club["live"], events[48:], start=48, batch=300)
    page.wait_for_selector(f'#results tr[data-game="{club["live"]}"]', timeout=15000)
    assert page.locator(f'#live tr[data-game="{club["live"]}"]').count() == 0
    assert not errors, errors


def test_the_search_box_opens_a_game_a_tournament_or_a_player_s_games(browser, server, club):
    page, errors = opened(browser, server, "/")
    page.fill("#q", club["done"])
    page.click("#search button")
    page.wait_for_url(f"**/viewer#game={club['done']}*")
    page.goto(f"{server.url}/#q=homecup")  # the search is in the address
    page.wait_for_url("**/static/tournament.html#id=homecup")
    page.goto(f"{server.url}/")
    page.fill("#q", "ann")
    page.click("#search button")
    page.wait_for_url("**/static/games.html#player=ann")
    page.goto(f"{server.url}/")
    page.fill("#q", "nobody-plays-here")
    page.click("#search button")
    page.wait_for_selector("#search-note:not([hidden])")
    assert "nobody-plays-here" in page.inner_text("#search-note")
    # a link of the viewer from before it had its own address still opens the game
    page.goto(f"{server.url}/#game={club['done']}&seq=5")
    page.wait_for_url(f"**/viewer#game={club['done']}&seq=5")
    page.wait_for_selector("#main:not([hidden])")
    assert not errors, errors


@pytest.mark.parametrize("path", PAGES)
def test_every_page_has_the_one_header(browser, server, club, path):
    page, errors = opened(browser, server, path.format(**club))
    header = page.locator("header#site-header")
    header.locator("a.site-link >> nth=4").wait_for()
    links = header.locator("a.site-link").evaluate_all("as => as.map(a => a.textContent)")
    assert links == ["home", "games", "tournaments", "players", "statistics"]
    page.wait_for_selector("#who:has-text('referee')")
    assert page.locator("#logout").is_visible() and not page.locator("#login").is_visible()
    assert page.locator("header#site-header").count() == 1
    assert not errors, errors


def test_signing_in_and_out_from_the_header(browser, server, club):
    page, errors = opened(browser, server, "/static/games.html", role=None)
    page.wait_for_selector("#login:not([hidden])")
    page.fill("#token-input", server.tokens["public"])
    page.click("#login button")
    page.wait_for_selector("#who:has-text('public')")
    page.wait_for_selector("#rows tr")
    page.click("#logout")
    page.wait_for_selector("#login:not([hidden])")
    assert page.evaluate("localStorage.getItem('jaslog.token')") is None
    assert not errors, errors


@pytest.mark.parametrize("path", PAGES)
def test_every_page_fits_a_phone_and_prints_without_the_header(browser, server, club, path):
    page, errors = opened(browser, server, path.format(**club), width=390)
    page.wait_for_selector("#who:has-text('referee')")
    page.wait_for_timeout(1500)  # the page's own answers drawn (the home page follows a stream)
    width = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > 391 && e.offsetParent !== null)
        .slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className)""")
    assert width <= 390, (path, width, wide)
    page.emulate_media(media="print")
    assert not page.locator("#site-header").is_visible()
    assert not page.locator("#logout").is_visible()
    if "print.html" not in path:  # the whole-game print is laid out for paper, not a phone
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert not errors, errors


@pytest.mark.parametrize(("path", "role", "name"), [
    ("/viewer#game={live_id}", "referee", "{live_id}.jsonl"),
    ("/static/round.html#game={live_id}&round=1", "player1", "{live_id}-seat1.jsonl"),
])
def test_the_log_is_downloaded_from_the_viewer_and_the_round_page(browser, server, path, role,
                                                                   name, tmp_path):
    gid = "home-download" + role
    events = sim(gid, seed=4)[:40]
    with server.client("admin") as c:
        if create(c, gid, events[0]).status_code == 201:
            record(c, gid, events[1:])
        whole = c.get(f"/api/games/{gid}/log", params={"format": "text"}).content
    page, errors = opened(browser, server, path.format(live_id=gid), role=role)
    page.wait_for_selector("#main:not([hidden])")
    with page.expect_download() as d:
        page.click('#download button[data-format="jsonl"]')
    assert d.value.suggested_filename == name.format(live_id=gid)
    saved = tmp_path / "log"
    d.value.save_as(saved)
    with server.client(role) as c:
        assert saved.read_bytes() == c.get(f"/api/games/{gid}/log").content
    with page.expect_download() as d:
        page.click('#download button[data-format="text"]')
    d.value.save_as(saved)
    text = saved.read_bytes()
    assert text.startswith(b"[Game ") and (text == whole) is (role == "referee")
    assert not errors, errors


def test_the_round_page_follows_a_round_in_play(browser, server):
    """The round page of a game in play draws the round again as its cards are played, with
    nothing to tick; the tournament page's "watch live" links open the viewer, which does."""
    gid = "home-round-in-play"
    events = sim(gid, seed=31)
    second = [i for i, e in enumerate(events) if e["type"] == "dealt"][1]
    cut = second + 8
    with server.client("admin") as c:
        if create(c, gid, events[0]).status_code == 201:
            record(c, gid, events[1:cut])
    page, errors = opened(browser, server, f"/static/round.html#game={gid}&round=2")
    page.wait_for_selector("#main:not([hidden])")
    page.wait_for_selector("#live-state:not([hidden])")
    before = page.locator("#tricks .played").count()
    with server.client("admin") as c:
        record(c, gid, events[cut:cut + 4], start=cut)
    page.wait_for_function(f"document.querySelectorAll('#tricks .played').length >= {before + 4}",
                           timeout=15000)
    assert not errors, errors
