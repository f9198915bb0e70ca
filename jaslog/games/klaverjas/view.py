"""What Klaverjas shows: the report of its rounds (the referee's view, for ``check --json``:
:func:`rounds_report`, compiled in :mod:`jaslog.games.klaverjas.report`) and the table as a
seat may see it (:func:`seat_view`, the game's one visibility rule).

The hands are the only secret in Klaverjas; partnerships are fixed by the seats.
"""

from __future__ import annotations

from functools import partial
from typing import Any, cast

from jaslog.cards import CARD_TEXT, SUIT_LETTERS
from jaslog.engine.common import VERDICTS_ON_ALL_HANDS, card_list, ruling_dict, violation_dict
from jaslog.engine.fold import GameFold
from jaslog.engine.view import (
    CLAIMED,
    Frame,
    Seen,
    Sight,
    Viewer,
    claimed_round,
    played_out,
    redact_common,
    secret_view,
    viewer_of,
)
from jaslog.games.klaverjas.report import rounds_report as rounds_report  # (compiled)


def seat_view(fold: GameFold, viewer: Viewer = None, head: GameFold | None = None, *,
              secret: bool = False) -> dict[str, Any]:
    """The table now as ``viewer`` sees it (a seat; None: the referee, who sees everything;
    :data:`jaslog.engine.view.PUBLIC`: the public): during a live round a seat sees only its
    own hand, its legal cards and its own violations (another's name that player's cards),
    the other hands by their count; every hand once all cards are played. A round ruled
    with cards unplayed keeps its hands secret. The public sees no hand and no violation of
    a round not played out. A seat not at the table is refused (ValueError), as in the
    other games. ``secret``: the round is secret to the viewer at the head, though ``fold``
    may be past its last card.

    ``head`` is the game now (default ``fold``): a round recorded without hands shows the
    hands rebuilt from its plays once it was played out at the head, also from a ``fold``
    in the middle of it. ``hands_known`` says whether the hands are known (recorded, or
    rebuilt); ``violations`` are in the order the rules found them (a round recorded without
    hands has its plays judged at its last card, after the roem claims).

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> f = fold(event_from_dict(e) for e in simulate_game("v", seed=3)[:12])
    >>> [h is None for h in seat_view(f, 2)["hands"]], seat_view(f, 2)["counts"]
    ([True, True, False, True], [6, 6, 6, 5])
    """
    g = fold.state
    sight = viewer_of(viewer)
    seat = sight.seat
    if seat is not None and not 0 <= seat < 4:
        raise ValueError(f"seat {seat} is not a klaverjas seat (0-3)")
    head = fold if head is None else head
    rounds = g.rounds
    # a seat sees only its own during a round not played out (live, or ruled with cards
    # unplayed); the referee everything
    full = sight.full or not rounds or (played_out(rounds[-1]) and not secret)
    kind, turn = g.expected()
    view: dict[str, Any] = {
        "round": 0, "trick": 0, "dealer": None, "trump": None, "chooser": None,
        "proposed": None, "turned": [], "bids": [], "expects": kind, "turn": turn,
        "hands": [None] * 4, "counts": [0] * 4, "hands_known": False, "legal": None,
        "leader": None, "table": [], "trick_complete": False, "trick_winner": None,
        "tricks_won": [0, 0], "points": [0, 0], "roem": [0, 0], "round_over": False,
        "result": None, "score": None, "ruling": None, "violations": [],
        "totals": g.totals(), "finished": g.finished, "winner": g.winner,
    }
    if not rounds:
        return view
    r = rounds[-1]
    sel = r.selection
    view.update({
        "round": r.number, "dealer": r.dealer,
        "trump": SUIT_LETTERS[r.trump] if r.trump is not None else None,
        "chooser": r.chooser,
        "proposed": SUIT_LETTERS[sel.proposed] if sel.proposed is not None else None,
        "turned": list(sel.turned),
        "bids": [{"seat": s, "call": c} for s, c in sel.bids],
        "round_over": r.closed,
    })
    # the hands now: as recorded, or (hands not recorded, round over at the head)
    # the head's rebuilt deal less what has been played so far
    hands: list[int] | None = list(r.hands) if r.hands_known else None
    if hands is None and head.state.rounds[r.number - 1].closed:
        dealt = head.state.rounds[r.number - 1].dealt
        if dealt is not None:
            hands = [h & ~r.played for h in dealt]
    if hands is not None:
        view["hands_known"] = True
        view["counts"] = [h.bit_count() for h in hands]
        view["hands"] = [card_list(h) if full or s == seat else None for s, h in enumerate(hands)]
    else:
        played = [0, 0, 0, 0]
        for t in r.tricks:
            for i in range(len(t.cards)):
                played[t.seat_of(i)] += 1
        view["counts"] = [8 - p for p in played]
    if kind == "play" and turn is not None and view["hands"][turn] is not None and r.hands_known:
        view["legal"] = card_list(g.legal_plays())
    t = r.tricks[-1] if r.tricks else None
    if t is not None:
        view["trick"] = t.number
        view["leader"] = t.leader
        view["table"] = [{"seat": t.seat_of(i), "card": CARD_TEXT[c]} for i, c in enumerate(t.cards)]
        view["trick_complete"] = t.complete
        view["trick_winner"] = t.winner if t.complete else None
    o = r.outcome(g.score_rules, g.claimed_mode)
    view["tricks_won"] = o.tricks
    view["points"] = o.points
    view["roem"] = o.roem
    view["roem_on_table"] = o.roem_on_table
    if r.over:  # claimed (not ``full``): the sheet's score, and no result that tells a revoke
        view["result"], view["score"] = o.result if full else CLAIMED, o.score
    view["ruling"] = ruling_dict(r.ruling)
    view["violations"] = [violation_dict(v) for v in r.violations if full or (
        v.seat == seat and v.rule not in VERDICTS_ON_ALL_HANDS)]
    return view


