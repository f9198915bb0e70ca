"""The whole-game print on the service (``GET /api/games/{id}/print``): the page ``jaslog
print`` writes, as the token may see the game."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from jaslog.play.sim import simulate_game
from tests.service.conftest import SEATS
from tests.service.inprocess import Live, live_service


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with live_service(tmp_path_factory.mktemp("print"), players=SEATS) as lv:
        yield lv


def test_each_token_prints_what_it_may_see(live):
    events = simulate_game("print-live", "amsterdam", seed=4, seats=SEATS)[:80]
    first = {k: v for k, v in events[0].items() if k not in ("type", "seq")}
    live.post("/api/games", first, status=201)
    body = [{k: v for k, v in e.items() if k not in ("game", "seq")} for e in events[1:]]
    live.post("/api/games/print-live/events", {"expected_seq": 1, "events": body}, status=200)

    def page(role: str) -> str:
        r = live.client.get("/api/games/print-live/print", headers=live.as_(role))
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("text/html")
        return r.text

    def rounds(text: str) -> list[str]:
        return re.findall(r'<section class="print-round" id="round-(\d+)"', text)

    full, ann, public = page("referee"), page("ann"), page("public")
    assert rounds(full) == rounds(ann) == ["1", "2", "3"] and rounds(public) == ["1", "2"]
    live_deal = [p.split('id="round-3"')[1].split("<h3>Tricks</h3>")[0] for p in (full, ann)]
    assert "not shown to this view" not in live_deal[0]
    assert live_deal[1].count("not shown to this view") == 3
    assert "Seat view of ann (0)" in ann and "Public view" in public
    r = live.client.get("/api/games/print-live/print?seat=1", headers=live.as_("referee"))
    assert (r.status_code, r.json()["code"]) == (422, "unknown_parameter")
    r = live.client.get("/api/games/print-live/print")
    assert r.status_code == 401
    r = live.client.get("/api/games/no-such/print", headers=live.as_("referee"))
    assert (r.status_code, r.json()["code"]) == (404, "no_such_game")
