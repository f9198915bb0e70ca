"""Kloepper partnerships (rule book 5.3): who is with whom, and what a seat can know of it.

The holders of the two black queens are partners. A player holding both calls a non-trump
ace (its holder becomes his secret partner) or goes alone. The call is said aloud at the
table, so it is public; who holds the called ace is not.

:func:`sides` is the truth (the referee's view). :func:`known_sides` is what one seat can
tell from its own hand, the cards played so far and the call: a seat is placed on a side only
when every deal of the unseen cards that fits those facts puts it there. Nothing else (a knock,
a player who showed out of a suit) is used, so a view built on it never says more than the
cards have revealed.

>>> from jaslog.cards import parse_card as p, parse_hand as h
>>> hands = [h("QC 9H 10H KH AH JD"), h("QS AC 9C 10C KC JC"), h("AS 9S 10S KS JS JH"),
...          h("AD 10D KD QD 9D QH")]
>>> sides(hands, None).queens
(0, 1)
>>> known_sides(viewer=0, own=hands[0], plays=[], call=None, window_closed=True)
['queens', None, None, None]
>>> known_sides(viewer=0, own=hands[0], plays=[(2, p("AS")), (1, p("QS"))], call=None,
...             window_closed=True)
['queens', 'queens', 'others', 'others']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

from jaslog.cards import CARD_INDEX
from jaslog.games.kloepper.rules.play import QC, QS

#: A partner call: (caller seat, ``"AC"``/``"AS"``/``"AH"``/... or ``"alone"``).
Call = tuple[int, str]
#: The aces that may be called with the preset's trumps (AD is a trump).
CALLABLE = sum(1 << CARD_INDEX[a] for a in ("AC", "AS", "AH"))


@dataclass(frozen=True, slots=True)
class Sides:
    """The black-queen side (seats, ascending) and how it was formed.

    ``mode``: ``pair`` (the queens split), ``called`` (a called-ace pair) or ``alone``;
    ``scoring``: ``pair`` or ``alone`` (the column of the score table).
    """

    queens: tuple[int, ...]
    mode: str
    caller: int | None = None
    partner: int | None = None

    @property
    def scoring(self) -> str:
        return "alone" if self.mode == "alone" else "pair"

    def on_queens(self, seat: int) -> bool:
        return seat in self.queens


def holder(hands: Sequence[int], c: int) -> int | None:
    for s, h in enumerate(hands):
        if h >> c & 1:
            return s
    return None


def sides(hands: Sequence[int], call: Call | None) -> Sides:
    """The sides from the dealt hands and the call (a call by a player who does not hold both
    black queens is void: the queens decide). Both queens in one hand with no valid call:
    that player plays alone."""
    hq, hs = holder(hands, QC), holder(hands, QS)
    assert hq is not None and hs is not None, "the black queens are in the pack"
    return _sides(hq, hs, call, lambda c: holder(hands, c))


def _sides(hq: int, hs: int, call: Call | None, holder_of: object) -> Sides:
    if hq != hs:
        return Sides(tuple(sorted((hq, hs))), "pair")
    if call is not None and call[0] == hq and call[1] != "alone":
        p = holder_of(CARD_INDEX[call[1]])  # type: ignore[operator]
        if p is not None and p != hq:
            return Sides(tuple(sorted((hq, p))), "called", hq, p)
    return Sides((hq,), "alone", hq)


def known_sides(viewer: int | None, own: int | None, plays: Sequence[tuple[int, int]],
                call: Call | None, window_closed: bool, remaining: Sequence[int] | None = None,
                own_ace_allowed: bool = False, callable_aces: int = CALLABLE) -> list[str | None]:
    """Each seat's side (``"queens"``/``"others"``) as ``viewer`` can know it, else None.

    ``own``: the viewer's dealt hand (None: not recorded); ``plays``: (seat, card) so far;
    ``call``: the public partner call; ``window_closed``: the first card was played (so no
    call is coming); ``remaining``: cards each seat still holds (default 6 each, less plays);
    ``callable_aces``: the aces that may be called (the non-trump ones). While a call may
    still come, a player holding both queens may yet take any holder of such an ace.
    """
    played = {c: s for s, c in plays}
    if remaining is None:
        left = [6, 6, 6, 6]
        for s, _c in plays:
            left[s] -= 1
        remaining = left
    cards = [QC, QS]
    if call is not None and call[1] != "alone":
        cards.append(CARD_INDEX[call[1]])
    known: dict[int, int] = {}
    unknown: list[int] = []
    for c in cards:
        if c in played:
            known[c] = played[c]
        elif own is not None and viewer is not None and own >> c & 1:
            known[c] = viewer
        else:
            unknown.append(c)
    candidates = [s for s in range(4) if s != viewer or own is None]

    def worlds(strict: bool) -> list[Sides]:
        out = []
        for assign in product(candidates, repeat=len(unknown)):
            load = [0, 0, 0, 0]
            for s in assign:
                load[s] += 1
            if any(load[s] > remaining[s] for s in range(4)):
                continue
            where = dict(known)
            where.update(zip(unknown, assign, strict=True))
            hq, hs = where[QC], where[QS]
            if strict:
                if call is not None:
                    if not hq == hs == call[0]:
                        continue  # the call is taken as true: the caller holds both queens
                    if call[1] != "alone" and not own_ace_allowed and \
                            where[CARD_INDEX[call[1]]] == call[0]:
                        continue
                elif window_closed and hq == hs:
                    continue  # nobody called, so nobody holds both queens
            if call is None and not window_closed and hq == hs:
                out.append(Sides((hq,), "alone", hq))     # the call is still to come
                for p in range(4):
                    if p != hq and (p != viewer or own is None or own & callable_aces):
                        out.append(Sides(tuple(sorted((hq, p))), "called", hq, p))
                continue
            out.append(_sides(hq, hs, call, where.get))
        return out

    found = worlds(strict=True) or worlds(strict=False)
    result: list[str | None] = []
    for s in range(4):
        marks = {w.on_queens(s) for w in found}
        result.append(None if len(marks) != 1 else "queens" if marks.pop() else "others")
    return result
