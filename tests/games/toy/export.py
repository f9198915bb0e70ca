"""The toy game's rows of every Parquet table, read from the folded game (the referee's
view). Each player is his own team; the elder is the ``playing`` side (``declarer``), the
``contract`` column says ``doubled`` or ``single``."""

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
from tests.games.toy.rules import ToyGame

TEAM_OF = (0, 1)
NO_POINTS = (0,) * 32
NOT_TRUMP = (False,) * 32


def made_of(result: str) -> bool | None:
    return True if result == "made" else False if result == "bete" else None


def build(ctx: GameContext) -> Summary:
    fold = ctx.fold
    g: ToyGame = fold.state
    seats, rows = fold.seats, ctx.rows
    plays = PlaysOut(rows["plays"], seats, TEAM_OF, ctx.at, rule_by_seq(g.violations, True),
                     ctx.par.losses)
    # per seat: [rounds, declarer, partner, defending, made_decl, made_partner, made_against,
    #            plays, revokes, violations, tricks_won]
    per_seat = [[0] * 11 for _ in range(2)]
    tot, tot_played = [0, 0], [0, 0]
    for r, o in zip(g.rounds, g.outcomes(), strict=True):
        n = r.number
        for s in range(2):
            tot[s] += o.final[s]
            tot_played[s] += o.score[s]
        side = (r.elder == 0, r.elder == 1)
        if r.score_only is None:
            plays.round(n, None, r.hands_known, NOT_TRUMP, NO_POINTS, side, side)
        for t in r.tricks:
            if not t.cards:
                continue
            winner = t.winner if t.complete else None
            add_trick(rows["tricks"], n, t, [CARD_TEXT[c] for c in t.cards], seats, winner, None,
                      side[winner] if winner is not None else None)
            if winner is not None:
                per_seat[winner][10] += 1
            plays.trick(t.number, t.leader, t.cards, t.seqs, t.win if t.complete else None,
                        t.points if t.complete else None)
        _round_row(ctx, r, o, seats)
        made = made_of(o.result)
        if made is not None:
            for seat in range(2):
                ps = per_seat[seat]
                ps[0] += 1
                ps[1 if seat == r.elder else 3] += 1
                ps[4 if seat == r.elder else 6] += made is True
    plays.per_seat(per_seat, 7)
    return individual_tail(ctx, per_seat, tot, tot_played, lambda rule, card: "play" if card
                           is not None else "double", lambda rule: True)


def _round_row(ctx: GameContext, r: Any, o: Any, seats: list[str]) -> None:
    n, e = r.number, r.elder
    first_seq, last_seq = round_span(ctx, n, r.ruling.seq if r.ruling is not None else None)
    tricks = list(o.tricks)
    ctx.rows["rounds"].add((
        n, "toy", r.dealer, seats[r.dealer], e,
        ctx.hands_recorded.get(n, r.dealt is not None),
        "score_only" if r.score_only is not None else "played",
        None, None, None, 0, [],
        e, seats[e], 1,
        None, [e], r.tricks[0].leader if r.tricks else None,
        sum(1 for t in r.tricks if t.complete), r.over,
        tricks, [0, 0], [0, 0], tricks, [],
        tricks[e], tricks[1 - e], None, None,
        o.result, made_of(o.result), None, r.revoke_seat, len(r.violations),
        list(o.score), list(o.ruled) if o.ruled is not None else None, list(o.final),
        list(o.final), o.final[e], o.final[1 - e],
        *ruling_columns(r),
        *claim_columns(r),
        "doubled" if r.doubled else "single", None,
        first_seq, last_seq, ctx.at_seq(first_seq), ctx.at_seq(last_seq),
        *ctx.par.of_round(n),
    ))
