"""What Klaberjass shows: the report of its deals (the referee's view, for ``check --json``)
and a seat's view of the table now (:func:`seat_view`, the game's one visibility rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaslog.cards import CARD_TEXT, SUIT_LETTERS
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
from jaslog.games.klaberjass.rules import KlaberjassGame, run_text
from jaslog.games.klaberjass.rules.round import Round


def sequence_shown(r: Round) -> bool:
    """Whether the cards of a declared sequence are shown at the table in deal ``r`` (a
    deal of the game now): once its first trick is over. A deal abandoned before that
    never showed them; a deal played out shows everything."""
    return played_out(r) or len(r.tricks) >= 2 or bool(r.tricks and r.tricks[0].complete)


def rounds_report(fold: GameFold, outcomes: Sequence[Any]) -> list[dict[str, Any]]:
    """Every deal for ``check --json`` (the referee's view: everything), with its
    outcome of ``outcomes`` (``state.outcomes()``, worked out once by the audit)."""
    g: KlaberjassGame = fold.state
    out = []
    for r, o in zip(g.rounds, outcomes, strict=True):
        trump = r.trump
        out.append({
            "round": r.number,
            "dealer": r.dealer,
            "elder": r.elder,
            "turn_up": CARD_TEXT[r.turn_up] if r.score_only is None else None,
            "bids": [{"seat": s, "call": c} for s, c in r.bidding.calls],
            "trump": SUIT_LETTERS[trump] if trump is not None else None,
            "chooser": r.maker,
            "annulled": r.annulled,
            "bottom": CARD_TEXT[r.bottom] if r.bottom is not None else None,
            "dix": r.dix_seat,
            "hands": [card_list(h) for h in r.playing] if r.playing is not None else None,
            "declarations": [{"seat": d.seat, "sequence": run_text(d.run), "cards": card_list(d.cards),
                              "valid": d.fault is None, "fault": d.fault}
                             for d in r.declarations],
            "bella_calls": [{"seat": b.seat, "valid": b.fault is None, "fault": b.fault}
                            for b in r.bellas],
            "tricks": tricks_report(r.tricks, r.winner_of),
            "points": o.points,
            "tricks_won": o.tricks,
            "sequences": o.sequences,
            "sequence_best": o.sequence_best,
            "bella": o.bella,
            "deal_totals": o.totals,
            "result": o.result,
            "score": o.score,
            "held": o.held,
            "received": o.received,
            "ruling": ruling_dict(r.ruling),
        })
    return out


def seat_view(fold: GameFold, viewer: Viewer = None, *, secret: bool = False) -> dict[str, Any]:
    """The table as ``viewer`` may see it now: a seat, the referee (None, who sees
    everything) or the public (:data:`jaslog.engine.view.PUBLIC`); ``secret``: the deal is
    secret to the viewer at the head, though ``fold`` may be past its last card.

    During a live deal a seat sees its own hand, the number of cards the other holds, the
    turn-up (and who took it with the dix), the stock's bottom card, the bids, the tricks, the
    bella announcements, the other's declarations as their length only until the first trick
    is over (then the cards, as they are shown at the table), and only its own violations. The
    stock's order is never shown to a seat; a deal that is over shows everything. The public
    sees what both seats see: no hand, each declaration as the other seat sees it, no
    verdict on a declaration or a bella, no violation.
    """
    g: KlaberjassGame = fold.state
    sight = viewer_of(viewer)
    seat = sight.seat
    if seat is not None and seat not in (0, 1):
        raise ValueError(f"seat {seat} is not a klaberjass seat (0 or 1)")
    kind, turn = g.expected()
    view: dict[str, Any] = {
        "game": fold.game_id, "ruleset": fold.ruleset, "seats": list(fold.seats), "viewer": seat,
        "round": 0, "dealer": None, "elder": None, "live": False, "expects": kind, "turn": turn,
        "turn_up": None, "dix": None, "bottom": None, "stock": None, "bids": [], "trump": None,
        "maker": None, "annulled": None, "hands": [None, None], "counts": [0, 0], "legal": None,
        "declarations": [], "bella_calls": [], "tricks": [], "points": [0, 0],
        "tricks_won": [0, 0], "sequences": None, "bella": None, "deal_totals": None,
        "result": None, "score": None, "ruling": None, "violations": [], "totals": g.totals(),
        "finished": g.finished, "winner": g.winner,
    }
    if not g.rounds:
        return view
    r = g.rounds[-1]
    o = g.outcomes()[-1]
    full = sight.full or (played_out(r) and not secret)
    trump = r.trump
    view.update(
        round=r.number, dealer=r.dealer, elder=r.elder, live=not r.closed,
        turn_up=CARD_TEXT[r.turn_up], dix=r.dix_seat,
        bottom=CARD_TEXT[r.bottom] if r.bottom is not None else None,
        bids=[{"seat": s, "call": c} for s, c in r.bidding.calls],
        trump=SUIT_LETTERS[trump] if trump is not None else None, maker=r.maker,
        annulled=r.annulled, points=o.points, tricks_won=o.tricks)
    if sight.full and r.stock is not None:
        view["stock"] = [CARD_TEXT[c] for c in r.stock]
    size = 9 if r.second_done else 6
    view["counts"] = [size - r.by_seat[s].bit_count() for s in (0, 1)]
    if r.hands_known:
        view["hands"] = [card_list(h) if full or s == seat else None for s, h in enumerate(r.hands)]
        if kind == "play" and turn is not None and (full or turn == seat):
            view["legal"] = card_list(g.legal_plays())
    shown = sequence_shown(r)
    for d in r.declarations:
        mine = full or d.seat == seat
        entry: dict[str, Any] = {"seat": d.seat, "length": d.run[2]}
        if mine or shown:
            entry.update(sequence=run_text(d.run), cards=card_list(d.cards))
        if mine:
            entry["valid"] = d.fault is None
        view["declarations"].append(entry)
    view["bella_calls"] = [{"seat": b.seat} | ({"valid": b.fault is None} if full else {})
                           for b in r.bellas]
    view["tricks"] = tricks_view(r.tricks, r.winner_of)
    if r.over and not full:  # claimed: the sheet's score, and nothing that tells the hands
        view.update(result=CLAIMED, score=o.score)
    elif r.over or (sight.full and r.closed):
        view.update(sequences=o.sequences, bella=o.bella, deal_totals=o.totals, result=o.result,
                    score=o.score)
    view["ruling"] = ruling_dict(r.ruling)
    view["violations"] = violations_seen(r.violations, full, seat)
    return view

def outcome_roem(outcome: Any) -> list[int]:
    """A deal's roem from its outcome: the sequences and bella that scored, per seat (the
    store's round facts)."""
    return [int(s) + int(b) for s, b in zip(outcome.sequences, outcome.bella, strict=True)]


def roem_of(entry: dict[str, Any]) -> tuple[int, int | None]:
    """A reported deal's roem: the sequences and bella that scored (nothing lies on the
    table to be claimed)."""
    return sum(entry["sequences"]) + sum(entry["bella"]), None


#: What the viewer says of trumps (None: they are chosen each deal).
TRUMP_NOTE: str | None = None


#: the keys of the seat view the viewer shows as they are
EXTRA = ("turn_up", "bottom", "dix", "declarations", "bella_calls", "elder", "annulled", "maker")


def frame(fold: GameFold, seat: int | None, hidden: bool, head: GameFold) -> Frame:
    """The viewer's frame of the table now, from :func:`seat_view` (``hidden``: the deal is
    secret and ``seat`` sees only its own; None: nobody's secrets)."""
    return seat_view_frame(secret_view(seat_view, fold, seat, hidden), TRUMP_NOTE, EXTRA)


def report_round(entry: dict[str, Any], head: GameFold, seat: int | None, live: bool) -> dict[str, Any]:
    """The report's entry of a secret deal as ``seat`` may see it (None: the public): the
    live deal with the bidding and the cards turned as the seat's view shows them; a deal
    that ended with cards unplayed with what the table saw, the seat's own declarations and
    the other's as the table saw them (its length, its cards once the first trick was over),
    and no verdict on a declaration or a bella (it weighs the hands)."""
    if live:
        assert seat is not None  # the public never sees the live deal
        return live_round(entry, seat_view(head, seat, secret=True),
                          ("bids", "trump", "turn_up", "bottom"), 2)
    out = ended_round(entry, ("elder", "turn_up", "bids", "trump", "chooser", "annulled",
                              "bottom", "dix", "bella_calls", "declarations"))
    shown = sequence_shown(head.state.rounds[entry["round"] - 1])
    if "bella_calls" in out:
        out["bella_calls"] = [{"seat": b["seat"]} for b in out["bella_calls"]]
    if "declarations" in out:
        out["declarations"] = [
            d if d["seat"] == seat else
            {"seat": d["seat"], "length": len(d["cards"])} | (
                {"sequence": d["sequence"], "cards": d["cards"]} if shown else {})
            for d in out["declarations"]]
    return out


def redact_event(event: dict[str, Any], sight: Sight, seen: Seen) -> dict[str, Any]:
    """A Klaberjass event as ``sight`` may see it (the game's one rule for events, beside
    :func:`seat_view` for the table): every game's (:func:`jaslog.engine.view.redact_common`),
    the stock never but to the referee (most of it is never dealt, nobody at the table saw
    it), and in a secret deal the other's sequence by its length only until the first trick
    is over (then its cards, as they are shown at the table)."""
    if sight.full:
        return event
    if "stock" in event:
        event = {k: v for k, v in event.items() if k != "stock"} | {"redacted": True}
    if (event["type"] == "sequence" and seen.secret and event.get("seat") != sight.seat
            and not sequence_shown(seen.head.state.rounds[seen.round - 1])):
        event = {k: v for k, v in event.items() if k != "cards"} | {
            "length": len(event["cards"]), "redacted": True}
    return redact_common(event, sight, seen)
