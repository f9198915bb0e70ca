"""What every game's recorder shares: the prompt, the common words, rulings, the checks before
an event is appended, and the loop.

A :class:`Recorder` knows whose turn it is (from the fold's ``state.expected()``), turns what
a scorer types into an event, refuses what the rules refuse with the reason and rule code,
warns before recording a rule violation, and appends every event to the store with an id (so
a retry never duplicates) and the time. Nothing is ever taken back: ``undo`` explains that
and offers the correction the rules allow, a referee's ruling on the round.

Each game subclasses it (:mod:`jaslog.games.klaverjas.record`, ``.klaberjass``, ``.kloepper``) for
its own words (:meth:`Recorder.parse_game`), its deal (:meth:`Recorder.read_deal`) and what
it accepts now (:meth:`Recorder.accepted_now`).
"""

from __future__ import annotations

import copy
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from jaslog.cards import CARD_TEXT, CardError, cards_of, hand_text, parse_card, parse_hand
from jaslog.engine.fold import FoldError, GameFold
from jaslog.errors import JaslogError
from jaslog.events import EventError, event_from_dict
from jaslog.render import describe_event, render_table
from jaslog.store import ConflictError, RejectedError, Store, StoreError
from jaslog.store.codec import now_rfc3339

Ask = Callable[[str], str]
Show = Callable[[Any], None]

COMMON_HELP = """\
  deal random [SEED]   a new {round} dealt here by shuffling (every hand seen)
  note TEXT            a note (changes nothing)
  ruling [R {scores} REASON]
                       the referee's score for {round} R (asked when left out)
  undo                 how to correct the last event (events are never removed)
  N COMMAND            the same for an explicit seat N (e.g. a call out of turn)
  show                 the table again
  help, quit"""

UNSEEN = ("unseen", "-", "none")

#: The width ``help`` fits in (a terminal of 80 columns).
HELP_WIDTH = 80


class InputError(JaslogError, ValueError):
    """What the scorer typed cannot be an event here; the message says why."""

    code = "bad_input"


class QuitRecording(EOFError):
    """``quit`` typed at a question inside a command (a hand of a deal): the recorder stops
    as at the end of input, and the half-entered event is not recorded."""


#: What the questions inside a deal (a hand, the turn-up, the bottom card) take besides cards.
SUB_WORDS = "'cancel' (back to the prompt, nothing recorded) or 'quit'"


@dataclass
class Outcome:
    """What one appended event did: a message, events appended, or an error."""

    message: str = ""
    appended: int = 0
    quit: bool = False
    error: bool = False


