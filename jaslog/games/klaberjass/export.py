"""Klaberjass rows: plays, tricks, rounds, players and violations read from the folded game.

Both players score for themselves, so ``team`` is the seat and every score list has one
entry per player. The melds (sequences and bella) fill the ``roem`` columns: ``roem`` is
what each player scored for them, ``roem_on_table`` what each held, ``roem_kinds`` their
kinds (``sequence3``, ``sequence4`` for four cards or more, ``bella``). ``contract`` says how
trumps were fixed: ``take`` (the turn-up's suit in round 1), ``named`` (round 2),
``schmeiss`` (a schmeiss answered 'play'), or ``annulled``. Nothing here computes a rule.
"""

from __future__ import annotations

from typing import Any

from jaslog.cards import CARD_TEXT, SUIT_LETTERS
from jaslog.export.columns import IS_TRUMP, NO_TRUMP, POINTS
from jaslog.export.plays import PlaysOut
from jaslog.export.rows import (
    GameContext,
    Summary,
    add_trick,
    claim_columns,
    individual_tail,
    known,
    round_span,
    rule_by_seq,
    ruling_columns,
)
from jaslog.games.klaberjass.rules import KlaberjassGame, ScoreRules, has_bella, runs, score_deal
from jaslog.games.klaberjass.rules.round import Round

COMPLETE = ("made", "tie", "bete", "revoke")
TEAM_OF = (0, 1)
NO_SEAT = (None, None)


def contract(r: Round) -> str | None:
    """How the deal's trumps were fixed (see the module doc)."""
    if r.annulled:
        return "annulled"
    if r.maker is None:
        return None
    calls = [c for _, c in r.bidding.calls]
    if "play" in calls:
        return "schmeiss"
    return "take" if calls[-1] == "take" else "named"


def violation_category(rule: str, card: int | None) -> str:
    if card is not None and not rule.startswith(("dix", "bella")):
        return "play"
    if rule.startswith(("sequence", "bella")):
        return "meld"
    if rule.startswith("dix"):
        return "dix"
    return "bid"


def made_of(result: str) -> bool | None:
    """``rounds.made`` for a result: made; not tie or bete; else (revoke, annulled,
    unfinished, score_only) NULL."""
    return True if result == "made" else (False if result in ("tie", "bete") else None)


def count_roles(per_seat: list[list[int]], maker: int, made: bool | None) -> None:
    """A complete deal in the ``players`` counts: the maker and the other player."""
    for seat in (0, 1):
        ps = per_seat[seat]
        ps[0] += 1
        if seat == maker:
            ps[1] += 1
            ps[4] += made is True
        else:
            ps[3] += 1
            ps[6] += made is True


def score_only_row(ctx: GameContext, r: Round, o: Any, per_seat: list[list[int]]) -> None:
    """The ``rounds`` row of a deal recorded by its score alone: what the sheet says (the
    score; the maker, trump, points, melds and result when written), NULL for the rest."""
    so, seats, n = r.score_only, ctx.fold.seats, r.number
    assert so is not None
    maker = so.chooser
    other = 1 - maker if maker is not None else None
    final, result = o.final, o.result
    made = made_of(result)
    first_seq, last_seq = round_span(ctx, n, r.ruling.seq if r.ruling is not None else None)
    ctx.rows["rounds"].add((
        n, "klaberjass", r.dealer, seats[r.dealer], r.elder, False, "score_only",
        SUIT_LETTERS[so.trump] if so.trump is not None else None, "bidding", None, None, None,
        maker, seats[maker] if maker is not None else None,
        (1 if maker == r.elder else 2) if maker is not None else None,
        maker, [maker] if maker is not None else None,
        None, None, True,
        so.points, so.roem, None, None, None,
        known(so.points, maker), known(so.points, other),
        known(so.roem, maker), known(so.roem, other),
        result, made, None, None, 0,
        list(o.score), list(o.ruled) if o.ruled is not None else None, list(final), list(final),
        known(final, maker), known(final, other),
        *ruling_columns(r),
        *claim_columns(r),
        None, None,
        first_seq, last_seq, ctx.at_seq(first_seq), ctx.at_seq(last_seq),
        None, None,  # no par: a score sheet has no hands
    ))
    if result in COMPLETE and maker is not None:
        count_roles(per_seat, maker, made)


