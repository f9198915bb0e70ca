"""The tournament director's page (``director.html``) in headless Chromium via Playwright, on a
real ``jaslog serve``: the bots play round 1 (``jaslog tournament play --bots`` on the
service's store), the director draws round 2, withdraws a player, sets the move clock, hands
out the table cards and prints them: the pairings and one card a table with its QR code, on
paper and on a 390 px phone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.cli import jaslog
from tests.service.conftest import Server

#: A real browser (a Chromium process, pages rendered) for every test.
pytestmark = pytest.mark.soak

PLAYERS = [f"dp{i}" for i in range(16)]
TWO_DEALS = {"game_end": {"type": "deals", "count": 2}}


def director_page(browser: Any, server: Server, token: str, frag: str,
                  width: int = 1280) -> tuple[Any, list[str]]:
    page = browser.new_context(viewport={"width": width, "height": 1000}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: d.accept())
    page.goto(f"{server.url}/static/director.html#token={token}&{frag}")
    return page, errors


@pytest.fixture(scope="module")
def cup(server: Server) -> str:
    """A 16-player tournament whose round 1 the bots played; its director's token."""
    with server.client("admin") as c:
        r = c.post("/api/tournaments", json={"id": "deskcup", "name": "Bureau beker",
                                             "players": PLAYERS, "seed": 9,
                                             "options": TWO_DEALS, "move_limit_s": 3600})
        assert r.status_code == 201, r.text
        r = c.post("/api/tournaments/deskcup/tokens", json={"role": "referee"})
        assert r.status_code == 201, r.text
        director = str(r.json()["token"])
    done = jaslog("tournament", "play", "deskcup", "--bots", "--db", str(server.db), text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("won by") == 4, done.stderr
    return director


def test_a_director_runs_a_round_from_the_browser_and_prints_its_cards(browser, server, cup,
                                                                         tmp_path):
    page, errors = director_page(browser, server, cup, "id=deskcup")
    page.wait_for_selector("#main:not([hidden])")
    assert page.inner_text("#title") == "Bureau beker (deskcup) · director"
    assert "round over" in page.inner_text("#status")
    assert "seed 9" in page.inner_text("#seed")  # the director sees the seed
    assert "#token" not in page.url  # the token left the address at once
    # draw: round 2, its pairings, its number in the address
    page.click("#draw")
    page.wait_for_selector("#notice:has-text('Round 2 drawn: 2 tables')")
    assert page.url.endswith("#id=deskcup&round=2")
    rows = page.locator("#pairings tbody tr")
    assert rows.count() == 2
    assert page.locator("#pairings thead th").all_inner_texts()[1:3] == ["Team 1", "Team 2"]
    assert page.locator("#draw").is_disabled()  # round 2 is in play
    with server.client("admin") as c:
        st = c.get("/api/tournaments/deskcup").json()
    assert len(st["rounds"]) == 2
    round2 = st["rounds"][1]["tables"]
    for g in round2:
        text = page.locator(f'#pairings tr[data-table="{g["table"]}"]').inner_text()
        assert " & ".join(g["teams"][0]) in text and " & ".join(g["teams"][1]) in text
    # the move clock: 45 s, then the service plays
    page.fill("#clock-limit", "45")
    page.select_option("#clock-after", "autoplay")
    page.click("#clock-set")
    page.wait_for_selector("#notice:has-text('45 s per move')")
    assert "45 s per move, then the service plays" in page.inner_text("#facts")
    page.click("#clock-run")
    page.wait_for_selector("#notice:has-text('Move clock run')")
    # withdraw a player of round 2: their game is won by the other team
    leaver = round2[0]["seats"][0]
    page.select_option("#withdraw-player", leaver)
    page.fill("#withdraw-reason", "train home")
    page.click("#withdraw")
    page.wait_for_selector(f"#notice:has-text('{leaver} withdrew in round 2')")
    assert leaver not in page.locator("#withdraw-player option").all_inner_texts()
    # table cards: a scorer link and a QR code a table
    page.click("#cards")
    page.wait_for_selector("#cards-box:not([hidden]) .table-card")
    cards = page.locator(".table-card")
    assert cards.count() == 2
    for i, g in enumerate(round2):
        card = cards.nth(i)
        assert card.locator("h4").inner_text() == f"Table {g['table']}"
        assert card.locator("svg.qr").count() == 1
        href = card.locator("a.scorer-link").get_attribute("href")
        assert href.startswith(f"{server.url}/record/{g['game']}#token=jl_")
    assert "#token" not in page.url and "jl_" not in page.url
    page.screenshot(path=str(tmp_path / "director.png"), full_page=True)
    # on paper: the pairings and the cards, no buttons, no header
    page.emulate_media(media="print")
    assert not page.locator("#actions").is_visible()
    assert not page.locator("#site-header").is_visible()
    assert page.locator("#pairings").is_visible()
    assert not page.locator("#seed").is_visible()  # the draws to come stay off paper
    assert page.locator(".table-card svg.qr:visible").count() == 2
    box = page.locator(".table-card svg.qr").first.bounding_box()
    assert box is not None and box["width"] > 100 and abs(box["width"] - box["height"]) < 1
    page.pdf(path=str(tmp_path / "cards.pdf"))
    assert not errors, errors


def test_the_director_s_page_on_a_phone_and_in_print(browser, server, cup, tmp_path):
    page, errors = director_page(browser, server, cup, "id=deskcup&round=1", width=390)
    page.wait_for_selector("#main:not([hidden])")
    page.click("#cards")
    page.wait_for_selector(".table-card svg.qr")
    assert page.locator(".table-card").count() == 4
    for media in ("screen", "print"):
        page.emulate_media(media=media)
        page.wait_for_timeout(100)
        width = page.evaluate("document.documentElement.scrollWidth")
        wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > 391 && e.offsetParent !== null)
            .slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className)""")
        assert width <= 390, (media, width, wide)
        assert page.locator(".table-card svg.qr:visible").count() == 4, media
        page.screenshot(path=str(tmp_path / f"director-phone-{media}.png"), full_page=True)
    assert not errors, errors


def test_a_scorer_token_is_refused_the_director_s_buttons(browser, server, cup):
    page, errors = director_page(browser, server, server.tokens["scorer"], "id=deskcup")
    page.wait_for_selector("#main:not([hidden])")
    assert "does not direct tournament deskcup" in page.inner_text("#error")
    page.click("#cards")
    page.wait_for_selector("#error:has-text('(forbidden)')")
    assert page.locator(".table-card").count() == 0
    assert not errors, errors


def test_the_tournament_page_links_its_director_to_the_director_s_page(browser, server, cup):
    page, errors = director_page(browser, server, cup, "id=deskcup")
    page.goto(f"{server.url}/static/tournament.html#id=deskcup")
    page.wait_for_selector("#main:not([hidden])")
    page.click("#director-link")
    page.wait_for_selector("#main:not([hidden]) #title")
    assert page.inner_text("#title") == "Bureau beker (deskcup) · director"
    # the public sees no such link
    public = browser.new_context().new_page()
    public.goto(f"{server.url}/static/tournament.html#token={server.tokens['public']}&id=deskcup")
    public.wait_for_selector("#main:not([hidden])")
    assert not public.locator("#director-link").is_visible()
    assert not errors, errors


def test_the_draw_button_wakes_when_the_round_s_last_game_ends(browser, server):
    with server.client("admin") as c:
        r = c.post("/api/tournaments", json={"id": "wakecup", "name": "Wekker beker",
                                             "players": PLAYERS[:8], "seed": 2,
                                             "options": TWO_DEALS, "move_limit_s": 3600})
        assert r.status_code == 201, r.text
        director = c.post("/api/tournaments/wakecup/tokens",
                          json={"role": "referee"}).json()["token"]
    page, errors = director_page(browser, server, director, "id=wakecup&every=1")
    page.wait_for_selector("#main:not([hidden])")
    assert page.locator("#draw").is_disabled()
    assert "when every game of the round is over" in page.inner_text("#draw-note")
    done = jaslog("tournament", "play", "wakecup", "--bots", "--db", str(server.db), text=True)
    assert done.returncode == 0, done.stderr
    page.wait_for_function("!document.getElementById('draw').disabled", timeout=15000)
    assert "round over" in page.inner_text("#status")
    assert page.locator("#pairings tbody tr.done").count() == 2
    assert not errors, errors


def test_an_online_tournament_s_cards_carry_a_qr_code_per_seat(browser, server):
    with server.client("admin") as c:
        r = c.post("/api/tournaments", json={"id": "webdesk", "name": "Webbureau",
                                             "players": PLAYERS[:4], "seed": 3,
                                             "online": True, "clock": 600})
        assert r.status_code == 201, r.text
        r = c.post("/api/tournaments/webdesk/tokens", json={"role": "referee"})
        assert r.status_code == 201, r.text
        director = str(r.json()["token"])
    page, errors = director_page(browser, server, director, "id=webdesk")
    page.wait_for_selector("#main:not([hidden])")
    assert page.inner_text("#cards") == "Hand out table cards (seat links)"
    page.click("#cards")
    page.wait_for_selector("#notice:has-text('new seat tokens')")
    card = page.locator(".table-card.online-card")
    assert card.count() == 1
    seats = card.locator(".seat-link")
    assert seats.count() == 4
    for s in range(4):
        seat = seats.nth(s)
        assert seat.locator("svg.qr").count() == 1
        assert f"Seat {s + 1}: " in seat.inner_text()
        href = seat.locator("a").get_attribute("href") or ""
        assert href.startswith(f"{server.url}/play/webdesk-r1-t1#token=jl_")
    assert errors == []
