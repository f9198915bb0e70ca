"""Klaverjas rows: plays, tricks, rounds, players and violations read from the folded game.

Everything here reads the state the rules built (rounds, tricks, outcomes, violations, the
trump selection machine) or asks the rules (``roem_parts``, ``score_round``, card points);
no rule is re-implemented.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from jaslog.cards import CARD_TEXT, PLAIN_STRENGTH, RANK_MASK, SUIT_LETTERS, TRUMP_STRENGTH
from jaslog.engine.facts import claim_columns, ruling_columns
from jaslog.engine.jacknine import CARD_POINTS, RUN_LENGTH
from jaslog.export.columnar import (
    ColumnarGame,
    Verdicts,
    arrow,
    game_verdicts,
    lookup,
    np_of,
    rows_of,
)
from jaslog.export.columns import IS_TRUMP, NO_TRUMP, POINTS, RANK_OF, SUIT_OF
from jaslog.export.plays import PlaysOut
from jaslog.export.rows import (
    GameContext,
    Summary,
    category_of,
    irregularity_rows,
    known,
    round_span,
    rule_by_seq,
)
from jaslog.export.schema import SCHEMAS
from jaslog.games.klaverjas.facts import DETAIL, round_detail
from jaslog.games.klaverjas.rules import KlaverjasGame, roem_parts
from jaslog.games.klaverjas.rules.game import game_winner
from jaslog.games.klaverjas.rules.play import STUK

COMPLETE = ("made", "nat", "pit", "revoke")
TEAM_OF = (0, 1, 0, 1)
NO_SEAT = (None,) * 4
#: By playing team, by declarer: for each seat, it is on the playing side; it is the declarer.
PLAYING = tuple(tuple((s & 1) == team for s in range(4)) for team in range(2))
DECLARER = tuple(tuple(s == chooser for s in range(4)) for chooser in range(4))


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


def played_row(ctx: GameContext, seats: Any, n: int, method: str, hands: bool, d: list[Any],
               result: str, score: list[int], final: list[int], roem: list[int]
               ) -> tuple[Any, ...]:
    """The ``rounds`` row of played round ``n``: its values as the fold holds them (``d``,
    :func:`jaslog.games.klaverjas.facts.round_detail`: from the fold, or as the store kept
    them; lists of their own either way, which the row takes as they are), its result,
    scores, final scores and roem, whether its deal carried ``hands``; ``seats``: the
    players by seat."""
    (dealer, forehand, trump, chooser, _known, how, passes, turned, leader, complete, over,
     points, on_table, tricks, kinds, without, revoke_team, violations, ruled, reason,
     ruling_seq, rulings, after_end, claimed_by, gives, guaranteed, _won, _plays, _broken) = d
    pteam = chooser & 1 if chooser is not None else None
    dteam = 1 - pteam if pteam is not None else None
    first_seq, last_seq = round_span(ctx, n, ruling_seq)
    return (
        n, "klaverjas", dealer, seats[dealer], forehand, hands, "played",
        SUIT_LETTERS[trump] if trump is not None else None, method, how, passes, turned,
        chooser, seats[chooser] if chooser is not None else None,
        (chooser - dealer - 1) % 4 + 1 if chooser is not None else None,
        pteam,
        sorted((chooser, (chooser + 2) % 4)) if chooser is not None else [],
        leader, complete, over,
        points, list(roem), on_table, tricks, kinds,
        points[pteam] if pteam is not None else None,
        points[dteam] if dteam is not None else None,
        roem[pteam] if pteam is not None else None,
        roem[dteam] if dteam is not None else None,
        result, made_of(result), without, revoke_team, violations,
        list(score), ruled, list(final),
        [final[s & 1] for s in range(4)],
        final[pteam] if pteam is not None else None,
        final[dteam] if dteam is not None else None,
        reason, ruling_seq, rulings, after_end,
        claimed_by, gives, guaranteed,
        None, None,
        first_seq, last_seq, ctx.at_seq(first_seq), ctx.at_seq(last_seq),
        *ctx.par.of_round(n),
    )


def round_seats(per_seat: list[list[int]], d: list[Any], result: str, plays: bool) -> None:
    """A played round in the ``players`` counts (``d`` as :func:`played_row` reads it): its
    roles, the tricks each seat won, and with ``plays`` the cards each seat played."""
    chooser, won, played = d[3], d[-3], d[-2]
    for seat in range(4):
        per_seat[seat][10] += won[seat]
        if plays:
            per_seat[seat][7] += played[seat]
    if result in COMPLETE and chooser is not None:
        count_roles(per_seat, chooser, made_of(result))


def build(ctx: GameContext) -> Summary:
    fold = ctx.fold
    g: KlaverjasGame = fold.state
    seats, rows = fold.seats, ctx.rows
    tricks_out, rounds_out = rows["tricks"], rows["rounds"]
    by_rows = not ctx.columnar  # else the plays and tricks are built a column at a time
    plays = PlaysOut(rows["plays"], seats, TEAM_OF, ctx.at, rule_by_seq(g.violations, False),
                     ctx.par.losses)
    add_trick = tricks_out.rows.append
    outcomes = g.outcomes()
    roem_rules = g.roem_rules
    claimed_mode = g.claimed_mode
    method = g.options["trump_selection"]

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
        if by_rows:
            plays.round(n, trump_l, r.hands_known,
                        IS_TRUMP[trump] if trump is not None else NO_TRUMP,
                        POINTS[trump] if trump is not None else NO_TRUMP,
                        NO_SEAT if pteam is None else PLAYING[pteam],
                        NO_SEAT if chooser is None else DECLARER[chooser])
            for t in r.tricks:
                cards = t.cards
                if not cards:
                    continue
                lead = t.leader
                texts = [CARD_TEXT[c] for c in cards]
                if t.complete:
                    winner = t.winner
                    wt = winner & 1
                    parts = roem_parts(cards, trump, roem_rules) if trump is not None else []
                    add_trick((n, t.number, lead, seats[lead], texts, True, winner, seats[winner],
                               wt, trump_l, t.points, t.roem,
                               t.claimed if claimed_mode else t.roem, parts,
                               wt == pteam if pteam is not None else None, t.seqs[0],
                               t.seqs[-1]))
                    plays.trick(t.number, lead, cards, t.seqs, t.win, t.points)
                else:
                    add_trick((n, t.number, lead, seats[lead], texts, False, None, None, None,
                               trump_l, None, None, None, [], None, t.seqs[0], t.seqs[-1]))
                    plays.trick(t.number, lead, cards, t.seqs, None, None)
        d = round_detail(g, r, o)
        assert d is not None
        rounds_out.add(played_row(ctx, seats, n, method,
                                  ctx.hands_recorded.get(n, r.dealt is not None), d, o.result,
                                  o.score, final, o.roem))
        round_seats(per_seat, d, o.result, not by_rows)

    if by_rows:
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

    outcome: Any = g.winner_of(tot)  # (the totals just added up: not again)
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


# ------------------------------------------------------------------ a column at a time

#: The event types a game built a column at a time may hold.
COLUMNAR_TYPES = frozenset({"game_started", "dealt", "trump_turned", "bid", "play", "roem",
                            "claim", "note", "ruling"})
#: The tables :func:`build_columns` makes.
COLUMNAR_TABLES = ("plays", "tricks")
#: The roem kinds of ``tricks.roem_parts``, by code.
ROEM_KINDS = ("four_jacks", "four_of_a_kind", "run4", "run3", "stuk")
JACK = 4
_CARD = pa.array(CARD_TEXT, pa.string())
_SUIT = pa.array(SUIT_OF, pa.string())
_RANK = pa.array(RANK_OF, pa.string())
_SUIT_LETTER = pa.array(list(SUIT_LETTERS), pa.string())
_KIND = pa.array(ROEM_KINDS, pa.string())
_TRUMP_STRENGTH = np.array(TRUMP_STRENGTH, np.int16)
_PLAIN_STRENGTH = np.array(PLAIN_STRENGTH, np.int16)
_POINTS = np.array(CARD_POINTS, np.int16)                    # [trump, card]
_RUN_LENGTH = np.array(RUN_LENGTH, np.int8)                  # by an 8-bit rank set
_RANK_MASK = np.array(RANK_MASK, np.uint32)                  # by rank: its four cards
_STUK = np.array(STUK, np.uint32)                            # by trump: its king and queen


@dataclass(slots=True)
class ColumnOptions:
    """What :func:`build_columns` reads of a game's options."""

    bonus: int
    run3: int
    run4: int
    stuk: int
    four_kind: int
    four_jacks: int
    four_ranks: int      # 8-bit set of the ranks whose four of a kind score four_kind
    claimed: bool        # roem credited as claimed (else: as on the table)
    by_winner: bool      # only the trick's winning team may claim its roem


