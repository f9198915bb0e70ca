"""Recording Klaverjas: bids (``pass``, ``accept``, a suit), a turned card (random trump),
roem claims, and plays. The deal asks the hands of seats 0-2; seat 3 gets the rest."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from jaslog.cards import CARD_TEXT, SUIT_LETTERS, CardError, cards_of, hand_text
from jaslog.events import Event
from jaslog.record.core import Ask, InputError, Recorder, Show, suit_word

HELP = """\
  jh, 10s, T♥, ah      the next seat plays that card
  pass (pas), accept   the next seat's bid (accept: the turned suit)
  c, d, h, s           the next seat names a trump suit (also clubs... or
                       klaveren, ruiten, harten, schoppen)
  2 pass, 3 jh         the same for an explicit seat (e.g. a bid out of turn)
  deal                 a new round: asks the hands of seats 0-2 (or 'unseen');
                       seat 3 gets the rest of the pack
  deal unseen          a new round whose hands nobody saw
  turn 4h              random trump: the card turned from the separate pack
  roem 20 [SEAT]       a roem claim on the trick just won (default: its winner)
  score S0 S1 [...]    the round due, written on the sheet by its team scores
                       alone (before its deal); after them: chooser SEAT,
                       trump H, points P0 P1, roem R0 R1, made|nat|pit|revoke
                       (Dutch: kiezer, troef, punten)"""


def turned_card(text: str) -> str:
    """A card of the separate pack (2-10, J Q K A) in canonical text: ``4h`` -> ``4H``."""
    t = text.strip().upper().replace("♣", "C").replace("♦", "D").replace("♥", "H") \
        .replace("♠", "S")
    if t[:1] == "T":
        t = "10" + t[1:]
    if len(t) < 2 or t[-1] not in SUIT_LETTERS or t[:-1] not in \
            ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"):
        raise InputError(f"{text!r} is not a turned card (e.g. 4H, 10S)")
    return t


class KlaverjasRecorder(Recorder):
    game_name = "klaverjas"
    game_help = HELP
    score_owners: ClassVar[str | None] = "team 0 and team 1"
    ruling_example = "3 0 162 revoke by bob"
    score_words: ClassVar[dict[str, str]] = {
        "chooser": "chooser", "kiezer": "chooser", "trump": "trump", "troef": "trump",
        "points": "points", "punten": "points", "roem": "roem", "result": "result"}
    score_results = ("made", "nat", "pit", "revoke")
    score_example = "102 80 chooser 0 trump h points 82 80 roem 20 0"

    def doing(self, kind: str, seat: int | None) -> str:
        if kind == "turn":
            return f"{self.who(seat)} turns a card: 'turn {self.turn_example()}'"
        if kind == "bid":
            return f"{self.who(seat)} bids ({', '.join(self.calls())})"
        return super().doing(kind, seat)

    def due(self, kind: str, seat: int | None) -> str:
        if kind == "turn":
            return f"a trump card must be turned: 'turn {self.turn_example()}'"
        if kind == "bid":
            return f"{self.who(seat)} must bid: {', '.join(self.calls())}"
        return super().due(kind, seat)

    def turn_example(self) -> str:
        """A card the rules accept as the next turned card: from the separate pack (2-6), or
        with ``random.source: dealers_last_card`` the first turn is a card of the dealer's
        hand (one of it when the hands were seen); later turns are from a pack beside the deal."""
        r = self.current_round()
        g = self.fold.state
        if g.options["random.source"] != "dealers_last_card" or r is None or r.selection.turned:
            return "4h"
        if r.hands_known:
            return CARD_TEXT[next(iter(cards_of(r.hands[r.dealer])))].lower()
        return "kh"

    def calls(self) -> list[str]:
        """The bids the rules accept from the seat due now (rule book 3.2): ``pass`` unless that
        seat must choose, ``accept`` while a turned suit is offered, the suits it may name."""
        r = self.current_round()
        sel = r.selection if r is not None else None
        if sel is None or sel.done or sel.expects != "bid":
            return []
        out = [] if sel.forced else ["pass"]
        if sel.proposed is not None and sel.allowed >> sel.proposed & 1:
            out.append("accept")
        out += [SUIT_LETTERS[s].lower() for s in range(4) if sel.allowed >> s & 1]
        return out

    def accepted_now(self) -> list[str]:
        kind, seat = self.expected()
        if kind == "turn":
            if self.turn_example() != "4h":
                return [f"turn CARD: {self.who(seat)} turns the last card dealt to him "
                        f"(random.source dealers_last_card; e.g. turn {self.turn_example()})"]
            return [f"turn CARD: {self.who(seat)} turns the trump card (e.g. turn 4h)"]
        if kind == "bid":
            calls = self.calls()
            words = [c for c in calls if c in ("pass", "accept")]
            suits = [c for c in calls if c not in words]
            if "accept" in words:
                words[-1] = f"accept (the turned suit, also '{suits[0]}')" if suits else "accept"
            elif suits:
                words.append(("or " if words else "") + f"a suit: {', '.join(suits)}")
            return [f"a bid for {self.who(seat)}: {', '.join(words)}"]
        out = super().accepted_now()
        last = self.roem_window() if kind in ("play", "deal", "over") else None
        if last is not None and last.roem > 0:
            out.append(f"roem {last.roem} [SEAT]: a roem claim for trick {last.number} ({last.roem} "
                       f"on the table; default: its winner, {self.who(last.winner)})")
        return out

    def roem_window(self) -> Any:
        """The trick a roem claim is for now, or None: the last trick with cards, when it is
        complete (rule book 9.3: after its fourth card, before the next trick's first card)."""
        r = self.current_round()
        last = next((t for t in reversed(r.tricks if r is not None else []) if t.cards), None)
        return last if last is not None and last.complete else None

    def parse_game(self, parts: list[str], seat: int | None, text: str) -> dict[str, Any] | str | None:
        word = parts[0]
        if word == "turn" and seat is None:
            if len(parts) != 2:
                raise InputError("turn needs the card: turn 4h")
            return self.base("trump_turned", card=turned_card(parts[1]))
        if word == "roem":
            return self._roem(parts[1:], seat)
        if len(parts) != 1:
            return None
        if word in ("pass", "p", "pas", "accept", "a"):
            call = "pass" if word in ("pass", "p", "pas") else "accept"
            return self.base("bid", seat=self.seat_for(seat, ("bid",), "", {"type": "bid", "call": call}),
                             call=call)
        try:
            suit = suit_word(word)
        except CardError:
            return None
        kind, _ = self.expected()
        if kind == "play" and seat is None:
            raise InputError(f"{word!r} is a suit; a card has a rank too (e.g. j{word})")
        call = SUIT_LETTERS[suit]
        return self.base("bid", seat=self.seat_for(seat, ("bid",), "", {"type": "bid", "call": call}),
                         call=call)

    def said_game(self, e: Event) -> str | None:
        d: Any = e
        if e.type == "trump_turned":
            return f"turned {d.card}"
        if e.type == "roem":
            return f"{self.who(d.seat)} claimed {d.points} roem"
        if e.type == "bid" and d.call == "accept":
            return f"{self.who(d.seat)} accepted the turned suit"
        if e.type == "bid" and d.call == "pass":
            return f"{self.who(d.seat)} passed"
        return None

    def _roem(self, args: list[str], seat: int | None) -> dict[str, Any]:
        if not args or not args[0].isdigit():
            raise InputError("roem needs the points: roem 20 [SEAT]")
        points = int(args[0])
        if len(args) > 1:
            seat = self.seat_arg(args[1])
        if seat is None:
            r = self.current_round()
            last = next((t for t in reversed(r.tricks if r else []) if t.complete), None)
            if last is None:
                raise InputError("no trick has been won yet; say who claims: roem 20 SEAT")
            seat = last.winner
        return self.base("roem", seat=seat, points=points)

    def read_deal(self, ask: Ask, show: Show, unseen: bool = False) -> dict[str, Any]:
        """Ask the four hands (the fourth is the rest of the pack), or 'unseen'."""
        if unseen:
            return self.base("dealt")
        return self.read_four_hands(ask, show, 8)

    def random_deal(self, rng: random.Random) -> dict[str, Any]:
        deck = list(range(32))
        rng.shuffle(deck)
        hands = [sorted(deck[8 * s:8 * s + 8]) for s in range(4)]
        return self.base("dealt", hands=[hand_text(sum(1 << c for c in h)).split() for h in hands])


#: The recorder of this game (what ``jaslog.record.open_recorder`` loads).
RECORDER = KlaverjasRecorder
