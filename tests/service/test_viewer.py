"""The web replay viewer, end to end in headless Chromium (Debian's chromium) via Playwright:
load a game, step through a trick, see the violation, take screenshots."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.service.conftest import ROOT, Server, create, record, sim, timed

SAMPLE = ROOT / "replays" / "amsterdam-revoke-ruling.jsonl"

#: A real browser (a Chromium process, pages rendered and screenshots taken) for every test.
pytestmark = pytest.mark.soak



@pytest.fixture(scope="module")
def sample(server: Server) -> str:
    """The sample game with a revoke, false roem claims and a ruling, loaded over the API."""
    events = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]
    gid = events[0]["game"]
    with server.client("admin") as c:
        first = {k: v for k, v in events[0].items() if k not in ("type", "seq")}
        r = c.post("/api/games", json=first)
        assert r.status_code in (201, 409), r.text
        if r.status_code == 201:
            record(c, gid, events[1:], batch=200)
    return gid


def open_page(browser: Any, server: Server, role: str, game: str | None = None,
              phone: bool = False) -> tuple[Any, list[str]]:
    ctx = browser.new_context(viewport={"width": 390, "height": 844} if phone
                              else {"width": 1280, "height": 1000},
                              device_scale_factor=2 if phone else 1)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    url = f"{server.url}/viewer#token={server.tokens[role]}" + (f"&game={game}" if game else "")
    page.goto(url)
    return page, errors


def trick_cards(page: Any) -> list[str]:
    return page.eval_on_selector_all("#trick .card", "els => els.map(e => e.dataset.card)")


def test_referee_steps_through_a_trick_and_sees_the_violation(browser, server, sample, tmp_path):
    page, errors = open_page(browser, server, "referee")
    page.wait_for_selector(f"#game-picker option[value='{sample}']", state="attached")
    page.select_option("#game-picker", sample)  # pick the game
    page.wait_for_selector("#main:not([hidden])")
    assert page.inner_text("#view-note").startswith("Referee view")
    assert page.inner_text("#who").startswith("referee")

    # jump to round 2 and step event by event through its first trick
    page.select_option("#round-picker", "2")
    assert "Round 2" in page.inner_text("#round-info")
    assert page.locator(".seat .hand .card:not(.back)").count() == 32  # all four hands, dealt
    for _ in range(12):  # the bids, then the first card
        if trick_cards(page):
            break
        page.click("#next")
    for n in (1, 2, 3, 4):
        assert len(trick_cards(page)) == n
        if n < 4:
            page.click("#next")
    assert page.locator("#trick .card.winner").count() == 1  # the trick's winner
    assert page.locator(".seat .hand .card").count() == 28
    page.click("#prev")
    assert len(trick_cards(page)) == 3
    page.keyboard.press("ArrowRight")
    assert len(trick_cards(page)) == 4
    before = page.inner_text("#event-text")
    page.click("#next-trick")  # trick by trick
    assert len(trick_cards(page)) == 4 and page.inner_text("#event-text") != before
    assert "trick 2" in page.inner_text("#trump-badge")
    page.click("#prev-trick")
    assert page.inner_text("#event-text") == before

    # the revoke: listed with its explanation; a click shows it on the table
    first = page.locator("#violations li").first
    assert "must_follow_suit" in first.inner_text() and "(A♦)" in first.inner_text()
    first.click()
    assert page.locator("#banner").is_visible()
    banner = page.inner_text("#banner")
    assert "must_follow_suit" in banner and "ilse (0) played 7♣ to a diamonds lead" in banner
    assert page.locator('#trick .card.violation[data-card="7C"]').count() == 1
    assert "now" in (first.get_attribute("class") or "")
    assert page.locator("#violations li").count() == 6
    assert "seq=46" in page.evaluate("location.hash")
    # the score sheet: sixteen rounds, round 2 ruled by the director
    rows = page.locator("#scoresheet tbody tr")
    assert rows.count() == 16
    assert "ruled 0–0" in rows.nth(1).inner_text()
    assert "current" in (rows.nth(1).get_attribute("class") or "")
    assert "♦" in page.inner_text("#round-info") or "♥" in page.inner_text("#round-info") \
        or "♣" in page.inner_text("#round-info") or "♠" in page.inner_text("#round-info")
    # suits in colour: hearts and diamonds red, clubs and spades black
    red = page.eval_on_selector('.card[data-card$="H"], .card[data-card$="D"]',
                                "e => getComputedStyle(e).color")
    black = page.eval_on_selector('.card[data-card$="C"], .card[data-card$="S"]',
                                  "e => getComputedStyle(e).color")
    assert red != black and red.startswith("rgb(198")
    shot = tmp_path / "viewer-referee.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20000
    # a deep link opens the same place
    page2, errors2 = open_page(browser, server, "referee", sample)
    page2.wait_for_selector("#main:not([hidden])")
    page2.goto(f"{server.url}/viewer#game={sample}&seq=46")
    page2.reload()
    page2.wait_for_selector("#banner:not([hidden])")
    assert "must_follow_suit" in page2.inner_text("#banner")
    assert not errors and not errors2, errors + errors2


def test_the_viewer_on_a_phone(browser, server, sample, tmp_path):
    page, errors = open_page(browser, server, "admin", sample, phone=True)
    page.wait_for_selector("#main:not([hidden])")
    page.select_option("#round-picker", "2")
    page.locator("#violations li").first.click()
    page.wait_for_selector("#banner:not([hidden])")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # nothing wider than the phone's screen
    for pos in ("top", "left", "right", "bottom"):
        box = page.locator(f'.seat[data-pos="{pos}"]').bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 391
    size = page.eval_on_selector(".hand .card", "e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 12  # readable
    page.screenshot(path=str(tmp_path / "viewer-phone.png"), full_page=False)
    assert not errors, errors


def test_a_player_sees_only_their_own_hand_in_a_live_round(browser, server, tmp_path):
    gid = "viewer-live-1"
    events = timed(sim(gid, seed=41))
    with server.client("scorer") as c:
        if create(c, gid, events[0]).status_code == 201:
            record(c, gid, events[1:12])
    secret = {card for s in (0, 1, 3) for card in events[1]["hands"][s]}
    played = {e["card"] for e in events[1:12] if e["type"] == "play"}
    page, errors = open_page(browser, server, "player2", gid)
    page.wait_for_selector("#main:not([hidden])")
    assert page.locator("#last").is_disabled()  # a live game opens at its newest event
    assert page.inner_text("#view-note").startswith("Seat view of cor (2)")
    own = page.eval_on_selector_all('.seat[data-pos="bottom"] .hand .card',
                                    "els => els.map(e => e.dataset.card)")
    assert own and set(own) <= set(events[1]["hands"][2])
    assert page.locator('.seat[data-pos="top"] .hand .card.back').count() >= 6
    shown = set(page.eval_on_selector_all(".card[data-card]", "els => els.map(e => e.dataset.card)"))
    assert not (shown & secret) - played  # only cards already on the table
    html = page.content()
    for c in secret - played:
        assert f'data-card="{c}"' not in html
    page.screenshot(path=str(tmp_path / "viewer-player.png"), full_page=True)
    # the public sees the game, but nothing of the round in play
    pub, errors2 = open_page(browser, server, "public", gid)
    pub.wait_for_selector("#main:not([hidden])")
    assert pub.inner_text("#view-note").startswith("Public view")
    assert pub.locator(".card").count() == 0
    assert pub.inner_text("#position") == "seq 0 / 0"  # one numbering: the seq
    assert not errors and not errors2, errors + errors2


def test_a_bad_token_asks_to_sign_in_again(browser, server, tmp_path):
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(f"{server.url}/viewer#token=jl_00000000_nonsensenonsensenonsense")
    page.wait_for_selector("#error:not([hidden])")
    assert "unknown or has been revoked" in page.inner_text("#error")
    assert page.locator("#login").is_visible()
    page.fill("#token-input", server.tokens["public"])
    page.click("#login button")
    page.wait_for_selector("#game-picker option >> nth=1", state="attached")
    assert page.inner_text("#who").startswith("public")



@pytest.mark.parametrize("kind", ["kloepper", "klaberjass"])
def test_kloepper_and_klaberjass_in_the_viewer(browser, server, tmp_path, kind):
    from jaslog.play.sim import simulate_game

    ruleset = {"kloepper": "kloepper", "klaberjass": "klaberjass-2p"}[kind]
    seats = ["ann", "bob", "cor", "dirk"][: 4 if kind == "kloepper" else 2]
    gid = f"viewer-{kind}-live"
    events = timed(simulate_game(gid, ruleset, seed=4, seats=seats))
    cut = [i for i, e in enumerate(events) if e["type"] == "play"][5] + 1
    with server.client("scorer") as c:
        if create(c, gid, events[0]).status_code == 201:
            record(c, gid, events[1:cut])
    page, errors = open_page(browser, server, "player1", gid)
    page.wait_for_selector("#main:not([hidden])")
    assert page.locator("#last").is_disabled()  # a live game opens at its newest event
    assert page.locator(".seat:not(.me) .hand .card.back").count() > 0  # hidden hands
    assert page.locator(".seat.me .hand .card:not(.back)").count() > 0   # the own hand
    if kind == "kloepper":
        tags = page.eval_on_selector_all(".seat .tag", "els => els.map(e => e.textContent)")
        assert any("side unknown" in t for t in tags) or any("side" in t for t in tags)
        assert "permanent trumps" in page.inner_text("#trump-badge")
    else:
        assert page.locator(".seat").nth(0).is_visible()
        assert "turn-up" in page.inner_text("#round-info")
    page.screenshot(path=str(tmp_path / f"viewer-{kind}.png"), full_page=True)
    # the referee sees every hand of the same moment
    ref, errors2 = open_page(browser, server, "referee", gid)
    ref.wait_for_selector("#main:not([hidden])")
    assert ref.locator("#last").is_disabled()
    assert ref.locator(".seat .hand .card.back").count() == 0
    assert not errors and not errors2, errors + errors2


def test_a_game_in_play_is_followed_live_with_nothing_to_tick(browser, server, tmp_path):
    """A game in play is followed as it is recorded; a reader who stepped back stays where
    they are and is told how many events came ("N new events"), which takes them there."""
    gid = "viewer-follow-live"
    events = timed(sim(gid, seed=43))
    with server.client("scorer") as c:
        if create(c, gid, events[0]).status_code == 201:
            record(c, gid, events[1:6])
    page, errors = open_page(browser, server, "player0", gid)
    page.wait_for_selector("#main:not([hidden])")
    page.wait_for_selector("#live-state:not([hidden])")
    assert page.locator("#new-events").is_hidden()
    page.wait_for_timeout(500)  # the stream is open
    with server.client("scorer") as c:
        record(c, gid, events[6:9], start=6)
    page.wait_for_function("document.getElementById('position').textContent === 'seq 8 / 8'",
                           timeout=10000)
    assert page.inner_text("#event-text").startswith("seq 8 ")
    assert page.locator("#new-events").is_hidden()
    # stepped back: the reader stays at seq 6, and is told of the events that came
    page.click("#prev")
    page.click("#prev")
    assert page.inner_text("#position") == "seq 6 / 8"
    with server.client("scorer") as c:
        record(c, gid, events[9:12], start=9)
    page.wait_for_selector("#new-events:not([hidden])", timeout=10000)
    page.wait_for_function(
        "document.getElementById('new-events').textContent.startsWith('3 new events')")
    assert page.inner_text("#position") == "seq 6 / 11"
    page.click("#new-events")
    assert page.inner_text("#position") == "seq 11 / 11"
    assert page.locator("#new-events").is_hidden()
    assert not errors, errors


def test_the_api_docs_work_offline(browser, server):
    """``/docs`` loads Swagger UI from the server itself: nothing from another host, and in a
    browser that may reach nothing but the server it shows every route."""
    import re
    from urllib.parse import urlsplit

    import httpx

    page_html = httpx.get(server.url + "/docs", timeout=30)
    assert page_html.status_code == 200 and "text/html" in page_html.headers["content-type"]
    refs = re.findall(r"""(?:src|href|url)\s*[=:]\s*["']([^"']+)["']""", page_html.text)
    assert refs and "/openapi.json" in refs, page_html.text
    assert not re.search(r"https?://|//[a-z]", page_html.text, re.I), page_html.text
    for ref in refs:  # the page's script, style sheet and icon are served here
        r = httpx.get(server.url + ref, timeout=30)
        assert r.status_code == 200 and len(r.content) > 100, ref

    here = urlsplit(server.url).netloc
    outside: list[str] = []

    def only_here(route: Any) -> None:
        if urlsplit(route.request.url).netloc == here:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    ctx = browser.new_context()
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route("**/*", only_here)
    page.goto(server.url + "/docs")
    page.wait_for_selector(".opblock", timeout=20000)
    paths = httpx.get(server.url + "/openapi.json", timeout=30).json()["paths"]
    routes = sum(len(ops) for ops in paths.values())
    assert page.locator(".opblock").count() == routes
    assert "/api/games/{game}/state" in page.inner_text("body")

    # "Authorize" with a token, then "Try it out" on GET /api/whoami
    page.click("button.authorize")
    page.fill(".auth-container input", server.tokens["referee"])
    page.click(".auth-btn-wrapper button.authorize")
    page.click("button.btn-done")
    page.click("#operations-tokens-whoami_api_whoami_get .opblock-summary")
    page.click("#operations-tokens-whoami_api_whoami_get button.try-out__btn")
    page.click("#operations-tokens-whoami_api_whoami_get button.execute")
    body = page.wait_for_selector("#operations-tokens-whoami_api_whoami_get "
                                  ".live-responses-table .response-col_description pre")
    assert '"role": "referee"' in body.inner_text()
    assert outside == [] and errors == []
    ctx.close()


def table_record(gid: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A two-round game as a real table records it: round 1 by its score alone; in round 2 a
    card keyed wrong and retracted by a correction, an exposed card, and after the game two
    rulings on round 2, the first superseded. Returns the events and the retracted play."""
    options = {"game_end": {"type": "deals", "count": 2}}
    played = sim(gid, seed=5, options=options)
    start = dict(played[0], dealer=(played[0]["dealer"] - 1) % 4, options=options)
    deal = played[1:next(i for i, e in enumerate(played) if i > 1 and e["type"] == "dealt")]
    hands = deal[0]["hands"]
    k = [i for i, e in enumerate(deal) if e["type"] == "play"][1]
    typo = dict(deal[k], card=next(c for c in hands[deal[k]["seat"]] if c != deal[k]["card"]))
    body: list[Any] = [{"type": "round_score", "round": 1, "score": [102, 60], "chooser": 1,
                        "trump": "S"}]
    exposed = {"type": "irregularity", "kind": "exposed_card", "seat": 2, "cards": [hands[2][0]],
               "text": "dropped face up"}
    body += [*deal[:k], typo, "correction", exposed, *deal[k:]]
    body += [{"type": "ruling", "round": 2, "score": [0, 162], "reason": "revoke claimed"},
             {"type": "ruling", "round": 2, "score": [81, 81], "reason": "claim withdrawn"}]
    out = [start]
    for e in body:
        if e == "correction":
            e = {"type": "correction", "retracts": [len(out) - 1], "reason": "typo: wrong card keyed"}
        out.append({**{k: v for k, v in e.items() if k not in ("game", "seq")},
                    "game": gid, "seq": len(out)})
    return out, out[k + 2]


