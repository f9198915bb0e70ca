"""The scorer's recorder: short input at the table turned into events appended to the store.

A :class:`Recorder` knows whose turn it is (from the fold's ``state.expected()``), reads
what a scorer types (``jh``, ``10s``, ``pass``, ``h``, ``accept``, ``roem 20``, ``deal``,
``turn 4h``, ``note ...``, ``ruling ...``), refuses what the rules refuse with the reason,
warns before recording a rule violation, and appends every event to the store with an id
(so a retry never duplicates) and the time. Nothing is ever taken back: ``undo`` explains
that and offers the correction the rules allow, a referee's ruling on the round.

:func:`run` is the loop; the terminal (or a test) supplies ``ask`` and ``show``.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jaslog.cards import (
    CARD_TEXT,
    FULL_DECK,
    SUIT_LETTERS,
    CardError,
    hand_text,
    parse_card,
    parse_hand,
    parse_suit,
)
from jaslog.fold import GameFold
from jaslog.render import describe_event, render_table
from jaslog.store import ConflictError, RejectedError, Store, StoreError
from jaslog.store.codec import now_rfc3339

HELP = """\
What to type (the recorder knows whose turn it is):
  jh, 10s, T♥, ah      the next seat plays that card
  pass, accept         the next seat's bid (accept: the turned suit)
  c, d, h, s           the next seat names a trump suit
  2 pass, 3 jh         the same for an explicit seat (e.g. a bid out of turn)
  deal                 a new round: asks the four hands, or 'unseen'
  deal unseen          a new round whose hands nobody saw
  turn 4h              random trump: the card turned from the separate pack
  roem 20 [SEAT]       a roem claim for the trick just won (default: the trick's winner)
  note TEXT            a note (changes nothing)
  ruling [R S0 S1 REASON]  the referee's score for round R (asked when left out)
  undo                 how to correct the last event (events are never removed)
  show                 the table again
  help, quit"""


class InputError(ValueError):
    """What the scorer typed cannot be an event here; the message says why."""


@dataclass
class Outcome:
    """What one line of input did: a message, events appended, or the end."""

    message: str = ""
    appended: int = 0
    quit: bool = False
    error: bool = False


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


class Recorder:
    """One game being recorded into a store."""

    def __init__(self, store: Store, game: str, *, stamp: bool = True) -> None:
        self.store, self.game, self.stamp = store, game, stamp
        self.fold: GameFold = store.fold(game)
        if self.fold.game != "klaverjas":
            raise StoreError(f"jaslog record knows Klaverjas; game {game} is {self.fold.game} "
                             "(use `jaslog append` for it)")

    # ------------------------------------------------------------------ state

    def reload(self) -> None:
        self.fold = self.store.fold(self.game)

    @property
    def next_seq(self) -> int:
        return self.fold.next_seq

    def who(self, seat: int | None) -> str:
        return f"seat {seat} ({self.fold.seats[seat]})" if seat is not None else "?"

    def expected(self) -> tuple[str, int | None]:
        kind, seat = self.fold.state.expected()
        return str(kind), seat

    def prompt(self) -> str:
        kind, seat = self.expected()
        g = self.fold.state
        where = f"round {len(g.rounds)}" if g.rounds else "no round yet"
        if kind == "over":
            what = "game over: note, ruling or quit"
        elif kind == "deal":
            what = f"{self.who(seat)} deals: type 'deal'"
        elif kind == "turn":
            what = f"{self.who(seat)} turns a card: 'turn 4h'"
        elif kind == "bid":
            what = f"{self.who(seat)} bids"
        else:
            r = g.rounds[-1]
            t = r.tricks[-1]
            n = t.number + 1 if t.complete else t.number
            what = f"trick {min(n, 8)}: {self.who(seat)} plays"
        return f"[seq {self.next_seq}] {where}: {what}> "

    # ------------------------------------------------------------------ reading input

    def _base(self, type_: str, **fields: Any) -> dict[str, Any]:
        e: dict[str, Any] = {"game": self.game, "seq": self.next_seq, "type": type_}
        if self.stamp:
            e["at"] = now_rfc3339()
        e["id"] = str(uuid.uuid4())
        e.update(fields)
        return e

    def _seat_for(self, explicit: int | None, kinds: tuple[str, ...]) -> int:
        kind, seat = self.expected()
        if explicit is not None:
            return explicit
        if kind not in kinds or seat is None:
            wanted = " or ".join(kinds)
            raise InputError(f"no {wanted} is due now: {self._due(kind, seat)}")
        return seat

    def _due(self, kind: str, seat: int | None) -> str:
        return {"deal": f"the next round must be dealt ({self.who(seat)} deals): type 'deal'",
                "turn": "a trump card must be turned: 'turn 4h'",
                "bid": f"{self.who(seat)} must bid: pass, accept or a suit",
                "play": f"{self.who(seat)} must play a card",
                "over": "the game is over"}.get(kind, kind)

    def parse(self, text: str) -> dict[str, Any] | str:
        """One line of input: an event dict to append, or a command word
        (``help``, ``quit``, ``show``, ``deal``, ``ruling``, ``undo``, ``nothing``)."""
        t = text.strip()
        if not t:
            return "nothing"
        low = t.lower()
        word, _, rest = low.partition(" ")
        if low in ("help", "?", "h?"):
            return "help"
        if low in ("quit", "exit", "q"):
            return "quit"
        if low in ("show", "table"):
            return "show"
        if low == "undo":
            return "undo"
        if word == "deal":
            if rest.strip() in ("unseen", "-", "none"):
                return self._deal(None)
            if rest.strip():
                raise InputError("type 'deal' (the hands are asked next) or 'deal unseen'")
            return "deal"
        if word == "turn":
            return self._base("trump_turned", card=turned_card(rest))
        if word == "note":
            body = t[len(word):].strip()
            if not body:
                raise InputError("a note needs text: note TEXT")
            extra: dict[str, Any] = {}
            if self.fold.state.rounds:
                extra["round"] = len(self.fold.state.rounds)
            return self._base("note", text=body, **extra)
        if word == "ruling":
            if not rest.strip():
                return "ruling"
            return self.ruling_from(t[len(word):].strip())
        if word == "roem":
            return self._roem(rest.split())
        seat: int | None = None
        parts = low.replace(":", " ").split()
        if len(parts) == 2 and parts[0].isdigit():
            seat = int(parts[0])
            if not 0 <= seat <= 3:
                raise InputError(f"{seat} is not a seat (0-3)")
            low = parts[1]
        if low in ("pass", "p", "accept", "a"):
            call = "pass" if low in ("pass", "p") else "accept"
            return self._base("bid", seat=self._seat_for(seat, ("bid",)), call=call)
        try:
            suit = parse_suit(low, lenient=True)
        except CardError:
            suit = None
        if suit is not None:
            kind, _ = self.expected()
            if kind == "play" and seat is None:
                raise InputError(f"{low!r} is a suit; a card has a rank too (e.g. j{low})")
            return self._base("bid", seat=self._seat_for(seat, ("bid",)), call=SUIT_LETTERS[suit])
        try:
            c = parse_card(low, lenient=True)
        except CardError:
            raise InputError(f"{text.strip()!r}: not something the recorder knows; type 'help'") \
                from None
        return self._base("play", seat=self._seat_for(seat, ("play",)), card=CARD_TEXT[c])

    def _roem(self, args: list[str]) -> dict[str, Any]:
        if not args or not args[0].isdigit():
            raise InputError("roem needs the points: roem 20 [SEAT]")
        points = int(args[0])
        if len(args) > 1:
            if not args[1].isdigit() or not 0 <= int(args[1]) <= 3:
                raise InputError(f"{args[1]!r} is not a seat (0-3)")
            seat = int(args[1])
        else:
            g = self.fold.state
            tricks = g.rounds[-1].tricks if g.rounds else []
            last = next((t for t in reversed(tricks) if t.complete), None)
            if last is None:
                raise InputError("no trick has been won yet; say who claims: roem 20 SEAT")
            seat = last.winner
        return self._base("roem", seat=seat, points=points)

    def ruling_from(self, text: str) -> dict[str, Any]:
        """``R S0 S1 REASON...``: the referee's score for round R."""
        parts = text.split(None, 3)
        if len(parts) < 4 or not all(p.isdigit() for p in parts[:3]):
            raise InputError("write a ruling as: ruling ROUND SCORE0 SCORE1 REASON "
                             "(e.g. ruling 3 0 162 revoke by bob)")
        r, s0, s1 = (int(p) for p in parts[:3])
        return self._base("ruling", round=r, score=[s0, s1], reason=parts[3])

    def _deal(self, hands: list[int] | None) -> dict[str, Any]:
        if hands is None:
            return self._base("dealt")
        return self._base("dealt", hands=[hand_text(h).split() for h in hands])

    def read_hands(self, ask: Callable[[str], str], show: Callable[[Any], None]) -> dict[str, Any]:
        """Ask the four hands (the fourth is the rest of the pack), or 'unseen'."""
        hands: list[int] = []
        seen = 0
        for seat in range(4):
            if seat == 3:
                rest = FULL_DECK & ~seen
                show(f"hand of {self.who(3)}: the rest of the pack: {hand_text(rest)}")
                hands.append(rest)
                break
            while True:
                text = ask(f"hand of {self.who(seat)} (8 cards, or 'unseen')> ").strip()
                if text.lower() in ("unseen", "-", "none") and seat == 0:
                    return self._deal(None)
                try:
                    h = parse_hand(text)
                except CardError as e:
                    show(f"✗ {e}")
                    continue
                if h.bit_count() != 8:
                    show(f"✗ a hand is 8 cards, not {h.bit_count()}")
                    continue
                if h & seen:
                    show(f"✗ {hand_text(h & seen)} already dealt to another seat")
                    continue
                seen |= h
                hands.append(h)
                break
        return self._deal(hands)

    # ------------------------------------------------------------------ writing

    def violations_of(self, event: dict[str, Any]) -> list[str]:
        """The rule violations ``event`` would add (checked on a copy of the fold)."""
        from jaslog.events import event_from_dict

        trial = copy.deepcopy(self.fold)
        before = len(trial.state.violations)
        trial.apply(event_from_dict(event))
        return [f"{v.rule}: {v.message}" for v in trial.state.violations[before:]]

    def append(self, event: dict[str, Any]) -> Outcome:
        """Append one event (validated by the store); refusals come back as messages."""
        try:
            self.store.append(self.game, [event], expected_seq=event["seq"])
        except ConflictError as e:
            self.reload()
            return Outcome(f"✗ {e}. Someone else recorded in this game: the table is reloaded; "
                           "type it again if it still holds.", error=True)
        except RejectedError as e:
            reason = str(e.fold_error.message) if e.fold_error is not None else str(e)
            code = f" [{e.code}]" if e.code else ""
            return Outcome(f"✗ refused: {reason}{code}", error=True)
        self.reload()
        return Outcome("", appended=1)

    def last_event_text(self) -> str:
        events = self.store.events(self.game)
        last = events[-1]
        return describe_event(self.fold, last).plain


def run(rec: Recorder, ask: Callable[[str], str], show: Callable[[Any], None]) -> int:
    """The recorder's loop until ``quit`` or end of input; returns the events appended."""
    total = 0
    show(render_table(rec.fold))
    while True:
        try:
            text = ask(rec.prompt())
        except EOFError:
            break
        try:
            item = rec.parse(text)
            if item == "deal":
                item = rec.read_hands(ask, show)
            elif item == "ruling":
                item = _ask_ruling(rec, ask)
            elif item == "undo":
                item = _undo(rec, ask, show)
        except InputError as e:
            show(f"✗ {e}")
            continue
        except EOFError:
            break
        if isinstance(item, str):
            if item == "quit":
                break
            if item == "help":
                show(HELP)
            elif item == "show":
                show(render_table(rec.fold))
            continue
        try:
            warn = rec.violations_of(item)
        except Exception:  # the store gives the precise refusal below
            warn = []
        if warn:
            for w in warn:
                show(f"! this breaks a rule: {w}")
            answer = ask("record it anyway? it will stand as a violation [y/N]> ")
            if answer.strip().lower() not in ("y", "yes"):
                show("not recorded")
                continue
        try:
            out = rec.append(item)
        except StoreError as e:
            show(f"✗ {e}")
            continue
        if out.error:
            show(out.message)
            continue
        total += out.appended
        show(describe_event(rec.fold, rec.store.events(rec.game, upto=item["seq"])[-1]))
        show(render_table(rec.fold))
    return total


def _ask_ruling(rec: Recorder, ask: Callable[[str], str]) -> dict[str, Any]:
    rounds = len(rec.fold.state.rounds)
    if not rounds:
        raise InputError("no round has been dealt: there is nothing to rule on")
    r = ask(f"round to rule on [{rounds}]> ").strip() or str(rounds)
    score = ask("score for team 0 and team 1 (e.g. 0 162)> ").replace(",", " ").split()
    reason = ask("reason> ").strip()
    if len(score) != 2:
        raise InputError("a ruling's score is two numbers")
    return rec.ruling_from(f"{r} {score[0]} {score[1]} {reason or 'ruling'}")


def _undo(rec: Recorder, ask: Callable[[str], str], show: Callable[[Any], None]) -> dict[str, Any] | str:
    if rec.next_seq <= 1:
        raise InputError("nothing to undo: only the game's start is recorded (and it stays)")
    show(f"Events are facts: the last one ({rec.last_event_text()}) stays in the log.")
    rounds = len(rec.fold.state.rounds)
    if not rounds:
        raise InputError("no round has been dealt; add a note to explain the mistake")
    show(f"The correction the rules allow is a referee's ruling on round {rounds}: it replaces "
         "the round's score (and ends the round if it is still in play). Or add a note.")
    if ask(f"record a ruling on round {rounds} now? [y/N]> ").strip().lower() not in ("y", "yes"):
        return "nothing"
    score = ask("score for team 0 and team 1 (e.g. 0 162)> ").replace(",", " ").split()
    reason = ask("reason> ").strip() or "correction of a recording mistake"
    if len(score) != 2:
        raise InputError("a ruling's score is two numbers")
    return rec.ruling_from(f"{rounds} {score[0]} {score[1]} {reason}")
