"""The round page and the tournament page, end to end in headless Chromium via Playwright:
a disputed round with everything in it, on screen and as printed; a tournament followed
from its page into its games and back."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from jaslog.play.sim import simulate_game
from tests.service.conftest import Server, create, record, timed
from tests.service.test_viewer import SAMPLE

#: A real browser (a Chromium process, pages rendered) for every test.
pytestmark = pytest.mark.soak



def open_url(browser: Any, server: Server, role: str, path: str) -> tuple[Any, list[str]]:
    """A new page at ``path`` (``page.html#...``) signed in with the token of ``role``."""
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text)
            if m.type == "error" and not refused_analysis(m) else None)
    base, _, frag = path.partition("#")
    page.goto(f"{server.url}{base}#token={server.tokens[role]}" + (f"&{frag}" if frag else ""))
    return page, errors


def refused_analysis(m: Any) -> bool:
    """Whether a console message is the browser's note of the analysis route's 403 (a round
    this token may not see the analysis of yet): the page shows the service's reason."""
    return "/analysis?round=" in (m.location or {}).get("url", "") and "403" in m.text


def disputed(gid: str) -> list[dict[str, Any]]:
    """The sample club game (round 2: revokes, and after the game a ruling striking the
    round) with an exposed card recorded in round 2's second trick and, before the sample's
    ruling, a first ruling on round 2 that the sample's supersedes."""
    events = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]
    out: list[dict[str, Any]] = []
    for e in events:
        if e["type"] == "ruling":
            out.append({"type": "ruling", "round": 2, "score": [0, 232], "at": e["at"],
                        "reason": "revoke by ilse: the round to the other team"})
        out.append(e)
        if e["seq"] == 42:  # the second card of trick 2
            out.append({"type": "irregularity", "kind": "exposed_card", "seat": 2,
                        "cards": ["JS"], "text": "shown while sorting", "at": e["at"]})
    return [{**{k: v for k, v in e.items() if k not in ("game", "seq")}, "game": gid, "seq": i}
            for i, e in enumerate(out)]


@pytest.fixture(scope="module")
def dispute(server: Server) -> str:
    gid = "pages-disputed-round"
    events = disputed(gid)
    with server.client("admin") as c:
        first = {k: v for k, v in events[0].items() if k not in ("type", "seq")}
        r = c.post("/api/games", json=first)
        assert r.status_code in (201, 409), r.text
        if r.status_code == 201:
            record(c, gid, events[1:], batch=200)
    return gid


