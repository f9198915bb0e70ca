"""What every game's recorder shares: the prompt, the common words, rulings, the checks before
an event is appended, and the loop.

A :class:`Recorder` knows whose turn it is (from the fold's ``state.expected()``), turns what
a scorer types into an event, refuses what the rules refuse with the reason and rule code,
warns before recording a rule violation, and appends every event to the store with an id (so
a retry never duplicates) and the time. Nothing is ever removed: ``fix`` appends a
correction that retracts the last events (the fold goes on as if they were never recorded;
rule book 9.1, decision 9), and a completed round is changed by a referee's ruling. A card
given out of turn may be recorded as an irregularity (decision 10), a round written on the
sheet by its score alone (``score``, decision 11), several cards in one line (all or
nothing). After every round the recorder prints its line of the score sheet, the certificate
and the round due.

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

from jaslog.cards import (
    CARD_TEXT,
    SUIT_LETTERS,
    SUIT_NAMES,
    CardError,
    cards_of,
    hand_text,
    parse_card,
    parse_hand,
    parse_suit,
)
from jaslog.engine.fold import ROUND_OPENERS, FoldError, GameFold
from jaslog.errors import JaslogError
from jaslog.events import IRREGULARITY_KINDS, Event, EventError, event_from_dict
from jaslog.render import describe_event, render_table
from jaslog.store import ConflictError, RejectedError, Store, StoreError
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
        """``[seq 36] round 2: seat 3 (eva) deals: type 'deal'> ``: the round in play, or the
        round due when a deal is."""
        kind, seat = self.expected()
        n = len(self.fold.state.rounds)
        where = f"{self.round_word} {n + 1 if kind == 'deal' else n}" if n or kind == "deal" \
            else f"no {self.round_word} yet"
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
            w, n = self.round_word, len(self.fold.state.rounds) + 1
            return [f"deal: {self.who(seat)} deals {w} {n} (or 'deal unseen', 'deal random')",
                    f"score {self.scores_help} ...: {w} {n} written on the sheet by its score "
                    f"alone (e.g. score {self.score_example})"]
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
        latest = self.fold.latest_actions(1)
        if latest:
            lines.append(textwrap.fill(f"The last event, which 'fix' retracts: "
                                       f"{self.said_seq(latest[0])}", HELP_WIDTH,
                                       subsequent_indent="  ", break_long_words=False,
                                       break_on_hyphens=False))
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
        err = self.refusal(fields)
        return str(err.code) if err is not None else None

    def refusal(self, fields: dict[str, Any]) -> FoldError | None:
        """The fold's error refusing the event ``fields`` now, tried on a copy of the game
        (None: not refused, or not an event the rules can judge)."""
        trial = copy.deepcopy(self.fold)
        try:
            trial.apply(event_from_dict({"game": self.game, "seq": self.next_seq, **fields}))
        except FoldError as e:
            return e
        except (EventError, ValueError):  # not an event the rules can judge: no code to add
            return None
        return None

    def seat_arg(self, text: str) -> int:
        if not text.isdigit() or not 0 <= int(text) < self.players:
            raise InputError(f"{text!r} is not a seat (0-{self.players - 1})")
        return int(text)

    def parse(self, text: str) -> dict[str, Any] | Batch | str:
        """One line of input: an event dict to append, a batch of them (several cards), or a
        command word (``help``, ``quit``, ``show``, ``deal``, ``ruling``, ``undo``,
        ``nothing``, or a game's own)."""
        t = text.strip()
        if not t:
            return "nothing"
        low = t.lower()
        word, _, rest = low.partition(" ")
        rest = rest.strip()
        if low in ("help", "?", "h?"):
            return "help"
        if low in QUIT_WORDS:
            return "quit"
        if word == "fix":
            return self.correction_from(t[len(word):].strip())
        if word in ("irregularity", "irr"):
            return self.irregularity_from(t[len(word):].strip())
        if word == "score":
            return self.round_score_from(rest.replace(",", " ").split())
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
        if len(parts) > 1 and all(self.is_card(p) for p in parts):
            if seat is not None:
                raise InputError("several cards in one line are played in turn, each by the "
                                 "seat due: leave out the seat")
            return self.plays_in_turn(parts, t)
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

    def is_card(self, word: str) -> bool:
        try:
            parse_card(word, lenient=True)
        except CardError:
            return False
        return True

    def plays_in_turn(self, words: list[str], text: str) -> Batch:
        """``kh jc 7s``: each card played by the seat due after the one before, tried in
        turn on a copy of the game; a card the rules refuse refuses the whole line (nothing
        of it is recorded), saying which card and why."""
        trial = copy.deepcopy(self.fold)
        out: Batch = []
        line = " ".join(words)
        for i, word in enumerate(words, 1):
            c = parse_card(word, lenient=True)
            which = f"card {i} of the line ({CARD_TEXT[c]})"
            if not self.pack >> c & 1:
                raise InputError(f"{line!r}: {which} is not in the {self.fold.game} pack; "
                                 "nothing of the line was recorded")
            kind, seat = trial.state.expected()
            e = self.base("play", seat=seat, card=CARD_TEXT[c])
            e["seq"] = trial.next_seq
            if kind != "play" or seat is None:
                err = self.refusal_after(trial, e)
                code = f" [{err.code}]" if err is not None else ""
                raise InputError(f"refused: {line!r}: no card is due at {which}: "
                                 f"{self.due(str(kind), seat)}{code}; nothing of the line was "
                                 "recorded")
            try:
                trial.apply(event_from_dict(e))
            except FoldError as err:
                raise InputError(f"refused: {line!r}: {which}, by {self.who(seat)}: "
                                 f"{err.message} [{err.code}]; nothing of the line was "
                                 "recorded") from None
            out.append(e)
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

    # ------------------------------------------------------------------ corrections

    def correction_from(self, text: str) -> dict[str, Any]:
        """``fix [N] [REASON]``: a correction retracting the last N events (default 1) with
        the reason (default :data:`FIX_REASON`); refused here, with the rule code and
        nothing stored, when the rules would refuse it."""
        first, _, more = text.partition(" ")
        n = 1
        if first.isdigit():
            n, text = int(first), more.strip()
        if not 1 <= n <= MOST_RETRACTED:
            raise InputError(f"fix N retracts the last N events, N from 1 to {MOST_RETRACTED} "
                             "(fix: the last one)")
        seqs = self.fold.latest_actions(n)
        if not seqs:
            raise InputError("nothing to fix: no event since the game's start can be retracted "
                             "(the game's start and notes stay, a correction is final) "
                             "[retract_unknown_seq]")
        event = self.base("correction", retracts=sorted(seqs), reason=text or FIX_REASON)
        err = self.refusal(event)
        if err is not None and err.code == "retract_past_round":
            raise InputError(self.past_round_text(n, min(seqs)))
        if err is not None:
            raise InputError(f"refused: {err.message} [{err.code}]")
        if len(seqs) < n:
            raise InputError(f"fix {n}: only {len(seqs)} event{'s' * (len(seqs) != 1)} can be "
                             f"retracted ({', '.join(f'seq {s}' for s in sorted(seqs))}; the "
                             "game's start and notes stay, a correction is final) "
                             "[retract_unknown_seq]")
        return event

    def past_round_text(self, n: int, early: int) -> str:
        """Why ``fix n``, reaching back to seq ``early``, is refused: it reaches a completed
        round (one followed by a deal)."""
        w = self.round_word
        number, opener = self.round_of(early), self.opener_seq()
        return (f"refused: fix {n} reaches seq {early} ({self.said(self.fold.log[early])}), "
                f"in {w} {number}, which is "
                f"complete: {w} {number + 1} was dealt at seq {opener}. A correction reaches "
                f"back no further than the deal of the {w} in play; a completed {w} is changed "
                f"only by a referee's ruling ('ruling', or 'undo') [retract_past_round]")

    def round_of(self, seq: int) -> int:
        """The round event ``seq`` belongs to (0: before the first deal)."""
        log, gone = self.fold.log, self.fold.retracted
        return sum(1 for e in log[1:seq + 1] if e.type in ROUND_OPENERS and e.seq not in gone)

    def opener_seq(self) -> int:
        """The seq of the event that opened the round in play (0 before the first deal)."""
        return next((e.seq for e in reversed(self.fold.log)
                     if e.type in ROUND_OPENERS and e.seq not in self.fold.retracted), 0)

    def confirm(self, item: dict[str, Any], ask: Ask, show: Show) -> bool:
        """Ask before recording what needs a yes: a correction shows what it retracts."""
        if item.get("type") != "correction":
            return True
        seqs = sorted(item["retracts"], reverse=True)
        if len(seqs) == 1:
            show(f"fix: retract {self.said_seq(seqs[0])} (reason: {item['reason']})")
            return yes(ask("retract it? [y/N]> "))
        show(f"fix: retract these {len(seqs)} events (reason: {item['reason']}):")
        for s in seqs:
            show(f"  {self.said_seq(s)}")
        return yes(ask(f"retract these {len(seqs)} events? [y/N]> "))

    # ------------------------------------------------------------------ the scorer's words

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

    # ------------------------------------------------------------------ irregularities

    def irregularity_from(self, text: str) -> dict[str, Any]:
        """``irregularity KIND SEAT [CARDS] [TEXT]``: the cards run up to the first word that
        is not a card; the rest is the text."""
        usage = ("write an irregularity as: irregularity KIND SEAT [CARDS] [TEXT] (e.g. "
                 f"irregularity exposed_card 2 qs); KIND: {', '.join(IRREGULARITY_KINDS)}")
        words = text.split()
        if len(words) < 2:
            raise InputError(usage)
        kind = IRREGULARITY_WORDS.get(words[0].lower().replace("-", "_"))
        if kind is None:
            raise InputError(f"{words[0]!r} is not a kind of irregularity: "
                             f"{', '.join(IRREGULARITY_KINDS)}")
        seat = self.seat_arg(words[1])
        cards: list[str] = []
        rest = words[2:]
        while rest and self.is_card(rest[0]):
            c = parse_card(rest.pop(0), lenient=True)
            if not self.pack >> c & 1:
                raise InputError(f"{CARD_TEXT[c]} is not in the {self.fold.game} pack")
            cards.append(CARD_TEXT[c])
        fields: dict[str, Any] = {"kind": kind, "seat": seat}
        if cards:
            fields["cards"] = cards
        if rest:
            fields["text"] = " ".join(rest)
        return self.base("irregularity", **fields)

    def trick_opens(self) -> bool:
        """Whether the next card leads a trick (none played yet, or the last trick complete)."""
        r = self.current_round()
        t = next((t for t in reversed(r.tricks if r is not None else []) if t.cards), None)
        return t is None or bool(t.complete)

    def out_of_turn(self, item: dict[str, Any], ask: Ask, show: Show) -> dict[str, Any] | None:
        """A card given for a seat that is not due (the rules refuse it, ``not_your_turn``):
        the refusal is shown and the recorder offers to record it as an irregularity
        (``lead_out_of_turn`` when it would lead a trick, else ``play_out_of_turn``; rule book
        9.1, decision 10). The irregularity to record, the item itself when no card is out
        of turn, or None when the scorer says no."""
        if item.get("type") != "play":
            return item
        err = self.refusal(item)
        if err is None or err.code != "not_your_turn":
            return item
        kind = "lead_out_of_turn" if self.trick_opens() else "play_out_of_turn"
        seat, card = item["seat"], item["card"]
        _, due = self.expected()
        show(f"✗ refused: {err.message} [not_your_turn]")
        if not yes(ask(f"record it as an irregularity, {kind} by {self.who(seat)} with {card} "
                       f"(the card goes back to the hand; {self.who(due)} plays)? [y/N]> ")):
            show("not recorded")
            return None
        return self.base("irregularity", kind=kind, seat=seat, cards=[card])

    # ------------------------------------------------------------------ score-only rounds

    def round_score_from(self, words: list[str]) -> dict[str, Any]:
        """``score S0 S1 [WORD VALUE...]``: the round due written on the sheet by its score
        alone (rule book 9.1, decision 11), with what else the sheet says (the game's
        :attr:`score_words`, a result word alone); refused here unless the round is due."""
        n, w = self.score_count, self.round_word
        usage = f"write a {w} by its score as: score {self.scores_help} [...] (e.g. score " \
            f"{self.score_example}); 'help' lists the words"
        if len(words) < n or not all(x.isdigit() for x in words[:n]):
            raise InputError(usage)
        fields: dict[str, Any] = {"score": [int(x) for x in words[:n]]}
        i = n
        while i < len(words):
            word = words[i]
            key = self.score_words.get(word)
            alone = key is None and word in self.score_results  # a result word without 'result'
            if alone:
                key = "result"
            elif key is None:
                raise InputError(f"{word!r} is not a part of a {w}'s score here: {usage}")
            if key in fields:
                what = {"chooser": "who chose"}.get(key, f"the {key}")
                raise InputError(f"{word!r}: {what} is given twice")
            args = words[i + 1:]
            if alone:
                fields[key], i = word, i + 1
            elif key == "chooser":
                if not args:
                    raise InputError(f"{word} takes a seat: {word} 1")
                fields[key], i = self.seat_arg(args[0]), i + 2
            elif key == "trump":
                try:
                    fields[key] = SUIT_LETTERS[suit_word(args[0] if args else "")]
                except CardError:
                    raise InputError(f"{word} takes a suit: {word} h (or harten)") from None
                i += 2
            elif key in ("points", "roem"):
                if len(args) < n or not all(x.isdigit() for x in args[:n]):
                    raise InputError(f"{word} takes {n} numbers, like the score: "
                                     f"{word} {' '.join(words[:n])}")
                fields[key], i = [int(x) for x in args[:n]], i + 1 + n
            else:
                if not args:
                    raise InputError(f"{word} takes a word: {', '.join(self.score_results)}")
                fields[key], i = args[0], i + 2
        event = self.base("round_score", round=len(self.fold.state.rounds) + 1, **fields)
        kind, seat = self.expected()
        if kind != "deal":
            code = self.refusal_code(event)
            raise InputError(f"a {w} is written by its score when it is due, before its deal: "
                             f"{self.due(kind, seat)}" + (f" [{code}]" if code else ""))
        return event

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
        """``undo``: how to correct. 'fix' retracts the last events; a completed round (one
        a correction no longer reaches, or that the last card closed) is offered a ruling."""
        if self.next_seq <= 1:
            raise InputError("nothing to undo: only the game's start is recorded (and it stays)")
        latest = self.fold.latest_actions(1)
        if not latest:
            raise InputError("nothing to undo: only the game's start, notes and corrections are "
                             "recorded (and they stay); add a note to explain a mistake")
        show(f"Events stay in the log; 'fix' retracts the last one as if it was never recorded: "
             f"{self.said_seq(latest[0])} ('fix N' the last N, 'fix N REASON' says why).")
        done = self.completed_round()
        if done is None:
            return "nothing"
        number, next_deal = done
        w = self.round_word
        if next_deal:
            show(f"{w.capitalize()} {number} is complete ({w} {number + 1} was dealt at seq "
                 f"{next_deal}): a correction reaches back no further than that deal "
                 f"[retract_past_round], so only a referee's ruling changes {w} {number}: it "
                 f"replaces the {w}'s score.")
        else:
            show(f"{w.capitalize()} {number} is complete: 'fix' takes back its last events until "
                 f"{w} {number + 1} is dealt; a referee's ruling replaces its score.")
        if not yes(ask(f"record a ruling on {w} {number} now? [y/N]> ")):
            return "nothing"
        score = self.ask_scores(ask, show)
        reason = self.ask_in(ask, show, "reason> ", "the reason for the ruling").strip() or \
            "correction of a recording mistake"
        return self.ruling_from(f"{number} {' '.join(score)} {reason}")

    def completed_round(self) -> tuple[int, int] | None:
        """The last completed round and the seq of the deal that followed it (0: none yet),
        or None when no round is complete."""
        rounds = self.fold.state.rounds
        if rounds and rounds[-1].closed:
            return len(rounds), 0
        if len(rounds) >= 2:
            return len(rounds) - 1, self.opener_seq()
        return None

    # ------------------------------------------------------------------ writing

    def violations_of(self, event: dict[str, Any] | Batch) -> list[str]:
        """The rule violations ``event`` (or a batch) would add (checked on a copy of the
        fold); a correction or an irregularity adds none."""
        events = event if isinstance(event, list) else [event]
        if any(e.get("type") in ("correction", "irregularity") for e in events):
            return []
        trial = copy.deepcopy(self.fold)
        before = len(trial.state.violations)
        for e in events:
            trial.apply(event_from_dict(e))
        return [f"{v.rule}: {v.message}" for v in trial.state.violations[before:]]

    def append(self, event: dict[str, Any] | Batch) -> Outcome:
        """Append one event, or a batch (validated by the store: all stored, or none);
        refusals come back as messages."""
        events = event if isinstance(event, list) else [event]
        try:
            self.store.append(self.game, events, expected_seq=events[0]["seq"])
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
            whole = "; nothing of the line was recorded" if len(events) > 1 else ""
            return Outcome(f"✗ refused: {reason}{code}{whole}", error=True)
        self.reload()
        return Outcome("", appended=len(events))

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
                show(self.describe(e))
        finally:
            self.reload()
        show(render_table(self.fold))
        return True

    def describe(self, e: Event) -> Any:
        """How the table shows a recorded event: as every report does, or in the recorder's
        words for an event the table has no words of its own for."""
        t = describe_event(self.fold, e)
        if t.plain.split()[2:] == [e.type]:
            return f"seq {e.seq:>4} {self.said(e)}"
        return t

    # ------------------------------------------------------------------ the score sheet

    def sheet_state(self) -> list[tuple[bool, int]]:
        """Each round's state as the score sheet sees it: closed, and how many rulings."""
        return [(bool(r.closed), len(r.rulings)) for r in self.fold.state.rounds]

    def owners(self) -> str:
        """Whom the scores are for, in order: the teams, or the players."""
        seats, g = self.fold.seats, self.fold.state
        if g.scores < len(seats):
            return " – ".join(f"{seats[t]} & {seats[t + 2]}" for t in range(g.scores))
        return " – ".join(seats)

    def sheet_line(self, number: int) -> str:
        """Round ``number``'s line of the score sheet: its score as played (or as written,
        for a round recorded by its score), the ruling that counts, the running totals."""
        g = self.fold.state
        outs = g.outcomes()
        o, r = outs[number - 1], g.rounds[number - 1]
        how = "written" if getattr(r, "score_only", None) is not None else "played"
        result = getattr(o, "result", None)
        parts = [f"{self.round_word} {number} on the score sheet: {how} {dash(o.score)}"
                 + (f" ({result})" if result and result != "score_only" else "")]
        if o.ruled is not None and r.ruling is not None:
            earlier = len(r.rulings) - 1
            parts.append(f"ruled {dash(o.ruled)} ({r.ruling.reason}"
                         + (f"; {earlier} earlier ruling{'s' * (earlier != 1)} superseded"
                            if earlier else "") + ")")
        elif o.final != o.score:
            parts.append(f"counts {dash(o.final)}")
        totals = [sum(x.final[i] for x in outs[:number]) for i in range(len(o.final))]
        parts.append(f"totals {dash(totals)} ({self.owners()})")
        return " · ".join(parts)

    def after_rounds(self, before: list[tuple[bool, int]], show: Show) -> None:
        """After an append: the score sheet's line of each round it completed or ruled on,
        the certificate, and the round now due (or the end of the game)."""
        now = self.sheet_state()
        changed = [i + 1 for i, st in enumerate(now)
                   if st[0] and (i >= len(before) or before[i] != st)]
        if not changed:
            return
        for number in changed:
            show(self.sheet_line(number))
        head = self.store.head(self.game)
        show(f"certificate {head.certificate} (seq {head.seq}): write it on the score sheet")
        kind, seat = self.expected()
        if kind == "deal":
            n = len(self.fold.state.rounds) + 1
            show(f"{self.round_word} {n} is due: {self.who(seat)} deals: type 'deal' (or "
                 f"'score {self.scores_help}' for a {self.round_word} written by its score)")
        elif kind == "over":
            show(f"the game is over: {self.winner_text()}")

    def winner_text(self) -> str:
        w = self.fold.state.winner
        if isinstance(w, int):
            names = self.owners().split(" – ")
            return f"{names[w]} win{'s' * (' & ' not in names[w])}"
        return str(w)


def record_one(rec: Recorder, item: dict[str, Any] | Batch, ask: Ask, show: Show) -> int:
    """Offer an irregularity for a card out of turn, confirm a correction, warn about a
    violation (and ask), append (a batch whole), show what happened, and after a round its
    line of the score sheet; the events appended."""
    if isinstance(item, dict):
        offered = rec.out_of_turn(item, ask, show)
        if offered is None:
            return 0
        item = offered
        if not rec.confirm(item, ask, show):
            show("not recorded")
            return 0
    try:
        warn = rec.violations_of(item)
    except (JaslogError, ValueError):  # not an event the rules can judge: the store refuses it below
        warn = []
    if warn:
        for w in warn:
            show(f"! this breaks a rule: {w}")
        answer = ask("record it anyway? it will stand as a violation [y/N]> ")
        if not yes(answer):
            show("not recorded")
            return 0
    before = rec.sheet_state()
    try:
        out = rec.append(item)
    except StoreError as e:
        show(f"✗ {e}")
        return 0
    if out.error:
        show(out.message)
        return 0
    events = item if isinstance(item, list) else [item]
    for ev in rec.store.events(rec.game, upto=events[-1]["seq"])[-len(events):]:
        show(rec.describe(ev))
    show(render_table(rec.fold))
    rec.after_rounds(before, show)
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


def next_item(rec: Recorder, ask: Ask, show: Show) -> dict[str, Any] | Batch | str | None:
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