def columnar(ctx: GameContext) -> ColumnarGame | None:
    """The game as :func:`build_columns` builds its plays and tricks, or None when its log
    holds what only the row builder handles (corrections, irregularities, score-only rounds,
    three of a kind, an integrity error, an event type not named here)."""
    fold = ctx.fold
    g: KlaverjasGame = fold.state
    if ctx.error is not None or fold.retracted or fold.irregularities \
            or len(fold.seats) != 4 or not ctx.types <= COLUMNAR_TYPES:
        return None
    rules = g.roem_rules
    if rules.three_of_a_kind:
        return None
    for r in g.rounds:
        if r.score_only is not None:
            return None
        if r.tricks and (r.trump is None or r.chooser is None):
            return None
    options = ColumnOptions(g.last_bonus, rules.run3, rules.run4, rules.stuk, rules.four_kind,
                            rules.four_jacks, sum(1 << r for r in rules.four_kind_ranks),
                            g.claimed_mode, g.claim_by_winner)
    return ColumnarGame(ctx.game, COLUMNAR_TABLES, build_columns, fold.seats, options,
                        game_verdicts(ctx))


def build_columns(events: pa.Table, games: list[ColumnarGame]) -> dict[str, pa.Table]:
    """The ``plays`` and ``tricks`` of ``games`` from their rows of the partition's ``events``
    table, a column at a time: positions in the trick and trick numbers from counts over
    each round's plays, winners from the largest card strength of each trick
    (``np.maximum.reduceat``), card and trick points from a table by trump and card, the roem
    on the table from the trick's card mask against lookup tables (as the rules'
    ``trick_value``), the roem credited from each claim against the trick it follows; the
    trump, the declarer, whether the hands are known and the rules broken are the rules'
    verdicts."""
    ev, game_of = rows_of(events, games, ("seq", "type", "round", "seat", "card", "points",
                                          "event_time"))
    n = ev.num_rows
    opts = [g.options for g in games]

    def per_game(name: str) -> np.ndarray:
        return np.array([getattr(o, name) for o in opts], np.int64)

    bonus, run3, run4, stuk_pts = (per_game(x) for x in ("bonus", "run3", "run4", "stuk"))
    four_kind, four_jacks, four_ranks = (per_game(x) for x in ("four_kind", "four_jacks",
                                                                "four_ranks"))
    claimed_mode = np.array([o.claimed for o in opts], bool)
    by_winner = np.array([o.by_winner for o in opts], bool)
    players = pa.array([s for g in games for s in g.seats], pa.string())
    gids = pa.array([g.game for g in games], pa.string())

    # rounds, numbered across the games (from 0): the verdicts
    nrounds = np.array([len(g.verdicts.known) for g in games], np.int64)
    round_base = np.concatenate([[0], np.cumsum(nrounds)[:-1]])
    trump_r = np.array([t for g in games for t in g.verdicts.trump], np.int64)
    chooser_r = np.array([c for g in games for c in g.verdicts.chooser], np.int64)
    known_r = np.array([k for g in games for k in g.verdicts.known], bool)

    kind = ev.column("type")
    seq = np_of(ev.column("seq")).astype(np.int64)
    rnd = np_of(ev.column("round").fill_null(0)).astype(np.int64)
    seat = np_of(ev.column("seat").fill_null(-1)).astype(np.int64)
    is_play, is_roem = (np_of(pc.equal(kind, t)) for t in ("play", "roem"))

    # plays: position in the round's play, trick, winner, points
    pidx = np.flatnonzero(is_play)
    p_n = len(pidx)
    p_game = game_of[pidx]
    p_round = round_base[p_game] + rnd[pidx] - 1
    first = np.ones(p_n, bool)
    first[1:] = p_round[1:] != p_round[:-1]
    group = np.flatnonzero(first)
    pos = np.arange(p_n) - np.repeat(group, np.diff(np.append(group, p_n)))
    trick_no = pos // 4 + 1
    position = pos % 4
    # the plays' own columns, taken at once: a play's card as text (kept: the plays' and the
    # tricks' cards) and as its code, and its time
    take_p = pa.array(pidx, pa.int64())
    at_plays = ev.select(["card", "event_time"]).take(take_p).combine_chunks()
    card_text = at_plays.column("card").chunk(0) if at_plays.num_rows \
        else pa.array([], pa.string())
    card = np_of(pc.index_in(card_text, value_set=_CARD)).astype(np.int64)
    p_seat = seat[pidx]
    suit, rank = card >> 3, card & 7
    trump = trump_r[p_round]
    chooser = chooser_r[p_round]
    tstart = np.flatnonzero(position == 0)
    t_n = len(tstart)
    tsize = np.diff(np.append(tstart, p_n))
    trick_of = np.repeat(np.arange(t_n), tsize)
    led = suit[tstart][trick_of]
    strength = np.where(suit == trump, 16 + _TRUMP_STRENGTH[rank],
                        np.where(suit == led, _PLAIN_STRENGTH[rank], -1))
    best = np.maximum.reduceat(strength, tstart) if p_n else strength
    win = np.zeros(t_n, np.int64)
    wins = strength == best[trick_of]
    win[trick_of[wins]] = position[wins]
    complete = tsize == 4
    cpoints = _POINTS[trump, card]
    t_round, t_game, t_trump = p_round[tstart], p_game[tstart], trump[tstart]
    t_number = trick_no[tstart]
    t_points = (np.add.reduceat(cpoints.astype(np.int64), tstart) if p_n else cpoints) \
        + np.where(t_number == 8, bonus[t_game], 0)
    leader = p_seat[tstart]
    winner = (leader + win) % 4
    t_chooser = chooser_r[t_round]

    # roem on the table: the trick's card mask against lookup tables (as ``trick_value``)
    mask = np.bitwise_or.reduceat(np.left_shift(np.uint32(1), card.astype(np.uint32)), tstart) \
        if p_n else np.zeros(0, np.uint32)
    r0 = rank[tstart]
    four = complete & (mask == _RANK_MASK[r0])
    runs = np.max([_RUN_LENGTH[(mask >> np.uint32(8 * s)) & np.uint32(0xFF)] for s in range(4)],
                  axis=0) if t_n else np.zeros(0, np.int8)
    stuk_mask = _STUK[np.maximum(t_trump, 0)]
    has_stuk = complete & ~four & ((mask & stuk_mask) == stuk_mask)
    run_kind = np.where(runs >= 4, 2, np.where(runs == 3, 3, -1))
    has_run = complete & ~four & (run_kind >= 0)
    run_pts = np.where(run_kind == 2, run4[t_game], np.where(run_kind == 3, run3[t_game], 0))
    four_pts = np.where(r0 == JACK, four_jacks[t_game],
                        np.where((four_ranks[t_game] >> r0) & 1 == 1, four_kind[t_game], 0))
    roem = np.where(four, four_pts, np.where(has_run, run_pts, 0)
                    + np.where(has_stuk, stuk_pts[t_game], 0))
    kind1 = np.where(four, np.where(r0 == JACK, 0, 1), np.where(has_run, run_kind, 4))
    pts1 = np.where(four, four_pts, np.where(has_run, run_pts, stuk_pts[t_game]))
    count = np.where(four, 1, has_run.astype(np.int64) + has_stuk)
    slots = np.stack([count >= 1, count >= 2], axis=1)
    kinds = np.stack([kind1, np.full(t_n, 4)], axis=1)[slots]
    kpts = np.stack([pts1, stuk_pts[t_game]], axis=1)[slots]
    parts = pa.ListArray.from_arrays(
        arrow(np.concatenate([[0], np.cumsum(count)]), pa.int32()),
        pa.StructArray.from_arrays([_KIND.take(pa.array(kinds, pa.int64())),
                                    arrow(kpts, pa.int16())], names=["kind", "points"]))

    # roem credited: each claim against the trick just completed in its round (else late)
    last_play = np.maximum.accumulate(np.where(is_play, np.arange(n), -1)) if n \
        else np.zeros(0, np.int64)
    play_no = np.cumsum(is_play) - 1
    credited = np.zeros(t_n, np.int64)
    ridx = np.flatnonzero(is_roem)
    lp = last_play[ridx]
    ok = lp >= 0
    ridx, lp = ridx[ok], lp[ok]
    pl = play_no[lp]
    claim_t = trick_of[pl]
    claim_pts = np_of(ev.column("points").take(pa.array(ridx, pa.int64())).fill_null(0)
                      ).astype(np.int64)
    valid = (position[pl] == 3) & (rnd[lp] == rnd[ridx]) & (game_of[lp] == game_of[ridx]) \
        & (claim_pts <= roem[claim_t]) \
        & (~by_winner[game_of[ridx]] | ((seat[ridx] & 1) == (winner[claim_t] & 1)))
    np.maximum.at(credited, claim_t[valid], claim_pts[valid])
    credited = np.where(claimed_mode[t_game], credited, roem)

    incomplete = ~complete
    p_seq = seq[pidx]
    t_first_ev = pidx[tstart]
    t_last_ev = pidx[tstart + tsize - 1]
    no_pteam = t_chooser < 0
    tricks = pa.Table.from_arrays([
        lookup(gids, t_game), arrow(rnd[t_first_ev], pa.int16()),
        arrow(t_number, pa.int8()), arrow(leader, pa.int8()),
        lookup(players, t_game * 4 + leader),
        pa.ListArray.from_arrays(arrow(np.append(tstart, p_n), pa.int32()), card_text),
        arrow(complete, pa.bool_()),
        arrow(winner, pa.int8(), incomplete),
        lookup(players, np.where(incomplete, -1, t_game * 4 + winner)),
        arrow(winner & 1, pa.int8(), incomplete), lookup(_SUIT_LETTER, t_trump),
        arrow(t_points, pa.int16(), incomplete), arrow(roem, pa.int16(), incomplete),
        arrow(credited, pa.int16(), incomplete), parts,
        arrow((winner & 1) == (t_chooser & 1), pa.bool_(), incomplete | no_pteam),
        arrow(seq[t_first_ev], pa.int32()), arrow(seq[t_last_ev], pa.int32()),
    ], schema=SCHEMAS["tricks"])

    rule_names: list[str] = []
    p_rule = np.full(p_n, -1, np.int64)
    broken = [(gi, s, rule) for gi, g in enumerate(games) for s, rule in g.verdicts.rules.items()]
    if broken:  # each to its play: (game, seq) keys, in the plays' order
        for _, _, rule in broken:
            if rule not in rule_names:
                rule_names.append(rule)
        key = np.array([gi << 32 | s for gi, s, _ in broken], np.int64)
        p_key = p_game.astype(np.int64) << 32 | p_seq.astype(np.int64)
        at = np.minimum(np.searchsorted(p_key, key), max(p_n - 1, 0))
        hit = (p_key[at] == key) if p_n else np.zeros(len(key), bool)
        p_rule[at[hit]] = np.array([rule_names.index(r) for _, _, r in broken], np.int64)[hit]
    broke = p_rule >= 0
    known = known_r[p_round]
    p_incomplete = incomplete[trick_of]
    no_chooser = chooser < 0
    plays = pa.Table.from_arrays([
        lookup(gids, p_game), arrow(rnd[pidx], pa.int16()),
        arrow(trick_no, pa.int8()), arrow(position, pa.int8()),
        arrow(p_seq, pa.int32()), arrow(p_seat, pa.int8()),
        lookup(players, p_game * 4 + p_seat), arrow(p_seat & 1, pa.int8()),
        card_text, lookup(_SUIT, card), lookup(_RANK, card),
        lookup(_SUIT_LETTER, trump), arrow(suit == trump, pa.bool_()),
        arrow(~broke, pa.bool_(), ~known),
        lookup(pa.array(rule_names, pa.string()), p_rule) if rule_names
        else pa.nulls(p_n, pa.string()),
        arrow(position == win[trick_of], pa.bool_(), p_incomplete),
        arrow(cpoints, pa.int16()),
        arrow(t_points[trick_of], pa.int16(), p_incomplete),
        arrow((p_seat & 1) == (chooser & 1), pa.bool_(), no_chooser),
        arrow(p_seat == chooser, pa.bool_(), no_chooser),
        at_plays.column("event_time"), pa.nulls(p_n, SCHEMAS["plays"].field("loss").type),
    ], schema=SCHEMAS["plays"])
    return {"plays": plays, "tricks": tricks}