def test_a_referee_reads_a_disputed_round_and_prints_it(browser, server, dispute, tmp_path):
    page, errors = open_url(browser, server, "referee",
                            f"/static/round.html#game={dispute}&round=2")
    page.wait_for_selector("#main:not([hidden])")
    assert page.inner_text("#title") == f"Game {dispute} · round 2"
    assert "Clubavond De Hoop" in page.inner_text("#game-line")
    assert page.inner_text("#view-note").startswith("Referee view")
    # the deal: every hand, eight cards each
    for s in range(4):
        assert page.locator(f'.deal-seat[data-seat="{s}"] .card:not(.back)').count() == 8
    # trick by trick: eight tricks, each card with its seat and seq; the revoke at its card
    assert page.locator('#tricks tr.trick-row[data-trick="8"]').count() == 1
    third = page.locator('#tricks tr.trick-row[data-trick="3"]')
    assert third.locator('.played .card.violation[data-card="7C"]').count() == 1
    assert "must_follow_suit" in third.locator(".notes .violation").first.inner_text()
    assert third.locator(".played").count() == 4
    # the irregularity in the trick where it happened, and in its own list
    second = page.locator('#tricks tr.trick-row[data-trick="2"]')
    assert "exposed card by kees (2) J♠: shown while sorting" in second.inner_text()
    assert "exposed card by kees (2)" in page.inner_text("#irregularities")
    # every violation of the round
    vs = page.locator("#violations li")
    assert vs.count() == 3 and "must_overtrump" in page.inner_text("#violations")
    # both rulings, in order, the first superseded, each with its reason
    rulings = page.locator("#rulings li")
    assert rulings.count() == 2
    assert "superseded" in rulings.nth(0).get_attribute("class")
    assert rulings.nth(0).locator("s.ruled").inner_text() == "ruled 0–232"
    assert "revoke by ilse: the round to the other team" in rulings.nth(0).inner_text()
    assert "round 2 is struck" in rulings.nth(1).inner_text()
    assert "after the game ended" in rulings.nth(1).inner_text()
    # played against ruled
    score = page.locator("#score")
    assert "0–232" in score.locator("tr.played").inner_text()
    assert "revoke" in score.locator("tr.played").inner_text()
    assert score.locator("tr.ruled").count() == 2
    assert score.locator("tr.final td.score").inner_text() == "0–0"
    # the analysis: the par beside the round as played, and the costly plays (the revokes)
    page.wait_for_selector("#par:not([hidden])")
    assert not page.locator("#analysis").is_visible()
    assert "revoke" in page.inner_text("#par tr.played")
    assert "revoke" in page.inner_text("#costly")
    page.screenshot(path=str(tmp_path / "round-screen.png"), full_page=True)
    # on paper: no navigation, every section
    assert page.locator("nav.page-tools").is_visible() and page.locator("#site-header").is_visible()
    page.emulate_media(media="print")
    assert not page.locator("nav.page-tools").is_visible()
    assert not page.locator("#site-header").is_visible()
    assert not page.locator("#print").is_visible()
    for box in ("deal", "tricks", "rulings", "score", "violations", "irregularities", "analysis"):
        assert page.locator(f"#{box}-box").is_visible(), box
    # every numbered list has room for "12." on paper, and an empty one is not numbered
    for ol in ("rulings", "violations", "irregularities", "costly"):
        room = page.evaluate(f"""() => {{ const ol = document.getElementById("{ol}");
            const li = ol.appendChild(document.createElement("li"));
            li.textContent = "x"; const probe = document.createElement("span");
            probe.textContent = "12. "; probe.style.position = "absolute";
            document.body.appendChild(probe);
            const r = [parseFloat(getComputedStyle(ol).paddingLeft),
                       probe.getBoundingClientRect().width * parseFloat(getComputedStyle(li).fontSize)
                         / parseFloat(getComputedStyle(probe).fontSize)];
            li.className = "empty"; r.push(getComputedStyle(li).listStyleType);
            li.remove(); probe.remove(); return r; }}""")
        assert room[0] >= room[1] and room[2] == "none", (ol, room)
    page.pdf(path=str(tmp_path / "round.pdf"))
    assert not errors, errors


def test_a_seat_reads_a_round_as_the_api_gives_it(browser, server, tmp_path):
    """A seat's round page during the round: its own hand as dealt, the others' hidden."""
    gid = "pages-seat-live"
    events = timed(simulate_game(gid, "amsterdam", None, seed=41, seats=["ann", "bob", "cor", "dirk"]))
    with server.client("scorer") as c:
        if create(c, gid, events[0]).status_code == 201:
            record(c, gid, events[1:12])
    page, errors = open_url(browser, server, "player2", f"/static/round.html#game={gid}&round=1")
    page.wait_for_selector("#main:not([hidden])")
    assert page.inner_text("#view-note").startswith("Seat view of cor (2)")
    own = page.eval_on_selector_all('.deal-seat[data-seat="2"] .card',
                                    "els => els.map(e => e.dataset.card)")
    assert sorted(own) == sorted(events[1]["hands"][2])
    assert page.locator('.deal-seat[data-seat="0"] .card.back').count() == 8
    secret = {c for s in (0, 1, 3) for c in events[1]["hands"][s]}
    played = {e["card"] for e in events[1:12] if e["type"] == "play"}
    html = page.content()
    assert not any(f'data-card="{c}"' in html for c in secret - played)
    # the round is not over: its analysis names every hand, and the service says when
    page.wait_for_selector("#analysis:has-text('not shown')")
    assert "round 1 is still being played" in page.inner_text("#analysis")
    assert not page.locator("#par").is_visible() and not page.locator("#costly").is_visible()
    # a round that is not in the record
    page.goto(f"{server.url}/static/round.html#game={gid}&round=9")
    page.reload()
    page.wait_for_selector("#error:not([hidden])")
    assert "round 9 is not in the record" in page.inner_text("#error")
    assert not errors, errors