def test_the_record_of_a_real_table(browser, server, tmp_path):
    """The score sheet says how each round was recorded and every ruling (the superseded
    struck through, the reason as text, "after the game ended"); the event list strikes the
    retracted play with the correction's reason and lists the irregularity with its cards."""
    gid = "viewer-table-record"
    events, typo = table_record(gid)
    with server.client("admin") as c:
        if create(c, gid, events[0]).status_code == 201:
            record(c, gid, events[1:])
    page, errors = open_page(browser, server, "referee", gid)
    page.wait_for_selector("#main:not([hidden])")
    rows = page.locator("#scoresheet tbody tr")
    assert rows.count() == 2
    assert "score only" in rows.nth(0).inner_text() and "102–60" in rows.nth(0).inner_text()
    second = rows.nth(1)
    struck = second.locator(".ruling.superseded s.ruled")
    assert struck.inner_text() == "ruled 0–162"
    assert "line-through" in struck.evaluate("e => getComputedStyle(e).textDecorationLine")
    assert "revoke claimed" in second.inner_text()  # the reason as text, not a tooltip
    counts = second.locator(".ruling.counts")
    assert "ruled 81–81" in counts.inner_text() and "claim withdrawn" in counts.inner_text()
    assert second.locator(".after-end").count() == 2
    assert "after the game ended" in counts.inner_text()
    assert second.locator("td").last.inner_text() == "183–141"  # the running total
    # the retracted play, struck through, with the correction's reason
    gone = page.locator(f'#events li.retracted[data-seq="{typo["seq"]}"]')
    assert gone.count() == 1
    assert "line-through" in gone.locator(".what").evaluate(
        "e => getComputedStyle(e).textDecorationLine")
    assert "retracted at seq" in gone.inner_text() and "typo: wrong card keyed" in gone.inner_text()
    assert "ann (0) plays" in gone.locator(".what").inner_text()
    # the irregularity: in the event list and, at its seq, in the round panel
    irr = page.locator("#events li.irregularity")
    assert "exposed card by cor (2)" in irr.inner_text() and "dropped face up" in irr.inner_text()
    irr.click()
    assert "exposed card by cor (2)" in page.inner_text("#round-record")
    assert "Timed on the store's own clock (recorded_at)" in page.inner_text("#timing")
    page.screenshot(path=str(tmp_path / "viewer-table-record.png"), full_page=True)
    # the round recorded by its score alone: no empty table, its sheet's facts in words
    assert page.locator("#felt").is_visible()
    rows.nth(0).click()
    page.wait_for_function("document.getElementById('felt').classList.contains('no-table')")
    assert page.locator("#felt").is_hidden()
    said = page.inner_text("#round-record")
    assert "Recorded by its score alone: 102–60" in said and "chosen by bob (1)" in said, said
    assert "no table to show" in said and "chooser 1" not in said

    # a player in the round being played: neither the retracted card nor the correction's
    # reason (free text, which may name cards, as a note's) is shown until the round is over
    live = "viewer-table-record-live"
    cut = typo["seq"] + 3  # the typo, its correction and the irregularity
    start = dict(events[0], game=live)
    with server.client("admin") as c:
        if create(c, live, start).status_code == 201:
            record(c, live, [dict(e, game=live) for e in events[1:cut]])
    seen, errors2 = open_page(browser, server, "player2", live)
    seen.wait_for_selector("#main:not([hidden])")
    assert seen.locator("#last").is_disabled()  # a live game opens at its newest event
    gone = seen.locator(f'#events li.retracted[data-seq="{typo["seq"]}"]')
    assert "typo: wrong card keyed" not in seen.content()
    assert "the reason is shown when the round is over" in gone.inner_text()
    assert "its card is shown when the round is over" in gone.inner_text()
    assert typo["card"] not in seen.content()
    assert "exposed card by cor (2)" in seen.inner_text("#round-record")
    assert not errors and not errors2, errors + errors2


