"""Klaverjas rows: plays, tricks, rounds, players and violations read from the folded game.

Everything here reads the state the rules built (rounds, tricks, outcomes, violations, the
trump selection machine) or asks the rules (``roem_parts``, ``score_round``, card points);
no rule is re-implemented.
"""

from __future__ import annotations

from typing import Any

from jaslog.cards import CARD_TEXT, SUIT_LETTERS
from jaslog.export.columns import IS_TRUMP, NO_TRUMP, POINTS
from jaslog.export.plays import PlaysOut
from jaslog.export.rows import (
    GameContext,
    Summary,
    category_of,
    claim_columns,
    irregularity_rows,
    known,
    round_span,
    rule_by_seq,
    ruling_columns,
)
from jaslog.games.klaverjas.rules import KlaverjasGame, roem_parts, score_round
from jaslog.games.klaverjas.rules.trump import TrumpSelection

JUDGED = ("made", "nat", "pit")
COMPLETE = ("made", "nat", "pit", "revoke")
TEAM_OF = (0, 1, 0, 1)
NO_SEAT = (None,) * 4
#: By playing team, by declarer: for each seat, it is on the playing side; it is the declarer.
PLAYING = tuple(tuple((s & 1) == team for s in range(4)) for team in range(2))
DECLARER = tuple(tuple(s == chooser for s in range(4)) for chooser in range(4))


def trump_how(sel: TrumpSelection) -> str | None:
    """How the selection machine fixed trumps (see the ``rounds.trump_how`` column)."""
    if sel.trump is None:
        return None
    last = sel.bids[-1] if sel.bids else None
    if last is None or last[1] == "pass":
        return "turned"  # the machine fixed it when a card was turned
    if sel.forced and sel.method in ("free", "random"):
        return "forced"
    if sel.method == "random":
        return "accepted" if getattr(sel, "stage", "") == "accept" \
            and sel.trump == sel.proposed else "named"
    return "chosen"


def violation_category(rule: str, card: int | None) -> str:
    if card is not None:
        return "play"
    return "roem" if rule.startswith("roem") else "bid"


def made_of(result: str) -> bool | None:
    """``rounds.made`` for a result: made or pit, not nat, else (revoke, unfinished,
    score_only) NULL."""
    return True if result in ("made", "pit") else (False if result == "nat" else None)


def count_roles(per_seat: list[list[int]], chooser: int, made: bool | None) -> None:
    """A complete round in the ``players`` counts: the chooser, the partner, the defenders."""
    pteam = chooser & 1
    for seat in range(4):
        s = per_seat[seat]
        s[0] += 1
        if seat == chooser:
            s[1] += 1
            s[4] += made is True
        elif seat & 1 == pteam:
            s[2] += 1
            s[5] += made is True
        else:
            s[3] += 1
            s[6] += made is True


def score_only_row(ctx: GameContext, r: Any, o: Any, method: str,
                   per_seat: list[list[int]]) -> None:
    """The ``rounds`` row of a round recorded by its score alone: what the sheet says (the
    score; the chooser, trump, points, roem and result when written), NULL for the rest."""
    so, seats, n = r.score_only, ctx.fold.seats, r.number
    chooser = so.chooser
    pteam = chooser & 1 if chooser is not None else None
    dteam = 1 - pteam if pteam is not None else None
    final, result = o.final, o.result
    made = made_of(result)
    first_seq, last_seq = round_span(ctx, n, r.ruling.seq if r.ruling is not None else None)
    ctx.rows["rounds"].add((
        n, "klaverjas", r.dealer, seats[r.dealer], r.forehand, False, "score_only",
        SUIT_LETTERS[so.trump] if so.trump is not None else None, method, None, None, None,
        chooser, seats[chooser] if chooser is not None else None,
        (chooser - r.dealer - 1) % 4 + 1 if chooser is not None else None,
        pteam, sorted((chooser, (chooser + 2) % 4)) if chooser is not None else None,
        None, None, True,
        so.points, so.roem, None, None, None,
        known(so.points, pteam), known(so.points, dteam),
        known(so.roem, pteam), known(so.roem, dteam),
        result, made, None, None, 0,
        list(o.score), list(o.ruled) if o.ruled is not None else None, list(final),
        [final[s & 1] for s in range(4)], known(final, pteam), known(final, dteam),
        *ruling_columns(r),
        *claim_columns(r),
        None, None,
        first_seq, last_seq, ctx.at_seq(first_seq), ctx.at_seq(last_seq),
        None, None,  # no par: a score sheet has no hands
    ))
    if result in COMPLETE and chooser is not None:
        count_roles(per_seat, chooser, made)