def build(ctx: GameContext) -> Summary:
    fold = ctx.fold
    g: KlaberjassGame = fold.state
    seats, rows = fold.seats, ctx.rows
    tricks_out, rounds_out = rows["tricks"], rows["rounds"]
    plays = PlaysOut(rows["plays"], seats, TEAM_OF, ctx.at, rule_by_seq(g.violations, True),
                     ctx.par.losses)
    seq_rules, score_rules = g.seq_rules, ScoreRules.from_options(g.options)
    # per seat: [rounds, declarer, partner, defending, made_decl, made_partner, made_against,
    #            plays, revokes, violations, tricks_won]
    per_seat = [[0] * 11 for _ in range(2)]
    tot, tot_played = [0, 0], [0, 0]
    for r, o in zip(g.rounds, g.outcomes(), strict=True):
        n, trump, maker = r.number, r.trump, r.maker
        trump_l = SUIT_LETTERS[trump] if trump is not None else None
        final = o.final
        for s in (0, 1):
            tot[s] += final[s]
            tot_played[s] += o.score[s]
        if r.score_only is not None:
            score_only_row(ctx, r, o, per_seat)
            continue
        judged = r.hands_known or r.over
        makers = NO_SEAT if maker is None else (maker == 0, maker == 1)
        plays.round(n, trump_l, judged, IS_TRUMP[trump] if trump is not None else NO_TRUMP,
                    POINTS[trump] if trump is not None else NO_TRUMP, makers, makers)
        for t in r.tricks:
            cards = t.cards
            if not cards:
                continue
            done = t.complete
            assert trump is not None
            winner = r.winner_of(t) if done else None
            texts = [CARD_TEXT[c] for c in cards]
            add_trick(tricks_out, n, t, texts, seats, winner, trump_l,
                      (winner == maker) if winner is not None and maker is not None else None)
            if winner is not None:
                per_seat[winner][10] += 1
            plays.trick(t.number, t.leader, cards, t.seqs, t.win_index(trump) if done else None,
                        t.points if done else None)
        held = [0, 0]
        kinds: list[str] = []
        if r.playing is not None and trump is not None:
            for s in (0, 1):
                for run in runs(r.playing[s]):
                    held[s] += seq_rules.value(run)
                    kinds.append("sequence3" if run[2] == 3 else "sequence4")
                if has_bella(r.playing[s], trump):
                    held[s] += g.bella_points
                    kinds.append("bella")
        melds = [o.sequences[s] + o.bella[s] for s in (0, 1)]
        result = o.result
        made = made_of(result)
        without = None
        if result in ("made", "tie", "bete") and maker is not None:
            without = score_deal(score_rules, o.points, maker).result
        other = 1 - maker if maker is not None else None
        first_seq, last_seq = round_span(ctx, n, r.ruling.seq if r.ruling is not None else None)
        rounds_out.add((
            n, "klaberjass", r.dealer, seats[r.dealer], r.elder,
            ctx.hands_recorded.get(n, r.dealt is not None), "played",
            trump_l, "bidding", contract(r) if maker is not None else None,
            sum(1 for _, c in r.bidding.calls if c == "pass"), [CARD_TEXT[r.turn_up]],
            maker, seats[maker] if maker is not None else None,
            (1 if maker == r.elder else 2) if maker is not None else None,
            maker, [maker] if maker is not None else [],
            r.tricks[0].leader if r.tricks else None,
            sum(1 for t in r.tricks if t.complete), r.over,
            list(o.points), melds, held, list(o.tricks), kinds,
            o.points[maker] if maker is not None else None,
            o.points[other] if other is not None else None,
            melds[maker] if maker is not None else None,
            melds[other] if other is not None else None,
            result, made, without, r.revoke_seat, len(r.violations),
            list(o.score), list(o.ruled) if o.ruled is not None else None, list(final), list(final),
            final[maker] if maker is not None else None,
            final[other] if other is not None else None,
            *ruling_columns(r),
            *claim_columns(r),
            contract(r), None,
            first_seq, last_seq, ctx.at_seq(first_seq), ctx.at_seq(last_seq),
            *ctx.par.of_round(n),
        ))
        if result in COMPLETE and maker is not None:
            count_roles(per_seat, maker, made)
    plays.per_seat(per_seat, 7)
    return individual_tail(ctx, per_seat, tot, tot_played, violation_category,
                           lambda rule: rule.startswith("must_"))