def test_a_seat_does_not_learn_a_retracted_card_of_the_live_round():
    """Two records of the live round that differ only in the card keyed by mistake (and
    retracted) give seat 2 byte-identical frames, events and report; the referee sees it."""
    from jaslog.events import event_from_dict
    from jaslog.play.views import FULL, Sight, frames, report, timeline, visible_events

    events, typo = table_record("viewer-retracted-card")
    cut = typo["seq"] + 3
    real = events[typo["seq"] + 3]["card"]  # the card the seat did play, after the correction
    other = next(c for c in events[2]["hands"][typo["seat"]] if c not in (typo["card"], real))
    logs = [events[:cut], [dict(e, card=other) if e["seq"] == typo["seq"] else e
                           for e in events[:cut]]]
    seen = []
    for log in logs:
        tl = timeline(event_from_dict(e) for e in log)
        assert tl.error is None and tl.live_round == 2
        s = Sight(seat=2)
        seen.append(json.dumps([frames(tl, s), visible_events(tl, s), report(tl, s)]))
        assert log[typo["seq"]]["card"] in json.dumps(report(tl, FULL)["retracted"])
    assert seen[0] == seen[1]
    assert "typo: wrong card keyed" not in seen[0]  # the reason is free text: kept back too


def test_a_live_game_opens_at_its_newest_event_and_links_are_followed(browser, server, tmp_path):
    """A game in play opens at its newest event, not at an empty table; following it keeps
    the round menu and the game menu's event count; an unknown game in a link says so; a
    link pasted into the open tab is opened (hashchange)."""
    gid = "viewer-open-live"
    events = timed(sim(gid, seed=47))
    cut = [i for i, e in enumerate(events) if e["type"] == "dealt"][1] + 3  # into round 2
    with server.client("scorer") as c:
        if create(c, gid, events[0]).status_code == 201:
            record(c, gid, events[1:cut])
    page, errors = open_page(browser, server, "referee", gid)
    page.wait_for_selector("#main:not([hidden])")
    assert page.inner_text("#position") == f"seq {cut - 1} / {cut - 1}", page.inner_text("#position")
    assert page.inner_text("#event-text").startswith(f"seq {cut - 1} ")
    page.wait_for_selector("#live-state:not([hidden])")  # followed, with nothing to tick
    page.wait_for_timeout(500)  # the stream is open
    with server.client("scorer") as c:
        record(c, gid, events[cut:cut + 2], start=cut)
    page.wait_for_function(
        f"document.getElementById('position').textContent === 'seq {cut + 1} / {cut + 1}'",
        timeout=10000)
    assert page.eval_on_selector_all("#round-picker option", "els => els.map(e => e.value)") \
        == ["1", "2"]
    label = page.eval_on_selector(f"#game-picker option[value='{gid}']", "e => e.textContent")
    assert f"{cut + 2} events" in label, label
    # a link to a game that is not there, pasted into the open tab
    page.evaluate("location.hash = '#game=no-such-game'")
    page.wait_for_selector("#error:not([hidden])")
    assert "no-such-game" in page.inner_text("#error")
    assert page.locator("#main").is_hidden()
    page.evaluate(f"location.hash = '#game={gid}&seq=3'")
    page.wait_for_selector("#main:not([hidden])")
    page.wait_for_function("document.getElementById('event-text').textContent.startsWith('seq 3 ')")
    assert page.locator("#error").is_hidden()
    assert not [e for e in errors if "404" not in e], errors


