"""What every game's recorder stands on: the game and its fold, whose turn it is, the event
built from what the scorer typed, the rules' refusal tried on a copy of the game, the questions
asked inside a command, and recorded events in the scorer's words.

:class:`RecorderBase` is the root of :class:`jaslog.record.core.Recorder`; the table's repairs
(:mod:`jaslog.record.repairs`) and the hands of a deal (:mod:`jaslog.record.hands`) build on it.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson

from jaslog.cards import (
    SUIT_LETTERS,
    SUIT_NAMES,
    CardError,
    parse_card,
    parse_suit,
)
from jaslog.engine.base import Violation
from jaslog.engine.fold import ROUND_OPENERS, FoldError, GameFold
from jaslog.errors import JaslogError
from jaslog.events import IRREGULARITY_KINDS, Event, EventError, event_from_dict
from jaslog.store import Store, StoreError
from jaslog.store.codec import now_rfc3339

Ask = Callable[[str], str]
Show = Callable[[Any], None]

COMMON_HELP = """\
  kh jc 7s             several cards, played in turn (all recorded, or none)
  deal random [SEED]   a new {round} dealt here by shuffling (every hand seen)
  note TEXT            a note (changes nothing)
  fix [N] [REASON]     retract the last event (or the last N) as if never
                       recorded: shown first, then asked (y/N)
  irregularity KIND SEAT [CARDS] [TEXT]
                       a fact the rules do not play (KIND: lead_out_of_turn,
                       play_out_of_turn, exposed_card, misdeal,
                       wrong_card_count, other)
  claim [SEAT]         SEAT (default: the seat due) shows the hand and claims
                       every trick still to play: the {round}'s play ends
  concede [SEAT]       SEAT gives every trick still to play to the other side
  ruling [R {scores} REASON]
                       the referee's score for {round} R (asked when left out)
  undo                 how to correct: 'fix', or a ruling on a completed {round}
  N COMMAND            the same for an explicit seat N (e.g. a call out of turn)
  show                 the table again
  help, quit (klaar)"""

UNSEEN = ("unseen", "-", "none")

#: What ends the recorder (``klaar``: Dutch for done).
QUIT_WORDS = ("quit", "exit", "q", "klaar")

#: The answers that say yes to a question (``ja``: Dutch); anything else is no.
YES_WORDS = ("y", "yes", "j", "ja")

#: The suits' Dutch names, beside the letters, symbols and English names.
DUTCH_SUITS = {"klaveren": "C", "klaver": "C", "ruiten": "D", "harten": "H", "hart": "H",
               "schoppen": "S", "schop": "S"}

#: What a correction says when the scorer gives no reason.
FIX_REASON = "scorer's correction"

#: The most events one correction retracts (the event format's limit).
MOST_RETRACTED = 64

#: Short words for the kinds of irregularity, beside the kinds themselves.
IRREGULARITY_WORDS = {**{k: k for k in IRREGULARITY_KINDS}, "lead": "lead_out_of_turn",
                      "play": "play_out_of_turn", "exposed": "exposed_card",
                      "count": "wrong_card_count"}

#: The words of a claim of the rest, and what each gives (rule book 9.1, decision 13).
CLAIM_WORDS = {"claim": "rest_to_claimer", "claims": "rest_to_claimer",
               "concede": "rest_to_opponents", "concedes": "rest_to_opponents"}

#: A list of events appended as one batch (a line of several cards): all stored, or none.
Batch = list[dict[str, Any]]

#: The width ``help`` fits in (a terminal of 80 columns).
HELP_WIDTH = 80


def yes(answer: str) -> bool:
    """Whether an answer to a y/N question says yes (English or Dutch).

    >>> yes("Y"), yes("ja"), yes(""), yes("nee")
    (True, True, False, False)
    """
    return answer.strip().lower() in YES_WORDS


def suit_word(word: str) -> int:
    """A suit from its letter, symbol, English or Dutch name; CardError if it is none.

    >>> [SUIT_LETTERS[suit_word(w)] for w in ("h", "harten", "Klaveren", "spades")]
    ['H', 'H', 'C', 'S']
    """
    dutch = DUTCH_SUITS.get(word.strip().lower())
    return SUIT_LETTERS.index(dutch) if dutch is not None else parse_suit(word, lenient=True)


def dash(scores: list[int]) -> str:
    """Scores as the score sheet writes them.

    >>> dash([62, 120])
    '62–120'
    """
    return "–".join(map(str, scores))


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


class RecorderBase:
    """One game being recorded into a store: its state, the events built for it, and the
    refusals of its rules (the game's subclass of :class:`jaslog.record.core.Recorder` knows
    its words)."""

    #: the game this recorder is for (a key of :data:`jaslog.play.fold.FOLDS`)
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
    #: the words of ``score`` after the scores (a round written on the sheet) and the field
    #: of ``round_score`` each fills: ``chooser`` (a seat), ``trump`` (a suit), ``points`` and
    #: ``roem`` (a number per score), ``result`` (a word)
    score_words: ClassVar[dict[str, str]] = {"chooser": "chooser", "points": "points",
                                             "punten": "points", "result": "result"}
    #: the game's words for how a round went, which ``score`` also takes alone
    score_results: ClassVar[tuple[str, ...]] = ()
    #: an example of ``score`` (after the word)
    score_example: ClassVar[str] = "102 60"

    def __init__(self, store: Store, game: str, *, stamp: bool = True,
                 fold: GameFold | None = None) -> None:
        self.store, self.game, self.stamp = store, game, stamp
        self.fold: GameFold = fold if fold is not None else store.fold(game)
        #: the last events tried on a copy of the game, and what the rules said (:meth:`tried`)
        self._tried: tuple[tuple[int, int, bytes], tuple[Exception | None, list[Violation]]] \
            | None = None
        if self.game_name and self.fold.game != self.game_name:
            raise StoreError(f"game {game} is {self.fold.game}, not {self.game_name}")

    @property
    def players(self) -> int:
        return len(self.fold.seats)

    def reload(self) -> None:
        """Catch up with the store: the events appended since the fold's last are applied to
        it, as stored (with the store's stamps)."""
        for e in self.store.events_since(self.game, self.next_seq):
            self.fold.apply(e)
        self._tried = None

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

    def due(self, kind: str, seat: int | None) -> str:
        """A sentence saying what is due now, for refusals."""
        return {"deal": f"the next {self.round_word} must be dealt ({self.who(seat)} deals): "
                        "type 'deal'",
                "play": f"{self.who(seat)} must play a card",
                "over": "the game is over"}.get(kind, f"{self.who(seat)}: {kind} is due")

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
        err = self.refusal(fields)
        return str(err.code) if err is not None else None

    def refusal(self, fields: dict[str, Any]) -> FoldError | None:
        """The fold's error refusing the event ``fields`` now, tried on a copy of the game
        (None: not refused, or not an event the rules can judge)."""
        error, _violations = self.tried([{"game": self.game, "seq": self.next_seq, **fields}])
        return error if isinstance(error, FoldError) else None

    def tried(self, events: list[dict[str, Any]]) -> tuple[Exception | None, list[Violation]]:
        """``events`` tried in turn on a copy of the game: the error that refuses one (a
        :class:`FoldError`, or the event's own error when it is no event at all; None: all
        accepted) and the rule violations they add. Asked again of the same events at the
        same point of the game (the refusal, then the warning), the copy is not made again."""
        key = (id(self.fold), self.next_seq, orjson.dumps(events, option=orjson.OPT_SORT_KEYS))
        if self._tried is not None and self._tried[0] == key:
            return self._tried[1]
        trial = copy.deepcopy(self.fold)
        before = len(trial.state.violations)
        error: Exception | None = None
        try:
            for e in events:
                trial.apply(event_from_dict(e))
        except (FoldError, EventError, ValueError) as e:
            error = e
        out = error, list(trial.state.violations[before:])
        self._tried = key, out
        return out

    def refusal_after(self, trial: GameFold, e: dict[str, Any]) -> FoldError | None:
        """The error the game ``trial`` (a copy) refuses ``e`` with (None: accepted)."""
        try:
            copy.deepcopy(trial).apply(event_from_dict({**e, "seat": e.get("seat") or 0}))
        except FoldError as err:
            return err
        except (EventError, ValueError):
            return None
        return None

    def seat_arg(self, text: str) -> int:
        if not text.isdigit() or not 0 <= int(text) < self.players:
            raise InputError(f"{text!r} is not a seat (0-{self.players - 1})")
        return int(text)

    def is_card(self, word: str) -> bool:
        try:
            parse_card(word, lenient=True)
        except CardError:
            return False
        return True

    def sub_word(self, text: str, show: Show, asked: str) -> bool:
        """``cancel``, ``quit`` or ``help`` typed at a question inside a command: cancel and
        quit end the command (nothing recorded); help says what is asked (True: ask again)."""
        low = text.strip().lower()
        if low in ("cancel", "abort"):
            raise InputError("cancelled: nothing was recorded")
        if low in QUIT_WORDS:
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

    def said_seq(self, seq: int) -> str:
        """``seq 41: seat 2 (cor) played 7H``: a recorded event in the scorer's words."""
        return f"seq {seq}: {self.said(self.fold.log[seq])}"

    def said(self, e: Event) -> str:
        """What event ``e`` recorded, in the scorer's words (past tense)."""
        d: Any = e
        own = self.said_game(e)
        if own is not None:
            return own
        w = self.round_word
        who = self.who(getattr(d, "seat", None)) if getattr(d, "seat", None) is not None else ""
        if e.type == "dealt":
            seen = "the hands seen" if d.hands is not None else "the hands not recorded"
            up = f", turn-up {d.turn_up}" if getattr(d, "turn_up", None) else ""
            return f"the deal of {w} {self.round_of(e.seq)} ({seen}{up})"
        if e.type == "play":
            return f"{who} played {d.card}"
        if e.type == "bid":
            if d.call in SUIT_LETTERS:
                return f"{who} named {SUIT_NAMES[SUIT_LETTERS.index(d.call)]}"
            return f"{who} bid {d.call}"
        if e.type == "ruling":
            return f"a ruling on {w} {d.round}: {dash(d.score)} ({d.reason})"
        if e.type == "irregularity":
            cards = f" {' '.join(d.cards)}" if d.cards else ""
            text = f": {d.text}" if d.text else ""
            return f"{who}: irregularity {d.kind}{cards}{text}"
        if e.type == "claim":
            return f"{who} {'claimed' if d.gives == 'rest_to_claimer' else 'conceded'} the rest"
        if e.type == "round_score":
            return f"{w} {d.round} by its score alone: {dash(d.score)}"
        if e.type == "correction":
            gone = ", ".join(f"seq {s}" for s in d.retracts)
            return f"a correction retracting {gone} ({d.reason})"
        if e.type == "note":
            return f"a note: {d.text}"
        if e.type == "timeout":
            return f"{who} timed out after {d.seconds} s"
        return f"{who} {e.type}".strip()

    def said_game(self, e: Event) -> str | None:
        """A game's own events in the scorer's words (None: not the game's own)."""
        return None

    def round_of(self, seq: int) -> int:
        """The round event ``seq`` belongs to (0: before the first deal)."""
        log, gone = self.fold.log, self.fold.retracted
        return sum(1 for e in log[1:seq + 1] if e.type in ROUND_OPENERS and e.seq not in gone)

    def opener_seq(self) -> int:
        """The seq of the event that opened the round in play (0 before the first deal)."""
        return next((e.seq for e in reversed(self.fold.log)
                     if e.type in ROUND_OPENERS and e.seq not in self.fold.retracted), 0)
