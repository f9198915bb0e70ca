"""The solver's search in pure Python: the same search as the compiled core
(``_solver.c``), used where that core was not built. Both give the same answers.

A :class:`Search` is the search of one deal: its rules (:class:`~jaslog.analysis.model.SolveRules`),
the side of each seat, and two transposition tables that live as long as it does, so the
positions of one round are solved with what the earlier ones found. A position is the
tuple ``(hands, leader, trick, points, roem, won)`` of :meth:`Position.state
<jaslog.analysis.model.Position.state>`.

The par is found in two steps with the majority scoring (Klaverjas, Klaberjass):

1. the minimax of side 0's total minus side 1's *still to come* (card points, roem, the
   bonuses of taking a trick), which adds up trick by trick, so its table is keyed on the
   cards left and who took a trick yet, not on the score so far; when side 0 makes it,
   that difference plus the score so far is the par (rule book 9.2, decision 16);
2. otherwise the minimax of the value itself, whose table also holds the score so far,
   knowing that a position side 0 can still make is worth at least the threshold.

Both steps are null-window searches (fail-soft alpha-beta) on tables of bounds, with the
legal cards merged where they cannot be told apart and the likely best card first.

A search may be given a budget (:meth:`Search.limit`): the most positions it may search,
the most seconds it may take; beyond either it stops with :class:`OutOfBudget`, and its
tables keep only what it had found whole (a position cut short is never stored).

>>> from jaslog.analysis.model import SolveRules
>>> rules = SolveRules(players=2, suit=tuple(c >> 3 for c in range(32)), trump=2,
...                    strength=tuple(c & 7 for c in range(32)), points=(1,) * 32)
>>> s = Search(rules, side=(0, 1))
>>> s.par(((0b11, 0b1100), 0, (), (0, 0), (0, 0), (0, 0)))   # seat 1 takes both: 4 to 0
-4
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from jaslog.analysis.model import (
    PARTNER_DISCARD_ONLY,
    PARTNER_NO_UNDERTRUMP,
    SCORE_MAJORITY,
    TIE_HALF,
    TIE_MADE,
    VOID_ANY,
    VOID_OVERTRUMP,
    VOID_TRUMP,
    SolveRules,
    State,
)

INF = 1 << 28
#: how many positions a search with a time budget searches between two looks at the clock
CHECK_EVERY = 4096
#: no limit on the positions searched
NO_LIMIT = 1 << 62
#: the tables keep at most this many positions each (then the cheapest to find again go)
MOST_ENTRIES = 1 << 21

_Entry = list[int]   # [lo, hi, move]


class OutOfBudget(Exception):
    """The search went past its budget (:meth:`Search.limit`) and stopped."""


def _run_roem(run3: int, run4: int) -> tuple[int, ...]:
    out = []
    for b in range(256):
        best = cur = 0
        for k in range(8):
            cur = cur + 1 if b >> k & 1 else 0
            best = max(best, cur)
        out.append(run4 if best >= 4 else run3 if best == 3 else 0)
    return tuple(out)


class Search:
    """The search of one deal (see the module): ``par`` of a position, ``after`` a card."""

    def __init__(self, rules: SolveRules, side: Sequence[int],
                 pending: Sequence[int] = (0, 0)) -> None:
        r = rules
        self.rules = r
        self.players = r.players
        self.side = tuple(side)
        self.pending = (int(pending[0]), int(pending[1]))
        self.suit = r.suit
        self.strength = r.strength
        self.points = r.points
        self.trump = r.trump if 0 <= r.trump <= 4 else -1
        masks = r.suit_masks()
        self.suitmask = masks
        self.trumps = masks[self.trump] if self.trump >= 0 else 0
        self.higher = tuple(sum(1 << d for d in range(32) if r.suit[d] == r.suit[c]
                                and r.strength[d] > r.strength[c]) for c in range(32))
        self.run_roem = _run_roem(r.run3, r.run4)
        self.runs = bool(r.run3 or r.run4)
        self.has_roem = r.players == 4 and (self.runs or bool(r.stuk_value) or bool(r.three_kind)
                                            or any(r.four_kind))
        self.dtt: dict[tuple[int, int, int, int], _Entry] = {}
        self.gtt: dict[tuple[int, ...], _Entry] = {}
        self.nodes = 0
        # the budget: the node count to stop at, the clock's time to stop at (0: none), and
        # the node count at which to look at both next
        self.node_limit = NO_LIMIT
        self.deadline = 0.0
        self.next_check = NO_LIMIT
        # the position searched
        self.hands = [0] * 4
        self.trick: list[int] = []
        self.leader = 0
        self.win = 0
        self.won = [0, 0]
        self.pts = [0, 0]
        self.roem = [0, 0]

    @property
    def entries(self) -> int:
        """Positions kept in the tables."""
        return len(self.dtt) + len(self.gtt)

    def limit(self, nodes: int = 0, seconds: float = 0.0) -> None:
        """From now on, search at most ``nodes`` more positions and for at most ``seconds``
        (0: no such limit); past either, :meth:`par` and :meth:`after` raise
        :class:`OutOfBudget`."""
        self.node_limit = self.nodes + nodes if nodes > 0 else NO_LIMIT
        self.deadline = time.monotonic() + seconds if seconds > 0 else 0.0
        self.next_check = min(self.node_limit, self.nodes + CHECK_EVERY) if self.deadline \
            else self.node_limit

    def _over_budget(self) -> None:
        """Raise :class:`OutOfBudget` if the budget is spent; else when to look again."""
        if self.nodes >= self.node_limit:
            raise OutOfBudget(f"more than {self.node_limit} positions searched")
        if self.deadline and time.monotonic() >= self.deadline:
            raise OutOfBudget("out of time")
        self.next_check = min(self.node_limit, self.nodes + CHECK_EVERY) if self.deadline \
            else self.node_limit

    # ------------------------------------------------------------------ the rules

    def beats(self, c: int, best: int) -> bool:
        sc, sb = self.suit[c], self.suit[best]
        if sc == self.trump:
            return sb != self.trump or self.strength[c] > self.strength[best]
        return sc == sb and self.strength[c] > self.strength[best]

    def legal_of(self, hand: int) -> int:
        """The legal cards of ``hand`` for the seat to play."""
        trick = self.trick
        n = len(trick)
        if not n:
            return hand
        r, suit, strength, trump = self.rules, self.suit, self.strength, self.trump
        led = suit[trick[0]]
        my_trumps = hand & self.trumps
        top = -1
        for c in trick:
            if suit[c] == trump and (top < 0 or strength[c] > strength[top]):
                top = c
        higher = my_trumps & self.higher[top] if top >= 0 else my_trumps
        if led == trump:
            if r.head_trump_lead:
                return higher or my_trumps or hand
            return my_trumps or hand
        follow = hand & self.suitmask[led]
        if follow:
            if r.head_plain_lead:
                w = trick[self.win]
                if suit[w] == led:
                    up = follow & self.higher[w]
                    if up:
                        return up
            return follow
        if not my_trumps or r.void == VOID_ANY:
            return hand
        if r.void == VOID_TRUMP:
            return my_trumps
        if r.void == VOID_OVERTRUMP:
            return higher or (my_trumps if r.undertrump else hand)
        plain = hand & ~my_trumps
        if self.win != n - 2:  # an opponent is winning
            if higher:
                return higher
            if r.opponent_undertrump:
                return my_trumps
            return plain or hand
        if suit[trick[self.win]] != trump:
            return hand
        if r.partner_trump == PARTNER_NO_UNDERTRUMP:
            return (plain | higher) or hand
        if r.partner_trump == PARTNER_DISCARD_ONLY:
            return plain or hand
        return hand

    def trick_roem(self, cards: Sequence[int], mask: int) -> int:
        r = self.rules
        a = cards[0] & 7
        rank_mask = 0x01010101 << a
        if mask == rank_mask:
            return r.four_kind[a]
        rr = self.run_roem
        v = rr[mask & 0xFF] + rr[mask >> 8 & 0xFF] + rr[mask >> 16 & 0xFF] + rr[mask >> 24 & 0xFF]
        if r.stuk and mask & r.stuk == r.stuk:
            v += r.stuk_value
        if r.three_kind:
            b = cards[1] & 7
            if (mask & rank_mask).bit_count() == 3 or (mask & 0x01010101 << b).bit_count() == 3:
                v += r.three_kind
        return v

    def flag_terms(self) -> int:
        won, p, pit = self.won, self.pending, self.rules.pit
        return ((p[0] if won[0] else 0) + (0 if won[1] else pit[0])
                - (p[1] if won[1] else 0) - (0 if won[0] else pit[1]))

    def final_value(self) -> int:
        r, won, p = self.rules, self.won, self.pending
        if r.scoring == SCORE_MAJORITY:
            t0 = self.pts[0] + self.roem[0] + (p[0] if won[0] else 0) + (0 if won[1] else r.pit[0])
            t1 = self.pts[1] + self.roem[1] + (p[1] if won[1] else 0) + (0 if won[0] else r.pit[1])
            if t0 > t1:
                return t0 - t1
            if t0 == t1:
                if r.tie == TIE_MADE:
                    return 0
                if r.tie == TIE_HALF:
                    return -t1
            return -(t0 + t1)
        # points past the table's last row score as that row (the thresholds are "at least")
        rows, p0 = len(r.table) // 3, self.pts[0]
        if not rows or p0 < 0:
            return 0
        return r.table[3 * min(p0, rows - 1) + (0 if not won[0] else 2 if not won[1] else 1)]

    def play(self, mover: int, c: int) -> tuple[int, ...] | None:
        """Play ``c``; what :meth:`unplay` needs (None: the trick goes on)."""
        self.hands[mover] &= ~(1 << c)
        trick = self.trick
        n = len(trick)
        win = self.win
        if not n:
            self.win = 0
        elif self.beats(c, trick[win]):
            self.win = n
        trick.append(c)
        if n + 1 < self.players:
            return None
        w = (self.leader + self.win) % self.players
        s = self.side[w]
        pts = 0
        mask = 0
        for x in trick:
            pts += self.points[x]
            mask |= 1 << x
        if not (self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]):
            pts += self.rules.last_bonus
        roem = self.trick_roem(trick, mask) if self.has_roem else 0
        undo = (win, self.leader, s, pts, roem, self.won[s], *trick)
        self.pts[s] += pts
        self.roem[s] += roem
        self.won[s] = 1
        self.leader = w
        self.trick = []
        self.win = 0
        return undo

    def unplay(self, mover: int, c: int, undo: tuple[int, ...] | None, win: int) -> None:
        self.hands[mover] |= 1 << c
        if undo is None:
            self.trick.pop()
            self.win = win
            return
        win, leader, s, pts, roem, won = undo[:6]
        self.pts[s] -= pts
        self.roem[s] -= roem
        self.won[s] = won
        self.leader = leader
        self.trick = list(undo[6:-1])
        self.win = win

    def last_trick(self) -> tuple[int, int, int]:
        """(side that takes it, its points with the last-trick bonus, its roem) of the last
        trick, whose cards are forced."""
        cards = list(self.trick)
        win = self.win
        for i in range(len(cards), self.players):
            h = self.hands[(self.leader + i) % self.players]
            c = (h & -h).bit_length() - 1
            cards.append(c)
            if i and self.beats(c, cards[win]):
                win = i
        pts = self.rules.last_bonus
        mask = 0
        for x in cards:
            pts += self.points[x]
            mask |= 1 << x
        roem = self.trick_roem(cards, mask) if self.has_roem else 0
        return self.side[(self.leader + win) % self.players], pts, roem

    def run_through(self, c: int, out: int) -> bool:
        rank, base = c & 7, c & ~7
        for w in range(rank - 2, rank + 1):
            if w < 0 or w + 2 > 7:
                continue
            other = [base + r for r in range(w, w + 3) if r != rank]
            if not (out >> other[0] & 1 and out >> other[1] & 1):
                continue
            pair = 1 << other[0] | 1 << other[1]
            if not any(self.hands[s] & pair == pair for s in range(self.players)):
                return True
        return False

    def roem_blind(self, c: int, out: int) -> bool:
        if not self.has_roem:
            return True
        r = self.rules
        rank, suit = c & 7, c >> 3
        if self.runs and self.run_through(c, out):
            return False
        if r.stuk_value and r.stuk >> c & 1:
            return False
        same = sum(1 for t in range(4) if t != suit and out >> (t * 8 + rank) & 1)
        if r.four_kind[rank] and same == 3:
            return False
        return not (r.three_kind and same >= 2)

    def moves(self, mover: int, rem: int, tmask: int, tt_move: int) -> list[int]:
        """The cards to try, best first (as the compiled core orders them)."""
        suit, strength, points = self.suit, self.strength, self.points
        hand = self.hands[mover]
        lm = self.legal_of(hand)
        outside = (rem & ~hand) | tmask
        cards = sorted((c for c in range(32) if lm >> c & 1), key=lambda c: (suit[c], strength[c]))
        reps: list[int] = []
        prev = -1
        for c in cards:
            if (prev >= 0 and suit[c] == suit[prev] and points[c] == points[prev]
                    and not outside & self.higher[prev] & ~self.higher[c] & ~(1 << c)
                    and self.roem_blind(c, outside) and self.roem_blind(prev, outside)):
                prev = c
                continue
            reps.append(c)
            prev = c
        trick = self.trick
        w, partner = -1, False
        if trick:
            w = trick[self.win]
            partner = self.side[(self.leader + self.win) % self.players] == self.side[mover]

        def score(c: int) -> int:
            if c == tt_move:
                return 1 << 20
            if not trick:
                return (0 if outside & self.higher[c] else 1000) + points[c]
            wins = self.beats(c, w)
            if wins and not partner:
                return 5000 + points[c] * 10 - strength[c]
            if partner and not wins:
                return 3000 + points[c]
            if partner:
                return 2000 + points[c]
            return 1000 - points[c] * 10 - strength[c]

        return sorted(reps, key=score, reverse=True)

    # ------------------------------------------------------------------ the searches

    def _store(self, table: dict, key: tuple[int, ...], lo: int, hi: int, best: int, a0: int,
               b0: int, move: int) -> None:
        if best <= a0:
            hi = min(hi, best)
        elif best >= b0:
            lo = max(lo, best)
        else:
            lo = hi = best
        if len(table) >= MOST_ENTRIES and key not in table:
            table.clear()
        table[key] = [lo, hi, move]

    def _node(self, table: dict, key: tuple[int, ...], rem: int, alpha: int, beta: int,
              child: Callable[[int, int, int, int], int]) -> int:
        """The fail-soft alpha-beta step both searches take from a position (``rem``: the
        cards in hand): at a trick's start, the bounds ``table`` keeps under ``key`` first;
        then each card to try, best first, worth ``child(mover, card, alpha, beta)``."""
        n = len(self.trick)
        tmask = 0
        for c in self.trick:
            tmask |= 1 << c
        lo, hi, tt_move = -INF, INF, -1
        if not n:
            e = table.get(key)
            if e is not None:
                lo, hi, tt_move = e
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo == hi:
                    return lo
                alpha = max(alpha, lo)
                beta = min(beta, hi)
        mover = (self.leader + n) % self.players
        maxing = self.side[mover] == 0
        a0, b0 = alpha, beta
        best, bm = (-INF if maxing else INF), -1
        for c in self.moves(mover, rem, tmask, tt_move):
            v = child(mover, c, alpha, beta)
            if v > best if maxing else v < best:
                best, bm = v, c
                if maxing and v > alpha:
                    alpha = v
                elif not maxing and v < beta:
                    beta = v
                if alpha >= beta:
                    break
        if not n:
            self._store(table, key, lo, hi, best, a0, b0, bm)
        return best

    def dab(self, alpha: int, beta: int) -> int:
        """The minimax of side 0's total minus side 1's still to come (fail-soft)."""
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._over_budget()
        hands = self.hands
        rem = hands[0] | hands[1] | hands[2] | hands[3]
        n = len(self.trick)
        if not n and not rem:
            return self.flag_terms()
        if rem.bit_count() == self.players - n:
            s, pts, roem = self.last_trick()
            w = self.won[s]
            self.won[s] = 1
            v = (-(pts + roem) if s else pts + roem) + self.flag_terms()
            self.won[s] = w
            return v
        return self._node(self.dtt, (rem, self.leader, self.won[0], self.won[1]), rem, alpha,
                          beta, self._dab_child)

    def _dab_child(self, mover: int, c: int, alpha: int, beta: int) -> int:
        """:meth:`dab` once ``mover`` has played ``c``, plus what a trick it ends adds."""
        win = self.win
        undo = self.play(mover, c)
        if undo is not None:
            g = undo[3] + undo[4]
            if undo[2]:
                g = -g
            v = g + self.dab(alpha - g, beta - g)
        else:
            v = self.dab(alpha, beta)
        self.unplay(mover, c, undo, win)
        return v

    def made_threshold(self) -> int:
        return 0 if self.rules.tie == TIE_MADE else 1

    def acc_diff(self) -> int:
        return self.pts[0] + self.roem[0] - self.pts[1] - self.roem[1]

    def not_made_bound(self) -> int:
        """The most a position side 0 cannot make is worth (majority scoring)."""
        h = self.hands
        m = h[0] | h[1] | h[2] | h[3]
        total = (self.pts[0] + self.pts[1] + self.roem[0] + self.roem[1] + self.rules.last_bonus
                 + sum(self.points[c] for c in range(32) if m >> c & 1)
                 + sum(self.points[c] for c in self.trick))
        p, pit = self.pending, self.rules.pit
        total += min((p[0] if w0 else 0) + (p[1] if w1 else 0) + (0 if w1 else pit[0])
                     + (0 if w0 else pit[1])
                     for w0 in range(self.won[0], 2) for w1 in range(self.won[1], 2) if w0 or w1)
        return -(total // 2) if self.rules.tie == TIE_HALF else -total

    def gab(self, alpha: int, beta: int) -> int:
        """The minimax of the value (par) from here (fail-soft). With the majority scoring it
        is only asked about windows at or below the threshold of making it: a position side 0
        can still make answers the threshold, a bound below its true value; a position whose
        failure is worth alpha or less needs only to know whether side 0 can still make it."""
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._over_budget()
        hands = self.hands
        rem = hands[0] | hands[1] | hands[2] | hands[3]
        n = len(self.trick)
        if not n and not rem:
            return self.final_value()
        if rem.bit_count() == self.players - n:
            s, pts, roem = self.last_trick()
            w = self.won[s]
            self.won[s] = 1
            self.pts[s] += pts
            self.roem[s] += roem
            v = self.final_value()
            self.pts[s] -= pts
            self.roem[s] -= roem
            self.won[s] = w
            return v
        if self.rules.scoring == SCORE_MAJORITY:
            # below alpha unless side 0 makes it: then only whether it makes it matters
            ub = self.not_made_bound()
            if ub <= alpha and not n:
                need = self.made_threshold() - self.acc_diff()
                return self.made_threshold() if self.dab(need - 1, need) >= need else ub
        key = (rem, self.leader, self.won[0], self.won[1], *self.pts, *self.roem)
        return self._node(self.gtt, key, rem, alpha, beta, self._gab_child)

    def _gab_child(self, mover: int, c: int, alpha: int, beta: int) -> int:
        """:meth:`gab` once ``mover`` has played ``c``."""
        win = self.win
        undo = self.play(mover, c)
        v = self.gab(alpha, beta)
        self.unplay(mover, c, undo, win)
        return v

    def exact(self, search: Callable[[int, int], int], guess: int, lo: int, hi: int) -> int:
        """The exact value of ``search`` (in lo..hi) by null-window tests from ``guess``."""
        beta, step = guess, 8
        beta = min(max(beta, lo + 1), hi)
        while lo < hi:
            v = search(beta - 1, beta)
            if v >= beta:
                lo = v
            else:
                hi = v
            if lo >= hi:
                break
            if hi >= INF:
                beta, step = lo + step, step * 2
            elif lo <= -INF:
                beta, step = hi - step + 1, step * 2
            else:
                beta = lo + (hi - lo + 1) // 2
            beta = min(max(beta, lo + 1), hi)
        return lo

    def par_here(self, guess: int) -> int:
        if self.rules.scoring == SCORE_MAJORITY:
            acc = self.acc_diff()
            need = self.made_threshold() - acc
            v = self.dab(need - 1, need)
            if v >= need:  # made: the par is the difference to come, plus the score so far
                return acc + self.exact(self.dab, guess - acc, v, INF)
            ub = self.not_made_bound()
            return self.exact(self.gab, ub, -INF, ub)
        return self.exact(self.gab, guess, -INF, INF)

    # ------------------------------------------------------------------ the interface

    def set_state(self, state: State) -> None:
        hands, leader, trick, pts, roem, won = state
        if len(hands) != self.players:
            raise ValueError("hands: one per seat")
        if len(trick) >= self.players:
            raise ValueError("trick: fewer cards than players")
        if not 0 <= leader < self.players:
            raise ValueError("leader: a seat")
        self.hands = [*hands, *[0] * (4 - self.players)]
        self.trick = list(trick)
        self.leader = leader
        self.pts = [int(pts[0]), int(pts[1])]
        self.roem = [int(roem[0]), int(roem[1])]
        self.won = [int(bool(won[0])), int(bool(won[1]))]
        self.win = 0
        for i in range(1, len(self.trick)):
            if self.beats(self.trick[i], self.trick[self.win]):
                self.win = i

    def par(self, state: State, guess: int = 0) -> int:
        """The par of a position, from a guess of it (any guess gives the same answer)."""
        self.set_state(state)
        return self.par_here(guess)

    def after(self, state: State, card: int, guess: int = 0) -> int:
        """The par once the seat to play has played ``card`` (a legal card)."""
        self.set_state(state)
        mover = (self.leader + len(self.trick)) % self.players
        if not 0 <= card < 32 or not self.legal_of(self.hands[mover]) >> card & 1:
            raise ValueError("not a legal card of the seat to play")
        win = self.win
        undo = self.play(mover, card)
        v = self.par_here(guess)
        self.unplay(mover, card, undo, win)
        return v

    def legal(self, state: State) -> int:
        """The legal cards (a mask) of the seat to play."""
        self.set_state(state)
        return self.legal_of(self.hands[(self.leader + len(self.trick)) % self.players])