def load_replay(server: Server, name: str) -> str:
    """A game of replays/ (its id), recorded over the API (once per server), without its
    times (the service stamps each event as it comes: a replay's may lie ahead of its clock)."""
    events = [{k: v for k, v in json.loads(line).items() if k != "at"}
              for line in (ROOT / "replays" / name).read_text().splitlines() if line.strip()]
    gid = events[0]["game"]
    with server.client("admin") as c:
        first = {k: v for k, v in events[0].items() if k not in ("type", "seq")}
        r = c.post("/api/games", json=first)
        assert r.status_code in (201, 409), r.text
        if r.status_code == 201:
            record(c, gid, events[1:], batch=300)
    return gid


def sheet_row(page: Any, n: int) -> dict[str, str]:
    """Round ``n`` of the viewer's score sheet: each column's text by its heading."""
    heads = page.eval_on_selector_all("#scoresheet thead th", "ts => ts.map(t => t.textContent)")
    cells = page.eval_on_selector_all(f"#scoresheet tbody tr:nth-child({n}) td",
                                      "ts => ts.map(t => t.innerText)")
    return dict(zip(heads, cells, strict=True))


def test_klaberjass_points_held_on_a_tie_and_received_after_it(browser, server, tmp_path):
    """tie_mode carry_over: deal 6 ties and its maker's 87 are held; deal 7's winner receives
    them. The sheet's Total counts them where they count (deal 7: 424–503, as the game line
    and check --json say), and both the sheet and the event panel say what was held and what
    was received."""
    gid = load_replay(server, "klaberjass-faults.jsonl")
    with server.client("referee") as c:
        audit = c.get(f"/api/games/{gid}/audit").json()
    six, seven = audit["rounds"][5], audit["rounds"][6]
    assert (six["result"], six["held"], seven["received"]) == ("tie", 87, 87)
    assert seven["totals"] == audit["totals"] == [424, 503]
    page, errors = open_page(browser, server, "referee", gid)
    page.wait_for_selector("#main:not([hidden])")
    assert page.locator("#live-state").is_hidden()  # a finished game is not followed
    row6, row7 = sheet_row(page, 6), sheet_row(page, 7)
    assert "87 held for the next deal's winner" in row6["Score"]
    assert row6["Total"] == "244–461"
    assert row7["Score"].startswith("93–42") and "+ 87 received → 180–42" in row7["Score"]
    assert row7["Total"] == "424–503"
    assert page.inner_text("#totals").startswith("tess 424 · umut 503")
    # the table after deal 7's last card
    page.evaluate(f"location.hash = '#game={gid}&seq=168'")
    page.wait_for_function("document.getElementById('event-text').textContent.startsWith('seq 168 ')")
    line = page.inner_text("#round-score")
    assert "made: 93–42 · + 87 received (held from a tie) → 180–42" in line, line
    # the game line then, before the later ruling on deal 5, says so
    assert "game 420–507 (before the ruling at seq 170 on round 5, 4–109; the score sheet " \
        "counts it)" in line, line
    page.evaluate(f"location.hash = '#game={gid}&seq=144'")  # deal 6 over: the tie
    page.wait_for_function("document.getElementById('event-text').textContent.startsWith('seq 144 ')")
    assert "87 held for the next deal's winner" in page.inner_text("#round-score")
    page.screenshot(path=str(tmp_path / "viewer-klaberjass-held.png"), full_page=True)
    assert not errors, errors


