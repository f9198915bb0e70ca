"""What Kloepper shows: the report of its deals (the referee's view, for ``check --json``)
and a seat's view of the table now (:func:`seat_view`, the game's one visibility rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaslog.engine.common import (
    card_list,
    ruling_dict,
    tricks_report,
    tricks_view,
    violations_seen,
)
from jaslog.engine.fold import GameFold
from jaslog.engine.view import (
    CLAIMED,
    Frame,
    Seen,
    Sight,
    Viewer,
    ended_round,
    live_round,
    played_out,
    redact_common,
    seat_view_frame,
    secret_view,
    viewer_of,
)
from jaslog.games.kloepper.rules import ACES, KloepperGame, known_sides
from jaslog.games.kloepper.rules.game import Trick


def _winner(t: Trick) -> int:
    return t.winner


def rounds_report(fold: GameFold, outcomes: Sequence[Any]) -> list[dict[str, Any]]:
    """Every deal for ``check --json`` (the referee's view: everything), with its
    outcome of ``outcomes`` (``state.outcomes()``, worked out once by the audit)."""
    g: KloepperGame = fold.state
    out = []
    for r, o in zip(g.rounds, outcomes, strict=True):
        out.append({
            "round": r.number,
            "dealer": r.dealer,
            "hands": [card_list(h) for h in r.dealt] if r.dealt is not None and r.over else None,
            "call": ({"seat": r.call.seat, "call": r.call.call, "valid": r.call.fault is None,
                      "fault": r.call.fault} if r.call else None),
            "knocks": [{"seat": k.seat, "back": k.back, "valid": k.fault is None, "fault": k.fault}
                       for k in r.knocks],
            "queens": o.queens,
            "mode": o.mode,
            "tricks": tricks_report(r.tricks, _winner),
            "points": o.points,
            "tricks_won": o.tricks,
            "queens_points": o.queens_points,
            "queens_tricks": o.queens_tricks,
            "knock": o.knock,
            "knock_back": o.knock_back,
            "result": o.result,
            "row": o.row,
            "score": o.score,
            "ruling": ruling_dict(r.ruling),
        })
    return out


def seat_view(fold: GameFold, viewer: Viewer = None, *, secret: bool = False) -> dict[str, Any]:
    """The table as ``viewer`` may see it now: a seat, the referee (None, who sees
    everything) or the public (:data:`jaslog.engine.view.PUBLIC`); ``secret``: the deal is
    secret to the viewer at the head, though ``fold`` may be past its last card.

    During a live deal a seat sees its own hand, how many cards the others hold, the tricks,
    the partner call and the knocks (that a call is awaited only when it is its own to make);
    the sides only as far as the cards revealed them (``sides``: ``"queens"``, ``"others"`` or
    null per seat; ``revealed``: all known); the points of each side only once revealed; and
    only its own violations. A deal played out shows everything. The public sees what every
    seat sees: no hand, no call awaited (the forehand is to lead), no side and no violation.
    """
    g: KloepperGame = fold.state
    sight = viewer_of(viewer)
    seat = sight.seat
    if seat is not None and not 0 <= seat < 4:
        raise ValueError(f"seat {seat} is not a kloepper seat (0-3)")
    kind, turn = g.expected()
    view: dict[str, Any] = {
        "game": fold.game_id, "ruleset": fold.ruleset, "seats": list(fold.seats), "viewer": seat,
        "round": 0, "dealer": None, "forehand": None, "expects": kind, "turn": turn,
        "live": False, "hands": [None] * 4, "dealt": [None] * 4, "counts": [0] * 4, "legal": None,
        "call": None, "knocks": [], "tricks": [], "points": [0] * 4, "tricks_won": [0] * 4,
        "sides": [None] * 4, "revealed": False, "side_points": None, "result": None, "row": None,
        "score": None, "ruling": None, "violations": [], "totals": g.totals(),
        "finished": g.finished, "winner": g.winner,
    }
    if not g.rounds:
        return view
    r = g.rounds[-1]
    o = g.outcome(r)
    full = sight.full or (played_out(r) and not secret)
    view.update(round=r.number, dealer=r.dealer, forehand=r.forehand, live=not r.closed,
                points=o.points, tricks_won=o.tricks)
    left = [6 - popcount_(r.by_seat[s]) for s in range(4)]
    view["counts"] = left
    if r.hands_known:
        view["hands"] = [card_list(h) if full or s == seat else None for s, h in enumerate(r.hands)]
    if r.dealt is not None:
        view["dealt"] = [card_list(h) if full or s == seat else None for s, h in enumerate(r.dealt)]
    if kind == "play" and turn is not None and r.hands_known and (full or turn == seat):
        view["legal"] = card_list(g.legal_plays())
    if not full and kind == "call" and turn != seat:
        # a partner call is awaited only from a player holding both black queens, so "call"
        # (and its seat) would tell the others who that is before the call or the cards do;
        # to them the forehand is to lead (any card of its hand)
        view["expects"], view["turn"] = "play", r.forehand
        if seat == r.forehand and view["hands"][seat] is not None:
            view["legal"] = view["hands"][seat]
    if r.call is not None:
        view["call"] = {"seat": r.call.seat, "call": r.call.call}
    view["knocks"] = [{"seat": k.seat, "back": k.back} for k in r.knocks]
    view["tricks"] = tricks_view(r.tricks, _winner)
    sd = r.sides() if full else None
    if sd is not None:
        view["sides"] = ["queens" if sd.on_queens(s) else "others" for s in range(4)]
    elif sight.public:  # the public is told no side of a secret deal
        view["sides"] = [None] * 4
    else:
        own = r.dealt[seat] if r.dealt is not None and seat is not None else None
        plays = [(t.seat_of(i), c) for t in r.tricks for i, c in enumerate(t.cards)]
        call = (r.call.seat, r.call.call) if r.call is not None else None
        callable_aces = sum(1 << a for a in ACES if not g.trumps.mask >> a & 1)
        view["sides"] = known_sides(seat, own, plays, call, r.plays > 0, left,
                                    bool(g.options["call_own_ace_allowed"]), callable_aces)
    view["revealed"] = all(x is not None for x in view["sides"])
    if view["revealed"]:
        q = sum(p for s, p in enumerate(o.points) if view["sides"][s] == "queens")
        view["side_points"] = {"queens": q, "others": sum(o.points) - q}
    if r.over:  # claimed (not ``full``): the sheet's score, and no result that tells a revoke
        view.update(result=o.result if full else CLAIMED, row=o.row if full else None,
                    score=o.score)
    view["ruling"] = ruling_dict(r.ruling)
    view["violations"] = violations_seen(r.violations, full, seat)
    return view


def popcount_(mask: int) -> int:
    return mask.bit_count()


#: What the viewer says of trumps (None: they are chosen each deal).
TRUMP_NOTE: str | None = "permanent trumps: black queens, jacks, diamonds"


#: the keys of the seat view the viewer shows as they are
EXTRA = ("sides", "revealed", "side_points", "call", "knocks")


def frame(fold: GameFold, seat: int | None, hidden: bool, head: GameFold) -> Frame:
    """The viewer's frame of the table now, from :func:`seat_view` (``hidden``: the deal is
    secret and ``seat`` sees only its own; None: nobody's secrets): the partner call and
    the knocks listed with the bidding."""
    v = secret_view(seat_view, fold, seat, hidden)
    bids = [{"seat": v["call"]["seat"], "call": f"calls {v['call']['call']}"}] if v["call"] else []
    bids += [{"seat": k["seat"], "call": "knocks back" if k["back"] else "knocks"}
             for k in v["knocks"]]
    return seat_view_frame(v, TRUMP_NOTE, EXTRA, bids)


def report_round(entry: dict[str, Any], head: GameFold, seat: int | None, live: bool) -> dict[str, Any]:
    """The report's entry of a secret deal as ``seat`` may see it (None: the public): the
    live deal with the sides, the call and the knocks as the seat's view shows them; a deal
    that ended with cards unplayed with its call and knocks but no verdict on them (it
    weighs the hands), nor the sides."""
    if live:
        assert seat is not None  # the public never sees the live deal
        return live_round(entry, seat_view(head, seat, secret=True), ("sides", "call", "knocks"), 4)
    out = ended_round(entry, ("call", "knocks"))
    if out.get("call") is not None:
        out["call"] = {"seat": out["call"]["seat"], "call": out["call"]["call"]}
    if "knocks" in out:
        out["knocks"] = [{"seat": k["seat"], "back": k["back"]} for k in out["knocks"]]
    return out


def redact_event(event: dict[str, Any], sight: Sight, seen: Seen) -> dict[str, Any]:
    """A Kloepper event as ``sight`` may see it (the game's one rule for events, beside
    :func:`seat_view` for the table): what every game hides
    (:func:`jaslog.engine.view.redact_common`), nothing more."""
    return redact_common(event, sight, seen)
