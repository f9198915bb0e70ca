"""Two games that differ only in cards a sight may not see, through the service's API: the
contract test's hidden-card pairs (:mod:`tests.games.test_contract`), stored as two games
each, read with every seat's token and the public's. What each token gets of the game (its
detail, head, events, state, replay, audit, and the what-if on them with ``o=``) must be
the same for both games, but for the game's id; the referee's differs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from jaslog.games import GAMES
from tests.games.test_contract import Swap, cuts, swaps, swaps_hidden_from, typo_variants
from tests.service.conftest import SEATS
from tests.service.inprocess import Live, live_service

#: the cuts tried: a round being played, and rounds ended with cards unplayed; ``make test``
#: tries the first (a round in play, the one most of a deal is hidden in), ``make soak`` the others
CUTS = ("live, half played", "ended by a ruling with cards unplayed", "claimed with cards unplayed",
        "conceded with cards unplayed")
#: what each token reads of a game (``{g}``: its id), what-if included
ROUTES = ("/api/games/{g}", "/api/games/{g}/head", "/api/games/{g}/events",
          "/api/games/{g}/state", "/api/games/{g}/replay", "/api/games/{g}/audit",
          "/api/games/{g}/audit?o=revoke=reject", "/api/games/{g}/replay?o=revoke=ignore",
          "/api/games/{g}/state?o=revoke=reject")


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with live_service(tmp_path_factory.mktemp("pairs"), players=SEATS) as lv:
        yield lv


def store(live: Live, gid: str, events: list[Any]) -> None:
    """The events as game ``gid``, its seats the service's players."""
    dicts = [e.model_dump(exclude_none=True) for e in events]
    s = dicts[0]
    r = live.post("/api/games", {"game": gid, "ruleset": s["ruleset"],
                                 "seats": SEATS[:len(s["seats"])], "dealer": s["dealer"],
                                 **({"options": s["options"]} if s.get("options") else {})})
    assert r.status_code in (200, 201), r.text
    body = [{k: v for k, v in e.items() if k not in ("game", "seq", "at")} for e in dicts[1:]]
    r = live.post(f"/api/games/{gid}/events", {"expected_seq": 1, "events": body})
    assert r.status_code == 200, r.text


def read(live: Live, gid: str, role: str) -> dict[str, str]:
    """What ``role`` gets of game ``gid`` on every route, the game's id taken out."""
    out = {}
    for route in ROUTES:
        r = live.client.get(route.format(g=gid), headers=live.as_(role))
        out[route] = f"{r.status_code} " + re.sub(rf"\b{re.escape(gid)}\b", "G", r.text)
    return out


@pytest.mark.parametrize("name", list(GAMES))
def test_no_token_tells_apart_games_that_differ_in_cards_it_may_not_see(live: Live,
                                                                          name: str) -> None:
    tells_no_token_apart(live, name, CUTS[:1])


@pytest.mark.soak
@pytest.mark.parametrize("name", list(GAMES))
def test_no_token_tells_apart_games_ended_with_cards_unplayed(live: Live, name: str) -> None:
    """The same, on the rounds ended by a ruling, a claim or a concession."""
    tells_no_token_apart(live, name, CUTS[1:])


def tells_no_token_apart(live: Live, name: str, tried_cuts: tuple[str, ...]) -> None:
    """Every token but the referee's reads the same of two games that differ in cards it may
    not see, on every route, for each cut of ``tried_cuts`` and one swap per token."""
    players = GAMES[name].players
    tried = 0
    for n, cut in enumerate(cuts(name)):
        if cut.what not in tried_cuts:
            continue
        tl, _ = swaps(name, n)
        for seat in [*range(players), None]:
            found: list[Swap] = swaps_hidden_from(name, n, seat, 1)
            if not found:
                continue
            sw = found[0]
            a, b = f"{name}-{n}-{seat}-a", f"{name}-{n}-{seat}-b"
            store(live, a, tl.events)
            store(live, b, sw.events)
            role = "public" if seat is None else SEATS[seat]
            mine, theirs = read(live, a, role), read(live, b, role)
            for route in ROUTES:
                assert mine[route] == theirs[route], (
                    f"{cut.what}: {role} tells apart the deals where {sw} trade places "
                    f"on {route}")
            assert read(live, a, "referee") != read(live, b, "referee")
            tried += 1
    assert tried


@pytest.mark.parametrize("name", list(GAMES))
def test_no_token_but_the_holder_s_tells_which_card_a_retracted_play_named(live: Live,
                                                                             name: str) -> None:
    """The contract test's retracted plays (:func:`tests.games.test_contract.typo_variants`):
    two games that differ only in which card of its hand a retracted play named read the
    same to every other seat and the public, on every route."""
    variants = typo_variants(name)
    holder = variants[0][0]
    a, b = f"{name}-typo-a", f"{name}-typo-b"
    store(live, a, variants[0][1])
    store(live, b, variants[1][1])
    for seat in [*range(GAMES[name].players), None]:
        if seat == holder:
            continue
        role = "public" if seat is None else SEATS[seat]
        mine, theirs = read(live, a, role), read(live, b, role)
        for route in ROUTES:
            assert mine[route] == theirs[route], (f"{role} tells which card seat {holder}'s "
                                                  f"retracted play named, on {route}")
    assert read(live, a, SEATS[holder]) != read(live, b, SEATS[holder])
