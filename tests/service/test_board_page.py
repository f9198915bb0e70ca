"""The analysis board and the whole-game print in headless Chromium: a referee clicks a card
on the board and sees the par change (and back again), on a phone's 390 px; a game printed
from the browser has every round, each on a page of its own."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.conftest import Server, create, record, sim

#: Browser tests beyond the games page: in `make soak`.
pytestmark = pytest.mark.soak

#: where the board starts: four tricks played (quick for the pure-Python solver too)
LATE = 16


def open_page(browser: Any, server: Server, role: str, path: str,
              width: int = 1280) -> tuple[Any, list[str]]:
    page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    base, _, frag = path.partition("#")
    page.goto(f"{server.url}{base}#token={server.tokens[role]}" + (f"&{frag}" if frag else ""))
    return page, errors


@pytest.fixture(scope="module")
def played(server: Server) -> str:
    """A game of two rounds played out and a third dealt."""
    gid = "board-page-game"
    events = sim(gid, seed=4)
    upto = [i for i, e in enumerate(events) if e["type"] == "dealt"][2] + 1
    with server.client("admin") as c:
        r = create(c, gid, events[0])
        assert r.status_code in (201, 409), r.text
        if r.status_code == 201:
            record(c, gid, events[1:upto])
    return gid


def costly_position(server: Server, gid: str) -> tuple[int, dict[str, Any]]:
    """A position of round 1 (from :data:`LATE`) where some legal card costs its side."""
    with server.client("referee") as c:
        for pos in range(LATE, 31):
            r = c.post("/api/analysis/line", json={"game": gid, "round": 1, "position": pos})
            assert r.status_code == 200, r.text
            b = r.json()
            if any(not x["best"] for x in b["legal"]):
                return pos, b
    raise AssertionError("no costly card in round 1's last tricks")


def test_a_referee_clicks_a_card_and_sees_the_par_change(browser, server, played, tmp_path):
    pos, want = costly_position(server, played)
    page, errors = open_page(browser, server, "referee",
                             f"/static/board.html#game={played}&round=1&pos={pos}", width=390)
    page.wait_for_selector(".board-seat.to-move button.board-card")
    par_line = page.locator("#par-line .par")
    assert par_line.inner_text().startswith(f"{want['par']:+d}".replace("+0", "0"))
    assert page.locator('#site-header').count() == 1
    buttons = page.locator(".board-seat.to-move button.board-card")
    assert buttons.count() == len(want["legal"])
    costly = next(x for x in want["legal"] if not x["best"])
    card = page.locator(f'.board-seat.to-move button.board-card[data-card="{costly["card"]}"]')
    assert card.get_attribute("data-par") == str(costly["par"])
    assert "costs" in (card.get_attribute("class") or "")
    card.click()
    page.wait_for_function(f"""() => location.hash.includes("moves={costly['card']}")""")
    page.wait_for_function(f"""() => document.querySelector("#par-line .par").textContent
                           .startsWith("{costly['par']:+d}".replace("+0", "0"))""")
    assert costly["card"] not in [c.get_attribute("data-card") for c in
                                  page.locator('.board-seat .board-card').all()]
    assert page.locator("#line li").count() == 32 - pos - 1
    page.screenshot(path=str(tmp_path / "board-390.png"), full_page=True)
    # no sideways scroll on a phone
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # back: the par as it was; forward: the card tried again
    page.click("#back")
    page.wait_for_function(f"""() => document.querySelector("#par-line .par").textContent
                           .startsWith("{want['par']:+d}".replace("+0", "0"))""")
    assert "moves=" not in page.evaluate("location.hash")
    page.click("#forward")
    page.wait_for_function(f"""() => location.hash.includes("moves={costly['card']}")""")
    assert not errors, errors


def test_a_seat_may_not_analyse_the_round_being_played(browser, server, played):
    page, _ = open_page(browser, server, "player0", f"/static/board.html#game={played}&round=3&pos=0")
    page.wait_for_selector("#error:not([hidden])")
    assert "round 3 is still being played" in page.inner_text("#error")
    assert not page.locator("#main").is_visible()


def test_a_game_printed_from_the_browser_has_every_round(browser, server, played, tmp_path):
    page, errors = open_page(browser, server, "referee", f"/static/print.html#game={played}")
    page.wait_for_selector("#print-page .print-round")
    heads = page.locator("#print-page .print-round h2").all_inner_texts()
    assert heads == ["Round 1", "Round 2", "Round 3"]
    assert page.locator("#print-page #sheet tbody tr").count() == 3
    page.screenshot(path=str(tmp_path / "print-screen.png"))
    page.emulate_media(media="print")
    assert not page.locator("#site-header").is_visible()
    assert not page.locator("#print").is_visible()
    breaks = page.evaluate("""() => [...document.querySelectorAll('.print-round')]
                              .map((s) => getComputedStyle(s).breakBefore)""")
    assert breaks == ["page"] * 3
    pdf = page.pdf(path=str(tmp_path / "game.pdf"))
    assert pdf[:5] == b"%PDF-"
    # on a phone: no sideways scroll (the wide tables scroll within themselves)
    phone, _ = open_page(browser, server, "referee", f"/static/print.html#game={played}",
                         width=390)
    phone.wait_for_selector("#print-page .print-round")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    # the public's print: the finished rounds only
    public, _ = open_page(browser, server, "public", f"/static/print.html#game={played}")
    public.wait_for_selector("#print-page .print-round")
    assert public.locator("#print-page .print-round h2").all_inner_texts() == ["Round 1", "Round 2"]
    assert not errors, errors


def test_the_round_page_numbers_long_lists_whole_on_paper(browser, server, played):
    """On paper the round page's numbered lists have room for "12." (costly plays 10-12 once
    read "0.", "1.", "2.") and an empty list says so without a number ("1. none")."""
    page, _ = open_page(browser, server, "referee", f"/static/round.html#game={played}&round=1")
    page.wait_for_selector("#main:not([hidden])")
    assert page.locator("#violations li.empty").count() == 1
    page.emulate_media(media="print")
    for ol in ("rulings", "violations", "irregularities", "costly"):
        room = page.evaluate(f"""() => {{ const ol = document.getElementById("{ol}");
            ol.hidden = false;
            for (let i = 0; i < 12; i++) ol.appendChild(document.createElement("li")).textContent = "x";
            const li = ol.lastElementChild;
            const probe = document.createElement("span");
            probe.textContent = "12. "; probe.style.position = "absolute";
            li.appendChild(probe);
            const r = [parseFloat(getComputedStyle(ol).paddingLeft), probe.getBoundingClientRect().width];
            const empty = ol.appendChild(document.createElement("li"));
            empty.className = "empty"; empty.textContent = "none";
            r.push(getComputedStyle(empty).listStyleType);
            return r; }}""")
        assert room[0] >= room[1] and room[2] == "none", (ol, room)


def test_a_board_opened_at_an_event_says_its_position(browser, server, played):
    events = sim(played, seed=4)
    seq = [e["seq"] for e in events[:37] if e["type"] == "play"][LATE - 1]
    page, errors = open_page(browser, server, "referee",
                             f"/static/board.html#game={played}&round=1&seq={seq}")
    page.wait_for_selector(".board-seat.to-move button.board-card")
    assert f"pos={LATE}" in page.evaluate("location.hash")
    assert sum(page.locator(f'.board-seat[data-seat="{s}"] .board-card').count()
               for s in range(4)) == 32 - LATE
    assert not errors, errors
