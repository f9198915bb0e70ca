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
import textwrap
from typing import Any, Protocol, cast, runtime_checkable

from jaslog.cards import CARD_TEXT, CardError, hand_text, parse_card
from jaslog.engine.fold import FoldError
from jaslog.engine.game import Game
from jaslog.errors import JaslogError
from jaslog.events import Event, event_from_dict
from jaslog.play.render import describe_event, render_table
from jaslog.record.base import (
    CLAIM_WORDS,
    COMMON_HELP,
    HELP_WIDTH,
    QUIT_WORDS,
    UNSEEN,
    Ask,
    Batch,
    InputError,
    Outcome,
    Show,
    dash,
    suit_word,
    yes,
)
from jaslog.record.hands import HandEntry
from jaslog.record.repairs import TableRepairs
from jaslog.store import ConflictError, RejectedError, StoreError

__all__ = ["UNSEEN", "Ask", "Batch", "InputError", "Outcome", "Recorder", "Show", "dash",
           "next_item", "prepare_one", "record_one", "run", "suit_word", "yes"]


class Recorder(TableRepairs, HandEntry):
    """One game being recorded into a store (the game's subclass knows its words)."""

    def prompt(self) -> str:
        """``[seq 36] round 2: seat 3 (eva) deals: type 'deal'> ``: the round in play, or the
        round due when a deal is."""
        kind, seat = self.expected()
        n = len(self.fold.state.rounds)
        where = f"{self.round_word} {n + 1 if kind == 'deal' else n}" if n or kind == "deal" \
            else f"no {self.round_word} yet"
        return f"[seq {self.next_seq}] {where}: {self.doing(kind, seat)}> "

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
        if parts and parts[0] in CLAIM_WORDS:
            return self.claim_from(parts, seat)
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

    def claim_from(self, parts: list[str], seat: int | None) -> dict[str, Any]:
        """``claim [SEAT]`` or ``concede [SEAT]`` (``parts``, lower case; ``seat``: one given
        before the word): by default the seat due to play."""
        gives = CLAIM_WORDS[parts[0]]
        if len(parts) > 2:
            raise InputError(f"{' '.join(parts)!r}: a claim is '{parts[0]} [SEAT]'")
        if len(parts) == 2:
            if seat is not None:
                raise InputError("give the claimer's seat once: before the word or after it")
            seat = self.seat_arg(parts[1])
        seat = self.seat_for(seat, ("play",), "claim of the rest",
                             probe={"type": "claim", "gives": gives})
        return self.base("claim", seat=seat, gives=gives)

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

    def violations_of(self, event: dict[str, Any] | Batch) -> list[str]:
        """The rule violations ``event`` (or a batch) would add (checked on a copy of the
        fold); a correction or an irregularity adds none."""
        events = event if isinstance(event, list) else [event]
        if any(e.get("type") in ("correction", "irregularity") for e in events):
            return []
        error, violations = self.tried(events)
        if error is not None:
            raise error
        return [f"{v.rule}: {v.message}" for v in violations]

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
        new = self.store.events_since(self.game, self.next_seq)
        if not new:
            return False
        show(f"{len(new)} event{'s' * (len(new) != 1)} recorded elsewhere in this game "
             "(another recorder or an append):")
        self._tried = None
        try:
            for e in new:  # each described on the table it was recorded at
                self.fold.apply(e)
                show(self.describe(e))
        except BaseException:  # the stored game, folded afresh, whatever happened here
            self.fold = self.store.fold(self.game)
            raise
        show(render_table(self.fold))
        return True

    def describe(self, e: Event) -> Any:
        """How the table shows a recorded event: as every report does, or in the recorder's
        words for an event the table has no words of its own for."""
        t = describe_event(self.fold, e)
        if t.plain.split()[2:] == [e.type]:
            return f"seq {e.seq:>4} {self.said(e)}"
        return t

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
        signed = self.store.signature(self.game, head.seq)  # the store signs every round's end
        by = f", signed by key {signed['key']}" if signed is not None else ""
        show(f"certificate {head.certificate} (seq {head.seq}{by}): write it on the score sheet")
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


def prepare_one(rec: Recorder, item: dict[str, Any] | Batch, ask: Ask,
                show: Show) -> dict[str, Any] | Batch | None:
    """What is asked before an event is appended: an irregularity offered for a card out of
    turn, a correction confirmed, a violation warned about (and asked); the event or batch
    to append, or None when the scorer said no. The terminal's loop and the scorer's pad
    (``jaslog.service.api_record``) both ask through here."""
    if isinstance(item, dict):
        offered = rec.out_of_turn(item, ask, show)
        if offered is None:
            return None
        item = offered
        if not rec.confirm(item, ask, show):
            show("not recorded")
            return None
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
            return None
    return item


def record_one(rec: Recorder, item: dict[str, Any] | Batch, ask: Ask, show: Show) -> int:
    """Offer an irregularity for a card out of turn, confirm a correction, warn about a
    violation (and ask): :func:`prepare_one`; then append (a batch whole), show what
    happened, and after a round its line of the score sheet; the events appended."""
    prepared = prepare_one(rec, item, ask, show)
    if prepared is None:
        return 0
    item = prepared
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
    for ev in rec.fold.log[-len(events):]:  # as stored: append reloads the game
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


@runtime_checkable
class RecordAdapter(Protocol):
    """A game's ``record`` adapter (``jaslog/games/<g>/record.py``), loaded by name
    (:func:`record_adapter`): its recorder class, the game's words over the shared
    :class:`Recorder`."""

    @property
    def RECORDER(self) -> type[Recorder]: ...


def record_adapter(game: Game) -> RecordAdapter:
    """The game's ``record`` adapter (:class:`~jaslog.engine.game.NotSupported` when it
    declares none)."""
    return cast(RecordAdapter, game.adapter("record"))
