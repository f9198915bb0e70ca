"""The scorer's pad in headless Chromium at a phone's width (390 px), on the real service: a
whole Klaverjas game (a typo fixed, a revoke recorded as one, a claim, a round by its score,
a referee's ruling, ten cards recorded with the network cut and a reload meanwhile), a whole
Klaberjass and Kloepper game, and a conflict with another writer (in Dutch, printed).

Soak tests (``make soak``): whole games typed in a browser take minutes; ``make test``'s
browser smoke test is the games page (tests/service/test_games_page.py) and the pad's routes
are tested without a browser (tests/service/test_pad_api.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.play.sim import simulate_game
from jaslog.store import open_store
from tests.service.conftest import Server
from tests.service.inprocess import HANDS

pytestmark = [pytest.mark.slow, pytest.mark.soak]

SEATS = ["ann", "bob", "cor", "dirk"]
PHONE = {"width": 390, "height": 844}

#: Waits until the pad's queue is empty, no request of its own is under way, and it has
#: asked the service for the table again.
SETTLED = """async () => {
  const P = window.jaslogPad;
  const busy = () => P.queue().length || P.pad.sending || P.pad.busy;
  for (let i = 0; i < 400 && busy(); i++) await new Promise(r => setTimeout(r, 25));
  await P.refresh();
  return P.queue().length;
}"""

#: Sends events through the pad's own queue (each gets its id there) and waits for them.
SEND = """async (events) => {
  const P = window.jaslogPad;
  P.enqueue(events);
  const busy = () => P.queue().length || P.pad.sending;
  for (let i = 0; i < 400 && busy(); i++) await new Promise(r => setTimeout(r, 25));
  await P.refresh();
  return P.pad.turn.next_seq;
}"""


def phone(browser: Any, token: str, url: str) -> tuple[Any, Any, list[str]]:
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-GB")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}#token={token}")
    return ctx, page, errors


def turn(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("window.jaslogPad.pad.turn"))


def settle(page: Any) -> dict[str, Any]:
    assert page.evaluate(SETTLED) == 0
    return turn(page)


def yes_if_asked(page: Any) -> None:
    page.wait_for_selector("#ask[open]")
    page.click("#ask-yes")


def rounds_of(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """A simulated game's rounds: the events from each deal to the next, as a client sends
    them (no game, seq, at)."""
    out: list[list[dict[str, Any]]] = []
    for e in events[1:]:
        if e["type"] == "dealt":
            out.append([])
        out[-1].append({k: v for k, v in e.items() if k not in ("game", "seq", "at")})
    return out


def ten_plays(events: list[dict[str, Any]]) -> int | None:
    """Where ten cards follow each other in a round (no roem claim between them), after
    the first two cards; None when they never do."""
    first = next(i for i, e in enumerate(events) if e["type"] == "play") + 2
    return next((i for i in range(first, len(events) - 9)
                 if all(e["type"] == "play" for e in events[i:i + 10])), None)


def no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_the_new_game_form_shows_once_filled_in(browser: Any, server: Server) -> None:
    """The new game's form is shown once its lists are filled, the token's table is in it
    and it is wired: held while the service has not said whose token it is, the form stays
    hidden (it was shown before, empty of the table and open to the browser's own submit)."""
    scorer = server.token("scorer", table="5", label="phone at table 5")
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-GB")
    page = ctx.new_page()
    held: list[Any] = []

    def hold(route: Any) -> None:  # answered once the test lets them through
        if held and held[0] is None:
            route.continue_()
        else:
            held.append(route)

    page.route("**/api/whoami", hold)
    page.goto(f"{server.url}/record#token={scorer}")
    page.wait_for_selector("#ng-ruleset option", state="attached")
    for _ in range(400):
        if held:
            break
        page.wait_for_timeout(25)
    assert held, "the page never asked whose token it is"
    assert page.is_hidden("#new-game")
    routes, held[:] = held[:], [None]
    for route in routes:
        route.continue_()
    page.wait_for_selector("#new-game:not([hidden])")
    assert page.input_value("#ng-table") == "5"  # read at once: no wait for it to arrive
    assert page.locator("#ng-ruleset option").count() >= 2
    ctx.close()


def test_a_klaverjas_game_on_the_pad(browser: Any, server: Server, tmp_path: Path) -> None:
    sim, cut = next((g, i) for g in (simulate_game("pad-sim", "amsterdam", None, seed=n,
                                                   seats=SEATS) for n in range(11, 40))
                    for i in [ten_plays(rounds_of(g)[2])] if i is not None)
    dealer = sim[0]["dealer"]
    scorer = server.token("scorer", table="7", event="club night", label="phone at table 7")
    ctx, page, errors = phone(browser, scorer, f"{server.url}/record")

    # a new game: the form, the scorer's table filled in
    page.wait_for_selector("#new-game:not([hidden])")
    assert page.input_value("#ng-table") == "7"  # shown once filled in
    for s, name in enumerate(SEATS):
        page.fill(f"#ng-seat-{s}", name)
    page.select_option("#ng-ruleset", "amsterdam")
    page.select_option("#ng-dealer", str(dealer))
    page.fill("#ng-event", "club night")
    page.click("#ng-start")
    page.wait_for_url("**/record/*")
    gid = page.url.rsplit("/", 1)[1].split("#")[0]
    page.wait_for_function("window.jaslogPad && window.jaslogPad.pad.turn")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    no_sideways_scroll(page)

    # round 1: the hands tapped in (the fourth is the rest of the pack)
    page.click("#deal-tap")
    for hand in HANDS[:3]:
        page.wait_for_selector("#ask[open]")
        for c in hand:
            page.click(f"#ask-cards button[data-card='{c}']")
    t = settle(page)
    assert t["expects"] == "bid" and t["hands"][3] == HANDS[3]
    page.click("#actions button[data-value='H']")
    t = settle(page)
    assert (t["expects"], t["trump"]) == ("play", "H")
    lead = t["turn"]
    # a typo, fixed: the pad says what the fix retracts and asks
    typo, meant = t["legal"][0], t["legal"][1]
    page.click(f"#cards button[data-card='{typo}']")
    settle(page)
    page.click("#t-fix")
    page.wait_for_selector("#ask[open]")
    assert "retract" in page.inner_text("#ask-shown") and typo[:-1] in page.inner_text("#ask-shown")
    page.click("#ask-yes")
    t = settle(page)
    assert t["recent"][-2]["retracted"] and t["turn"] == lead
    page.click(f"#cards button[data-card='{meant}']")
    t = settle(page)
    # a revoke: a card the rules do not allow is asked about and stored as the fact it is
    hand = t["hands"][t["turn"]]
    wrong = next(c for c in hand if c not in t["legal"])
    assert page.get_attribute(f"#cards button[data-card='{wrong}']", "class").count("legal") == 0
    page.click(f"#cards button[data-card='{wrong}']")
    page.wait_for_selector("#ask[open]")
    assert "record it anyway" in page.inner_text("#ask-text")
    page.click("#ask-yes")
    t = settle(page)
    for _ in range(2):
        page.click(f"#cards button[data-card='{t['legal'][0]}']")
        t = settle(page)
    # a claim of the rest by the seat due: the round's play ends
    page.click("#t-claim")
    page.wait_for_function("!window.jaslogPad.pad.busy || document.querySelector('#ask[open]')")
    if page.is_visible("#ask[open]"):  # a claim the hands do not bear out stands as one
        page.click("#ask-yes")
    t = settle(page)
    assert t["expects"] == "deal" and len(t["sheet"]) == 1
    assert page.locator("#sheet tbody tr").count() == 1

    # round 2: written on the sheet by its score alone
    page.click("#t-score")
    page.wait_for_selector("#ask[open]")
    page.fill("#ask-input", "100 62")
    page.click("#ask-ok")
    page.wait_for_function("window.jaslogPad.pad.turn.sheet.length === 2", timeout=15000)
    t = settle(page)
    assert len(t["sheet"]) == 2 and t["sheet"][1]["result"] == "score_only"

    # round 3: the deal and the bids, two cards, then ten cards with the network cut
    sim_rounds = rounds_of(sim)
    r3 = sim_rounds[2]
    page.evaluate(SEND, r3[:cut])
    offline = r3[cut:cut + 10]
    ctx.set_offline(True)
    page.wait_for_selector("#net.offline")
    for i, e in enumerate(offline):
        if i == 5:  # a reload while offline: the page and its queue are still there
            page.reload()
            page.wait_for_function("window.jaslogPad && window.jaslogPad.pad.turn")
            assert page.evaluate("window.jaslogPad.queue().length") == 5
            page.wait_for_selector("#seat-pick:not([hidden])")
        page.click(f"#seat-pick button[data-seat='{e['seat']}']")
        page.click(f"#cards button[data-card='{e['card']}']")
    assert page.locator("#queue li").count() == 10
    assert "offline" in page.inner_text("#net")
    queued_ids = page.evaluate("window.jaslogPad.queue().flatMap(b => b.events.map(e => e.id))")
    ctx.set_offline(False)
    page.wait_for_function("window.jaslogPad.queue().length === 0", timeout=20000)
    t = settle(page)
    with server.client("admin") as admin:
        stored = admin.get(f"/api/games/{gid}/events").json()["events"]
    by_id = [e for e in stored if e.get("id") in set(queued_ids)]
    assert [(e["seat"], e["card"]) for e in by_id] == [(e["seat"], e["card"]) for e in offline]
    assert len({e["id"] for e in stored if e.get("id")}) == len([e for e in stored if e.get("id")])
    page.evaluate(SEND, r3[cut + 10:])

    # rounds 4-16: sent through the pad's queue, a round at a time
    for r in sim_rounds[3:]:
        page.evaluate(SEND, r)
    t = settle(page)
    assert t["expects"] == "over" and t["finished"] and len(t["sheet"]) == 16
    assert page.locator("#sheet tbody tr").count() == 16
    cert = page.inner_text("#cert")
    assert cert == t["certificate"]
    assert {e["by"] for e in t["recent"]} == {"phone at table 7"}
    no_sideways_scroll(page)

    # a referee's ruling on round 2, from the referee's pad
    rctx, rpage, rerrors = phone(browser, server.tokens["referee"], f"{server.url}/record/{gid}")
    rpage.wait_for_function("window.jaslogPad && window.jaslogPad.pad.turn")
    assert rpage.is_visible("#t-ruling")
    rpage.click("#t-ruling")
    for answer in ("2", "90 72", "the score was written wrongly"):
        rpage.wait_for_selector("#ask[open]")
        rpage.fill("#ask-input", answer)
        rpage.click("#ask-ok")
    t = settle(rpage)
    assert t["sheet"][1]["ruling"]["score"] == [90, 72]
    assert t["recent"][-1]["by"].startswith("referee token ")

    # the certificate covers the events alone: the same events in another store, imported
    # with their ids and times, give the same one (who recorded them is not hashed)
    with server.client("admin") as admin:
        stored = admin.get(f"/api/games/{gid}/events").json()["events"]
        head = admin.get(f"/api/games/{gid}/head").json()
    other = open_store(str(tmp_path / "other.sqlite"))
    other.import_lines([orjson.dumps(e).decode() for e in stored])
    assert other.head(gid).certificate == head["certificate"] == t["certificate"]
    other.close()
    # the pad's events are the simulated game's, as they would be sent to the API
    sent = [{k: v for k, v in e.items() if k not in ("game", "seq", "at", "id", "recorded_at")}
            for e in stored]
    later = [{k: v for k, v in e.items() if k != "id"} for r in sim_rounds[3:] for e in r]
    assert sent[-len(later) - 1:-1] == later
    assert not errors and not rerrors
    rctx.close()
    ctx.close()


#: The calls a test bids when it may, so that a deal is played (not annulled, nor thrown in).
PLAYED_CALLS = ("take", "accept", "play", "C", "D", "H", "S", "AC", "AD", "AH", "AS", "alone")


def play_out(page: Any, limit: int = 1000) -> dict[str, Any]:
    """Record with the pad's buttons until the game is over: a server deal, the first call
    the rules take without a violation, the first legal card."""
    t = settle(page)
    for _ in range(limit):
        if t["expects"] == "over":
            return t
        # what breaks a rule (a knock without a black queen) is offered apart, folded away
        breaking = sum(1 for a in t["actions"] if a["breaks"])
        assert page.locator("#actions-breaking button").count() == breaking
        assert page.locator("#actions button").count() == len(t["actions"]) - breaking
        if t["expects"] in ("deal", "second_deal"):
            page.click("#deal-server")
        elif t["expects"] == "play":
            page.click(f"#cards button[data-card='{t['legal'][0]}']")
        else:
            clean = [a for a in t["actions"] if not a["breaks"]]
            a = next((x for x in clean if x.get("call") in PLAYED_CALLS), clean[0])
            value = next(v for k, v in a.items() if k not in ("type", "seat", "breaks"))
            page.click(f"#actions button[data-type='{a['type']}'][data-value='{value}']")
        t = settle(page)
    raise AssertionError(f"the game did not end in {limit} steps: {t}")


@pytest.mark.parametrize("ruleset, seats, target", [("klaberjass-2p", SEATS[:2], 200),
                                                    ("kloepper", SEATS, 8)])
def test_other_games_on_the_pad(browser: Any, server: Server, ruleset: str,
                                seats: list[str], target: int) -> None:
    """A whole game, to a low target so that it takes a few deals."""
    scorer = server.token("scorer", table="8", label=f"{ruleset} phone")
    gid = f"pad-{ruleset}-{id(server) % 100000}"
    with server.client() as c:
        c.headers["Authorization"] = f"Bearer {scorer}"
        r = c.post("/api/games", json={"game": gid, "ruleset": ruleset, "seats": seats,
                                       "dealer": 0, "meta": {"table": "8"},
                                       "options": {"target": target}})
        assert r.status_code == 201, r.text
    # the games page opens a live game of the token's table on the pad
    ctx, page, errors = phone(browser, scorer, f"{server.url}/static/games.html")
    page.goto(f"{server.url}/static/games.html#table=8&status=live")
    page.click(f"tr[data-game='{gid}'] button.record")
    page.wait_for_url(f"**/record/{gid}")
    page.wait_for_function("window.jaslogPad && window.jaslogPad.pad.turn")
    t = play_out(page)
    assert t["finished"] and max(t["totals"]) >= target and t["certificate"]
    assert page.locator("#sheet tbody tr").count() == len(t["sheet"]) >= 1
    assert page.inner_text("#cert") == t["certificate"]
    assert {e["by"] for e in t["recent"]} == {f"{ruleset} phone"}
    no_sideways_scroll(page)
    assert not errors
    ctx.close()


def test_a_conflict_shows_both_and_overwrites_nothing(browser: Any, server: Server) -> None:
    """A card recorded offline while another writer appended: both versions are shown, and
    the scorer's choice (here: mine after theirs) stores both. In Dutch, and printable."""
    scorer = server.token("scorer", table="9", label="telefoon tafel 9")
    gid = f"pad-conflict-{id(server) % 100000}"
    with server.client() as api:
        api.headers["Authorization"] = f"Bearer {scorer}"
        assert api.post("/api/games", json={"game": gid, "ruleset": "amsterdam", "seats": SEATS,
                                            "dealer": 3, "meta": {"table": "9"}}).status_code == 201
        ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="nl-NL")
        page = ctx.new_page()
        page.goto(f"{server.url}/record/{gid}#token={scorer}")
        page.wait_for_function("window.jaslogPad && window.jaslogPad.pad.turn")
        assert page.inner_text("#t-fix") == "Herstel" and page.inner_text("#deal-server") == "Server deelt"
        page.click("#deal-server")
        t = settle(page)
        page.click("#actions button[data-value='S']")
        t = settle(page)
        card, seat, head = t["legal"][0], t["turn"], t["next_seq"]
        # online the service says whose turn it is: no seats to choose, no deal to make
        assert page.is_hidden("#seat-pick") and page.is_hidden("#deal")
        # thumb-sized: every button of the pad at least 44 px high, and 40 wide (a card:
        # an eighth of the screen, the whole hand on one line)
        sizes = page.eval_on_selector_all(
            "#pad button:not([hidden])", "bs => bs.filter(b => b.offsetParent)"
            ".map(b => [b.getBoundingClientRect().width, b.getBoundingClientRect().height])")
        assert sizes and min(h for _, h in sizes) >= 44 and min(w for w, _ in sizes) >= 40, sizes
        ctx.set_offline(True)
        page.wait_for_selector("#net.offline")
        assert page.is_visible("#seat-pick")
        assert page.inner_text("#net").startswith("geen verbinding")
        page.click(f"#seat-pick button[data-seat='{seat}']")
        page.click(f"#cards button[data-card='{card}']")
        # meanwhile another writer records a note
        r = api.post(f"/api/games/{gid}/events", json={"expected_seq": head, "events": [
            {"type": "note", "text": "table 9 asked for a new pack"}]})
        assert r.status_code == 200
        ctx.set_offline(False)
        page.wait_for_selector("#conflict:not([hidden])")
        assert "table 9 asked" not in page.inner_text("#mine")
        assert "note" in page.inner_text("#theirs") and page.locator("#mine li").count() == 1
        assert api.get(f"/api/games/{gid}/head").json()["next_seq"] == head + 1  # mine waits
        page.click("#c-after")
        t = settle(page)
        stored = api.get(f"/api/games/{gid}/events").json()["events"]
    assert [e["type"] for e in stored[head:]] == ["note", "play"]
    assert (stored[-1]["seat"], stored[-1]["card"]) == (seat, card)
    assert page.is_hidden("#conflict") and t["recent"][-1]["by"] == "telefoon tafel 9"
    # English on a tap; the printed sheet leaves the buttons out
    page.click("#lang")
    assert page.inner_text("#t-fix") == "Fix"
    page.emulate_media(media="print")
    assert page.is_hidden("#tools") and page.is_hidden("#cards") and page.is_visible("#sheet")
    ctx.close()