def build(ctx: GameContext) -> Summary:
    fold = ctx.fold
    g: KlaverjasGame = fold.state
    seats, rows = fold.seats, ctx.rows
    tricks_out, rounds_out = rows["tricks"], rows["rounds"]
    plays = PlaysOut(rows["plays"], seats, TEAM_OF, ctx.at, rule_by_seq(g.violations, False),
                     ctx.par.losses)
    add_trick = tricks_out.rows.append
    outcomes = g.outcomes()
    roem_rules, score_rules = g.roem_rules, g.score_rules
    claimed_mode = g.claimed_mode
    method = g.options["trump_selection"]
    stuk_value = roem_rules.stuk

    # per seat: [rounds, declarer, partner, defending, made_decl, made_partner, made_against,
    #            plays, revokes, violations, tricks_won]
    per_seat = [[0] * 11 for _ in range(4)]
    tot, tot_played = [0, 0], [0, 0]

    for r, o in zip(g.rounds, outcomes, strict=True):
        n = r.number
        trump = r.trump
        trump_l = SUIT_LETTERS[trump] if trump is not None else None
        chooser = r.chooser
        pteam = chooser & 1 if chooser is not None else None
        final = o.final
        tot[0] += final[0]
        tot[1] += final[1]
        tot_played[0] += o.score[0]
        tot_played[1] += o.score[1]
        if r.score_only is not None:
            score_only_row(ctx, r, o, method, per_seat)
            continue
        plays.round(n, trump_l, r.hands_known, IS_TRUMP[trump] if trump is not None else NO_TRUMP,
                    POINTS[trump] if trump is not None else NO_TRUMP,
                    NO_SEAT if pteam is None else PLAYING[pteam],
                    NO_SEAT if chooser is None else DECLARER[chooser])
        kinds: list[str] = []
        for t in r.tricks:
            cards = t.cards
            if not cards:
                continue
            texts = [CARD_TEXT[c] for c in cards]
            lead = t.leader
            if t.complete:
                winner = t.winner
                wt = winner & 1
                parts = roem_parts(cards, trump, roem_rules) if trump is not None else []
                kinds.extend(k for k, p in parts if p > 0)
                per_seat[winner][10] += 1
                add_trick((n, t.number, lead, seats[lead], texts, True, winner, seats[winner], wt,
                           trump_l, t.points, t.roem, t.claimed if claimed_mode else t.roem, parts,
                           wt == pteam if pteam is not None else None, t.seqs[0], t.seqs[-1]))
                plays.trick(t.number, lead, cards, t.seqs, t.win, t.points)
            else:
                add_trick((n, t.number, lead, seats[lead], texts, False, None, None, None, trump_l,
                           None, None, None, [], None, t.seqs[0], t.seqs[-1]))
                plays.trick(t.number, lead, cards, t.seqs, None, None)
        if stuk_value:
            kinds.extend(["stuk_in_hand"] * (sum(r.hand_roem) // stuk_value))

        result = o.result
        made = made_of(result)
        without = None
        if result in JUDGED and pteam is not None:
            without = score_round(score_rules, o.points, [0, 0], o.tricks, pteam, None)[1]
        dteam = 1 - pteam if pteam is not None else None
        sel = r.selection
        first_seq, last_seq = round_span(ctx, n, r.ruling.seq if r.ruling is not None else None)
        rounds_out.add((
            n, "klaverjas", r.dealer, seats[r.dealer], r.forehand,
            ctx.hands_recorded.get(n, r.dealt is not None), "played",
            trump_l, method, trump_how(sel),
            sum(1 for _, call in sel.bids if call == "pass"), list(sel.turned),
            chooser, seats[chooser] if chooser is not None else None,
            (chooser - r.dealer - 1) % 4 + 1 if chooser is not None else None,
            pteam,
            sorted((chooser, (chooser + 2) % 4)) if chooser is not None else [],
            r.tricks[0].leader if r.tricks else None,
            sum(1 for t in r.tricks if t.complete), r.over,
            list(o.points), list(o.roem), list(o.roem_on_table), list(o.tricks), kinds,
            o.points[pteam] if pteam is not None else None,
            o.points[dteam] if dteam is not None else None,
            o.roem[pteam] if pteam is not None else None,
            o.roem[dteam] if dteam is not None else None,
            result, made, without, r.revoke_team, len(r.violations),
            list(o.score), list(o.ruled) if o.ruled is not None else None, list(final),
            [final[s & 1] for s in range(4)],
            final[pteam] if pteam is not None else None,
            final[dteam] if dteam is not None else None,
            *ruling_columns(r),
            *claim_columns(r),
            None, None,
            first_seq, last_seq, ctx.at_seq(first_seq), ctx.at_seq(last_seq),
            *ctx.par.of_round(n),
        ))
        if result in COMPLETE and chooser is not None:
            count_roles(per_seat, chooser, made)

    plays.per_seat(per_seat, 7)
    viol = rows["violations"]
    for v in g.violations:
        if v.seat is not None:
            per_seat[v.seat][9] += 1
            if v.card is not None:
                per_seat[v.seat][8] += 1
        card = CARD_TEXT[v.card] if v.card is not None else None
        viol.add((v.seq, v.round, v.trick, v.seat, seats[v.seat] if v.seat is not None else None,
                  card, [card] if card is not None else None, v.rule,
                  category_of(violation_category, v.rule, v.card), v.message))
    irregularity_rows(ctx)

    outcome: Any = g.winner
    finished = outcome is not None
    draw = outcome == "draw"
    wteam = outcome if isinstance(outcome, int) else None
    players = rows["players"]
    for seat in range(4):
        s = per_seat[seat]
        team = seat & 1
        players.add((seats[seat], seat, team, seats[(seat + 2) % 4], *s, tot[team],
                     (wteam == team) if finished else None))
    return Summary(
        rounds=len(g.rounds),
        rounds_complete=sum(1 for r in g.rounds if r.closed),
        totals=tot, totals_played=tot_played, finished=finished, winner_team=wteam, draw=draw,
        winners=[seats[s] for s in range(4) if wteam is not None and s & 1 == wteam],
        violations=len(g.violations),
        rulings=ctx.rulings,
    )
