"""What Klaverjas shows: the report of its rounds (the referee's view, for ``check --json``)
and the table as a seat may see it (:func:`seat_view`, the game's one visibility rule).

The hands are the only secret in Klaverjas; partnerships are fixed by the seats.
"""

from __future__ import annotations

from typing import Any

from jaslog.cards import CARD_TEXT, SUIT_LETTERS, card_text
from jaslog.engine.common import card_list, ruling_dict, violations_seen
from jaslog.engine.fold import GameFold


def rounds_report(fold: GameFold) -> list[dict[str, Any]]:
    """Every round for ``check --json`` (the referee's view: everything)."""
    state = fold.state
    out = []
    for r, o in zip(state.rounds, state.outcomes(), strict=True):
        out.append({
            "round": r.number,
            "dealer": r.dealer,
            "trump": SUIT_LETTERS[r.trump] if r.trump is not None else None,
            "chooser": r.chooser,
            "tricks": [{"leader": t.leader, "cards": [card_text(c) for c in t.cards],
                        "winner": t.winner if t.complete else None, "points": t.points,
                        "roem": (t.claimed if state.claimed_mode else t.roem),
                        "roem_on_table": t.roem} for t in r.tricks if t.cards],
            "points": o.points,
            "roem": o.roem,
            "roem_on_table": o.roem_on_table,
            "result": o.result,
            "score": o.score,
            "ruling": ({"score": r.ruling.score, "reason": r.ruling.reason, "seq": r.ruling.seq}
                       if r.ruling else None),
        })
    return out


def table(fold: GameFold, seat: int | None, hidden: bool, head: GameFold) -> dict[str, Any]:
    """The table now as ``seat`` may see it (None: nobody's secrets, the public, when
    ``hidden``; everything otherwise). ``hidden``: the round is secret (live, or ended with
    cards unplayed) and only ``seat``'s own hand and violations are shown; ``head`` is the
    fold at the game's head (a round recorded without hands shows the hands it rebuilt)."""
    g = fold.state
    kind, turn = g.expected()
    fr: dict[str, Any] = {
        "round": 0, "trick": 0, "dealer": None, "trump": None, "chooser": None,
        "proposed": None, "turned": [], "bids": [], "expects": kind, "turn": turn,
        "hands": [None] * 4, "counts": [0] * 4, "hands_known": False, "legal": None,
        "leader": None, "table": [], "trick_complete": False, "trick_winner": None,
        "tricks_won": [0, 0], "points": [0, 0], "roem": [0, 0], "round_over": False,
        "result": None, "score": None, "ruling": None, "violations": [],
        "totals": g.totals(), "finished": g.finished, "winner": g.winner,
    }
    if not g.rounds:
        return fr
    r = g.rounds[-1]
    sel = r.selection
    fr.update({
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
        fr["hands_known"] = True
        fr["counts"] = [h.bit_count() for h in hands]
        fr["hands"] = [card_list(h) if not hidden or s == seat else None
                       for s, h in enumerate(hands)]
    else:
        played = [0, 0, 0, 0]
        for t in r.tricks:
            for i in range(len(t.cards)):
                played[t.seat_of(i)] += 1
        fr["counts"] = [8 - p for p in played]
    if kind == "play" and turn is not None and fr["hands"][turn] is not None and r.hands_known:
        mask = g.legal_plays()
        fr["legal"] = card_list(mask)
    t = r.tricks[-1] if r.tricks else None
    if t is not None:
        fr["trick"] = t.number
        fr["leader"] = t.leader
        fr["table"] = [{"seat": t.seat_of(i), "card": CARD_TEXT[c]} for i, c in enumerate(t.cards)]
        fr["trick_complete"] = t.complete
        fr["trick_winner"] = t.winner if t.complete else None
    o = r.outcome(g.score_rules, g.claimed_mode)
    fr["tricks_won"] = o.tricks
    fr["points"] = o.points
    fr["roem"] = o.roem
    fr["roem_on_table"] = o.roem_on_table
    if r.over:
        fr["result"], fr["score"] = o.result, o.score
    fr["ruling"] = ruling_dict(r.ruling)
    # a secret round: a seat reads only its own violations (another's names that player's
    # cards), the public none
    seen = seat is not None or not hidden
    fr["violations"] = violations_seen(r.violations, not hidden, seat) if seen else []
    return fr


def seat_view(fold: GameFold, seat: int | None = None) -> dict[str, Any]:
    """The table now as ``seat`` sees it (None: the referee, who sees everything): during a
    live round only its own hand and its own violations; every hand once all cards are
    played."""
    rounds = fold.state.rounds
    hidden = seat is not None and bool(rounds) and not rounds[-1].over
    return table(fold, seat, hidden, fold)

def roem_of(entry: dict[str, Any]) -> tuple[int, int | None]:
    """A reported round's roem: claimed (what scored), and held on the table."""
    return sum(entry["roem"]), sum(entry["roem_on_table"])


def frame(fold: GameFold, seat: int | None, hidden: bool, head: GameFold) -> dict[str, Any]:
    """The viewer's frame of the table now: :func:`table`."""
    return table(fold, seat, hidden, head)


def report_round(entry: dict[str, Any], head: GameFold, seat: int | None, live: bool) -> dict[str, Any]:
    """The report's entry of a secret round as ``seat`` may see it: as it is (its tricks,
    points and claimed roem are what the table saw)."""
    return entry