def test_a_tournament_followed_from_its_page(browser, server, tmp_path):
    players = [f"pg{i}" for i in range(8)]
    options = {"game_end": {"type": "deals", "count": 2}}
    with server.client("admin") as c:
        r = c.post("/api/tournaments", json={"id": "pagecup", "name": "Pagina beker",
                                             "players": players, "seed": 3, "options": options,
                                             "move_limit_s": 3600})
        assert r.status_code == 201, r.text
        tables = r.json()["rounds"][0]["tables"]
        infos = [c.get(f"/api/games/{g['game']}").json() for g in tables]
    games = []
    for g, info in zip(tables, infos, strict=True):
        for seed in range(200):
            evs = simulate_game(g["game"], info["ruleset"], options, seed=seed, seats=info["seats"])
            if evs[0]["dealer"] == info["dealer"]:
                games.append(timed(evs, step=2))
                break
    first, second = (g["game"] for g in tables)
    with server.client("admin") as c:  # table 1 plays its game out, table 2 has begun
        record(c, first, games[0][1:], batch=200)
        record(c, second, games[1][1:10])

    page, errors = open_url(browser, server, "public", "/static/tournament.html#id=pagecup&every=1")
    page.wait_for_selector("#main:not([hidden])")
    assert page.inner_text("#title") == "Pagina beker (pagecup)"
    assert "Status: playing" in page.inner_text("#status")
    # standings: every player, the losers of table 1 out, the rest still in
    rows = page.locator("#standings tbody tr")
    assert rows.count() == 8
    assert sorted(rows.evaluate_all("rs => rs.map(r => r.dataset.player)")) == players
    assert page.locator("#standings tbody tr.out").count() == 2
    # rounds and tables with their scores and links
    assert page.locator('.round-block[data-round="1"] h4').inner_text() == "Round 1 · in play"
    # teams numbered as `jaslog tournament show` numbers them; times in UTC, as everywhere
    heads = page.locator('.round-block[data-round="1"] thead th').all_inner_texts()
    assert heads[1:3] == ["Team 1", "Team 2"]
    assert re.fullmatch(r"updated \d\d:\d\d:\d\d UTC", page.inner_text("#updated"))
    done = page.locator(f'.tables tr[data-game="{first}"]')
    live = page.locator(f'.tables tr[data-game="{second}"]')
    assert "finished" in done.inner_text() and "✓" in done.inner_text()
    assert "playing" in live.inner_text() and "live" in live.get_attribute("class")
    before = live.locator("td.score").inner_text()
    # followed live: table 2 finishes its game, the page says so without a reload
    with server.client("admin") as c:
        record(c, second, games[1][10:], start=10, batch=200)
    page.wait_for_function(
        f"""document.querySelector('.tables tr[data-game="{second}"] td.state')
            .textContent === 'finished'""", timeout=15000)
    assert live.locator("td.score").inner_text() != before or before == "0–0"
    assert page.locator('.round-block[data-round="1"] h4').inner_text() == "Round 1 · over"
    page.screenshot(path=str(tmp_path / "tournament.png"), full_page=True)

    # the link opens the game in the viewer, which names its tournament, round and table
    done.locator("a.game-link").click()
    page.wait_for_selector("#game-context:not([hidden])")
    ctx = page.inner_text("#game-context")
    assert "Tournament Pagina beker (pagecup) · round 1 · table 1" in ctx, ctx
    assert page.locator("#game-picker").input_value() == first
    # and back to the tournament
    page.click("#game-context a.tournament-link")
    page.wait_for_selector("#main:not([hidden]) #title")
    assert page.inner_text("#title") == "Pagina beker (pagecup)"
    # the list of every tournament links to it
    page.goto(f"{server.url}/static/tournament.html")
    page.wait_for_selector("#list-main:not([hidden])")
    assert page.locator('#tournaments tr[data-id="pagecup"] a').count() == 1
    assert not errors, errors


def test_a_round_page_from_the_viewer(browser, server, dispute):
    """The viewer links to the round page of the round it stands on."""
    page = browser.new_context().new_page()
    page.goto(f"{server.url}/viewer#token={server.tokens['referee']}&game={dispute}")
    page.wait_for_selector("#game-context:not([hidden])")
    page.select_option("#round-picker", "2")
    page.click("#game-context a.round-page-link")
    page.wait_for_selector("#main:not([hidden]) #title")
    assert page.inner_text("#title") == f"Game {dispute} · round 2"
    assert "tournament" not in page.inner_text("#game-line")