def outcome_roem(outcome: Any) -> list[int]:
    """A round's roem from its outcome: the roem that scored, per team (the store's round facts)."""
    return [int(x) for x in outcome.roem]


def roem_of(entry: dict[str, Any]) -> tuple[int, int | None]:
    """A reported round's roem: claimed (what scored), and held on the table."""
    return sum(entry["roem"]), sum(entry["roem_on_table"])


#: the keys of a viewer's frame, in order (``roem_on_table`` once a round is dealt)
FRAME = ("round", "trick", "dealer", "trump", "chooser", "proposed", "turned", "bids", "expects",
         "turn", "hands", "counts", "hands_known", "legal", "leader", "table", "trick_complete",
         "trick_winner", "tricks_won", "points", "roem", "round_over", "result", "score",
         "ruling", "violations", "totals", "finished", "winner", "roem_on_table")


def frame(fold: GameFold, seat: int | None, hidden: bool, head: GameFold) -> Frame:
    """The viewer's frame of the table now, from :func:`seat_view` (``hidden``: the round is
    secret and ``seat`` sees only its own; None: nobody's secrets, the public); ``head`` is
    the game now, which knows the hands of a round recorded without hands once it was played
    out. The violations are listed in seq order."""
    v = secret_view(partial(seat_view, head=head), fold, seat, hidden)
    fr = cast(Frame, {k: v[k] for k in FRAME if k in v})  # the seat view's keys of FRAME
    fr["violations"] = sorted(fr["violations"], key=lambda x: x["seq"])
    return fr


def report_round(entry: dict[str, Any], head: GameFold, seat: int | None, live: bool) -> dict[str, Any]:
    """The report's entry of a secret round as ``seat`` may see it: as it is (its tricks,
    points and claimed roem are what the table saw), its claim without what tells the
    unplayed hands."""
    return entry | claimed_round(entry)


def redact_event(event: dict[str, Any], sight: Sight, seen: Seen) -> dict[str, Any]:
    """A Klaverjas event as ``sight`` may see it (the game's one rule for events, beside
    :func:`seat_view` for the table): what every game hides
    (:func:`jaslog.engine.view.redact_common`), nothing more."""
    return redact_common(event, sight, seen)
