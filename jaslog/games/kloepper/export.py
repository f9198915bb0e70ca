"""Kloepper rows: plays, tricks, rounds, players and violations read from the folded game.

The game is individual (game points go to each player), so ``team`` is the seat and every
score list has one entry per player. The deal's sides are in ``playing_seats`` (the black-
queen side) and the ``playing_team`` flags of plays and tricks (NULL while a deal recorded
without hands has not revealed them). ``contract`` is ``pair``, ``called`` or ``alone``, with
``+knock`` and ``+knock_back`` when they were made; ``queens_split`` says whether the black
queens were in two hands; ``made`` is true when the queen side scored. The export is the
referee's view: it is written from the folded state, never shown to a seat mid-deal.
"""

from __future__ import annotations

from typing import Any

from jaslog.cards import CARD_TEXT
from jaslog.export.plays import PlaysOut
from jaslog.export.rows import (
    GameContext,
    Summary,
    add_trick,
    claim_columns,
    individual_tail,
    round_span,
    rule_by_seq,
    ruling_columns,
)
from jaslog.games.kloepper.rules import KloepperGame, known_sides, points

COMPLETE = ("queens", "others", "none", "revoke")
TEAM_OF = (0, 1, 2, 3)
NO_SEAT = (None,) * 4


def contract(mode: str | None, knock: bool, back: bool) -> str | None:
    if mode is None:
        return None
    return mode + ("+knock" if knock else "") + ("+knock_back" if back else "")


def violation_category(rule: str, card: int | None) -> str:
    if card is not None:
        return "play"
    if rule.startswith("knock"):
        return "knock"
    return "call"


def made_of(result: str) -> bool | None:
    """``rounds.made`` for a result: the queens side scored; not when the others did or
    nobody did; else (revoke, unfinished, score_only) NULL."""
    return True if result == "queens" else (False if result in ("others", "none") else None)


def score_only_row(ctx: GameContext, r: Any, o: Any) -> None:
    """The ``rounds`` row of a deal recorded by its score alone: the score, the card points
    and result when written, and the black-queen player the sheet names (``declarer``); the
    sides, contract and the rest NULL (Kloepper has no bidding and no roem: those columns
    hold what every deal holds). It counts in no player's roles (the sides are not
    recorded)."""
    so, seats, n = r.score_only, ctx.fold.seats, r.number
    chooser = so.chooser
    final = o.final
    first_seq, last_seq = round_span(ctx, n, r.ruling.seq if r.ruling is not None else None)
    ctx.rows["rounds"].add((
        n, "kloepper", r.dealer, seats[r.dealer], r.forehand, False, "score_only",
        None, None, None, 0, [],
        chooser, seats[chooser] if chooser is not None else None,
        (chooser - r.dealer - 1) % 4 + 1 if chooser is not None else None,
        None, None, None, None, True,
        so.points, [0] * 4, [0] * 4, None, [],
        None, None, None, None,
        o.result, made_of(o.result), None, None, 0,
        list(o.score), list(o.ruled) if o.ruled is not None else None, list(final), list(final),
        None, None,
        *ruling_columns(r),
        *claim_columns(r),
        None, None,
        first_seq, last_seq, ctx.at_seq(first_seq), ctx.at_seq(last_seq),
        None, None,  # no par: a score sheet has no hands
    ))


def build(ctx: GameContext) -> Summary:
    fold = ctx.fold
    g: KloepperGame = fold.state
    seats, rows = fold.seats, ctx.rows
    tricks_out, rounds_out = rows["tricks"], rows["rounds"]
    plays = PlaysOut(rows["plays"], seats, TEAM_OF, ctx.at, rule_by_seq(g.violations, True),
                     ctx.par.losses)
    trumps = g.trumps
    is_trump = tuple(bool(trumps.mask >> c & 1) for c in range(32))
    card_points = tuple(points(c) for c in range(32))
    # per seat: [rounds, declarer (queen side), partner (called), defending, made_decl,
    #            made_partner, made_against, plays, revokes, violations, tricks_won]
    per_seat = [[0] * 11 for _ in range(4)]
    tot, tot_played = [0] * 4, [0] * 4
    for r, o in zip(g.rounds, g.outcomes(), strict=True):
        n = r.number
        final = o.final
        for s in range(4):
            tot[s] += final[s]
            tot_played[s] += o.score[s]
        if r.score_only is not None:
            score_only_row(ctx, r, o)
            continue
        sd = r.sides()
        if sd is not None:
            side: list[bool | None] = [sd.on_queens(s) for s in range(4)]
        else:  # not seen yet: only what the plays revealed
            plays_so_far = [(t.seat_of(i), c) for t in r.tricks for i, c in enumerate(t.cards)]
            call = (r.call.seat, r.call.call) if r.call is not None else None
            side = [None if k is None else k == "queens"
                    for k in known_sides(None, None, plays_so_far, call, r.plays > 0)]
        plays.round(n, None, r.hands_known, is_trump, card_points, side,
                    NO_SEAT if r.call is None else tuple(r.call.seat == s for s in range(4)))
        for t in r.tricks:
            cards = t.cards
            if not cards:
                continue
            done = t.complete
            winner = t.winner if done else None
            texts = [CARD_TEXT[c] for c in cards]
            add_trick(tricks_out, n, t, texts, seats, winner, None,
                      side[winner] if winner is not None else None)
            if winner is not None:
                per_seat[winner][10] += 1
            plays.trick(t.number, t.leader, cards, t.seqs, t.win if done else None,
                        t.points if done else None)
        result = o.result
        made = made_of(result)
        queens = o.queens or ([s for s in range(4) if side[s]] if all(x is not None for x in side)
                              else [])
        others = [s for s in range(4) if queens and s not in queens]
        caller = r.call.seat if r.call is not None else None
        first_seq, last_seq = round_span(ctx, n, r.ruling.seq if r.ruling is not None else None)
        q_points = o.queens_points
        rounds_out.add((
            n, "kloepper", r.dealer, seats[r.dealer], r.forehand,
            ctx.hands_recorded.get(n, r.dealt is not None), "played",
            None, None, None, 0, [],
            caller, seats[caller] if caller is not None else None,
            (caller - r.dealer - 1) % 4 + 1 if caller is not None else None,
            None, queens, r.tricks[0].leader if r.tricks else None,
            sum(1 for t in r.tricks if t.complete), r.over,
            list(o.points), [0] * 4, [0] * 4, list(o.tricks), [],
            q_points, (120 - q_points) if q_points is not None else None, None, None,
            result, made, None, r.revoke_seat, len(r.violations),
            list(o.score), list(o.ruled) if o.ruled is not None else None, list(final), list(final),
            final[queens[0]] if queens else None, final[others[0]] if others else None,
            *ruling_columns(r),
            *claim_columns(r),
            contract(o.mode, o.knock, o.knock_back), (o.mode == "pair") if o.mode else None,
            first_seq, last_seq, ctx.at_seq(first_seq), ctx.at_seq(last_seq),
            *ctx.par.of_round(n),
        ))
        if result in COMPLETE and o.queens is not None:
            partner = next((s for s in o.queens if s != caller), None) if o.mode == "called" else None
            for seat in range(4):
                ps = per_seat[seat]
                ps[0] += 1
                if seat == partner:
                    ps[2] += 1
                    ps[5] += made is True
                elif seat in o.queens:
                    ps[1] += 1
                    ps[4] += made is True
                else:
                    ps[3] += 1
                    ps[6] += made is True
    plays.per_seat(per_seat, 7)
    return individual_tail(ctx, per_seat, tot, tot_played, violation_category,
                           lambda rule: True)