# ------------------------------------------------------------------ from the stored facts


def stored_facts(start: Any, types: frozenset[str], facts: list[Any]) -> list[Any] | None:
    """A stored game's round facts (``(round, result, recorded, score, final, roem, verdicts,
    detail)`` of every round, each closed) when its rows can be built from them without
    folding it (:func:`build_stored`, :func:`columnar_stored`), else None: a game whose log
    holds what only the fold's row builder handles (as :func:`columnar` says: a correction,
    an irregularity, a score-only round, three of a kind, a type not named
    in :data:`COLUMNAR_TYPES`, a round played without its trump or chooser). ``start``:
    the fold of its ``game_started`` alone."""
    g: KlaverjasGame = start.state
    if len(start.seats) != 4 or not types <= COLUMNAR_TYPES or g.roem_rules.three_of_a_kind:
        return None
    for f in facts:
        d = f[7]
        if f[2] != "played" or len(d) != len(DETAIL) \
                or (d[8] is not None and (d[2] is None or d[3] is None)):
            return None
    return facts


def columnar_stored(ctx: GameContext, start: Any, facts: list[Any]) -> ColumnarGame:
    """:func:`columnar` of a game from its stored facts (:func:`stored_facts`): its verdicts
    (each round's trump, chooser, whether its hands are known; the rule each illegal play
    broke) as stored. ``start``: what its rows read of its fold before any round (its
    options, seats and state: :class:`jaslog.export.stored.Started`)."""
    g: KlaverjasGame = start.state
    rules = g.roem_rules
    options = ColumnOptions(g.last_bonus, rules.run3, rules.run4, rules.stuk, rules.four_kind,
                            rules.four_jacks, sum(1 << r for r in rules.four_kind_ranks),
                            g.claimed_mode, g.claim_by_winner)
    v = Verdicts()
    for f in facts:
        d = f[7]
        v.trump.append(-1 if d[2] is None else d[2])
        v.chooser.append(-1 if d[3] is None else d[3])
        v.known.append(bool(d[4]))
        for seq, _trick, _seat, card, rule, _message in d[-1]:
            if card is not None:
                v.rules[seq] = rule
    return ColumnarGame(ctx.game, COLUMNAR_TABLES, build_columns, start.seats, options, v)


