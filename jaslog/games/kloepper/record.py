"""Recording Kloepper (4 players, 24 cards): the deal (four hands of six), the partner call of
the player holding both black queens (an ace, or alone), knocks and knock-backs, and the
plays."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from jaslog.cards import CARD_TEXT, cards_of, hand_text
from jaslog.events import Event
from jaslog.games.kloepper.rules import ACES, BLACK_QUEENS, PACK, sides
from jaslog.record.core import Ask, InputError, Recorder, Show

HELP = """\
  jh, 10s, T♥, ad      the next player plays that card (9 10 J Q K A)
  ac, as, ah, alone    the holder of both black queens calls his partner's ace
                       or goes alone (alleen), when it is due ('call ac SEAT'
                       names the caller when the hands were not recorded)
  knock SEAT           SEAT knocks, undertaking every trick (before trick 2;
                       also 'klop SEAT')
  kb SEAT              SEAT knocks back (also 'knock back SEAT', 'klop terug
                       SEAT')
  deal                 a new deal: asks the hands of seats 0-2 (or 'unseen');
                       seat 3 gets the rest of the 24 cards
  deal unseen          a new deal whose hands nobody saw
  score S0 S1 S2 S3 [...]
                       the deal due, written on the sheet by the players' scores
                       alone (before its deal); after them: holder SEAT (of
                       the black queens), points P0 P1 P2 P3,
                       queens|others|none|revoke (who scored)"""

CALLS = {"ac": "AC", "ad": "AD", "ah": "AH", "as": "AS", "alone": "alone", "a": "alone",
         "alleen": "alone"}


class KloepperRecorder(Recorder):
    game_name = "kloepper"
    round_word = "deal"
    game_help = HELP
    pack: ClassVar[int] = PACK
    scores_help = "S0 S1 S2 S3"
    score_count = 4
    ruling_example = "2 0 4 4 0 misdeal"
    score_words: ClassVar[dict[str, str]] = {
        "holder": "chooser", "chooser": "chooser", "points": "points", "punten": "points",
        "result": "result"}
    score_results = ("queens", "others", "none", "revoke")
    score_example = "4 0 4 0 holder 0 points 70 20 30 0"

    def doing(self, kind: str, seat: int | None) -> str:
        if kind == "call":
            return f"{self.who(seat)} holds both black queens: call {self.call_words()}"
        return super().doing(kind, seat)

    def due(self, kind: str, seat: int | None) -> str:
        if kind == "call":
            return f"{self.who(seat)} must call an ace or go alone: {self.call_words()}"
        return super().due(kind, seat)

    def call_words(self) -> str:
        """The partner calls the rules accept now (rule book 5.3, options ``both_queens`` and
        ``call_own_ace_allowed``): the non-trump aces (not the caller's own, when his hand was
        seen), and ``alone``."""
        g = self.fold.state
        kind, seat = self.expected()
        r = self.current_round()
        hand = r.dealt[seat] if kind == "call" and seat is not None and r is not None \
            and r.dealt is not None else 0
        aces = [CARD_TEXT[a].lower() for a in ACES if not g.trumps.mask >> a & 1
                and not (hand >> a & 1 and not g.own_ace)] if "call_ace" in g.both_queens else []
        words = aces + (["alone"] if "alone" in g.both_queens else [])
        return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)

    def knock_window(self) -> bool:
        r = self.current_round()
        return r is not None and not r.closed and r.plays <= 4

    def accepted_now(self) -> list[str]:
        kind, seat = self.expected()
        if kind == "call":
            return [f"the partner call of {self.who(seat)}: {self.call_words()}"]
        out = super().accepted_now()
        r = self.current_round()
        if kind == "play" and r is not None:
            if r.call is None and not r.hands_known and not r.plays:
                out.append("call ACE|alone SEAT: the partner call of the holder of both black "
                           "queens (the hands were not recorded)")
            if self.knock_window():
                out += self.knocks_open(r)
        return out

    def knocks_open(self, r: Any) -> list[str]:
        """The knock, or after it the knock-back, that may be made now (rule book 5.5): a knock
        by a holder of a black queen, then a knock-back by the other side, one of each."""
        seen = r.dealt is not None
        if r.knock_made() is None:
            who = [s for s in range(4) if r.dealt[s] & BLACK_QUEENS] if seen else []
            return ["knock SEAT: a knock (until the first card of trick 2)"
                    + (f": {self.seats_text(who)}, who hold a black queen" if who else "")]
        if r.knock_back_made() is None:
            sd = sides(r.dealt, r.valid_call()) if seen else None
            who = [s for s in range(4) if not sd.on_queens(s)] if sd is not None else []
            return ["kb SEAT: a knock-back by the side without the black queens (until the first "
                    "card of trick 2)" + (f": {self.seats_text(who)}" if who else "")]
        return []

    def seats_text(self, seats: list[int]) -> str:
        names = [self.who(s) for s in seats]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]

    def parse_game(self, parts: list[str], seat: int | None, text: str) -> dict[str, Any] | str | None:
        word, args = parts[0], parts[1:]
        kind, _ = self.expected()
        if word == "call":
            if not args or args[0] not in CALLS or len(args) > 2:
                raise InputError(f"call what? call ACE [SEAT] (ACE: {self.call_words()})")
            if len(args) == 2:
                seat = self.seat_arg(args[1])
            call = CALLS[args[0]]
            return self.base("partner_call", seat=self.seat_for(
                seat, ("call",), "partner call", {"type": "partner_call", "call": call}), call=call)
        if word in ("knock", "kb", "knockback", "knock_back", "back", "klop"):
            back = word not in ("knock", "klop")
            if word in ("knock", "klop") and args[:1] in (["back"], ["terug"]):
                back, args = True, args[1:]
            if len(args) > 1:
                raise InputError("knock SEAT or kb SEAT")
            if args:
                seat = self.seat_arg(args[0])
            if seat is None:
                raise InputError("say who knocks: " + ("kb SEAT" if back else "knock SEAT"))
            return self.base("knock_back" if back else "knock", seat=seat)
        if args:
            return None
        if word in CALLS and (kind == "call" or word in ("alone", "a", "alleen")):
            call = CALLS[word]
            return self.base("partner_call", seat=self.seat_for(
                seat, ("call",), "partner call", {"type": "partner_call", "call": call}), call=call)
        return None

    def said_game(self, e: Event) -> str | None:
        d: Any = e
        if e.type == "partner_call":
            what = "went alone" if d.call == "alone" else f"called {d.call}"
            return f"{self.who(d.seat)} {what}"
        if e.type in ("knock", "knock_back"):
            return f"{self.who(d.seat)} knocked{' back' if e.type == 'knock_back' else ''}"
        return None

    def read_deal(self, ask: Ask, show: Show, unseen: bool = False) -> dict[str, Any]:
        """The hands of seats 0-2 (six cards each; seat 3 gets the rest), or 'unseen'."""
        if unseen:
            return self.base("dealt")
        return self.read_four_hands(ask, show, 6)

    def random_deal(self, rng: random.Random) -> dict[str, Any]:
        deck = list(cards_of(PACK))
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[6 * s:6 * s + 6]) for s in range(4)]
        return self.base("dealt", hands=[hand_text(h).split() for h in hands])


#: The recorder of this game (what ``jaslog.record.open_recorder`` loads).
RECORDER = KloepperRecorder
