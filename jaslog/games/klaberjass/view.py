"""What Klaberjass shows: the report of its deals (the referee's view, for ``check --json``)
and a seat's view of the table now (:func:`seat_view`, the game's one visibility rule).
"""

from __future__ import annotations

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
    Seen,
    Sight,
    played_out,
    redact_common,
    seat_view_frame,
    secret_round,
    sequence_shown,
)
from jaslog.games.klaberjass.rules import KlaberjassGame, run_text


def rounds_report(fold: GameFold) -> list[dict[str, Any]]:
    """Every deal for ``check --json`` (the referee's view: everything)."""
    g: KlaberjassGame = fold.state
    out = []
    for r, o in zip(g.rounds, g.outcomes(), strict=True):
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


def seat_view(fold: GameFold, seat: int | None = None) -> dict[str, Any]:
    """The table as ``seat`` may see it now (None: the referee, who sees everything).

    During a live deal a seat sees its own hand, the number of cards the other holds, the
    turn-up (and who took it with the dix), the stock's bottom card, the bids, the tricks, the
    bella announcements, the other's declarations as their length only until the first trick
    is over (then the cards, as they are shown at the table), and only its own violations. The
    stock's order is never shown to a seat; a deal that is over shows everything.
    """
    g: KlaberjassGame = fold.state
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
    full = seat is None or played_out(r)
    trump = r.trump
    view.update(
        round=r.number, dealer=r.dealer, elder=r.elder, live=not r.closed,
        turn_up=CARD_TEXT[r.turn_up], dix=r.dix_seat,
        bottom=CARD_TEXT[r.bottom] if r.bottom is not None else None,
        bids=[{"seat": s, "call": c} for s, c in r.bidding.calls],
        trump=SUIT_LETTERS[trump] if trump is not None else None, maker=r.maker,
        annulled=r.annulled, points=o.points, tricks_won=o.tricks)
    if seat is None and r.stock is not None:
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
    elif r.over or (seat is None and r.closed):
        view.update(sequences=o.sequences, bella=o.bella, deal_totals=o.totals, result=o.result,
                    score=o.score)
    view["ruling"] = ruling_dict(r.ruling)
    view["violations"] = violations_seen(r.violations, full, seat)
    return view

def roem_of(entry: dict[str, Any]) -> tuple[int, int | None]:
    """A reported deal's roem: the sequences and bella that scored (nothing lies on the
    table to be claimed)."""
    return sum(entry["sequences"]) + sum(entry["bella"]), None


#: What the viewer says of trumps (None: they are chosen each deal).
TRUMP_NOTE: str | None = None


def frame(fold: GameFold, seat: int | None, hidden: bool, head: GameFold) -> dict[str, Any]:
    """The viewer's frame of the table now, from :func:`seat_view` (``hidden``: the deal is
    secret and ``seat`` sees only its own; None: nobody's secrets)."""
    return seat_view_frame(seat_view, TRUMP_NOTE, fold, seat, hidden)


def report_round(entry: dict[str, Any], head: GameFold, seat: int | None, live: bool) -> dict[str, Any]:
    """The report's entry of a secret deal as ``seat`` may see it (None: the public)."""
    return secret_round(seat_view, entry, head, seat, live)


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