class Recorder:
    """One game being recorded into a store (the game's subclass knows its words)."""

    #: the game this recorder is for (a key of :data:`jaslog.fold.FOLDS`)
    game_name: ClassVar[str] = ""
    #: what a round is called at this table (Klaberjass and Kloepper say "deal")
    round_word: ClassVar[str] = "round"
    #: the lines of ``help`` for this game's own words
    game_help: ClassVar[str] = ""
    #: the pack of the game (a mask) and the size of a hand when the deal is complete
    pack: ClassVar[int] = (1 << 32) - 1
    #: score words in the help: "S0 S1" or "S0 S1 S2 S3"
    scores_help: ClassVar[str] = "S0 S1"
    #: how many scores a ruling gives (one per team in Klaverjas, per player elsewhere)
    score_count: ClassVar[int] = 2
    #: who the scores of a ruling are for (None: the players, by seat)
    score_owners: ClassVar[str | None] = None
    #: an example ruling (after the word ``ruling``)
    ruling_example: ClassVar[str] = "2 0 162 misdeal"

    def __init__(self, store: Store, game: str, *, stamp: bool = True,
                 fold: GameFold | None = None) -> None:
        self.store, self.game, self.stamp = store, game, stamp
        self.fold: GameFold = fold if fold is not None else store.fold(game)
        if self.game_name and self.fold.game != self.game_name:
            raise StoreError(f"game {game} is {self.fold.game}, not {self.game_name}")

    # ------------------------------------------------------------------ state

    @property
    def players(self) -> int:
        return len(self.fold.seats)

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

    def current_round(self) -> Any:
        rounds = self.fold.state.rounds
        return rounds[-1] if rounds else None

    def trick_number(self) -> int:
        """The number of the trick being played (the next one when the last is complete)."""
        r = self.current_round()
        tricks = r.tricks if r is not None else []
        t = next((t for t in reversed(tricks) if t.cards), None)
        if t is None:
            return 1
        return int(t.number) + 1 if t.complete else int(t.number)

    def doing(self, kind: str, seat: int | None) -> str:
        """What the prompt says is due (a game adds its own kinds)."""
        if kind == "over":
            return "game over: note, ruling or quit"
        if kind == "deal":
            return f"{self.who(seat)} deals: type 'deal'"
        if kind == "play":
            return f"trick {self.trick_number()}: {self.who(seat)} plays"
        return f"{self.who(seat)}: {kind}"

    def prompt(self) -> str:
        kind, seat = self.expected()
        n = len(self.fold.state.rounds)
        where = f"{self.round_word} {n}" if n else f"no {self.round_word} yet"
        return f"[seq {self.next_seq}] {where}: {self.doing(kind, seat)}> "

    def due(self, kind: str, seat: int | None) -> str:
        """A sentence saying what is due now, for refusals."""
        return {"deal": f"the next {self.round_word} must be dealt ({self.who(seat)} deals): "
                        "type 'deal'",
                "play": f"{self.who(seat)} must play a card",
                "over": "the game is over"}.get(kind, f"{self.who(seat)}: {kind} is due")

    # ------------------------------------------------------------------ help

    def accepted_now(self) -> list[str]:
        """What may be typed now, beyond the words that are always there."""
        kind, seat = self.expected()
        if kind == "deal":
            return [f"deal: {self.who(seat)} deals {self.round_word} "
                    f"{len(self.fold.state.rounds) + 1} (or 'deal unseen', 'deal random')"]
        if kind == "over":
            return ["the game is over: note, ruling, show or quit"]
        if kind == "play":
            return [f"a card for {self.who(seat)}: {self.legal_text()}"]
        return []

    def legal_text(self) -> str:
        """The cards the seat due may play, as far as the record knows them."""
        r = self.current_round()
        if r is None or not r.hands_known:
            return "any card it may hold (the hands were not recorded)"
        legal = self.fold.state.legal_plays()
        return hand_text(legal).lower() if legal else "none"

    def help_text(self) -> str:
        """What ``help`` shows: what is accepted now, then every word; no line is longer than
        :data:`HELP_WIDTH` (what is accepted now is wrapped at spaces)."""
        import textwrap

        now = [textwrap.fill(x, HELP_WIDTH, initial_indent="  ", subsequent_indent="    ",
                             break_long_words=False, break_on_hyphens=False)
               for x in self.accepted_now()]
        lines = ["Now (the recorder knows whose turn it is):", *now,
                 "What to type:", self.game_help.rstrip("\n"),
                 COMMON_HELP.format(round=self.round_word, scores=self.scores_help)]
        return "\n".join(lines)

    # ------------------------------------------------------------------ reading input

    def base(self, type_: str, **fields: Any) -> dict[str, Any]:
        e: dict[str, Any] = {"game": self.game, "seq": self.next_seq, "type": type_}
        if self.stamp:
            e["at"] = now_rfc3339()
        e["id"] = str(uuid.uuid4())
        e.update(fields)
        return e

    def seat_for(self, explicit: int | None, kinds: tuple[str, ...], what: str = "",
                 probe: dict[str, Any] | None = None) -> int:
        """The explicit seat, else the seat due for one of ``kinds``; else an InputError saying
        what is due, with the code of the rule that refuses the event (``probe``: its type and
        fields but the seat, tried on a copy of the game)."""
        kind, seat = self.expected()
        if explicit is not None:
            return explicit
        if kind not in kinds or seat is None:
            wanted = what or " or ".join(kinds)
            code = self.refusal_code({**probe, "seat": seat or 0}) if probe else None
            raise InputError(f"no {wanted} is due now: {self.due(kind, seat)}"
                             + (f" [{code}]" if code else ""))
        return seat

    def refusal_code(self, fields: dict[str, Any]) -> str | None:
        """The code of the rule that refuses the event ``fields`` now (None: not refused)."""
        trial = copy.deepcopy(self.fold)
        try:
            trial.apply(event_from_dict({"game": self.game, "seq": self.next_seq, **fields}))
        except FoldError as e:
            return str(e.code)
        except (EventError, ValueError):  # not an event the rules can judge: no code to add
            return None
        return None

    def seat_arg(self, text: str) -> int:
        if not text.isdigit() or not 0 <= int(text) < self.players:
            raise InputError(f"{text!r} is not a seat (0-{self.players - 1})")
        return int(text)

    def parse(self, text: str) -> dict[str, Any] | str:
        """One line of input: an event dict to append, or a command word (``help``, ``quit``,
        ``show``, ``deal``, ``ruling``, ``undo``, ``nothing``, or a game's own)."""
        t = text.strip()
        if not t:
            return "nothing"
        low = t.lower()
        word, _, rest = low.partition(" ")
        rest = rest.strip()
        if low in ("help", "?", "h?"):
            return "help"
        if low in ("quit", "exit", "q"):
            return "quit"
        if low in ("show", "table"):
            return "show"
        if low == "undo":
            return "undo"
        if word == "deal":
            return self.parse_deal(rest)
        if word == "note":
            body = t[len(word):].strip()
            if not body:
                raise InputError("a note needs text: note TEXT")
            extra: dict[str, Any] = {}
            if self.fold.state.rounds:
                extra["round"] = len(self.fold.state.rounds)
            return self.base("note", text=body, **extra)
        if word == "ruling":
            if not rest:
                return "ruling"
            return self.ruling_from(t[len(word):].strip())
        parts = low.replace(":", " ").split()
        seat: int | None = None
        if len(parts) >= 2 and parts[0].isdigit():
            seat = self.seat_arg(parts[0])
            parts = parts[1:]
        out = self.parse_game(parts, seat, t)
        if out is not None:
            return out
        if len(parts) != 1:
            raise InputError(f"{t!r}: not something the recorder knows; type 'help'")
        return self.play_from(parts[0], seat, t)

    def parse_game(self, parts: list[str], seat: int | None, text: str) -> dict[str, Any] | str | None:
        """The game's own words (``parts``: the input's words, lower case, without an explicit
        seat); None when they are not the game's (a card is tried next)."""
        return None

    def parse_deal(self, rest: str) -> dict[str, Any] | str:
        """``deal``: ``deal`` (the hands are asked next), ``deal unseen`` or ``deal random``."""
        if rest in UNSEEN:
            return "deal unseen"
        word, _, arg = rest.partition(" ")
        if word == "random":
            arg = arg.strip()
            if arg and not arg.isdigit():
                raise InputError("deal random takes a whole number as its seed: deal random 7")
            return self.random_deal(random.Random(int(arg)) if arg else random.Random())
        if rest:
            raise InputError("type 'deal' (the hands are asked next), 'deal unseen' or "
                             "'deal random'")
        return "deal"

    def play_from(self, word: str, seat: int | None, text: str) -> dict[str, Any]:
        try:
            c = parse_card(word, lenient=True)
        except CardError:
            raise InputError(f"{text.strip()!r}: not something the recorder knows; type 'help'") \
                from None
        if not self.pack >> c & 1:
            raise InputError(f"{CARD_TEXT[c]} is not in the {self.fold.game} pack")
        return self.base("play", seat=self.seat_for(seat, ("play",), "card",
                                                    {"type": "play", "card": CARD_TEXT[c]}),
                         card=CARD_TEXT[c])

    def ruling_from(self, text: str) -> dict[str, Any]:
        """``R S0 S1 .. REASON``: the referee's score for round R (one score per team or player)."""
        n = self.score_count
        parts = text.split(None, n + 1)
        if len(parts) < n + 2 or not all(p.isdigit() for p in parts[:n + 1]):
            raise InputError(f"write a ruling as: ruling {self.round_word.upper()} "
                             f"{self.scores_help} REASON (e.g. ruling {self.ruling_example})")
        r, *scores = (int(p) for p in parts[:n + 1])
        return self.base("ruling", round=r, score=scores, reason=parts[n + 1])

    def read_four_hands(self, ask: Ask, show: Show, size: int) -> dict[str, Any]:
        """A deal to four seats of ``size`` cards: seats 0-2 are asked, seat 3 gets the rest of
        the pack; 'unseen' for the first hand records the deal without hands."""
        hands: list[int] = []
        seen = 0
        for seat in range(3):
            h = self.ask_hand(ask, show, seat, size, seen, allow_unseen=seat == 0)
            if h is None:
                return self.base("dealt")
            seen |= h
            hands.append(h)
        rest = self.pack & ~seen
        show(f"hand of {self.who(3)}: the rest of the pack: {hand_text(rest)}")
        hands.append(rest)
        return self.base("dealt", hands=[hand_text(h).split() for h in hands])

    def sub_word(self, text: str, show: Show, asked: str) -> bool:
        """``cancel``, ``quit`` or ``help`` typed at a question inside a command: cancel and
        quit end the command (nothing recorded); help says what is asked (True: ask again)."""
        low = text.strip().lower()
        if low in ("cancel", "abort"):
            raise InputError("cancelled: nothing was recorded")
        if low in ("quit", "exit", "q"):
            show("quit: the half-entered event is not recorded")
            raise QuitRecording
        if low in ("help", "?", "h?"):
            show(f"asked: {asked}; or {SUB_WORDS}")
            return True
        return False

    def ask_in(self, ask: Ask, show: Show, prompt: str, asked: str) -> str:
        """One answer to a question inside a command (``cancel``, ``quit``, ``help`` handled)."""
        while True:
            text = ask(prompt)
            if not self.sub_word(text, show, asked):
                return text

    def ask_hand(self, ask: Ask, show: Show, seat: int, size: int, seen: int,
                 allow_unseen: bool, what: str = "hand of") -> int | None:
        """Ask ``seat``'s hand of ``size`` cards of the pack, none of ``seen``; None: unseen."""
        extra = ", or 'unseen'" if allow_unseen else ""
        while True:
            example = hand_text(sum(1 << c for c in list(cards_of(self.pack))[:size]))
            text = self.ask_in(ask, show, f"{what} {self.who(seat)} ({size} cards{extra})> ",
                               f"the {size} cards of {self.who(seat)} (e.g. {example}){extra}").strip()
            if text.lower() in UNSEEN and allow_unseen:
                return None
            try:
                h = parse_hand(text)
            except CardError as e:
                show(f"✗ {e}")
                continue
            if h.bit_count() != size:
                show(f"✗ a hand is {size} cards, not {h.bit_count()}")
                continue
            if h & ~self.pack:
                show(f"✗ {hand_text(h & ~self.pack)} not in the {self.fold.game} pack")
                continue
            if h & seen:
                show(f"✗ {hand_text(h & seen)} already dealt")
                continue
            return h

    def ask_card(self, ask: Ask, show: Show, what: str, taken: int) -> int:
        """Ask one card of the pack that is not in ``taken``."""
        while True:
            example = CARD_TEXT[next(iter(cards_of(self.pack & ~taken)))]
            text = self.ask_in(ask, show, f"{what}> ", f"{what}, one card (e.g. {example})").strip()
            try:
                c = parse_card(text, lenient=True)
            except CardError as e:
                show(f"✗ {e}")
                continue
            if not self.pack >> c & 1:
                show(f"✗ {CARD_TEXT[c]} is not in the {self.fold.game} pack")
            elif taken >> c & 1:
                show(f"✗ {CARD_TEXT[c]} is already dealt")
            else:
                return c

    def read_deal(self, ask: Ask, show: Show, unseen: bool = False) -> dict[str, Any]:
        """The hands of a new round, asked seat by seat (the last seat gets the rest)."""
        raise NotImplementedError

    def random_deal(self, rng: random.Random) -> dict[str, Any]:
        """A new round dealt here by shuffling."""
        raise NotImplementedError

    def trial_deal(self) -> dict[str, Any]:
        """A deal without hands, to ask the rules whether a deal may be recorded now."""
        return self.base("dealt")

    def check_deal_allowed(self) -> None:
        """Refuse a deal the rules would refuse (a round still in play, a finished game) before
        any hand is asked, with the rule's sentence and code."""
        trial = copy.deepcopy(self.fold)
        try:
            trial.apply(event_from_dict(self.trial_deal()))
        except FoldError as e:
            raise InputError(f"refused: {e.message} [{e.code}]") from None

    def interact(self, word: str, ask: Ask, show: Show) -> dict[str, Any] | str:
        """A command that asks more: ``deal``, ``ruling``, ``undo`` (a game may add its own)."""
        if word in ("deal", "deal unseen"):
            self.check_deal_allowed()
            return self.read_deal(ask, show, unseen=word == "deal unseen")
        if word == "ruling":
            return self.ask_ruling(ask, show)
        if word == "undo":
            return self.undo(ask, show)
        return word

    def ask_scores(self, ask: Ask, show: Show) -> list[str]:
        n = self.score_count
        who = self.score_owners or (", ".join(self.fold.seats[:-1]) + f" and {self.fold.seats[-1]}")
        example = " ".join(self.ruling_example.split()[1:n + 1])
        score = self.ask_in(ask, show, f"score for {who} (e.g. {example})> ",
                            f"{n} scores, for {who}").replace(",", " ").split()
        if len(score) != n:
            raise InputError(f"a ruling's score is {n} numbers")
        return score

    def ask_ruling(self, ask: Ask, show: Show) -> dict[str, Any]:
        rounds = len(self.fold.state.rounds)
        if not rounds:
            raise InputError(f"no {self.round_word} has been dealt: there is nothing to rule on")
        r = self.ask_in(ask, show, f"{self.round_word} to rule on [{rounds}]> ",
                        f"the number of the {self.round_word} (empty: {rounds})").strip() or str(rounds)
        score = self.ask_scores(ask, show)
        reason = self.ask_in(ask, show, "reason> ", "the reason for the ruling").strip()
        return self.ruling_from(f"{r} {' '.join(score)} {reason or 'ruling'}")

    def undo(self, ask: Ask, show: Show) -> dict[str, Any] | str:
        if self.next_seq <= 1:
            raise InputError("nothing to undo: only the game's start is recorded (and it stays)")
        show(f"Events are facts: the last one ({self.last_event_text()}) stays in the log.")
        rounds = len(self.fold.state.rounds)
        if not rounds:
            raise InputError(f"no {self.round_word} has been dealt; add a note to explain the "
                             "mistake")
        w = self.round_word
        show(f"The correction the rules allow is a referee's ruling on {w} {rounds}: it replaces "
             f"the {w}'s score (and ends the {w} if it is still in play). Or add a note.")
        if ask(f"record a ruling on {w} {rounds} now? [y/N]> ").strip().lower() not in ("y", "yes"):
            return "nothing"
        score = self.ask_scores(ask, show)
        reason = self.ask_in(ask, show, "reason> ", "the reason for the ruling").strip() or \
            "correction of a recording mistake"
        return self.ruling_from(f"{rounds} {' '.join(score)} {reason}")

    # ------------------------------------------------------------------ writing

    def violations_of(self, event: dict[str, Any]) -> list[str]:
        """The rule violations ``event`` would add (checked on a copy of the fold)."""
        trial = copy.deepcopy(self.fold)
        before = len(trial.state.violations)
        trial.apply(event_from_dict(event))
        return [f"{v.rule}: {v.message}" for v in trial.state.violations[before:]]

    def append(self, event: dict[str, Any]) -> Outcome:
        """Append one event (validated by the store); refusals come back as messages."""
        try:
            self.store.append(self.game, [event], expected_seq=event["seq"])
        except ConflictError as e:
            return Outcome(f"✗ {e}. Someone else recorded in this game: what they recorded "
                           "is shown next; type yours again if it still holds.", error=True)
        except RejectedError as e:
            reason = str(e.fold_error.message) if e.fold_error is not None else str(e)
            # the store speaks of batches; the scorer typed one event
            for head in (f"game {self.game}: event 1 of the batch: ", f"game {self.game}: "):
                reason = reason.removeprefix(head)
            reason = reason.removesuffix("; nothing was written")
            code = f" [{e.code}]" if e.code != "rejected" else ""
            return Outcome(f"✗ refused: {reason}{code}", error=True)
        self.reload()
        return Outcome("", appended=1)

    def refresh(self, show: Show) -> bool:
        """Catch up with events another writer (a second recorder, ``jaslog append``, the
        service) stored since this recorder last looked: each is shown, then the table, so the
        prompt, ``help`` and ``show`` always match the stored game."""
        if self.store.head(self.game).next_seq == self.next_seq:
            return False
        new = self.store.events(self.game)[self.next_seq:]
        show(f"{len(new)} event{'s' * (len(new) != 1)} recorded elsewhere in this game "
             "(another recorder or an append):")
        try:
            for e in new:  # each described on the table it was recorded at
                self.fold.apply(e)
                show(describe_event(self.fold, e))
        finally:
            self.reload()
        show(render_table(self.fold))
        return True

    def last_event_text(self) -> str:
        events = self.store.events(self.game)
        return describe_event(self.fold, events[-1]).plain


