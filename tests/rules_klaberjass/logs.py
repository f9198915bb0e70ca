"""Hand-written Klaberjass logs and one deal worked out by hand from the rule book.

Deal K (dealer seat 1, so seat 0 is elder and leads), turn-up QH:

* dealt: seat 0 ``JH 9H AS KS QS 7C``, seat 1 ``AH 10H 8C 9C 10C AD``; seat 0 takes hearts.
* second deal: seat 0 ``JS KH 7H``, seat 1 ``8H 7D 8D``; the stock's bottom card is KD.
* dix: seat 0 gives 7H for the turn-up QH, and plays with
  ``7C 9H JH QH KH JS QS KS AS``; seat 1 with ``8C 9C 10C 7D 8D AD 8H 10H AH``.
* sequences (run order 7 8 9 10 J Q K A): seat 0 JS-AS (4 cards, 50) and JH-KH (3, 20);
  seat 1 8C-10C (3, 20). Seat 0's best (50) beats seat 1's (20): seat 0 scores 70, seat 1 0.
* bella: seat 0 holds QH and KH (20), announced when QH, the second of them, is played.

 trick leader  cards     winner  points (trump J20 9 14 A11 10 10 K4 Q3; plain A11 10 10 K4 Q3 J2)
   1     0     JH 8H       0     20 + 0
   2     0     9H 10H      0     14 + 10  (nothing beats the 9 but the jack: any trump)
   3     0     KH AH       1     4 + 11   (seat 1 must head the trump lead with AH)
   4     1     AD QH       0     11 + 3   (seat 0 is void in diamonds: must trump)
   5     0     AS 7D       0     11
   6     0     KS 8D       0     4
   7     0     QS 8C       0     3
   8     0     JS 9C       0     2
   9     0     7C 10C      1     10 + 10 (last trick)

Seat 0: 20+24+14+11+4+3+2 = 78 card points, seat 1: 15+20 = 35 (113 in all: 103 + 10).
Totals: seat 0 78 + 70 + 20 = 168, seat 1 35. The maker (seat 0) has more: 168 to 35.
"""

from __future__ import annotations

from typing import Any

from jaslog.cards import CARD_TEXT, parse_hand

from ..rules.logs import LogBase

SEATS = ["rosa", "sem"]

DEALT_K = ["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"]
TURN_UP_K = "QH"
SECOND_K = ["JS KH 7H", "8H 7D 8D"]
BOTTOM_K = "KD"
PLAY_HANDS_K = ["7C 9H JH QH KH JS QS KS AS", "8C 9C 10C 7D 8D AD 8H 10H AH"]
TRICKS_K = [(0, "JH 8H"), (0, "9H 10H"), (0, "KH AH"), (1, "AD QH"), (0, "AS 7D"),
            (0, "KS 8D"), (0, "QS 8C"), (0, "JS 9C"), (0, "7C 10C")]
POINTS_K = [20, 24, 15, 14, 11, 4, 3, 2, 20]
WINNERS_K = [0, 0, 1, 0, 0, 0, 0, 0, 1]


def words(text: str) -> list[str]:
    """Cards written with spaces, as a list."""
    return text.split()


def stock_k() -> list[str]:
    """A stock for deal K: the second deal on top, the bottom card KD last."""
    used = parse_hand(" ".join([*DEALT_K, TURN_UP_K, *SECOND_K, BOTTOM_K]), lenient=False)
    rest = [CARD_TEXT[c] for c in range(32) if not used >> c & 1]
    return ["JS", "KH", "7H", "8H", "7D", "8D", *rest, BOTTOM_K]


class Log(LogBase):
    """A Klaberjass game's events, one call per event; ``seq`` is counted here."""

    players = 2

    def __init__(self, game: str = "k1", ruleset: str = "klaberjass-2p",
                 options: dict[str, Any] | None = None, dealer: int = 1) -> None:
        super().__init__(game, ruleset, SEATS, dealer, options)

    def deal(self, hands: list[str] | None, turn_up: str, **fields: Any) -> Log:
        if hands is not None:
            fields["hands"] = [h.split() for h in hands]
        return self.add("dealt", turn_up=turn_up, **fields)

    def bid(self, seat: int, call: str) -> Log:
        return self.add("bid", seat=seat, call=call)

    def second(self, hands: list[str] | None, bottom: str) -> Log:
        fields: dict[str, Any] = {"bottom": bottom}
        if hands is not None:
            fields["hands"] = [h.split() for h in hands]
        return self.add("second_deal", **fields)

    def dix(self, seat: int) -> Log:
        return self.add("dix", seat=seat)

    def sequence(self, seat: int, cards: str) -> Log:
        return self.add("sequence", seat=seat, cards=cards.split())

    def bella(self, seat: int) -> Log:
        return self.add("bella", seat=seat)




def deal_k(log: Log, *, seen: bool = True, declare: bool = True, bella: bool = True,
           stock: bool = False) -> Log:
    """Deal K from the deal to the last card (with the declarations and bella at the table)."""
    extra = {"stock": stock_k()} if stock else {}
    log.deal(DEALT_K if seen else None, TURN_UP_K, **extra).bid(0, "take")
    log.second(SECOND_K if seen else None, BOTTOM_K).dix(0)
    if declare:
        log.sequence(0, "JS QS KS AS").sequence(0, "JH QH KH")
    log.play(0, "JH")
    if declare:
        log.sequence(1, "8C 9C 10C")
    log.play(1, "8H")
    for n, (leader, cards) in enumerate(TRICKS_K[1:], 2):
        log.trick(leader, cards)
        if n == 4 and bella:
            log.bella(0)
    return log
