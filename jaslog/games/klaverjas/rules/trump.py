"""Trump selection in Klaverjas: one explicit state machine per method (rule book 3.2).

Each machine knows what it waits for (``expects``: ``"bid"`` from the seat ``turn``, or a
``"turn"`` of a card), takes bids and turned cards, and ends with ``trump`` and
``chooser`` set. A bid that breaks the bidding rules (out of turn, a pass by a player who
must choose, a suit the method does not allow) is still the fact that fixed trumps at the
table: the machine records a violation and carries on as the table did.

>>> m = FreeChoice(dealer=3, start="forehand", forced="starter")
>>> m.turn, m.bid(0, "pass"), m.bid(1, "pass"), m.bid(2, "pass"), m.bid(3, "pass")
(0, [], [], [], [])
>>> m.turn, m.expects, m.done
(0, 'bid', False)
>>> m.bid(0, "H"), m.trump, m.chooser
([], 2, 0)
"""

from __future__ import annotations

from jaslog.cards import SUIT_LETTERS, SUIT_NAMES, CardError, parse_card
from jaslog.engine.base import IntegrityError

PASS, ACCEPT = "pass", "accept"

#: A bidding violation: (rule code, sentence).
BidViolation = tuple[str, str]


def _call_suit(call: str) -> int | None:
    if call in (PASS, ACCEPT):
        return None
    if len(call) == 1 and call in SUIT_LETTERS:
        return SUIT_LETTERS.index(call)
    raise IntegrityError("bad_call", f"{call!r} is not a call (pass, accept, C, D, H or S)")


class TrumpSelection:
    """Base of the machines. ``trump`` and ``chooser`` are None until the choice is made.

    Compiled, each machine is a native class, copied field by field (:meth:`copy`)."""

    method = ""

    def __init__(self, dealer: int) -> None:
        self.dealer = dealer
        self.forehand = (dealer + 1) % 4
        self.trump: int | None = None
        self.chooser: int | None = None
        self.turn = self.forehand
        self.expects = "bid"
        self.forced = False            # the seat ``turn`` may not pass
        self.allowed = 0b1111          # suits that may be named now (bit per suit)
        self.proposed: int | None = None  # the turned suit, in random trump
        self.turned: list[str] = []    # the turned cards, as written
        self.bids: list[tuple[int, str]] = []

    @property
    def done(self) -> bool:
        return self.trump is not None

    def copy(self) -> TrumpSelection:
        """A machine that goes on apart from this one.

        >>> m = FreeChoice(dealer=0)
        >>> c = m.copy()
        >>> c.bid(1, "pass"), (c.passes, c.turn, c.bids), (m.passes, m.turn, m.bids)
        ([], (1, 2, [(1, 'pass')]), (0, 1, []))
        """
        new = self._blank()
        self._copy_into(new)
        return new

    def _blank(self) -> TrumpSelection:
        """A new machine of this one's class (whose fields :meth:`_copy_into` then sets: a
        compiled class is made by its constructor)."""
        raise NotImplementedError

    def __deepcopy__(self, memo: dict[int, object]) -> TrumpSelection:
        return self.copy()

    def _copy_into(self, new: TrumpSelection) -> None:
        """Set every field of ``new`` from this machine (each machine adds its own)."""
        if new.method != self.method:  # (dealer_must_choose: a Utrecht machine renamed)
            new.method = self.method
        new.dealer, new.forehand = self.dealer, self.forehand
        new.trump, new.chooser, new.turn = self.trump, self.chooser, self.turn
        new.expects, new.forced, new.allowed = self.expects, self.forced, self.allowed
        new.proposed, new.turned, new.bids = self.proposed, list(self.turned), list(self.bids)

    # -- what all machines share -------------------------------------------------------

    def bid(self, seat: int, call: str) -> list[BidViolation]:
        if self.done:
            raise IntegrityError("trump_already_chosen",
                                 f"trumps are already {SUIT_NAMES[self.trump or 0]}; no more bids",
                                 seat=seat)
        if self.expects != "bid":
            raise IntegrityError("turn_expected",
                                 "a trump card must be turned before this bid", seat=seat)
        suit = _call_suit(call)
        if call == ACCEPT and self.proposed is None:
            raise IntegrityError("bad_call",
                                 "'accept' is only a call when a trump card was turned", seat=seat)
        if call == ACCEPT:
            suit = self.proposed
        out: list[BidViolation] = []
        if seat != self.turn:
            out.append(("bid_out_of_turn",
                        f"seat {seat} bid {call!r} when it was seat {self.turn}'s turn to speak"))
            if suit is None and self.forced:
                # Only the forced seat may act now (rule book 3.2 (a), (b) FORCED): another
                # seat's pass changes nothing, and the obligation stays where it was.
                self.bids.append((seat, call))
                return out
            self.turn = seat
        self.bids.append((seat, call))
        if suit is None:
            if self.forced:
                out.append(("must_choose", f"seat {seat} passed but must choose trumps"))
                return out
            self._on_pass(seat)
            return out
        if not self.allowed >> suit & 1:
            out.append(("suit_not_allowed",
                        f"seat {seat} named {SUIT_NAMES[suit]}, which may not be chosen now"))
        self.trump, self.chooser = suit, seat
        return out

    def turn_card(self, text: str, source: str, dealer_hand: int | None) -> list[BidViolation]:
        if self.expects != "turn":
            raise IntegrityError("turn_unexpected", "no trump card is to be turned now")
        if self.turned:  # later cards are turned from a pack beside the deal, whatever the source
            source, dealer_hand = "any", None
        suit = turned_suit(text, source, dealer_hand)
        self.turned.append(text)
        return self._on_turn(suit)

    def _on_pass(self, seat: int) -> None:
        raise NotImplementedError

    def _on_turn(self, suit: int) -> list[BidViolation]:
        raise NotImplementedError


