"""Recording Klaberjass (2 players): the deal (two hands of six and the turn-up), the bids
(``take``, ``pass``, ``schmeiss``, a suit in round 2, ``annul`` or ``play`` to answer a
schmeiss), the second deal (three more cards each and the stock's bottom card), the dix,
sequences, bella and the plays."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from jaslog.cards import CARD_TEXT, SUIT_LETTERS, CardError, hand_text, parse_card, parse_hand
from jaslog.events import Event
from jaslog.games.klaberjass.rules import bella_cards, dix_card, run_mask, runs
from jaslog.record.core import UNSEEN, Ask, InputError, Recorder, Show, suit_word

HELP = """\
  jh, 10s, T♥, ah      the next player plays that card
  take, pass (pas)     a bid in round 1 (take: the turn-up's suit is trumps)
  c, d, h, s           round 2: the next player names trumps (not the turn-up's;
                       also clubs... or klaveren, ruiten, harten, schoppen)
  schmeiss             offer to play the turn-up's suit (round 2: a suit) or to
                       annul the deal
  annul, play          the answer to a schmeiss
  deal                 a new deal: asks both hands (or 'unseen') and the turn-up
  deal unseen [CARD]   a new deal whose hands nobody saw, turning up CARD
                       (asked when left out)
  second               the second deal: three more cards each and the stock's
                       bottom card (asked, or taken from the recorded stock;
                       'deal' says the same when it is due)
  dix [SEAT]           the seven of trumps exchanged for the turn-up (default:
                       the player holding it)
  seq [SEAT] 7h 8h 9h  a sequence declared (default: the player holding it,
                       else the player due)
  bella [SEAT]         bella announced (default: the player who has just played
                       the second of the king and queen of trumps)
  score S0 S1 [...]    the deal due, written on the sheet by the players' scores
                       alone (before its deal); after them: maker SEAT, trump H,
                       points P0 P1, melds M0 M1, made|bete|tie|revoke"""

CALL_WORDS = {"take": "take", "t": "take", "pass": "pass", "p": "pass", "pas": "pass",
              "schmeiss": "schmeiss",
              "sch": "schmeiss", "schm": "schmeiss", "annul": "annul", "play": "play"}


class KlaberjassRecorder(Recorder):
    game_name = "klaberjass"
    round_word = "deal"
    game_help = HELP
    score_owners: ClassVar[str | None] = None
    ruling_example = "3 0 120 misdeal"
    score_words: ClassVar[dict[str, str]] = {
        "maker": "chooser", "chooser": "chooser", "trump": "trump", "troef": "trump",
        "points": "points", "punten": "points", "melds": "roem", "roem": "roem",
        "result": "result"}
    score_results = ("made", "bete", "tie", "revoke")
    score_example = "182 0 maker 0 trump h points 162 0 melds 20 0"

    # ------------------------------------------------------------------ the prompt and help

    def doing(self, kind: str, seat: int | None) -> str:
        if kind == "bid":
            return f"{self.who(seat)} bids ({', '.join(self.calls())})"
        if kind == "second_deal":
            return f"{self.who(seat)} deals three more each: type 'second'"
        return super().doing(kind, seat)

    def due(self, kind: str, seat: int | None) -> str:
        if kind == "bid":
            return f"{self.who(seat)} must bid: {', '.join(self.calls())}"
        if kind == "second_deal":
            return "the second deal is due: type 'second'"
        return super().due(kind, seat)

    def calls(self) -> list[str]:
        r = self.current_round()
        return [c.lower() for c in r.bidding.allowed_calls()] if r is not None else []

    def accepted_now(self) -> list[str]:
        kind, seat = self.expected()
        r = self.current_round()
        if kind == "bid":
            return [f"a bid for {self.who(seat)}: {', '.join(self.calls())}"]
        if kind == "second_deal":
            how = ("taken from the recorded stock" if r.stock is not None else
                   "asks both players' three cards and the bottom card" if r.hands_known else
                   "asks the stock's bottom card (the hands were not recorded)")
            return [f"second: the second deal ({how})"]
        out = super().accepted_now()
        if kind != "play" or r is None:
            return out
        if r.bidding.turn_up_accepted and r.dix_seat is None and not r.plays:
            seven = dix_card(r.trump)
            holder = next((s for s in (0, 1) if r.hands[s] >> seven & 1), None)
            if not r.hands_known and r.turn_up != seven:
                out.append("dix [SEAT]: the seven of trumps exchanged for the turn-up")
            elif holder is not None:  # the hands were seen: only its holder may exchange it
                out.append(f"dix: {self.who(holder)} exchanges {CARD_TEXT[seven].lower()} for the "
                           "turn-up")
        if len(r.tricks) < 2:
            out += self.sequences_open(r)
        bella = self.bella_open()
        if bella is not None:
            out.append(f"bella: {self.who(bella)} announces bella (the second of the king and "
                       "queen of trumps is in this trick)")
        return out

    def sequences_open(self, r: Any) -> list[str]:
        """The sequences that may be declared now (before trick 2, rule book 4.5): with the
        hands seen, each player's runs none of whose cards was declared; else the word."""
        if not r.hands_known:
            return ["seq [SEAT] CARDS: a sequence declared (3 or more cards of a suit in a row)"]
        found = [f"seq {hand_text(run_mask(x)).lower()} by {self.who(s)}" for s in (0, 1)
                 for x in runs(r.hands[s] | r.by_seat[s])
                 if not any(d.seat == s and d.cards & run_mask(x) for d in r.declarations)]
        return ["a sequence declared: " + "; ".join(found)] if found else []

    def bella_open(self) -> int | None:
        """The seat that may announce bella now (rule book 4.6): it has played both the king and
        the queen of trumps, the second in the trick of the last card, and not announced it."""
        r = self.current_round()
        if r is None or r.trump is None:
            return None
        kq = bella_cards(r.trump)
        plays = [(t.seat_of(i), c) for t in r.tricks for i, c in enumerate(t.cards)]
        for seat in (0, 1):
            mine = [i for i, (s, c) in enumerate(plays) if s == seat and kq >> c & 1]
            announced = any(b.seat == seat and b.fault is None for b in r.bellas)
            if len(mine) == 2 and mine[-1] // 2 == (len(plays) - 1) // 2 and not announced:
                return seat
        return None

    # ------------------------------------------------------------------ reading input

    def parse_deal(self, rest: str) -> dict[str, Any] | str:
        kind, _ = self.expected()
        if kind == "second_deal":
            if rest:
                raise InputError("the second deal is due: type 'second' (or 'deal')")
            return "second"
        word, _, arg = rest.partition(" ")
        if word in UNSEEN and arg.strip():
            c = self.card_arg(arg.strip())
            return self.base("dealt", turn_up=CARD_TEXT[c])
        return super().parse_deal(rest)

    def card_arg(self, text: str) -> int:
        try:
            return parse_card(text, lenient=True)
        except CardError as e:
            raise InputError(str(e)) from None

    def parse_game(self, parts: list[str], seat: int | None, text: str) -> dict[str, Any] | str | None:
        word, args = parts[0], parts[1:]
        kind, _ = self.expected()
        if word in ("second", "second_deal") and not args:
            if kind != "second_deal":
                raise InputError(f"no second deal is due now: {self.due(*self.expected())}")
            return "second"
        if word in ("dix", "bella"):
            if len(args) > 1:
                raise InputError(f"{word} takes at most a seat: {word} [SEAT]")
            if args:
                seat = self.seat_arg(args[0])
            if word == "dix":
                return self.base("dix", seat=self.dix_seat(seat))
            return self.base("bella", seat=self.bella_seat(seat))
        if word in ("seq", "sequence", "sq"):
            return self.sequence(args, seat)
        if args:
            return None
        if word in CALL_WORDS and not (word == "play" and kind == "play"):
            call = CALL_WORDS[word]
            return self.base("bid", seat=self.seat_for(seat, ("bid",), "bid", {"type": "bid", "call": call}),
                             call=call)
        if word == "play":
            raise InputError("type the card itself (e.g. jh) to play it")
        try:
            suit = suit_word(word)
        except CardError:
            return None
        if kind == "play" and seat is None:
            raise InputError(f"{word!r} is a suit; a card has a rank too (e.g. j{word})")
        call = SUIT_LETTERS[suit]
        return self.base("bid", seat=self.seat_for(seat, ("bid",), "bid", {"type": "bid", "call": call}),
                         call=call)

    def said_game(self, e: Event) -> str | None:
        d: Any = e
        said = {"take": "took the turn-up's suit", "pass": "passed", "schmeiss": "schmeissed",
                "annul": "annulled the deal", "play": "played on"}
        if e.type == "bid" and d.call in said:
            return f"{self.who(d.seat)} {said[d.call]}"
        if e.type == "second_deal":
            return f"the second deal (the stock's bottom card {d.bottom})"
        if e.type == "dix":
            return f"{self.who(d.seat)} exchanged the dix"
        if e.type == "sequence":
            return f"{self.who(d.seat)} declared {' '.join(d.cards)}"
        if e.type == "bella":
            return f"{self.who(d.seat)} announced bella"
        return None

    def dix_seat(self, seat: int | None) -> int:
        if seat is not None:
            return seat
        r = self.current_round()
        if r is None or r.trump is None:
            raise InputError("the dix is exchanged once trumps are fixed")
        seven = dix_card(r.trump)
        if r.hands_known:
            holder = next((s for s in (0, 1) if r.hands[s] >> seven & 1), None)
            if holder is not None:
                return holder
            raise InputError(f"nobody holds {CARD_TEXT[seven]} (the dix) in the recorded hands")
        raise InputError("the hands were not recorded: say who exchanges: dix SEAT")

    def bella_seat(self, seat: int | None) -> int:
        if seat is not None:
            return seat
        due = self.bella_open()
        if due is not None:
            return due
        r = self.current_round()
        t = next((t for t in reversed(r.tricks if r else []) if t.cards), None)
        if t is None:
            raise InputError("no card has been played yet; say who: bella SEAT")
        return int(t.seat_of(len(t.cards) - 1))

    def sequence(self, args: list[str], seat: int | None) -> dict[str, Any]:
        if args and args[0].isdigit():
            seat = self.seat_arg(args[0])
            args = args[1:]
        if len(args) < 3:
            raise InputError("a sequence is 3 or more cards: seq [SEAT] 7h 8h 9h")
        try:
            mask = parse_hand(" ".join(args))
        except CardError as e:
            raise InputError(str(e)) from None
        if seat is None:
            r = self.current_round()
            if r is not None and r.hands_known:
                seat = next((s for s in (0, 1) if mask & ~(r.hands[s] | r.by_seat[s]) == 0), None)
            if seat is None:
                kind, due = self.expected()
                if kind != "play" or due is None:
                    raise InputError("say who declares: seq SEAT CARDS")
                seat = due
        return self.base("sequence", seat=seat, cards=hand_text(mask).split())

    # ------------------------------------------------------------------ deals

    def interact(self, word: str, ask: Ask, show: Show) -> dict[str, Any] | str:
        if word == "second":
            return self.read_second(ask, show)
        return super().interact(word, ask, show)

    def trial_deal(self) -> dict[str, Any]:
        return self.base("dealt", turn_up="7C")

    def read_deal(self, ask: Ask, show: Show, unseen: bool = False) -> dict[str, Any]:
        """Both hands of six (or 'unseen') and the turn-up card."""
        hands: list[int] = []
        seen = 0
        if not unseen:
            for seat in (0, 1):
                h = self.ask_hand(ask, show, seat, 6, seen, allow_unseen=seat == 0)
                if h is None:
                    break
                seen |= h
                hands.append(h)
        up = self.ask_card(ask, show, "the turn-up card", seen)
        fields: dict[str, Any] = {"turn_up": CARD_TEXT[up]}
        if len(hands) == 2:
            fields = {"hands": [hand_text(h).split() for h in hands], **fields}
        return self.base("dealt", **fields)

    def random_deal(self, rng: random.Random) -> dict[str, Any]:
        """Shuffled and dealt as at the table: three each (the elder first), three more each,
        the turn-up, and the stock (recorded, so the second deal follows from it)."""
        _, dealer = self.expected()
        dealer = dealer if dealer is not None else 0
        elder = 1 - dealer
        deck = list(range(32))
        rng.shuffle(deck)
        hands = [0, 0]
        hands[elder] = sum(1 << c for c in deck[0:3] + deck[6:9])
        hands[dealer] = sum(1 << c for c in deck[3:6] + deck[9:12])
        return self.base("dealt", hands=[hand_text(h).split() for h in hands],
                         turn_up=CARD_TEXT[deck[12]], stock=[CARD_TEXT[c] for c in deck[13:]])

    def read_second(self, ask: Ask, show: Show) -> dict[str, Any]:
        """The second deal: from the recorded stock, or asked (three cards each and the bottom
        card; only the bottom card when the hands were not recorded)."""
        r = self.current_round()
        if r.stock is not None:
            extra = [0, 0]
            extra[r.elder] = sum(1 << c for c in r.stock[0:3])
            extra[r.dealer] = sum(1 << c for c in r.stock[3:6])
            show(f"from the stock: {self.who(r.elder)} gets {hand_text(extra[r.elder])}, "
                 f"{self.who(r.dealer)} gets {hand_text(extra[r.dealer])}; bottom card "
                 f"{CARD_TEXT[r.stock[-1]]}")
            return self.base("second_deal", hands=[hand_text(h).split() for h in extra],
                             bottom=CARD_TEXT[r.stock[-1]])
        taken = (r.dealt[0] | r.dealt[1] if r.dealt else 0) | 1 << r.turn_up
        if not r.hands_known:
            bottom = self.ask_card(ask, show, "the stock's bottom card", taken)
            return self.base("second_deal", bottom=CARD_TEXT[bottom])
        extra = [0, 0]
        for seat in (r.elder, r.dealer):
            h = self.ask_hand(ask, show, seat, 3, taken, allow_unseen=False,
                              what="second deal: three more cards for")
            assert h is not None
            extra[seat] = h
            taken |= h
        bottom = self.ask_card(ask, show, "the stock's bottom card", taken)
        return self.base("second_deal", hands=[hand_text(h).split() for h in extra],
                         bottom=CARD_TEXT[bottom])


#: The recorder of this game (what ``jaslog.record.open_recorder`` loads).
RECORDER = KlaberjassRecorder
