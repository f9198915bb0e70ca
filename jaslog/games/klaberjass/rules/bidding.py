"""The Klaberjass bidding state machine (rule book 4.3), with every option.

Seats are 0 and 1; the non-dealer (*elder*, ND) speaks first. Calls: ``take`` (the turn-up
suit, round 1), ``pass``, ``schmeiss`` (an offer: play the turn-up suit or annul the deal; in
round 2, name a suit or annul), a suit letter ``C D H S`` (round 2), and the answers to a
schmeiss, ``annul`` or ``play``.

Stages: ``r1_nd``, ``r1_d``, ``r2_nd``, ``r2_d``, ``schmeiss`` (the other player must answer),
``must_name`` (the schmeisser of round 2, answered ``play``, must name a suit), then ``done``
or ``annulled``.

A call that breaks a rule of the table (out of turn, a schmeiss the options do not allow or
the dealer's in round 2, where the dealer only names a suit or passes, the turn-up suit
named in round 2, a pass by a player who must name) is still the fact the
table went on from: it is returned as a violation and the machine carries on. A call that
has no meaning in the stage (``take`` in round 2, ``annul`` with no schmeiss pending) is an
:class:`IntegrityError`.

>>> b = Bidding(dealer=1, turn_up_suit=2)
>>> b.bid(0, "pass"), b.bid(1, "pass"), b.bid(0, "schmeiss"), b.bid(1, "play")
([], [], [], [])
>>> b.stage, b.turn, b.allowed_calls()
('must_name', 0, ['C', 'D', 'S'])
>>> b.bid(0, "S"), b.trump, b.maker
([], 3, 0)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jaslog.cards import SUIT_LETTERS, SUIT_NAMES
from jaslog.engine.base import IntegrityError

CALLS = ("take", "pass", "schmeiss", "annul", "play", "C", "D", "H", "S")

#: A bidding violation: (rule code, sentence).
BidViolation = tuple[str, str]


class Bidding:
    """One deal's bidding. ``trump``/``maker`` are set when done; ``annulled`` says why not."""

    def __init__(self, dealer: int, turn_up_suit: int, options: Mapping[str, Any] | None = None) -> None:
        o = options or {}
        self.dealer = dealer
        self.elder = 1 - dealer
        self.turn_up_suit = turn_up_suit
        self.schmeiss_enabled = bool(o.get("schmeiss_enabled", True))
        self.any_suit = bool(o.get("second_round_any_suit", False))
        self.stage = "r1_nd"
        self.turn = self.elder
        self.trump: int | None = None
        self.maker: int | None = None
        self.annulled: str | None = None      # all_pass | schmeiss
        self.schmeisser: int | None = None
        self.schmeiss_round = 0
        #: the bidding round in which trumps were fixed (1 or 2), once they are
        self.fixed_round: int | None = None
        self.calls: list[tuple[int, str]] = []

    def copy(self) -> Bidding:
        """A machine that goes on apart from this one (written out field by field, as a
        compiled class is copied by its constructor)."""
        new = Bidding(self.dealer, self.turn_up_suit)
        new.schmeiss_enabled, new.any_suit, new.stage = self.schmeiss_enabled, self.any_suit, self.stage
        new.turn, new.trump, new.maker, new.annulled = self.turn, self.trump, self.maker, self.annulled
        new.schmeisser, new.schmeiss_round = self.schmeisser, self.schmeiss_round
        new.fixed_round, new.calls = self.fixed_round, list(self.calls)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> Bidding:
        return self.copy()

    @property
    def done(self) -> bool:
        return self.trump is not None

    @property
    def over(self) -> bool:
        """Trumps are fixed, or the deal is annulled."""
        return self.trump is not None or self.annulled is not None

    @property
    def turn_up_accepted(self) -> bool:
        """Trumps are the turn-up's suit, accepted in round 1 (taken, or a schmeiss played):
        the only case in which the dix may be exchanged (rule book 4.4). The turn-up's suit
        named in round 2 (option ``second_round_any_suit``, or against it) is not."""
        return self.fixed_round == 1 and self.trump == self.turn_up_suit

    @property
    def round(self) -> int:
        """The bidding round being played (1 or 2)."""
        if self.stage in ("r1_nd", "r1_d"):
            return 1
        if self.stage == "schmeiss":
            return self.schmeiss_round
        return 2

    def allowed_calls(self) -> list[str]:
        """The calls the seat to speak may make now (none once bidding is over)."""
        if self.over:
            return []
        if self.stage == "schmeiss":
            return ["annul", "play"]
        names = [SUIT_LETTERS[s] for s in range(4) if self.any_suit or s != self.turn_up_suit]
        if self.stage == "must_name":
            return names
        extra = ["schmeiss"] if self.schmeiss_enabled and self.stage != "r2_d" else []
        if self.round == 1:
            return ["take", "pass", *extra]
        return [*names, "pass", *extra]

    def bid(self, seat: int, call: str) -> list[BidViolation]:
        """Take one call; returns the violations it made (an empty list when none)."""
        if call not in CALLS:
            raise IntegrityError("bad_call", f"{call!r} is not a klaberjass call "
                                 "(take, pass, schmeiss, annul, play, C, D, H or S)", seat=seat)
        if self.over:
            what = "trumps are fixed" if self.done else "the deal was annulled"
            raise IntegrityError("bidding_over", f"seat {seat} called {call!r} but {what}",
                                 seat=seat)
        stage = self.stage
        suit = SUIT_LETTERS.index(call) if len(call) == 1 else None
        meaningful = {
            "schmeiss": ("annul", "play"),
            "must_name": ("pass", "C", "D", "H", "S"),
        }.get(stage, ("take", "pass", "schmeiss") if self.round == 1
              else ("pass", "schmeiss", "C", "D", "H", "S"))
        if call not in meaningful:
            raise IntegrityError("bad_call", f"{call!r} is not a call of {_stage_text(stage)} "
                                 f"(calls: {', '.join(meaningful)})", seat=seat)
        out: list[BidViolation] = []
        if seat != self.turn:
            out.append(("bid_out_of_turn",
                        f"seat {seat} called {call!r} when it was seat {self.turn}'s turn"))
        self.calls.append((seat, call))
        other = 1 - seat
        if stage == "schmeiss":
            if call == "annul":
                self.annulled, self.stage = "schmeiss", "annulled"
            elif self.schmeiss_round == 1:
                self._fix(self.schmeisser if self.schmeisser is not None else other,
                          self.turn_up_suit)
            else:
                self.stage = "must_name"
                self.turn = self.schmeisser if self.schmeisser is not None else other
            return out
        if call == "schmeiss":
            if not self.schmeiss_enabled:
                out.append(("schmeiss_not_allowed",
                            f"seat {seat} schmeissed, but option schmeiss_enabled is false"))
            elif stage == "r2_d":
                out.append(("schmeiss_not_allowed",
                            f"seat {seat}, the dealer, schmeissed in round 2, where the dealer "
                            "names a suit or passes"))
            self.schmeisser, self.schmeiss_round = seat, self.round
            self.stage, self.turn = "schmeiss", other
            return out
        if call == "pass":
            if stage == "must_name":
                out.append(("must_choose", f"seat {seat} passed but must name a suit: the "
                                           "schmeiss was answered 'play'"))
                return out
            nxt = {"r1_nd": "r1_d", "r1_d": "r2_nd", "r2_nd": "r2_d"}.get(stage)
            if nxt is None:  # the dealer passed in round 2: annulled, the deal passes
                self.annulled, self.stage = "all_pass", "annulled"
                return out
            self.stage = nxt
            self.turn = self.dealer if nxt.endswith("_d") else self.elder
            return out
        if call == "take":
            self._fix(seat, self.turn_up_suit)
            return out
        assert suit is not None
        if suit == self.turn_up_suit and not self.any_suit:
            out.append(("suit_not_allowed",
                        f"seat {seat} named {SUIT_NAMES[suit]}, the suit of the turn-up that was "
                        "refused in round 1 (option second_round_any_suit is false)"))
        self._fix(seat, suit)
        return out

    def _fix(self, maker: int, suit: int) -> None:
        self.fixed_round = self.round
        self.maker, self.trump, self.stage = maker, suit, "done"


def _stage_text(stage: str) -> str:
    return {
        "r1_nd": "round 1 (take, pass or schmeiss)", "r1_d": "round 1 (take, pass or schmeiss)",
        "r2_nd": "round 2 (name a suit, pass or schmeiss)",
        "r2_d": "round 2, the dealer (name a suit or pass)",
        "schmeiss": "the answer to a schmeiss (annul or play)",
        "must_name": "the schmeisser's choice of suit",
    }[stage]
