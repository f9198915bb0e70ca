"""Klaverjas legal plays, roem and round scoring: pure functions on small ints.

Legal plays follow the normative pseudocode of rule book section 3.3 branch by branch;
each branch has a name, so the same walk says which cards are legal, why, and which rule
a card outside them breaks.

>>> from jaslog.cards import parse_card as p, parse_hand, hand_text, HEARTS
>>> rules = PlayRules.from_options({"play": "amsterdam"})
>>> hand = parse_hand("7H AD KC")
>>> hand_text(legal(hand, [p("AS"), p("7S")], HEARTS, rules))   # partner winning: anything
'KC AD 7H'
>>> hand_text(legal(hand, [p("7S"), p("AS")], HEARTS, rules))    # opponent winning: trump
'7H'
>>> judge(hand, [p("7S"), p("AS")], HEARTS, rules, p("KC"))[0]
'must_trump'
>>> trick_roem([p("KH"), p("QH"), p("JH"), p("7C")], HEARTS, RoemRules.from_options({}))
40
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from jaslog.cards import (
    HIGHER_TRUMPS,
    JACK,
    KING,
    QUEEN,
    RANK_MASK,
    RANK_TEXT,
    SUIT_MASK,
    SUIT_NAMES,
    card,
    card_text,
    hand_text,
)
from jaslog.engine.jacknine import CARD_POINTS, RUN_LENGTH, trick_points, trick_winner

# ---------------------------------------------------------------- legal plays (3.3)


@dataclass(frozen=True, slots=True)
class PlayRules:
    """The options that decide legal plays."""

    rotterdam: bool = False
    rotterdam_must_undertrump: bool = True
    partner_trump: str = "no_undertrump"    # no_undertrump | discard_only | free
    cannot_overtrump: str = "discard"       # discard | must_undertrump

    def __deepcopy__(self, memo: dict[int, Any]) -> PlayRules:
        """The rules themselves (they never change), also in a copy of a game's state.

        >>> import copy
        >>> r = PlayRules()
        >>> copy.deepcopy(r) is r
        True
        """
        return self

    @classmethod
    def from_options(cls, o: Mapping[str, Any]) -> PlayRules:
        return cls(
            rotterdam=o.get("play", "amsterdam") == "rotterdam",
            rotterdam_must_undertrump=bool(o.get("rotterdam_must_undertrump", True)),
            partner_trump=str(o.get("amsterdam_partner_trump", "no_undertrump")),
            cannot_overtrump=str(o.get("amsterdam_cannot_overtrump", "discard")),
        )


# Branch names of the decision procedure. Each maps to the sentence that explains it.
LEAD: Final = "lead"
TRUMP_LED_HIGHER: Final = "trump_led_higher"
TRUMP_LED_LOWER: Final = "trump_led_lower"
TRUMP_LED_NONE: Final = "trump_led_none"
FOLLOW: Final = "follow"
VOID_NO_TRUMP: Final = "void_no_trump"
ROTTERDAM_HIGHER: Final = "rotterdam_higher"
ROTTERDAM_LOWER: Final = "rotterdam_lower"
ROTTERDAM_FREE: Final = "rotterdam_free"
OPPONENT_HIGHER: Final = "opponent_higher"
OPPONENT_UNDERTRUMP: Final = "opponent_undertrump"
OPPONENT_DISCARD: Final = "opponent_discard"
PARTNER_PLAIN: Final = "partner_plain"
PARTNER_NO_UNDERTRUMP: Final = "partner_no_undertrump"
PARTNER_DISCARD: Final = "partner_discard"
PARTNER_FREE: Final = "partner_free"


def _walk(hand: int, trick: Sequence[int], trump: int, rules: PlayRules) -> tuple[int, str, int]:
    """(legal mask, branch, top trump or -1) for the player to act with ``hand``."""
    if not trick:
        return hand, LEAD, -1
    led = trick[0] >> 3
    my_trumps = hand & SUIT_MASK[trump]
    top = -1
    for i in range(len(trick)):  # (compiled: by index, no iterator made)
        c = trick[i]
        if c >> 3 == trump and (top < 0 or HIGHER_TRUMPS[top] >> c & 1):
            top = c
    higher = my_trumps & HIGHER_TRUMPS[top] if top >= 0 else my_trumps
    if led == trump:
        if higher:
            return higher, TRUMP_LED_HIGHER, top
        if my_trumps:
            return my_trumps, TRUMP_LED_LOWER, top
        return hand, TRUMP_LED_NONE, top
    follow = hand & SUIT_MASK[led]
    if follow:
        return follow, FOLLOW, top
    if not my_trumps:
        return hand, VOID_NO_TRUMP, top
    if rules.rotterdam:
        if higher:
            return higher, ROTTERDAM_HIGHER, top
        if rules.rotterdam_must_undertrump:
            return my_trumps, ROTTERDAM_LOWER, top
        return hand, ROTTERDAM_FREE, top
    win = trick_winner(trick, trump)
    non_trumps = hand & ~my_trumps
    if win != len(trick) - 2:  # an opponent is winning
        if higher:
            return higher, OPPONENT_HIGHER, top
        if rules.cannot_overtrump == "must_undertrump":
            return my_trumps, OPPONENT_UNDERTRUMP, top
        return non_trumps or hand, OPPONENT_DISCARD, top
    if trick[win] >> 3 != trump:
        return hand, PARTNER_PLAIN, top
    if rules.partner_trump == "no_undertrump":
        return (non_trumps | higher) or hand, PARTNER_NO_UNDERTRUMP, top
    if rules.partner_trump == "discard_only":
        return non_trumps or hand, PARTNER_DISCARD, top
    return hand, PARTNER_FREE, top


def legal(hand: int, trick: Sequence[int], trump: int, rules: PlayRules) -> int:
    """The legal cards (a mask) for the next player, who holds ``hand``.

    ``trick`` is the cards already played to the trick, in play order; the next player's
    partner played ``trick[-2]``.
    """
    return _walk(hand, trick, trump, rules)[0]


def _suit(s: int) -> str:
    return SUIT_NAMES[s]


def explain(hand: int, trick: Sequence[int], trump: int, rules: PlayRules) -> tuple[int, str]:
    """The legal cards and a sentence saying which rule makes them so."""
    mask, branch, top = _walk(hand, trick, trump, rules)
    led = _suit(trick[0] >> 3) if trick else ""
    t = _suit(trump)
    top_t = card_text(top) if top >= 0 else ""
    sentence = {
        LEAD: "You lead: any card.",
        TRUMP_LED_HIGHER: f"Trumps ({t}) were led: you must beat the highest trump "
                          + (f"({top_t}) " if top_t else "") + "if you can, even over your partner.",
        TRUMP_LED_LOWER: f"Trumps ({t}) were led and you cannot beat {top_t}: "
                         "you must still play a trump (undertrumping is compulsory).",
        TRUMP_LED_NONE: f"Trumps ({t}) were led and you hold none: any card.",
        FOLLOW: f"{led.capitalize()} were led: you must follow suit (any {led[:-1]}; "
                "you need not win the trick).",
        VOID_NO_TRUMP: f"You cannot follow {led} and hold no trumps: any card.",
        ROTTERDAM_HIGHER: f"Rotterdam: you cannot follow {led}, so you must trump"
                          + (f" and beat {top_t}" if top_t else "")
                          + ", whoever is winning, your partner included.",
        ROTTERDAM_LOWER: f"Rotterdam: you cannot follow {led} nor beat {top_t}: "
                         "you must still play a trump (undertrumping is compulsory).",
        ROTTERDAM_FREE: f"Rotterdam: you cannot follow {led} nor beat {top_t}: any card.",
        OPPONENT_HIGHER: f"Amsterdam: you cannot follow {led} and an opponent is winning: "
                         "you must trump" + (f" and beat {top_t}" if top_t else "") + ".",
        OPPONENT_UNDERTRUMP: f"You cannot follow {led} nor beat the opponents' {top_t}: "
                             "you must play a trump (option must_undertrump).",
        OPPONENT_DISCARD: f"Amsterdam: the opponents win with {top_t}, which you cannot beat: "
                          "throw a card of another suit; undertrumping only if you hold "
                          "nothing but lower trumps.",
        PARTNER_PLAIN: f"Amsterdam: you cannot follow {led} and your partner is winning: any card.",
        PARTNER_NO_UNDERTRUMP: f"Amsterdam: your partner wins with the trump {top_t}: any card "
                               "except a lower trump, unless you hold nothing else.",
        PARTNER_DISCARD: f"Your partner wins with the trump {top_t}: throw a card of another "
                         "suit unless you hold only trumps (option discard_only).",
        PARTNER_FREE: "Your partner is winning: any card (option free).",
    }[branch]
    return mask, sentence


def judge(hand: int, trick: Sequence[int], trump: int, rules: PlayRules,
          c: int) -> tuple[str, str] | None:
    """None when ``c`` is a legal play; else (rule code, sentence) for the revoke.

    The sentence is about the card: what was led or winning, and what the player held.
    """
    mask, branch, top = _walk(hand, trick, trump, rules)
    if mask >> c & 1:
        return None
    is_trump = c >> 3 == trump
    led = trick[0] >> 3
    played = card_text(c)
    if branch in (FOLLOW, TRUMP_LED_LOWER) or (branch == TRUMP_LED_HIGHER and not is_trump):
        held = hand & SUIT_MASK[led]
        return "must_follow_suit", (
            f"played {played} to a {_suit(led)} lead while holding {_suit(led)} "
            f"({hand_text(held)}): must follow suit")
    # A plain card where a higher trump was due breaks "overtrump" only when, unable to
    # overtrump, the player could have discarded (Amsterdam, option discard); when any trump
    # was due anyway (Rotterdam, must_undertrump) it breaks "trump".
    if branch in (TRUMP_LED_HIGHER, ROTTERDAM_HIGHER, OPPONENT_HIGHER) and (
            is_trump or (top >= 0 and branch == OPPONENT_HIGHER
                         and rules.cannot_overtrump == "discard")):
        return "must_overtrump", (
            f"played {played} while holding a trump that beats {card_text(top)} "
            f"({hand_text(mask)}): must overtrump")
    if branch in (ROTTERDAM_HIGHER, ROTTERDAM_LOWER, OPPONENT_HIGHER, OPPONENT_UNDERTRUMP):
        return "must_trump", (
            f"played {played} unable to follow {_suit(led)} while holding trumps "
            f"({hand_text(hand & SUIT_MASK[trump])}): must trump")
    if branch == PARTNER_DISCARD and not (top >= 0 and HIGHER_TRUMPS[c] >> top & 1):
        return "must_discard", (
            f"played the trump {played} over the partner's {card_text(top)} while holding "
            f"other suits ({hand_text(mask)}): must discard (option discard_only)")
    # OPPONENT_DISCARD, PARTNER_NO_UNDERTRUMP, PARTNER_DISCARD with a lower trump
    return "no_undertrump", (
        f"undertrumped {card_text(top)} with {played} while holding other cards "
        f"({hand_text(mask)}): may not undertrump")


# ---------------------------------------------------------------- roem (3.4)


@dataclass(frozen=True, slots=True)
class RoemRules:
    run3: int = 20
    run4: int = 50
    stuk: int = 20
    four_kind: int = 100
    four_kind_ranks: frozenset[int] = frozenset()
    four_jacks: int = 200
    three_of_a_kind: int = 0
    #: (card points, roem) of tricks already worked out by :func:`trick_score`, by
    #: :func:`trick_key`: they depend on nothing else (at most 143,840 of them). The fold's
    #: play path calls :func:`trick_value` itself: compiled, that costs less than the look-up.
    memo: dict[int, tuple[int, int]] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False)
    #: The roem combinations of tricks already seen, by :func:`trick_key` (for the export).
    parts_memo: dict[int, tuple[tuple[str, int], ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False)
    #: Roem of a suit's cards in a trick, by their 8-bit rank set: a run of three or four.
    run_roem: tuple[int, ...] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "run_roem", _run_roem(self.run3, self.run4))

    def __deepcopy__(self, memo: dict[int, Any]) -> RoemRules:
        """The rules themselves: they never change, and their memos are caches that every
        fold (and every copy of one) shares.

        >>> import copy
        >>> r = RoemRules()
        >>> copy.deepcopy(r) is r
        True
        """
        return self

    @classmethod
    def from_options(cls, o: Mapping[str, Any]) -> RoemRules:
        """The roem rules of a game's options; games with the same rules share one object
        (and so one memo)."""
        ranks = o.get("roem.four_kind_ranks", ["A", "K", "Q", "10"])
        # (every game started asks: the options' values find the rules made before)
        key = (o.get("roem.run3", 20), o.get("roem.run4", 50), o.get("roem.stuk", 20),
               o.get("roem.four_kind", 100), tuple(ranks), o.get("roem.four_jacks", 200),
               o.get("roem.three_of_a_kind", 0))
        known = _BY_OPTIONS.get(key)
        if known is not None:
            return known
        rules = cls(
            run3=int(o.get("roem.run3", 20)), run4=int(o.get("roem.run4", 50)),
            stuk=int(o.get("roem.stuk", 20)), four_kind=int(o.get("roem.four_kind", 100)),
            four_kind_ranks=frozenset(RANK_TEXT.index(r) for r in ranks),
            four_jacks=int(o.get("roem.four_jacks", 200)),
            three_of_a_kind=int(o.get("roem.three_of_a_kind", 0)),
        )
        if len(_SHARED) > 256:  # a program trying thousands of roem tables: stop sharing
            _SHARED.clear()
            _BY_OPTIONS.clear()
        shared = _BY_OPTIONS[key] = _SHARED.setdefault(rules, rules)
        return shared


_SHARED: dict[RoemRules, RoemRules] = {}
#: The shared rules by the option values they were made from.
_BY_OPTIONS: dict[tuple[Any, ...], RoemRules] = {}


@functools.lru_cache(maxsize=64)
def _run_roem(run3: int, run4: int) -> tuple[int, ...]:
    """:attr:`RoemRules.run_roem` for these values (every game builds its rules: one table)."""
    return tuple(run4 if RUN_LENGTH[b] >= 4 else run3 if RUN_LENGTH[b] == 3 else 0
                 for b in range(256))


def trick_key(cards: Sequence[int], trump: int) -> int | None:
    """The memo key of a trick of four different cards and a trump suit (None for anything
    else): the trick's card mask and the trump in one int."""
    if len(cards) != 4 or not 0 <= trump < 4:
        return None
    a, b, c, d = cards
    mask = 1 << a | 1 << b | 1 << c | 1 << d
    return mask << 2 | trump if mask.bit_count() == 4 else None