def test_a_ruled_round_beside_its_score_as_played(browser, server, sample, tmp_path):
    """The sample's round 2 (a revoke, 0–232 as played) was struck by the director after
    the game: the sheet says "ruled 0–0, as played 0–232" with the reason as text; at the
    end of round 2, before that ruling, the event panel's game total says why it differs
    from the sheet's; one numbering of events; names and card symbols as everywhere."""
    page, errors = open_page(browser, server, "referee")
    page.goto(f"{server.url}/viewer#game={sample}&seq=70")
    page.reload()
    page.wait_for_function("document.getElementById('event-text').textContent.startsWith('seq 70 ')")
    row = sheet_row(page, 2)
    assert row["Score"].startswith("ruled 0–0, as played 0–232\nDirector: the revoke followed "
                                   "a card exposed by accident"), row["Score"]
    assert row["Total"] == "38–124"
    assert page.get_attribute("#scoresheet tbody tr:nth-child(2) td:nth-child(8)", "title") is None
    line = page.inner_text("#round-score")
    assert "revoke: 0–232" in line
    assert "game 38–356 (before the ruling at seq 577 on round 2, 0–0; the score sheet counts " \
        "it)" in line, line
    assert page.inner_text("#position") == "seq 70 / 577"
    assert page.inner_text("#event-text").startswith("seq 70 ")
    tags = page.eval_on_selector_all(".seat .tag", "els => els.map(e => e.textContent)")
    assert not any("plays" in t for t in tags), tags
    assert any("chose trumps" in t for t in tags), tags
    # a rule's sentence names the player and the cards as the event list does
    page.locator("#violations li").first.click()
    assert "ilse (0) played 7♣" in page.inner_text("#banner")
    assert "ilse (0) plays 7♣" in page.inner_text("#event-text")
    assert "seat 0" not in page.inner_text("#violations")
    assert "7C" not in page.inner_text("#violations")
    # the last event, the ruling itself: the round it rules is over long before
    page.click("#last")
    assert "before the ruling" not in page.inner_text("#round-score")
    assert not errors, errors


def test_a_round_recorded_without_hands_says_so(browser, server, tmp_path):
    """amsterdam-no-hands: every deal recorded without hands. The table shows the hands
    rebuilt from the plays, and says so, and that legality is judged at the last card."""
    gid = load_replay(server, "amsterdam-no-hands.jsonl")
    page, errors = open_page(browser, server, "referee")
    page.goto(f"{server.url}/viewer#game={gid}&seq=39")
    page.reload()
    page.wait_for_function("document.getElementById('event-text').textContent.startsWith('seq 39 ')")
    note = page.inner_text("#round-record")
    assert "Hands not recorded: the hands shown are rebuilt from the cards played later in " \
        "the round" in note, note
    assert "judged at the round's last card" in note
    tags = page.eval_on_selector_all(".seat .tag", "els => els.map(e => e.textContent)")
    assert all("hand rebuilt from the plays" in t for t in tags), tags
    assert not errors, errors