def test_a_round_s_par_beside_its_result_and_its_costly_plays(browser, server):
    """The round page reads GET /api/games/{id}/analysis: the par beside the result as played,
    each costly play in words and as a badge on its card; a round recorded by its score
    alone says it has no par, and why (to the referee; the public is told its hands, and
    so its analysis, stay secret)."""
    from tests.service.test_analysis_api import REPLAYS, read
    from tests.service.test_viewer import table_record

    path = REPLAYS / "amsterdam-free.jsonl"
    events = read(path)
    gid = events[0]["game"]
    with server.client("admin") as c:
        if create(c, gid, events[0]).status_code == 201:
            record(c, gid, events[1:], batch=200)
        r = c.get(f"/api/games/{gid}/analysis", params={"round": 1})
        assert r.status_code == 200, r.text
        want = r.json()
    page, errors = open_url(browser, server, "public", f"/static/round.html#game={gid}&round=1")
    page.wait_for_selector("#par:not([hidden])")
    par = page.inner_text("#par tr.par")
    assert want["par_result"] in par and f"+{want['par']}" in par
    played = page.inner_text("#par tr.played")
    assert want["result"] in played and "–".join(map(str, want["score"])) in played
    assert want["sides"][0] in page.inner_text("#par thead")
    costly = page.locator("#costly li.costly-play")
    assert costly.count() == len(want["costly"]) > 0
    for i, x in enumerate(want["costly"]):
        li = costly.nth(i)
        assert li.get_attribute("data-seq") == str(x["seq"])
        assert f"cost {x['loss']}" in li.inner_text() and "best" in li.inner_text()
        assert ("mistake" in (li.get_attribute("class") or "")) == (x["mistake"] and not x["blunder"])
        badge = page.locator(f'#tricks .played[data-seq="{x["seq"]}"] .card .loss-badge')
        assert badge.inner_text() == f"−{x['loss']}"
    assert page.locator("#tricks .loss-badge").count() == len(want["costly"])
    # a round recorded by its score alone: no par, and the reason
    other = "pages-table-record"
    record_events, _ = table_record(other)
    with server.client("admin") as c:
        if create(c, other, record_events[0]).status_code == 201:
            record(c, other, record_events[1:])
    page.goto(f"{server.url}/static/round.html#game={other}&round=1")
    page.wait_for_selector("#analysis:has-text('stay secret')")  # to the public, for good
    ref, ref_errors = open_url(browser, server, "referee",
                               f"/static/round.html#game={other}&round=1")
    ref.wait_for_selector("#analysis:has-text('no par')")
    assert not ref.locator("#par").is_visible() and not ref.locator("#costly").is_visible()
    assert not errors and not ref_errors, errors + ref_errors


def test_a_claimed_round_says_who_claimed_what_and_the_verdict(browser, server):
    """A round whose play a claim of the rest ended, appended through the API: the round
    page names the claimer, what the claim gave and the solver's verdict."""
    from tests.test_claims import cut_before_play, first_round

    gid = "pages-claimed-round"
    events = [{**e, "game": gid} for e in cut_before_play(first_round("amsterdam", 9), 7, 4)]
    events.append({"game": gid, "seq": len(events), "type": "claim", "seat": 0,
                   "gives": "rest_to_claimer"})
    with server.client("admin") as c:
        if create(c, gid, events[0]).status_code == 201:
            record(c, gid, events[1:], batch=200)
        report = c.get(f"/api/games/{gid}/audit").json()
    claim = report["rounds"][0]["claim"]
    assert claim is not None and claim["tricks"] == 2
    page, errors = open_url(browser, server, "referee", f"/static/round.html#game={gid}&round=1")
    page.wait_for_selector("#main:not([hidden])")
    text = page.inner_text("#summary")
    assert f"claimed the rest at seq {claim['seq']}: 2 tricks from trick 7, {claim['points']} " \
        "card points to" in text
    assert ("sound" in text) is claim["guaranteed"]
    assert ("claim_not_guaranteed" in text) is (not claim["guaranteed"])
    assert not errors, errors


def test_every_page_fits_a_phone(browser, server, dispute):
    """At 390 px no page scrolls sideways: the games list, a disputed round (its violations'
    sentences wrap), the tournaments and one tournament with its tables."""
    players = [f"ph{i}" for i in range(8)]
    with server.client("admin") as c:
        r = c.post("/api/tournaments", json={"id": "phonecup", "name": "Telefoon beker",
                                             "players": players, "seed": 5})
        assert r.status_code in (201, 409), r.text
    pages = ["/static/games.html", f"/static/round.html#game={dispute}&round=2",
             "/static/tournament.html", "/static/tournament.html#id=phonecup"]
    for path in pages:
        page, errors = open_url(browser, server, "referee", path)
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(300)
        width = page.evaluate("document.documentElement.scrollWidth")
        wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > 391 && e.offsetParent !== null)
            .slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className)""")
        assert width <= 390, (path, width, wide)
        assert not errors, (path, errors)
        page.close()
