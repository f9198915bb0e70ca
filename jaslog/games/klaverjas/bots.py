"""Klaverjas bots for the simulator: a random-legal player and a heuristic club player.

A bot sees what a player at the table sees: its own hand, the bids, the cards played so
far (and so which suits each player has shown out of) and the trump. It never looks at
another hand. Both bots choose trumps from their hand (nobody at a club names a suit at
random); they differ in how they play.

* :class:`RandomBot` plays any legal card and bids on a loose, slightly random threshold.
* :class:`HeuristicBot` values its hand before bidding (jack and nine of trumps, length,
  side aces and tens), and plays like a careful club player: the playing team draws trumps
  when it holds the top trump, side aces are cashed, a safe trick of the partner is given
  points (``smeren``), a lost trick gets the cheapest card, the fourth player weighs every
  card exactly (points and roem of the trick against what the card is still worth), and a
  partner's lead and discards are read as signals.

>>> import random
>>> from jaslog.cards import parse_hand
>>> bot = HeuristicBot(random.Random(1))
>>> bot.hand_value(parse_hand("JH 9H AH 7H AS 10S KC 8D"), 2) > bot.hand_value(
...     parse_hand("JH 9H AH 7H AS 10S KC 8D"), 0)
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from jaslog.cards import (
    ACE,
    FULL_DECK,
    JACK,
    KING,
    NINE,
    PLAIN_POINTS,
    PLAIN_STRENGTH,
    QUEEN,
    SUIT_LETTERS,
    SUIT_MASK,
    TEN,
    TRUMP_POINTS,
    TRUMP_STRENGTH,
    cards_of,
)
from jaslog.engine.jacknine import beats, trick_points, trick_winner
from jaslog.games.klaverjas.rules import KlaverjasGame, Round, trick_roem


def _higher(strength: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for c in range(32):
        s, r = c >> 3, c & 7
        out.append(sum(1 << (8 * s + x) for x in range(8) if strength[x] > strength[r]))
    return tuple(out)


#: For each card, the cards of its suit that beat it when its suit is trump / plain.
HIGHER_AS_TRUMP = _higher(TRUMP_STRENGTH)
HIGHER_AS_PLAIN = _higher(PLAIN_STRENGTH)


def points(c: int, trump: int) -> int:
    return TRUMP_POINTS[c & 7] if c >> 3 == trump else PLAIN_POINTS[c & 7]


class RandomBot:
    """Any legal card; trumps from the hand (its strongest suit) on a loose threshold."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    # ------------------------------------------------------------------ bidding

    def hand_value(self, hand: int, suit: int) -> int:
        """How good ``hand`` is with ``suit`` as trumps (rough points the hand brings in)."""
        return sum(TRUMP_POINTS[c & 7] + 8 for c in cards_of(hand & SUIT_MASK[suit]))

    def threshold(self, game: KlaverjasGame, seat: int) -> int:
        return self.rng.choice((50, 60, 70))

    def bid(self, game: KlaverjasGame, seat: int, hand: int) -> str:
        sel = game.current_round.selection
        allowed = [s for s in range(4) if sel.allowed >> s & 1]
        best = max(allowed, key=lambda s: self.hand_value(hand, s))
        if not sel.forced and self.hand_value(hand, best) < self.threshold(game, seat):
            return "pass"
        if sel.proposed is not None and best == sel.proposed and sel.allowed == 1 << best:
            return "accept"
        return SUIT_LETTERS[best]

    # ------------------------------------------------------------------ play

    def play(self, game: KlaverjasGame, seat: int, hand: int, legal: int) -> int:
        return self.rng.choice(list(cards_of(legal)))


