"""What the Klaberjass and Kloepper folds share: card names in events to masks, and the
pieces of their round reports and seat views (cards, tricks, rulings, violations).

>>> card_list(cards_mask(["AH", "7C"], "a hand"))
['7C', 'AH']
>>> cards_mask(["AH", "AH"], "a hand")
Traceback (most recent call last):
...
jaslog.engine.base.IntegrityError: AH is named twice in a hand
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, Final, Protocol, TypeVar

from mypy_extensions import mypyc_attr

from jaslog.cards import CARD_INDEX, CARD_TEXT, cards_of
from jaslog.engine.base import IntegrityError, Ruling, Violation
from jaslog.engine.fold import GameFold, Handlers
from jaslog.events import Event, Play
from jaslog.events import Ruling as RulingEvent


class TrickLike(Protocol):
    """What the reports read of a trick (each game's trick class has it)."""

    number: int
    leader: int
    cards: list[int]
    points: int

    @property
    def complete(self) -> bool: ...

    def seat_of(self, i: int) -> int: ...


T = TypeVar("T", bound=TrickLike)


def cards_mask(texts: list[str], what: str) -> int:
    """The mask of the cards named in ``texts``; a card named twice is an IntegrityError."""
    m = 0
    for t in texts:
        c = CARD_INDEX[t]
        if m >> c & 1:
            raise IntegrityError("dealt_twice", f"{t} is named twice in {what}")
        m |= 1 << c
    return m


def hand_masks(hands: list[list[str]] | None, players: int, size: int,
               what: str) -> list[int] | None:
    """An event's hands (card names by seat; None: not seen) as masks: ``players`` hands of
    ``size`` cards each, or an IntegrityError naming ``what`` ('a kloepper deal')."""
    if hands is None:
        return None
    if len(hands) != players or any(len(h) != size for h in hands):
        sizes = ", ".join(str(len(h)) for h in hands)
        raise IntegrityError("bad_deal", f"{what} is {players} hands of {size} cards, not [{sizes}]")
    return [cards_mask(h, f"seat {s}'s hand") for s, h in enumerate(hands)]


def check_ruling_scores(score: Sequence[int], game: str, players: int) -> None:
    """A ruling event gives one score per player."""
    if len(score) != players:
        raise IntegrityError("bad_ruling", f"a {game} ruling gives {players} scores (one per "
                             f"player), not {len(score)}")


@mypyc_attr(allow_interpreted_subclasses=True)
class PlayerFold(GameFold):
    """The handlers of a game where each player scores for himself: ``play`` and ``ruling``
    (one score per player) go to the state's ``play`` and ``rule``."""

    handlers: ClassVar[Handlers] = {Play: "play", RulingEvent: "ruling"}

    def play(self, e: Play) -> None:
        self.state.play(e.seat, CARD_INDEX[e.card], e.seq)

    def apply_play(self, seat: int, card: int, at: str | None = None,
                   event: Event | bytes | int | None = None) -> None:
        # A play given as ints goes straight to the rules, as the play handler takes it (a
        # fold class that takes plays by a handler of its own: that handler, by way of the
        # event)
        if self._apply.get(Play) is not PLAYER_PLAY:
            GameFold.apply_play(self, seat, card, at, event)
            return
        try:
            self.state.play(seat, card, self.next_seq)
        except IntegrityError as err:
            raise self.play_refused(err, seat, card) from None
        self.played(seat, card, at, event)

    def ruling(self, e: RulingEvent) -> None:
        check_ruling_scores(e.score, self.game, self.players)
        self.state.rule(e.round, list(e.score), e.reason, e.seq)


#: The handler of a play that :meth:`PlayerFold.apply_play` stands for.
PLAYER_PLAY: Final = PlayerFold.dispatch[Play]


def card_list(mask: int) -> list[str]:
    return [CARD_TEXT[c] for c in cards_of(mask)]


def ruling_dict(ruling: Ruling | None) -> dict[str, Any] | None:
    if ruling is None:
        return None
    return {"score": ruling.score, "reason": ruling.reason, "seq": ruling.seq}


def tricks_report(tricks: Iterable[T], winner: Callable[[T], int]) -> list[dict[str, Any]]:
    """The tricks begun, for a round report (``winner``: who took a complete trick)."""
    return [{"leader": t.leader, "cards": [CARD_TEXT[c] for c in t.cards],
             "winner": winner(t) if t.complete else None, "points": t.points}
            for t in tricks if t.cards]


def tricks_view(tricks: Iterable[T], winner: Callable[[T], int]) -> list[dict[str, Any]]:
    """The tricks begun, for a seat view: each card with the seat that played it."""
    return [{"number": t.number, "leader": t.leader,
             "cards": [{"seat": t.seat_of(i), "card": CARD_TEXT[c]} for i, c in enumerate(t.cards)],
             "winner": winner(t) if t.complete else None, "points": t.points}
            for t in tricks if t.cards]


def violation_dict(v: Violation) -> dict[str, Any]:
    """A violation as the reports write it (the same keys as :mod:`jaslog.play.audit`)."""
    return {"seq": v.seq, "round": v.round, "trick": v.trick, "seat": v.seat,
            "card": CARD_TEXT[v.card] if v.card is not None else None, "rule": v.rule,
            "message": v.message}


#: the violations no seat sees of a round it may not see whole, its own neither: verdicts
#: that weigh every hand (a claim the other hands could have beaten)
VERDICTS_ON_ALL_HANDS = frozenset({"claim_not_guaranteed"})


def violations_seen(violations: Iterable[Violation], full: bool, seat: int | None) -> list[dict[str, Any]]:
    """A round's violations in seq order: all of them (``full``), else only ``seat``'s own
    (but a verdict that weighs every hand, :data:`VERDICTS_ON_ALL_HANDS`)."""
    vs = [violation_dict(v) for v in sorted(violations, key=lambda v: v.seq)]
    return vs if full else [v for v in vs if v["seat"] == seat
                            and v["rule"] not in VERDICTS_ON_ALL_HANDS]