def trick_value(a: int, b: int, c: int, d: int, trump: int, rules: RoemRules) -> tuple[int, int]:
    """(card points without the last-trick bonus, roem on the table) of the trick ``a b c d``
    (four different cards): :func:`trick_points` and the sum of :func:`roem_parts`, worked out
    on the trick's card mask with lookup tables. ``tests/rules/test_tricks_roem.py`` checks
    every trick of the pack against those two.

    >>> from jaslog.cards import parse_card as p, HEARTS
    >>> trick_value(p("KH"), p("QH"), p("JH"), p("7C"), HEARTS, RoemRules())
    (27, 40)
    """
    pts = CARD_POINTS[trump]
    points = pts[a] + pts[b] + pts[c] + pts[d]
    mask = 1 << a | 1 << b | 1 << c | 1 << d
    rank = a & 7
    if mask == RANK_MASK[rank]:  # four of a kind: nothing else counts
        return points, (rules.four_jacks if rank == JACK
                        else rules.four_kind if rank in rules.four_kind_ranks else 0)
    run = rules.run_roem  # four cards: at most one suit holds three or more of them
    roem = run[mask & 0xFF] + run[mask >> 8 & 0xFF] + run[mask >> 16 & 0xFF] + run[mask >> 24]
    stuk = STUK[trump]
    if mask & stuk == stuk:
        roem += rules.stuk
    if rules.three_of_a_kind and ((mask & RANK_MASK[rank]).bit_count() == 3
                                  or (mask & RANK_MASK[b & 7]).bit_count() == 3):
        roem += rules.three_of_a_kind
    return points, roem