class _View:
    """What a seat knows about the round in play: public cards, voids, signals."""

    __slots__ = ("hand", "mine", "partner", "partner_discards", "partner_leads", "seat",
                 "trump", "unseen", "voids")

    def __init__(self, r: Round, seat: int, hand: int) -> None:
        assert r.trump is not None
        self.seat, self.hand, self.trump = seat, hand, r.trump
        self.partner = (seat + 2) % 4
        self.mine = seat & 1
        self.unseen = FULL_DECK & ~r.played & ~hand
        voids = [0, 0, 0, 0]
        leads = discards = 0
        for t in r.tricks:
            cards = t.cards
            if not cards:
                continue
            led = cards[0] >> 3
            if t.leader == self.partner:
                leads |= 1 << led
            for i in range(1, len(cards)):
                s = cards[i] >> 3
                if s != led:
                    who = (t.leader + i) % 4
                    voids[who] |= 1 << led
                    if who == self.partner and s != self.trump:
                        discards |= 1 << s
        self.voids = voids
        self.partner_leads = leads
        self.partner_discards = discards

    def boss(self, c: int) -> bool:
        """No card still out beats ``c`` in its own suit."""
        higher = HIGHER_AS_TRUMP[c] if c >> 3 == self.trump else HIGHER_AS_PLAIN[c]
        return not higher & self.unseen

    def trumps_out(self) -> int:
        """Trumps that others may still hold."""
        return self.unseen & SUIT_MASK[self.trump]

    def may_trump(self, seat: int, suit: int) -> bool:
        """Could ``seat`` ruff a lead of ``suit``: known void in it and maybe holding trumps."""
        return bool(self.voids[seat] >> suit & 1) and not self.voids[seat] >> self.trump & 1 \
            and bool(self.trumps_out())

    def opponents_may_hold_trumps(self) -> bool:
        t = self.trump
        return bool(self.trumps_out()) and not (
            self.voids[(self.seat + 1) % 4] >> t & 1 and self.voids[(self.seat + 3) % 4] >> t & 1)


