"""Klaberjass legal plays, sequences, bella and deal scoring: pure functions on small ints.

Rule book sections 4.5 to 4.8. The trick ranks and card points are the Jack-Nine ones of
:mod:`jaslog.engine.jacknine`; a trick has two cards (the leader's and the reply).

>>> from jaslog.cards import parse_card as p, parse_hand, hand_text, HEARTS
>>> rules = PlayRules()
>>> hand_text(legal(parse_hand("7H 9H AS KC"), [p("JH")], HEARTS, rules))   # head a trump lead? no
'7H 9H'
>>> hand_text(legal(parse_hand("7H 9H AS KC"), [p("10H")], HEARTS, rules))  # 9 beats 10: head
'9H'
>>> judge(parse_hand("7H AD KC"), [p("AS")], HEARTS, rules, p("KC"))[0]
'must_trump'
>>> [run_text(r) for r in runs(parse_hand("7H 8H 9H 10H JC QC KC AC 9S"))]
['JC-AC', '7H-10H']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from jaslog.cards import (
    ALL_CARDS,
    HIGHER_TRUMPS,
    KING,
    PLAIN_STRENGTH,
    QUEEN,
    RANK_TEXT,
    SEVEN,
    SUIT_LETTERS,
    SUIT_MASK,
    SUIT_NAMES,
    card,
    card_text,
    hand_mask,
    hand_text,
)

# ---------------------------------------------------------------- legal plays (4.7)


@dataclass(frozen=True, slots=True)
class PlayRules:
    """The option that decides legal plays: ``must_head_plain_lead`` (default false)."""

    must_head_plain_lead: bool = False

    @classmethod
    def from_options(cls, o: Mapping[str, Any]) -> PlayRules:
        return cls(must_head_plain_lead=bool(o.get("must_head_plain_lead", False)))

    def __deepcopy__(self, memo: dict[int, Any]) -> PlayRules:
        """Itself: it never changes (compiled, a frozen class is not rebuilt field by field)."""
        return self


def _higher_plain(c: int) -> int:
    s, r = c >> 3, c & 7
    return hand_mask(card(x, s) for x in range(8) if PLAIN_STRENGTH[x] > PLAIN_STRENGTH[r])


#: For each card, the cards of its suit that beat it in plain order (A 10 K Q J 9 8 7).
HIGHER_PLAIN = tuple(_higher_plain(c) for c in ALL_CARDS)

LEAD: Final = "lead"
TRUMP_HEAD: Final = "trump_head"
TRUMP_LOWER: Final = "trump_lower"
TRUMP_VOID: Final = "trump_void"
FOLLOW: Final = "follow"
FOLLOW_HEAD: Final = "follow_head"
MUST_TRUMP: Final = "must_trump"
VOID: Final = "void"


def _walk(hand: int, trick: Sequence[int], trump: int, rules: PlayRules) -> tuple[int, str]:
    """(legal mask, branch) for the player to act with ``hand``."""
    if not trick:
        return hand, LEAD
    led = trick[0]
    suit = led >> 3
    follow = hand & SUIT_MASK[suit]
    if suit == trump:
        higher = follow & HIGHER_TRUMPS[led]
        if higher:
            return higher, TRUMP_HEAD
        if follow:
            return follow, TRUMP_LOWER
        return hand, TRUMP_VOID
    if follow:
        higher = follow & HIGHER_PLAIN[led]
        if rules.must_head_plain_lead and higher:
            return higher, FOLLOW_HEAD
        return follow, FOLLOW
    trumps = hand & SUIT_MASK[trump]
    if trumps:
        return trumps, MUST_TRUMP
    return hand, VOID


def legal(hand: int, trick: Sequence[int], trump: int, rules: PlayRules) -> int:
    """The legal cards (a mask) for the player holding ``hand``; ``trick`` is 0 or 1 card."""
    return _walk(hand, trick, trump, rules)[0]


def explain(hand: int, trick: Sequence[int], trump: int, rules: PlayRules) -> tuple[int, str]:
    """The legal cards and a sentence saying which rule makes them so."""
    mask, branch = _walk(hand, trick, trump, rules)
    t = SUIT_NAMES[trump]
    led = card_text(trick[0]) if trick else ""
    ls = SUIT_NAMES[trick[0] >> 3] if trick else ""
    return mask, {
        LEAD: "You lead: any card.",
        TRUMP_HEAD: f"A trump ({led}) was led: you must play a higher trump ({t}) if you can.",
        TRUMP_LOWER: f"A trump ({led}) was led and you cannot beat it: any trump.",
        TRUMP_VOID: f"A trump ({led}) was led and you hold no {t}: any card.",
        FOLLOW: f"{ls.capitalize()} were led: follow suit (any {ls[:-1]}; you need not win).",
        FOLLOW_HEAD: f"{ls.capitalize()} were led: follow suit and beat {led} if you can "
                     "(option must_head_plain_lead).",
        MUST_TRUMP: f"You cannot follow {ls}: you must trump ({t}).",
        VOID: f"You can neither follow {ls} nor trump: any card.",
    }[branch]


def judge(hand: int, trick: Sequence[int], trump: int, rules: PlayRules,
          c: int) -> tuple[str, str] | None:
    """None when ``c`` is legal; else (rule code, sentence about the card and the hand).

    Codes: ``must_follow_suit``, ``must_overtrump`` (a trump lead not headed),
    ``must_head`` (a plain lead not headed, option ``must_head_plain_lead``), ``must_trump``.
    """
    mask, branch = _walk(hand, trick, trump, rules)
    if mask >> c & 1:
        return None
    played = card_text(c)
    led = trick[0]
    ls = SUIT_NAMES[led >> 3]
    follow = hand & SUIT_MASK[led >> 3]
    if c >> 3 != led >> 3 and follow:
        return "must_follow_suit", (f"played {played} to {card_text(led)} while holding {ls} "
                                    f"({hand_text(follow)}): must follow suit")
    if branch == TRUMP_HEAD:
        return "must_overtrump", (f"played {played} to the trump lead {card_text(led)} while "
                                  f"holding a higher trump ({hand_text(mask)}): must head it")
    if branch == FOLLOW_HEAD:
        return "must_head", (f"played {played} to {card_text(led)} while holding a higher {ls[:-1]} "
                             f"({hand_text(mask)}): must head the lead (option "
                             "must_head_plain_lead)")
    return "must_trump", (f"played {played} unable to follow {ls} while holding trumps "
                          f"({hand_text(mask)}): must trump")


# ---------------------------------------------------------------- sequences (4.5)

#: A sequence: (suit, rank of its lowest card, length). Ranks are in run order 7..A.
Run = tuple[int, int, int]


def runs(hand: int) -> list[Run]:
    """The maximal sequences of three or more cards in a hand, by suit then rank.

    A run of five or more is one sequence (rule book 9.6); two runs of one suit that do not
    touch are two sequences.
    """
    out: list[Run] = []
    for s in range(4):
        bits = hand >> (8 * s) & 0xFF
        r = 0
        while r < 8:
            if bits >> r & 1:
                start = r
                while r < 8 and bits >> r & 1:
                    r += 1
                if r - start >= 3:
                    out.append((s, start, r - start))
            else:
                r += 1
    return out


def run_of(mask: int) -> Run | None:
    """The run formed by exactly these cards, or None when they are not one sequence."""
    found = runs(mask)
    if len(found) != 1:
        return None
    return found[0] if run_mask(found[0]) == mask else None


def run_mask(run: Run) -> int:
    s, lo, n = run
    return hand_mask(card(r, s) for r in range(lo, lo + n))


def run_text(run: Run) -> str:
    s, lo, n = run
    return f"{RANK_TEXT[lo]}{SUIT_LETTERS[s]}-{RANK_TEXT[lo + n - 1]}{SUIT_LETTERS[s]}"


@dataclass(frozen=True, slots=True)
class SequenceRules:
    three: int = 20
    four_plus: int = 50
    tie: str = "none"            # none | elder_wins
    require_a_trick: bool = False

    @classmethod
    def from_options(cls, o: Mapping[str, Any]) -> SequenceRules:
        return cls(three=int(o.get("sequence_3", 20)), four_plus=int(o.get("sequence_4plus", 50)),
                   tie=str(o.get("sequence_tie", "none")),
                   require_a_trick=bool(o.get("sequences_require_a_trick", False)))

    def value(self, run: Run) -> int:
        return self.three if run[2] == 3 else self.four_plus

    def __deepcopy__(self, memo: dict[int, Any]) -> SequenceRules:
        """Itself: it never changes (compiled, a frozen class is not rebuilt field by field)."""
        return self


def run_key(run: Run, trump: int, rules: SequenceRules) -> tuple[int, int, int]:
    """What decides the best sequence: value, then top card (run order), then trump."""
    s, lo, n = run
    return (rules.value(run), lo + n - 1, 1 if s == trump else 0)


@dataclass(frozen=True, slots=True)
class SequenceResult:
    """Who scores sequences in a deal: ``best`` (a seat or None) and the points per seat."""

    best: int | None
    points: list[int]
    reason: str


def score_sequences(per_seat: Sequence[Sequence[Run]], trump: int, elder: int,
                    rules: SequenceRules) -> SequenceResult:
    """Only the holder of the best sequence scores, and then all of his (rule book 4.5).

    ``per_seat`` is the sequences each seat has (from the hand, or as declared).

    >>> from jaslog.cards import parse_hand, HEARTS
    >>> r = score_sequences([runs(parse_hand("JS QS KS 7H 8H 9H")), runs(parse_hand("QC KC AC"))],
    ...                     HEARTS, elder=0, rules=SequenceRules())
    >>> r.best, r.points
    (1, [0, 20])
    """
    best: list[tuple[int, int, int] | None] = [
        max((run_key(r, trump, rules) for r in seqs), default=None) for seqs in per_seat]
    b0, b1 = best
    if b0 is None and b1 is None:
        return SequenceResult(None, [0, 0], "no sequences")
    if b0 is not None and b1 is not None and b0 == b1:
        if rules.tie != "elder_wins":
            return SequenceResult(None, [0, 0], "equal best sequences: neither scores")
        winner = elder
        reason = "equal best sequences: elder scores (option sequence_tie: elder_wins)"
    elif b1 is None or (b0 is not None and b0 > b1):
        winner, reason = 0, "best sequence"
    else:
        winner, reason = 1, "best sequence"
    pts = [0, 0]
    pts[winner] = sum(rules.value(r) for r in per_seat[winner])
    return SequenceResult(winner, pts, reason)


# ---------------------------------------------------------------- bella (4.6)


def bella_cards(trump: int) -> int:
    """The king and queen of trumps."""
    return 1 << card(KING, trump) | 1 << card(QUEEN, trump)


def has_bella(hand: int, trump: int) -> bool:
    b = bella_cards(trump)
    return hand & b == b


def dix_card(trump: int) -> int:
    """The seven of trumps."""
    return card(SEVEN, trump)


# ---------------------------------------------------------------- deal scoring (4.8)


@dataclass(frozen=True, slots=True)
class ScoreRules:
    tie_mode: str = "half_bete"  # half_bete | carry_over
    revoke: str = "penalty"      # penalty | reject | ignore

    @classmethod
    def from_options(cls, o: Mapping[str, Any]) -> ScoreRules:
        return cls(tie_mode=str(o.get("tie_mode", "half_bete")), revoke=str(o.get("revoke", "penalty")))

    def __deepcopy__(self, memo: dict[int, Any]) -> ScoreRules:
        """Itself: it never changes (compiled, a frozen class is not rebuilt field by field)."""
        return self


@dataclass(frozen=True, slots=True)
class DealScore:
    """A deal's score per player; ``held`` is set aside by ``carry_over`` on a tie."""

    score: list[int]
    result: str   # made | tie | bete | revoke
    held: int = 0

    @property
    def winner(self) -> int | None:
        """The player who won the deal (who receives points held from an earlier tie)."""
        if self.result == "tie":
            return None
        return 0 if self.score[0] > self.score[1] else 1 if self.score[1] > self.score[0] else None