def trick_score(cards: Sequence[int], trump: int, rules: RoemRules) -> tuple[int, int]:
    """(card points without the last-trick bonus, roem on the table) of a completed trick."""
    key = trick_key(cards, trump)
    if key is None:
        return trick_points(cards, trump), sum(p for _, p in _roem_parts(cards, trump, rules))
    hit = rules.memo.get(key)
    if hit is None:
        a, b, c, d = cards
        hit = rules.memo[key] = trick_value(a, b, c, d, trump, rules)
    return hit


def roem_parts(cards: Sequence[int], trump: int, rules: RoemRules) -> list[tuple[str, int]]:
    """The roem combinations in a completed trick, as (kind, points).

    Kinds: ``four_jacks``, ``four_of_a_kind``, ``run4``, ``run3``, ``stuk``,
    ``three_of_a_kind``. Only the longest run of a suit counts; stuk adds to a run;
    four of a kind excludes both.
    """
    key = trick_key(cards, trump)
    if key is None:
        return _roem_parts(cards, trump, rules)
    hit = rules.parts_memo.get(key)
    if hit is None:
        hit = rules.parts_memo[key] = tuple(_roem_parts(cards, trump, rules))
    return list(hit)


def _roem_parts(cards: Sequence[int], trump: int, rules: RoemRules) -> list[tuple[str, int]]:
    r0 = cards[0] & 7
    if len(cards) == 4 and all(c & 7 == r0 for c in cards):
        if r0 == JACK:
            return [("four_jacks", rules.four_jacks)]
        return [("four_of_a_kind", rules.four_kind if r0 in rules.four_kind_ranks else 0)]
    parts: list[tuple[str, int]] = []
    by_suit = [0, 0, 0, 0]
    for c in cards:
        by_suit[c >> 3] |= 1 << (c & 7)
    for bits in by_suit:
        n = RUN_LENGTH[bits]
        if n >= 4:
            parts.append(("run4", rules.run4))
        elif n == 3:
            parts.append(("run3", rules.run3))
    if by_suit[trump] >> KING & 1 and by_suit[trump] >> QUEEN & 1:
        parts.append(("stuk", rules.stuk))
    if rules.three_of_a_kind:
        ranks = [c & 7 for c in cards]
        if any(ranks.count(r) == 3 for r in set(ranks)):
            parts.append(("three_of_a_kind", rules.three_of_a_kind))
    return parts