def build_stored(ctx: GameContext, start: Any, facts: list[Any]) -> Summary:
    """:func:`build` of a game from its stored facts (:func:`stored_facts`), not folded
    (``start``: as :func:`columnar_stored` reads it; ``ctx.fold`` is not read): its rounds
    and players rows (its plays and tricks are built a column at a time) and its
    violations."""
    g: KlaverjasGame = start.state
    seats, rows = start.seats, ctx.rows
    rounds_out = rows["rounds"]
    method = g.options["trump_selection"]
    per_seat = [[0] * 11 for _ in range(4)]
    tot, tot_played = [0, 0], [0, 0]
    for n, result, _recorded, score, final, roem, _verdicts, d in facts:
        tot[0] += final[0]
        tot[1] += final[1]
        tot_played[0] += score[0]
        tot_played[1] += score[1]
        rounds_out.add(played_row(ctx, seats, n, method, ctx.hands_recorded[n], d, result,
                                  score, final, roem))
        round_seats(per_seat, d, result, True)
    viol = rows["violations"]
    broken = 0
    for n, *_, d in facts:
        for seq, trick, seat, card, rule, message in d[-1]:
            broken += 1
            if seat is not None:
                per_seat[seat][9] += 1
                if card is not None:
                    per_seat[seat][8] += 1
            text = CARD_TEXT[card] if card is not None else None
            viol.add((seq, n, trick, seat, seats[seat] if seat is not None else None, text,
                      [text] if text is not None else None, rule,
                      category_of(violation_category, rule, card), message))
    outcome = game_winner(g.options, len(facts), tot) if facts else None
    finished = outcome is not None
    wteam = outcome if isinstance(outcome, int) else None
    players = rows["players"]
    for seat in range(4):
        team = seat & 1
        players.add((seats[seat], seat, team, seats[(seat + 2) % 4], *per_seat[seat], tot[team],
                     (wteam == team) if finished else None))
    return Summary(
        rounds=len(facts), rounds_complete=len(facts), totals=tot, totals_played=tot_played,
        finished=finished, winner_team=wteam, draw=outcome == "draw",
        winners=[seats[s] for s in range(4) if wteam is not None and s & 1 == wteam],
        violations=broken, rulings=ctx.rulings,
    )