class HeuristicBot(RandomBot):
    """A careful club player (see the module's description)."""

    name = "heuristic"

    #: The hand value at which a player takes the game (``hand_value`` scale).
    BID_THRESHOLD = 55

    # ------------------------------------------------------------------ bidding

    def hand_value(self, hand: int, suit: int) -> int:
        trumps = hand & SUIT_MASK[suit]
        n = trumps.bit_count()

        def has(rank: int, s: int = suit) -> bool:
            return bool(hand >> (8 * s + rank) & 1)

        v = 7 * n
        if has(JACK):
            v += 22
        if has(NINE):
            v += 14 if (has(JACK) or n >= 3) else 7
        if has(ACE):
            v += 8
        if has(TEN):
            v += 6
        if has(KING) and has(QUEEN):
            v += 8
        if n <= 1:
            v -= 15
        for s in range(4):
            if s == suit:
                continue
            side = hand & SUIT_MASK[s]
            k = side.bit_count()
            if has(ACE, s):
                v += 12
                if has(TEN, s):
                    v += 8
            elif has(TEN, s) and k >= 3:
                v += 3
            if k == 0 and n >= 3:
                v += 6
        return v

    def threshold(self, game: KlaverjasGame, seat: int) -> int:
        r = game.current_round
        t = self.BID_THRESHOLD
        if seat == r.forehand:
            t -= 4  # forehand leads to the first trick
        return t

    # ------------------------------------------------------------------ play

    def play(self, game: KlaverjasGame, seat: int, hand: int, legal: int) -> int:
        r = game.current_round
        t = r.tricks[-1]
        trick = [] if t.complete else t.cards
        cards = list(cards_of(legal))
        if len(cards) == 1:
            return cards[0]
        v = _View(r, seat, hand)
        if not trick:
            return self._lead(r, v, cards)
        if len(trick) == 3:
            return self._last(game, r, v, trick, cards)
        return self._follow(r, v, trick, cards)

    # -- values of single cards

    def _keep(self, v: _View, c: int) -> int:
        """What holding on to ``c`` is still worth (in points, roughly)."""
        if c >> 3 == v.trump:
            return 8 + 2 * TRUMP_STRENGTH[c & 7]
        if v.boss(c):
            return 6 + PLAIN_POINTS[c & 7] // 2
        return 0

    def _cheapest(self, v: _View, cards: Sequence[int]) -> int:
        """The card that costs least to give away: few points, little future, weakest suit."""
        def cost(c: int) -> tuple[int, int]:
            s = c >> 3
            length = (v.hand & SUIT_MASK[s]).bit_count()
            # discard from short plain suits (makes voids), never from the partner's suit
            signal = 2 if v.partner_leads >> s & 1 else 0
            return points(c, v.trump) + self._keep(v, c) + signal, length
        return min(cards, key=cost)

    def _smear(self, v: _View, cards: Sequence[int]) -> int:
        """Points for a trick the partner has safely: the most points for the least future."""
        plain = [c for c in cards if c >> 3 != v.trump] or list(cards)
        return max(plain, key=lambda c: (points(c, v.trump) - self._keep(v, c), -c))

    # -- leading

    def _lead(self, r: Round, v: _View, cards: list[int]) -> int:
        trump = v.trump
        playing = r.chooser is not None and (r.chooser & 1) == v.mine
        trumps = [c for c in cards if c >> 3 == trump]
        plain = [c for c in cards if c >> 3 != trump]
        if trumps and playing and v.opponents_may_hold_trumps():
            boss = [c for c in trumps if v.boss(c)]
            if boss:
                return boss[0]                     # draw trumps with the top trump
            if r.chooser == v.seat and len(trumps) >= 3:
                return min(trumps, key=lambda c: TRUMP_STRENGTH[c & 7])
            if r.chooser == v.partner and not v.voids[v.partner] >> trump & 1:
                # back to the partner who took the game: a trump, lowest first
                return min(trumps, key=lambda c: TRUMP_STRENGTH[c & 7])
        # a plain winner nobody can ruff
        def ruffable(c: int) -> bool:
            s = c >> 3
            return v.may_trump((v.seat + 1) % 4, s) or v.may_trump((v.seat + 3) % 4, s)

        winners = [c for c in plain if v.boss(c) and not ruffable(c)]
        if winners:
            return max(winners, key=lambda c: (PLAIN_POINTS[c & 7], c))
        if not plain:
            boss = [c for c in trumps if v.boss(c)]
            return boss[0] if boss else min(trumps, key=lambda c: TRUMP_STRENGTH[c & 7])

        def lead_cost(c: int) -> tuple[int, int]:
            s = c >> 3
            cost = PLAIN_POINTS[c & 7] * 2 + self._keep(v, c)
            if v.partner_leads >> s & 1:
                cost -= 12                         # return the partner's suit
            if v.partner_discards >> s & 1:
                cost += 10                         # the partner threw it away: not wanted
            if ruffable(c) and not playing:
                cost += 8
            if (v.hand >> (8 * s + TEN) & 1) and not v.hand >> (8 * s + ACE) & 1 \
                    and v.unseen >> (8 * s + ACE) & 1:
                cost += 6                          # keep the ten hidden behind the ace out
            return cost, -(v.hand & SUIT_MASK[s]).bit_count()
        return min(plain, key=lead_cost)

    # -- second and third in the trick

    def _follow(self, r: Round, v: _View, trick: list[int], cards: list[int]) -> int:
        trump = v.trump
        pos = len(trick)
        win = trick_winner(trick, trump)
        winner_seat = (v.seat - pos + win) % 4
        led = trick[0] >> 3
        after = [(v.seat + k) % 4 for k in range(1, 4 - pos)]   # players still to come
        opponents_after = [s for s in after if s & 1 != v.mine]

        def safe(c: int) -> bool:
            """Would ``c`` (the card winning the trick) hold against everyone still to play?"""
            if not v.boss(c):
                return False
            if c >> 3 == trump:
                return True
            return not any(v.may_trump(s, led) for s in opponents_after)

        on_table = trick_points(trick, trump)
        partner_wins = winner_seat == v.partner
        if partner_wins and safe(trick[win]):
            return self._smear(v, cards)
        winners = [c for c in cards if beats(c, trick[win], trump)]
        if winners:
            sure = [c for c in winners if safe(c)]
            if sure:
                # the cheapest sure winner: least future given away for the trick
                return min(sure, key=lambda c: (self._keep(v, c) - points(c, trump), c))
            if not partner_wins and (on_table >= 10 or pos == 2):
                if all(c >> 3 == trump for c in winners):
                    return min(winners, key=lambda c: TRUMP_STRENGTH[c & 7])
                return max(winners, key=lambda c: PLAIN_STRENGTH[c & 7])
        return self._cheapest(v, cards)

    # -- fourth in the trick: every card weighed exactly

    def _last(self, game: KlaverjasGame, r: Round, v: _View, trick: list[int],
              cards: list[int]) -> int:
        trump = v.trump
        last_bonus = game.last_bonus if len(r.tricks) == 8 else 0
        leader = r.tricks[-1].leader

        def value(c: int) -> tuple[int, int]:
            full = [*trick, c]
            w = trick_winner(full, trump)
            worth = trick_points(full, trump) + last_bonus + trick_roem(full, trump, game.roem_rules)
            sign = 1 if ((leader + w) % 4) & 1 == v.mine else -1
            return sign * worth - self._keep(v, c), -c
        return max(cards, key=value)