def record_one(rec: Recorder, item: dict[str, Any], ask: Ask, show: Show) -> int:
    """Warn about a violation (and ask), append, show what happened; the events appended."""
    try:
        warn = rec.violations_of(item)
    except (JaslogError, ValueError):  # not an event the rules can judge: the store refuses it below
        warn = []
    if warn:
        for w in warn:
            show(f"! this breaks a rule: {w}")
        answer = ask("record it anyway? it will stand as a violation [y/N]> ")
        if answer.strip().lower() not in ("y", "yes"):
            show("not recorded")
            return 0
    try:
        out = rec.append(item)
    except StoreError as e:
        show(f"✗ {e}")
        return 0
    if out.error:
        show(out.message)
        return 0
    show(describe_event(rec.fold, rec.store.events(rec.game, upto=item["seq"])[-1]))
    show(render_table(rec.fold))
    return out.appended


def run(rec: Recorder, ask: Ask, show: Show) -> int:
    """The recorder's loop until ``quit``, end of input (Ctrl-D) or Ctrl-C, at any prompt
    (a hand, a confirmation); returns the events appended. An event half entered when input
    ends is not recorded."""
    total = 0
    show(render_table(rec.fold))
    while True:
        try:
            rec.refresh(show)
            item = next_item(rec, ask, show)
            if item is None:
                continue
            if isinstance(item, str):
                if item == "quit":
                    break
                caught_up = item in ("help", "show") and rec.refresh(show)  # typed at a stale prompt
                if item == "help":
                    show(rec.help_text())
                elif item == "show" and not caught_up:
                    show(render_table(rec.fold))
                continue
            total += record_one(rec, item, ask, show)
        except EOFError:
            break
        except KeyboardInterrupt:
            show("interrupted (Ctrl-C): what was recorded before stays stored")
            break
    return total


def next_item(rec: Recorder, ask: Ask, show: Show) -> dict[str, Any] | str | None:
    """Ask one line and what it needs (the hands of a deal, ...): an event to record, a word
    (``help``, ``quit``, ...), or None when it was refused (the reason is shown)."""
    text = ask(rec.prompt())
    try:
        item = rec.parse(text)
        if isinstance(item, str) and item not in ("help", "quit", "show", "nothing"):
            item = rec.interact(item, ask, show)
    except InputError as e:
        show(f"✗ {e}")
        return None
    return item