def turned_suit(text: str, source: str, dealer_hand: int | None) -> int:
    """The suit of a turned card. From the separate pack it is a 2, 3, 4, 5 or 6.

    ``source`` ``dealers_last_card`` wants a card of the dealer's hand (when it is known);
    ``any`` takes any rank 2 to ace.
    """
    if source == "any":
        if len(text) in (2, 3) and text[:-1] in ("2", "3", "4", "5", "6", "7", "8", "9", "10",
                                                   "J", "Q", "K", "A") and text[-1] in SUIT_LETTERS:
            return SUIT_LETTERS.index(text[-1])
        raise IntegrityError("bad_turned_card", f"{text!r} is not a card")
    if source == "separate_pack":
        if len(text) == 2 and text[0] in "23456" and text[1] in SUIT_LETTERS:
            return SUIT_LETTERS.index(text[1])
        raise IntegrityError("bad_turned_card",
                             f"{text!r} is not a card of the separate pack (2-6, e.g. 4H)")
    try:
        c = parse_card(text)
    except CardError as e:
        raise IntegrityError("bad_turned_card", str(e)) from None
    if dealer_hand is not None and not dealer_hand >> c & 1:
        raise IntegrityError("bad_turned_card",
                             f"{text} is not in the dealer's hand (random.source dealers_last_card)")
    return c >> 3


class FreeChoice(TrumpSelection):
    """``free``: each player in turn passes or names trumps; after four passes one is forced."""

    method = "free"

    def __init__(self, dealer: int, start: str = "forehand", forced: str = "starter") -> None:
        super().__init__(dealer)
        self.turn = self.start = dealer if start == "dealer" else self.forehand
        self.forced_seat = (self.start if forced == "starter" else dealer if forced == "dealer"
                            else {"forehand": self.forehand}[forced])
        self.passes = 0

    def _blank(self) -> TrumpSelection:
        return FreeChoice(self.dealer)

    def _copy_into(self, new: TrumpSelection) -> None:
        super()._copy_into(new)
        assert isinstance(new, FreeChoice)
        new.start, new.forced_seat, new.passes = self.start, self.forced_seat, self.passes

    def _on_pass(self, seat: int) -> None:
        self.passes += 1
        if self.passes >= 4:
            self.turn, self.forced = self.forced_seat, True
        else:
            self.turn = (seat + 1) % 4


