"""What players and the public do not see, over real HTTP: a Klaberjass stock once its deal is
played out, and who holds both black queens in Kloepper before the cards tell."""

from __future__ import annotations

import re
from typing import Any

from jaslog.play.sim import simulate_game
from tests.service.conftest import SEATS, create, record, timed, unstamped
from tests.service.test_roles import bodies, cards_in


def test_a_klaberjass_stock_is_not_shown_once_its_deal_is_played_out(server, gid):
    """Deal 1 is played out and deal 2 live: a player's and the public's events show deal
    1's `dealt` event without its 19-card stock, 13 of which nobody at the table saw (the
    README and the game's seat_view: a stock is never shown but to the referee)."""
    events = timed(simulate_game(gid, "klaberjass-2p", seed=2, seats=SEATS[:2]))
    deal2 = next(i for i, e in enumerate(events) if i > 1 and e["type"] == "dealt")
    upto = deal2 + 3
    with server.client("scorer") as c:
        assert create(c, gid, events[0]).status_code == 201
        record(c, gid, events[1:upto])
    stock = events[1]["stock"]
    second = next(e for e in events if e["type"] == "second_deal")
    never_seen = set(stock) - {second["bottom"], *second["hands"][0], *second["hands"][1]}
    assert len(never_seen) == 12
    # cards that appear nowhere else in what the game shows up to now (deal 2 is live)
    elsewhere = {c for e in events[deal2:upto] for c in cards_in(str(e))}
    unseen = never_seen - elsewhere
    assert unseen
    for role in ("player0", "player1", "public"):
        with server.client(role) as c:
            evs = c.get(f"/api/games/{gid}/events").json()["events"]
            got = bodies(c, gid, upto)
        dealt = evs[1]
        assert dealt["type"] == "dealt" and "stock" not in dealt, role
        assert dealt["redacted"] is True and dealt["hands"] == events[1]["hands"]  # played out
        for where, text in got.items():
            if where in ("/games", "/tournaments"):
                continue
            assert not cards_in(text) & unseen, (role, where, sorted(cards_in(text) & unseen))
    with server.client("referee") as c:  # the check can fail: the referee sees the stock
        assert c.get(f"/api/games/{gid}/events").json()["events"][1]["stock"] == stock


def _same(a: dict[str, str], b: dict[str, str], ga: str, gb: str, who: object) -> None:
    """Every answer but the games list the same, game ids aside (and the times the service
    stamped: the stream's pings, each event's recorded_at)."""
    for where in a:
        if where == "/games":
            continue
        x, y = (unstamped(re.sub(r"(?m)^:.*$", "", t)) for t in (a[where], b[where]))
        assert x.replace(ga, "G") == y.replace(gb, "G"), (who, where)


def _kloepper_pair(gid: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Kloepper round 1 just dealt (seed 5: seat 3 leads; QC at seat 1, QS at seat 2), and
    the same deal with QC and one of seat 2's cards swapped: seat 2 holds both black queens."""
    events = timed(simulate_game(gid, "kloepper", seed=5, seats=SEATS))[:2]
    hands = events[1]["hands"]
    assert "QC" in hands[1] and "QS" in hands[2] and events[0]["dealer"] == 2
    other = next(c for c in hands[2] if c != "QS")
    swapped = [list(h) for h in hands]
    swapped[1][swapped[1].index("QC")] = other
    swapped[2][swapped[2].index(other)] = "QC"
    return events, [events[0], {**events[1], "hands": swapped}]


def test_kloepper_a_player_is_not_told_who_holds_both_black_queens(server, gid):
    """Right after a deal in which one player holds both black queens, the record awaits
    that player's partner call; the other players' tables do not say so (expects: call,
    turn: the holder) before the call or any card tells them. Two deals that differ only in
    where the queens hidden from seats 0 and 3 lie give those seats the same answers; the
    holder itself sees that its call is awaited."""
    plain, queens = _kloepper_pair(gid)
    ga, gb = gid + "a", gid + "b"
    with server.client("scorer") as c:
        for g, evs in ((ga, plain), (gb, queens)):
            assert create(c, g, evs[0]).status_code == 201
            record(c, g, [{**e, "game": g} for e in evs[1:]])
    with server.client("referee") as c:  # the games do differ
        assert c.get(f"/api/games/{gb}/state").json()["expects"] == "call"
        assert c.get(f"/api/games/{ga}/state").json()["expects"] == "play"
    for seat in (0, 3):
        with server.client(f"player{seat}") as c:
            a, b = bodies(c, ga, 2), bodies(c, gb, 2)
            state = c.get(f"/api/games/{gb}/state").json()
        assert (state["expects"], state["turn"]) == ("play", 3), seat
        assert (state["legal"] is not None) == (seat == 3)  # the forehand may lead any card
        _same(a, b, ga, gb, seat)
    with server.client("player2") as c:  # the holder knows
        state = c.get(f"/api/games/{gb}/state").json()
        assert (state["expects"], state["turn"]) == ("call", 2)


def test_kloepper_a_deal_ruled_before_any_card_keeps_its_queens_secret(server, gid):
    """The referee throws deal 1 in before a card is played (its hands stay secret for good)
    and deal 2 follows: the public's and the other players' tables at the thrown-in deal do
    not say a partner call was awaited from seat 2 (who held both black queens)."""
    plain, queens = _kloepper_pair(gid)
    deal2 = next(e for e in timed(simulate_game(gid, "kloepper", seed=5, seats=SEATS))
                 if e["seq"] > 1 and e["type"] == "dealt")
    ruling = {"type": "ruling", "round": 1, "score": [0, 0, 0, 0], "reason": "misdeal",
              "at": deal2["at"]}
    ga, gb = gid + "a", gid + "b"
    for g, evs in ((ga, plain), (gb, queens)):
        with server.client("scorer") as c:
            assert create(c, g, evs[0]).status_code == 201
            record(c, g, [{**e, "game": g} for e in evs[1:]])
        with server.client("referee") as c:
            record(c, g, [ruling], start=2)
        with server.client("scorer") as c:
            record(c, g, [{**deal2, "game": g}], start=3)
    for role in ("public", "player0", "player3"):
        with server.client(role) as c:
            a, b = bodies(c, ga, 4), bodies(c, gb, 4)
            frames = c.get(f"/api/games/{gb}/replay").json()["frames"]
        assert (frames[1]["expects"], frames[1]["turn"]) == ("play", 3), role
        _same(a, b, ga, gb, role)