def trick_roem(cards: Sequence[int], trump: int, rules: RoemRules) -> int:
    """Total roem on the table in a completed trick (0, 20, 40, 50, 70, 100 or 200)."""
    return trick_score(cards, trump, rules)[1]


def stuk_cards(trump: int) -> int:
    """The mask of the king and queen of trumps."""
    return 1 << card(KING, trump) | 1 << card(QUEEN, trump)


#: :func:`stuk_cards` of each suit.
STUK: Final[tuple[int, ...]] = tuple(stuk_cards(s) for s in range(4))


# ---------------------------------------------------------------- round scoring (3.5, 3.7)


@dataclass(frozen=True, slots=True)
class ScoreRules:
    pit_bonus: int = 100
    pit_for: str = "any_team"
    tie_is_failure: bool = True
    revoke: str = "penalty"
    total: int = 162

    def __deepcopy__(self, memo: dict[int, Any]) -> ScoreRules:
        """The rules themselves (they never change), also in a copy of a game's state."""
        return self

    @classmethod
    def from_options(cls, o: Mapping[str, Any]) -> ScoreRules:
        return cls(pit_bonus=int(o.get("pit_bonus", 100)), pit_for=str(o.get("pit_for", "any_team")),
                   tie_is_failure=bool(o.get("tie_is_failure", True)),
                   revoke=str(o.get("revoke", "penalty")),
                   total=152 + int(o.get("last_trick_bonus", 10)))


