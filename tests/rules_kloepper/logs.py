"""Hand-written Kloepper logs and deals worked out by hand from rule book section 5.

Deal P (dealer seat 3, so seat 0 is forehand and leads). Trumps, high to low:
QC QS JC JS JH JD AD 10D KD QD 9D. Plain suits: clubs 9C 10C KC AC, spades 9S 10S KS AS,
hearts 9H 10H QH KH AH (QH is a plain heart; JH is a trump).

* seat 0 ``QC 9H 10H KH AH JD``, seat 1 ``QS AC 9C 10C KC JC``,
  seat 2 ``AS 9S 10S KS JS JH``, seat 3 ``AD 10D KD QD 9D QH``.
* QC (seat 0) and QS (seat 1): seats 0 and 1 are partners against 2 and 3.

 trick leader cards (play order)  winner  points (A11 10 10 K4 Q3 J2 9 0)
   1     0    AH 9C 9S QH           0     11+0+0+3   = 14  (JH does not follow hearts)
   2     0    QC JC JH 9D           0     3+2+2+0    = 7
   3     0    KH 10C 10S QD         3     4+10+10+3  = 27  (QD trumps the heart lead)
   4     3    AD JD QS JS           1     11+2+3+2   = 18  (QS is the highest trump played)
   5     1    AC KS 10D 10H         3     11+4+10+10 = 35  (10D trumps the club lead)
   6     3    KD 9H KC AS           3     4+0+4+11   = 19

The black-queen side (0, 1) makes 14+7+18 = 39 card points in 3 tricks; the others 81.
No knock: non_queens_61 (81 >= 61) gives 4 to each of seats 2 and 3.
"""

from __future__ import annotations

from typing import Any

from ..rules.logs import LogBase

SEATS = ["abe", "bea", "cal", "dot"]

HANDS_P = ["QC 9H 10H KH AH JD", "QS AC 9C 10C KC JC", "AS 9S 10S KS JS JH",
           "AD 10D KD QD 9D QH"]
TRICKS_P = [(0, "AH 9C 9S QH"), (0, "QC JC JH 9D"), (0, "KH 10C 10S QD"), (3, "AD JD QS JS"),
            (1, "AC KS 10D 10H"), (3, "KD 9H KC AS")]
POINTS_P = [14, 7, 27, 18, 35, 19]
WINNERS_P = [0, 0, 3, 1, 3, 3]

# Deal C: seat 0 holds both black queens (QC QS swapped with seat 1's 9H, which is given
# to seat 1). The same tricks with QS in place of 9H for seat 0... see tests for its play.
HANDS_C = ["QC QS 10H KH AH JD", "9H AC 9C 10C KC JC", "AS 9S 10S KS JS JH",
           "AD 10D KD QD 9D QH"]


def words(text: str) -> list[str]:
    return text.split()


class Log(LogBase):
    """A Kloepper game's events, one call per event; ``seq`` is counted here."""

    players = 4

    def __init__(self, game: str = "q1", options: dict[str, Any] | None = None,
                 dealer: int = 3) -> None:
        super().__init__(game, "kloepper", SEATS, dealer, options)

    def deal(self, hands: list[str] | None = None, **fields: Any) -> Log:
        if hands is not None:
            fields["hands"] = [h.split() for h in hands]
        return self.add("dealt", **fields)

    def call(self, seat: int, call: str) -> Log:
        return self.add("partner_call", seat=seat, call=call)

    def knock(self, seat: int) -> Log:
        return self.add("knock", seat=seat)

    def knock_back(self, seat: int) -> Log:
        return self.add("knock_back", seat=seat)


    def tricks(self, tricks: list[tuple[int, str]]) -> Log:
        for leader, cards in tricks:
            self.trick(leader, cards)
        return self