class Utrecht(TrumpSelection):
    """``utrecht``: forehand must name trumps (``dealer_must_choose``: the dealer must)."""

    method = "utrecht"

    def __init__(self, dealer: int, chooser: int | None = None) -> None:
        super().__init__(dealer)
        self.turn = self.forehand if chooser is None else chooser
        self.forced = True

    def _blank(self) -> TrumpSelection:
        return Utrecht(self.dealer)

    def _on_pass(self, seat: int) -> None:  # pragma: no cover - forced machines never pass
        raise AssertionError


class RandomTrump(TrumpSelection):
    """``random``: a turned card proposes a suit, accepted or passed in turn from forehand.

    What happens after four passes is ``random.all_pass``. Stages: ``first`` (waiting for
    the first turned card), ``accept``, ``turn_again`` (waiting for another turned card),
    ``second_round`` (naming another suit), ``forced``.
    """

    method = "random"

    def __init__(self, dealer: int, all_pass: str, clubs_first: bool) -> None:
        super().__init__(dealer)
        self.all_pass = all_pass
        self.passes = 0
        self.stage = "first"
        self.refused = 0  # suits proposed and refused (bits)
        self.expects = "turn"
        if clubs_first:
            self._propose(0)

    def _blank(self) -> TrumpSelection:
        return RandomTrump(self.dealer, self.all_pass, clubs_first=False)

    def _copy_into(self, new: TrumpSelection) -> None:
        super()._copy_into(new)
        assert isinstance(new, RandomTrump)
        new.all_pass, new.passes, new.stage = self.all_pass, self.passes, self.stage
        new.refused = self.refused

    def _propose(self, suit: int) -> None:
        self.proposed, self.expects, self.stage = suit, "bid", "accept"
        self.allowed, self.turn, self.passes, self.forced = 1 << suit, self.forehand, 0, False

    def _force(self, allowed: int) -> None:
        self.stage, self.expects = "forced", "bid"
        self.turn, self.forced, self.allowed = self.forehand, True, allowed

    def _on_turn(self, suit: int) -> list[BidViolation]:
        if self.stage == "first":
            self._propose(suit)
        elif self.all_pass == "twents":
            self.trump, self.chooser = suit, self.forehand
        elif self.refused >> suit & 1:
            pass  # the same suit as one refused: keep turning
        elif self.all_pass == "second_card_forced":
            self.trump, self.chooser = suit, self.forehand
        else:  # second_card_auction: a new accept round for the new suit
            self._propose(suit)
        return []

    def _on_pass(self, seat: int) -> None:
        self.passes += 1
        if self.passes < 4:
            self.turn = (seat + 1) % 4
            return
        if self.stage == "second_round":  # all passed the free second round
            self._force(0b1111)
            return
        self.refused |= self.allowed
        mode = self.all_pass
        if mode in ("second_card_forced", "twents") or (
                mode == "second_card_auction" and self.refused != 0b1111):
            self.stage, self.expects = "turn_again", "turn"
        elif mode == "second_card_auction":  # every suit was refused
            self._force(0b1111)
        elif mode == "forehand_names_other":
            self._force(0b1111 & ~self.refused)
        else:  # second_round_other_suits
            self.stage, self.passes, self.forced = "second_round", 0, False
            self.turn, self.allowed = self.forehand, 0b1111 & ~self.refused


def make_selection(options: dict, dealer: int, round_number: int) -> TrumpSelection:
    """The machine the options call for, for a round dealt by ``dealer``."""
    method = options["trump_selection"]
    if method == "free":
        return FreeChoice(dealer, options["free.start"], options["free.forced"])
    if method == "utrecht":
        return Utrecht(dealer)
    if method == "dealer_must_choose":
        m = Utrecht(dealer, chooser=dealer)
        m.method = "dealer_must_choose"
        return m
    return RandomTrump(dealer, options["random.all_pass"],
                       options["random.first_deal_clubs"] and round_number == 1)
