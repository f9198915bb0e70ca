"""Audit (session 7) of what players and the public see: leaks found over real HTTP."""

from __future__ import annotations

from jaslog.sim import simulate_game
from tests.service.conftest import SEATS, create, record, timed
from tests.service.test_roles import bodies, cards_in


def test_a_klaberjass_stock_is_not_shown_once_its_deal_is_played_out(server, gid):
    """Deal 1 is played out and deal 2 live: a player's and the public's events held deal
    1's `dealt` event whole, with the 19-card stock, 13 of which nobody at the table saw
    (the README and the game's seat_view: a stock is never shown but to the referee)."""
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