def score_deal(rules: ScoreRules, totals: Sequence[int], maker: int,
               revoke_seat: int | None = None) -> DealScore:
    """The score of a deal from each player's total (card points with the last trick,
    sequences and bella): rule book 4.8, and a revoke by ``revoke_seat``.

    >>> score_deal(ScoreRules(), [90, 60], maker=0)
    DealScore(score=[90, 60], result='made', held=0)
    >>> score_deal(ScoreRules(), [75, 75], maker=0)
    DealScore(score=[0, 75], result='tie', held=0)
    >>> score_deal(ScoreRules(tie_mode="carry_over"), [75, 75], maker=1)
    DealScore(score=[75, 0], result='tie', held=75)
    >>> score_deal(ScoreRules(), [60, 90], maker=0)
    DealScore(score=[0, 150], result='bete', held=0)
    >>> score_deal(ScoreRules(), [90, 60], maker=0, revoke_seat=0)
    DealScore(score=[0, 150], result='revoke', held=0)
    """
    m, o = maker, 1 - maker
    both = totals[0] + totals[1]
    if revoke_seat is not None and rules.revoke == "penalty":
        score = [0, 0]
        score[1 - revoke_seat] = both
        return DealScore(score, "revoke")
    score = [0, 0]
    if totals[m] > totals[o]:
        return DealScore(list(totals), "made")
    if totals[m] == totals[o]:
        score[o] = totals[o]
        return DealScore(score, "tie", totals[m] if rules.tie_mode == "carry_over" else 0)
    score[o] = both
    return DealScore(score, "bete")