def score_round(rules: ScoreRules, points: Sequence[int], roem: Sequence[int],
                tricks: Sequence[int], chooser_team: int,
                revoke_team: int | None = None) -> tuple[list[int], str]:
    """(score per team, result) of a round: ``made``, ``nat``, ``pit`` or ``revoke``.

    ``points`` are card points with the last trick, ``roem`` the roem credited to each team
    (without the pit bonus, which is added here), ``tricks`` the tricks each team won.

    >>> score_round(ScoreRules(), [90, 72], [20, 0], [5, 3], chooser_team=0)
    ([110, 72], 'made')
    >>> score_round(ScoreRules(), [70, 92], [20, 0], [4, 4], chooser_team=0)
    ([0, 182], 'nat')
    >>> score_round(ScoreRules(), [162, 0], [0, 0], [8, 0], chooser_team=1)
    ([262, 0], 'nat')
    """
    p, d = chooser_team, 1 - chooser_team
    bonus = [0, 0]
    for t in (0, 1):
        if tricks[t] == 8 and (rules.pit_for == "any_team" or t == p):
            bonus[t] = rules.pit_bonus
    if revoke_team is not None and rules.revoke == "penalty":
        # Scored as if the offenders went nat (3.7, 9.4): the others get 162 and all roem,
        # and their own pit bonus when they took every trick (3.5.5) despite the revoke.
        other = 1 - revoke_team
        score = [0, 0]
        score[other] = rules.total + roem[0] + roem[1] + bonus[other]
        return score, "revoke"
    tot = [points[t] + roem[t] + bonus[t] for t in (0, 1)]
    made = tot[p] > tot[d] or (tot[p] == tot[d] and not rules.tie_is_failure)
    if made:
        return tot, "pit" if tricks[p] == 8 else "made"
    score = [0, 0]
    score[d] = tot[p] + tot[d]
    return score, "nat"
