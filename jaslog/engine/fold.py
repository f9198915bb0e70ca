"""The fold of one game: a state that takes the game's events in seq order.

A :class:`GameFold` turns each event into a rule action of its game; an event the record
cannot contain raises :class:`FoldError`, which names the file and line, game, seq, seat,
card and rule. Each game subclasses :class:`GameFold` in its own ``fold`` module.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from jaslog.cards import CARD_TEXT, SUIT_LETTERS
from jaslog.engine.base import ClaimJudge, IntegrityError, ScoreOnly, check_seat
from jaslog.errors import JaslogError
from jaslog.events import (
    Claim,
    Correction,
    DealCommitted,
    DealRevealed,
    Event,
    GameStarted,
    Irregularity,
    Nonce,
    Note,
    Play,
    RoundScore,
    Timeout,
)
from jaslog.events.fast import FastPlay, fast_play
from jaslog.events.times import time_text

#: Objects the fold takes in place of an event model: a canonical play read without its
#: model (:mod:`jaslog.events.fast`) goes to the handler of :class:`~jaslog.events.Play`.
STAND_INS: dict[type[Event], tuple[type, ...]] = {Play: (FastPlay,)}

#: The events of a deal anyone can check (rule book 9.3, decision 20): the server's commit, a
#: seat's nonce, the revealed seed. They change nothing in the fold (``jaslog.play.fairdeal``
#: checks them), and no correction retracts them.
FAIR_DEAL = frozenset({"deal_committed", "nonce", "deal_revealed"})
#: Events a correction passes over when it looks for the most recent events, and never
#: retracts (rule book 9.1, decision 9).
PASSED_OVER = frozenset({"game_started", "note", "correction", *FAIR_DEAL})
#: Events that open a round: a correction reaches back no further than the last of them.
ROUND_OPENERS: Final = frozenset({"dealt", "round_score"})
#: Events that change nothing in the state: a rebuild after a correction skips them.
KEPT_BESIDE = frozenset({"note", "correction", *FAIR_DEAL})


@mypyc_attr(native_class=False)  # (its base is a plain Python class)
class FoldError(JaslogError, ValueError):
    """An integrity error, located: which file and line, game, seq, seat and card, which rule."""

    def __init__(self, message: str, *, code: str, game: str | None = None,
                 seq: int | None = None, source: str | None = None, line: int | None = None,
                 seat: int | None = None, card: str | None = None) -> None:
        self.message, self.code, self.game, self.seq = message, code, game, seq
        self.source, self.line, self.seat, self.card = source, line, seat, card
        super().__init__(self.text())

    def text(self) -> str:
        where = []
        if self.source is not None:
            where.append(f"{self.source}:{self.line}:" if self.line is not None else f"{self.source}:")
        if self.game is not None:
            where.append(f"game {self.game}")
        if self.seq is not None:
            where.append(f"seq {self.seq}")
        head = " ".join(where).rstrip(":")  # "f.jsonl:2: game g seq 1" or "f.jsonl:2"
        return f"{head}: {self.message} [{self.code}]" if head else f"{self.message} [{self.code}]"

    def located(self, source: str, line: int) -> FoldError:
        return FoldError(self.message, code=self.code, game=self.game, seq=self.seq,
                         source=source, line=line, seat=self.seat, card=self.card)

    def __str__(self) -> str:
        return self.text()


#: The fields of every :class:`GameFold` (its copy sets each; a game's fold class in Python
#: may keep more, which its copy copies deeply).
FOLD_FIELDS = frozenset({
    "game_id", "started", "ruleset", "options", "seats", "next_seq", "last_at", "notes", "entries",
    "unread", "retracted", "irregularities", "timeouts", "claim_judge", "state", "_apply", "fair_deal",
    "opened", "row_events"})

#: A fold class's declared handlers: event class -> the name of the method that takes it
#: (None: an event a base class takes and this one does not).
Handlers = Mapping[type[Event], str | None]


def dispatch_table(cls: type) -> dict[type, Callable[[Any, Any], None]]:
    """The handlers of a fold class by the event class they take, stand-ins included: the
    tables its classes declare (:attr:`GameFold.handlers`), a class's entry for an event
    replacing its bases', each name read as the most derived method of that name.

    >>> class F(GameFold):
    ...     handlers = {Play: "play"}
    ...     def play(self, e: Play) -> None: ...
    >>> F.dispatch[Play] is F.play is F.dispatch[FastPlay]
    True
    """
    names: dict[type, str] = {}
    for klass in reversed(cls.__mro__):
        declared = vars(klass).get("handlers")
        if declared is None:
            continue
        for event, name in declared.items():
            if not (isinstance(event, type) and issubclass(event, Event) and event is not Event):
                raise TypeError(f"{klass.__qualname__}.handlers names {event!r}, which is not an "
                                "event class (Play, Bid...)")
            if name is None:
                names.pop(event, None)
            else:
                names[event] = name
    table: dict[type, Callable[[Any, Any], None]] = {}
    for event, name in names.items():
        fn = getattr(cls, name, None)
        if not callable(fn):
            raise TypeError(f"{cls.__qualname__} takes {event.__name__} by its method "
                            f"{name!r}, which it does not have")
        for key in (event, *STAND_INS.get(event, ())):
            table[key] = fn
    return table


@mypyc_attr(allow_interpreted_subclasses=True)
class GameFold:
    """One game's fold: the state after every event applied so far.

    The game's own events are turned into rule actions by its handlers, one method per event
    class, declared in the class's :attr:`handlers` table (event class -> method name); the
    table of functions, :attr:`dispatch`, is built once per fold class from the tables of the
    class and its bases. Each game registers its fold class in its
    :class:`~jaslog.engine.game.Game` (see :mod:`jaslog.games.klaverjas.fold`).

    Compiled, it is a native class (its fields declared below, a copy written out field by
    field) that each game's fold derives from, compiled or not.
    """

    game: ClassVar[str] = ""
    players: ClassVar[int] = 4
    #: The handlers this class declares (a subclass declares its own; see
    #: :func:`dispatch_table`): the facts every game takes.
    handlers: ClassVar[Handlers] = {
        Note: "_note", Irregularity: "_irregularity", Timeout: "_timeout",
        DealCommitted: "_deal_committed", Nonce: "_nonce", DealRevealed: "_deal_revealed",
        Claim: "_claim", RoundScore: "_round_score", Correction: "_correction",
    }
    #: Handlers by event class: plain functions, built once per class from its handlers.
    dispatch: ClassVar[dict[type, Callable[[Any, Any], None]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.dispatch = dispatch_table(cls)

    def __init__(self, started: GameStarted, options: dict[str, Any]) -> None:
        self.game_id: str = started.game
        self.started: GameStarted = started
        self.ruleset: str = started.ruleset
        self.options: dict[str, Any] = options
        self.seats: list[str] = list(started.seats)
        self.next_seq: int = 1
        self.last_at: str | None = started.at
        self.notes: list[Event] = []
        #: every event applied, by seq (retracted events included): :attr:`log`, but that
        #: a play given by its canonical line or by its code (:meth:`apply_play`) is kept as
        #: those bytes or that int, and a stored row a game took as it is
        #: (:meth:`apply_row`) as that tuple, until the log is read (from :attr:`unread` on)
        self.entries: list[Any] = [started]
        #: the first entry of :attr:`entries` that may be a play's line, code or a stored
        #: row (-1: none)
        self.unread: int = -1
        #: reads the stored rows the log keeps (:meth:`apply_row`) into their events, in
        #: order (given by the reader that handed the rows over; None: no row is kept)
        self.row_events: Callable[[list[Any]], list[Event]] | None = None
        #: the correction that retracted each retracted event, by the event's seq
        self.retracted: dict[int, Correction] = {}
        #: irregularities and timeouts, each with the round in play when it was recorded
        self.irregularities: list[tuple[int, Irregularity]] = []
        self.timeouts: list[tuple[int, Timeout]] = []
        #: whether the log holds an event of a computer deal (:data:`FAIR_DEAL`: a deal
        #: committed, a nonce, a deal revealed), which the audit then checks (rule book 9.3)
        self.fair_deal: bool = False
        #: the seqs of the events that opened a round (:data:`ROUND_OPENERS`), in order,
        #: retracted ones included (:attr:`openers` gives their events)
        self.opened: list[int] = []
        #: judges a claim of the rest with the hands known (the game's solver, given by
        #: :func:`jaslog.play.fold.start_fold`); None leaves every claim standing as recorded
        self.claim_judge: ClaimJudge | None = None
        self.state: Any = self.initial(started)
        # the class's table of plain functions, not bound methods: a fold is no reference
        # cycle, so it is freed as soon as it is dropped (bulk imports run with the cycle
        # collector paused)
        self._apply: dict[type, Callable[[Any, Any], None]] = self.dispatch

    def initial(self, started: GameStarted) -> Any:
        raise NotImplementedError

    def __deepcopy__(self, memo: dict[int, Any]) -> GameFold:
        """A fold that goes on apart from this one (a recorder tries an event on a copy):
        its state copied deeply, its events shared, since they never change (the lists
        holding them are new, so the copy moves on alone). Written out field by field, as a
        compiled class has no ``__dict__`` to copy; a game's fold class in Python keeps what
        it adds in one, copied deeply.

        >>> from jaslog.play.sim import simulate_game
        >>> from jaslog.play.fold import fold
        >>> from jaslog.events import event_from_dict
        >>> f = fold(event_from_dict(e) for e in simulate_game("c", seed=3)[:9])
        >>> g = copy.deepcopy(f)
        >>> g.log is not f.log and g.log[1] is f.log[1], g.state is not f.state
        (True, True)
        """
        # (made by its constructor, as a compiled class is, then every field set)
        new = type(self)(self.started, copy.deepcopy(self.options, memo))
        memo[id(self)] = new
        new.game_id, new.started, new.ruleset = self.game_id, self.started, self.ruleset
        new.seats = list(self.seats)
        new.next_seq, new.last_at = self.next_seq, self.last_at
        new.notes, new.entries, new.unread = list(self.notes), list(self.log), -1
        new.retracted = dict(self.retracted)
        new.irregularities, new.timeouts = list(self.irregularities), list(self.timeouts)
        new.fair_deal = self.fair_deal
        new.opened = list(self.opened)
        new.row_events = self.row_events
        new.claim_judge = self.claim_judge
        new.state = copy.deepcopy(self.state, memo)
        new._apply = self._apply
        extra: dict[str, Any] | None = getattr(self, "__dict__", None)
        if extra:  # (run as pure Python, every field is there: those above are set)
            for key, value in extra.items():
                if key not in FOLD_FIELDS:
                    setattr(new, key, copy.deepcopy(value, memo))
        return new

    def apply(self, e: Event) -> None:
        """Move the state on by one event, or raise :class:`FoldError` and change nothing."""
        # The envelope is read from the event's ``__dict__`` (a model's and a stand-in's hold
        # every field): compiled, one dict read each, not a look-up through the model's class.
        d: dict[str, Any] = e.__dict__
        game: str = d["game"]
        seq: int = d["seq"]
        if game != self.game_id:
            raise FoldError(f"event of game {game} given to game {self.game_id}",
                            code="wrong_game", game=game, seq=seq)
        if seq != self.next_seq:
            what = "a duplicate of" if seq < self.next_seq else "a gap before"
            raise FoldError(f"seq {seq} is {what} the expected seq {self.next_seq}",
                            code="seq_duplicate" if seq < self.next_seq else "seq_gap",
                            game=self.game_id, seq=seq)
        fn = self._apply.get(type(e))
        if fn is None:
            fn = self._inherited(e)
        if fn is None:
            what = ("is only the first event of a game" if e.type == "game_started"
                    else f"is not an event of {self.game}")
            raise FoldError(f"{e.type} {what}", code="misplaced_event",
                            game=self.game_id, seq=seq)
        try:
            fn(self, e)
        except IntegrityError as err:
            raise self.located(err, e) from None
        self.entries.append(e)
        if d["type"] in ROUND_OPENERS:
            self.opened.append(seq)
        self.next_seq = seq + 1
        at: str | None = d["at"]
        if at is not None:
            self.last_at = at

    def apply_play(self, seat: int, card: int, at: str | None = None,
                   event: Event | bytes | int | None = None) -> None:
        """Move the state on by the next event, a play: seat ``seat`` (0-3) plays ``card``
        (0-31, as :mod:`jaslog.cards` numbers them) at seq :attr:`next_seq`, at the time
        ``at``; or raise :class:`FoldError` and change nothing. The state, the violations,
        the errors and the log are those :meth:`apply` gives of that play. The log keeps
        ``event``, the play as an event (its seq :attr:`next_seq`, its seat and card these),
        or, when None, a :class:`~jaslog.events.fast.FastPlay` of these fields; ``event``
        may be the play's canonical line (bytes :func:`~jaslog.events.fast.fast_play`
        takes), which the log keeps as it is until it is read (a reader of a log's lines
        makes no event for a play nobody asks for); or the play's code (:func:`play_code`:
        its seat, card and time as one int), which the log keeps until it is read, then a
        :class:`~jaslog.events.fast.FastPlay` of this game, seq, seat, card and time (a
        reader of a store's columns makes no event for a play nobody asks for); ``at`` is
        then the text of the code's time.

        A reader that has the play's seat and card as ints (a log's bytes, a store's
        columns) calls this instead of :meth:`apply`: a game's fold may take the play
        without reading an event (Klaverjas, Klaberjass and Kloepper do); this one makes
        the event and applies it.

        >>> from jaslog.play.sim import simulate_game
        >>> from jaslog.play.fold import fold
        >>> from jaslog.events import event_from_dict
        >>> from jaslog.cards import CARD_INDEX
        >>> events = simulate_game("p", seed=3)
        >>> f = fold(event_from_dict(e) for e in events[:3])
        >>> e = events[3]  # the first play
        >>> f.apply_play(e["seat"], CARD_INDEX[e["card"]], e.get("at"))
        >>> f.log[-1].model_dump(exclude_none=True) == e, f.next_seq
        (True, 4)
        """
        play: Any = event if event is not None else \
            FastPlay(self.game_id, self.next_seq, seat, CARD_TEXT[card], at, None, None)
        if isinstance(play, bytes):
            play = fast_play(play)
            if play is None:
                raise ValueError(f"{event!r} is not the canonical line of a play")
        elif isinstance(play, int):
            play = coded_play(self.game_id, self.next_seq, play)
        self.apply(play)

    @property
    def log(self) -> list[Event]:
        """Every event applied, by seq (the log, retracted events included)."""
        if self.unread >= 0:  # plays kept as their lines or codes, rows: read now, once
            entries = self.entries
            rows: list[int] = []
            for i in range(self.unread, len(entries)):
                x = entries[i]
                if isinstance(x, bytes):
                    entries[i] = fast_play(x)  # (a line a reader took as a canonical play)
                elif isinstance(x, int):
                    entries[i] = coded_play(self.game_id, i, x)  # (an entry's seq: its place)
                elif isinstance(x, tuple):
                    rows.append(i)  # (a stored row a game took as it is: read below)
            if rows:
                read = self.row_events
                assert read is not None, "a stored row is kept without its reader"
                events = read([entries[i] for i in rows])
                for i, ev in zip(rows, events, strict=True):
                    entries[i] = ev
            self.unread = -1
        return self.entries

    @property
    def openers(self) -> list[Event]:
        """The events that opened a round (:data:`ROUND_OPENERS`), in seq order, retracted
        ones included: the audit reads how each round was recorded without a scan of the
        log."""
        entries = self.entries
        rows = [s for s in self.opened if isinstance(entries[s], tuple)]
        if rows:  # (a deal kept as its stored row: read now, once; no play is an opener,
            # so the plays kept as lines or codes stay as they are: reading the whole log
            # for its openers cost a check or an import a FastPlay for every play)
            read = self.row_events
            assert read is not None, "a stored row is kept without its reader"
            for s, ev in zip(rows, read([entries[s] for s in rows]), strict=True):
                entries[s] = ev
        return [entries[s] for s in self.opened]

    def apply_row(self, name: str, seat: Any, card: Any, rest: bytes | None,
                  entry: Any) -> bool:
        """Move the state on by the next event (seq :attr:`next_seq`), given as the parts of
        its stored row: its type ``name``, its ``seat`` and ``card`` columns and its
        ``rest`` (the bytes the store keeps: :mod:`jaslog.store.compact`), without its
        event; True when this fold took it so. A game's fold takes the rows it knows in
        their usual form (Klaverjas: a deal, a bid, a roem claim), with the state, the
        violations and the errors :meth:`apply` gives of their events, and keeps ``entry``
        (a tuple, the row) in the log until the log is read: :attr:`row_events` then makes
        the events. False (this one: every row) changes nothing: the caller makes the event
        and applies it, which says what is wrong with an odd row.

        The caller has checked the row's envelope (a seq of this game, a time and an id
        validation takes as they are) and sets :attr:`last_at` from the row's time (only
        the last one is ever read); an :class:`~jaslog.engine.base.IntegrityError` of the
        rules is the caller's to locate with the row's event (:meth:`located`): the fold is
        then given up, as after any :class:`FoldError`."""
        return False

    def row_applied(self, name: str, entry: Any) -> None:
        """The bookkeeping of a stored row a game's :meth:`apply_row` gave its state: the
        log keeps ``entry`` until it is read, the next seq moves on, a round's opener is
        noted (the time is the caller's)."""
        if self.unread < 0:
            self.unread = len(self.entries)
        self.entries.append(entry)
        if name in ROUND_OPENERS:
            self.opened.append(self.next_seq)
        self.next_seq += 1

    def played(self, seat: int, card: int, at: str | None,
               event: Event | bytes | int | None) -> None:
        """The bookkeeping of a play a game's :meth:`apply_play` gave its state: the log
        keeps it (``event``, or a :class:`~jaslog.events.fast.FastPlay` of its fields), the
        next seq and the last time move on, as :meth:`apply` moves them."""
        seq = self.next_seq
        play: Any = event if event is not None else \
            FastPlay(self.game_id, seq, seat, CARD_TEXT[card], at, None, None)
        if self.unread < 0 and isinstance(play, (bytes, int)):
            self.unread = len(self.entries)
        self.entries.append(play)
        self.next_seq = seq + 1
        if at is not None:
            self.last_at = at

    def play_refused(self, err: IntegrityError, seat: int, card: int) -> FoldError:
        """The fold error for an integrity error the rules raised at the play of ``card``
        by ``seat`` at seq :attr:`next_seq` (as :meth:`located` gives it of that play)."""
        return FoldError(err.message, code=err.code, game=self.game_id, seq=self.next_seq,
                         seat=err.seat if err.seat is not None else seat, card=CARD_TEXT[card])

    def _inherited(self, e: Event) -> Callable[[Any, Any], None] | None:
        """The handler of the nearest event class ``e``'s class derives from, if any."""
        for klass in type(e).__mro__[1:]:
            fn = self._apply.get(klass)
            if fn is not None:
                return fn
        return None

    def located(self, err: IntegrityError, e: Event) -> FoldError:
        """The fold error for an integrity error that event ``e`` raised in the rules."""
        return FoldError(err.message, code=err.code, game=self.game_id, seq=e.seq,
                         seat=err.seat if err.seat is not None else getattr(e, "seat", None),
                         card=getattr(e, "card", None))

    def _note(self, e: Note) -> None:
        if e.round is not None and e.round > self.rounds_dealt():
            raise IntegrityError("no_such_round", f"a note names round {e.round}, which was not dealt")
        if e.seat is not None and e.seat >= self.players:
            raise IntegrityError("bad_seat", f"{e.seat} is not a seat")
        self.notes.append(e)

    def _irregularity(self, e: Irregularity) -> None:
        check_seat(e.seat, self.players)
        self.irregularities.append((self.rounds_dealt(), e))

    def _timeout(self, e: Timeout) -> None:
        check_seat(e.seat, self.players)
        self.timeouts.append((self.rounds_dealt(), e))

    def _deal_committed(self, e: DealCommitted) -> None:
        """Changes nothing in the state: the deal's checks read the log
        (``jaslog.play.fairdeal``)."""
        self.fair_deal = True

    def _nonce(self, e: Nonce) -> None:
        check_seat(e.seat, self.players)
        self.fair_deal = True

    def _deal_revealed(self, e: DealRevealed) -> None:
        """Changes nothing in the state: the deal's checks read the log
        (``jaslog.play.fairdeal``)."""
        self.fair_deal = True

    def _claim(self, e: Claim) -> None:
        self.state.claim(e.seat, e.gives, e.seq, self.claim_judge)

    def _round_score(self, e: RoundScore) -> None:
        trump = SUIT_LETTERS.index(e.trump) if e.trump is not None else None
        self.state.record_score(e.round, ScoreOnly(
            list(e.score), e.seq, e.chooser, trump, e.points and list(e.points),
            e.roem and list(e.roem), e.result))

    def _correction(self, e: Correction) -> None:
        """Retract the most recent events (rule book 9.1, decision 9): check which, then fold
        the log again without them. Nothing changes when the correction is refused."""
        asked = list(e.retracts)
        if self.state.finished:
            raise IntegrityError("retract_game_over", "the game is over: a correction reaches "
                                 f"no further back than the {self.state.round_word} in play, "
                                 "and a finished game has none; once a game is over, only a "
                                 "referee's ruling changes it")
        for s in asked:
            if not 1 <= s < e.seq:
                raise IntegrityError("retract_unknown_seq", f"seq {s} is not in the log (it holds "
                                     f"seqs 0-{e.seq - 1})")
            if asked.count(s) > 1:
                raise IntegrityError("retract_twice", f"the correction names seq {s} twice")
            done = self.retracted.get(s)
            if done is not None:
                raise IntegrityError("retract_twice", f"seq {s} ({describe(self.log[s])}) was "
                                     f"already retracted by the correction at seq {done.seq}")
            if self.log[s].type in PASSED_OVER:
                raise IntegrityError("retract_not_latest", f"seq {s} is a {self.log[s].type}, "
                                     "which a correction does not retract (a note stands; "
                                     "a correction is final)")
        opener = self._round_opener()
        early = min(asked)
        if early < opener:
            raise IntegrityError("retract_past_round", f"seq {early} ({describe(self.log[early])}) "
                                 f"is in a {self.state.round_word} followed by the deal at seq "
                                 f"{opener}; a completed {self.state.round_word} is changed "
                                 "only by a ruling")
        latest = self.latest_actions(len(asked))
        if sorted(asked) != sorted(latest):
            shown = ", ".join(f"seq {s} ({describe(self.log[s])})" for s in latest)
            raise IntegrityError("retract_not_latest", "a correction retracts the most recent "
                                 f"events; the {len(latest)} most recent "
                                 f"{'is' if len(latest) == 1 else 'are'} {shown}")
        before = (self.state, self.irregularities, self.timeouts)
        for s in asked:
            self.retracted[s] = e
        try:
            self._refold()
        except IntegrityError:  # cannot happen for a suffix of the log; keep the fold whole
            for s in asked:
                del self.retracted[s]
            self.state, self.irregularities, self.timeouts = before
            raise

    def latest_actions(self, n: int) -> list[int]:
        """The seqs of the ``n`` most recent events a correction may retract, latest first."""
        out: list[int] = []
        for ev in reversed(self.log):
            if len(out) == n:
                break
            if ev.type in PASSED_OVER or ev.seq in self.retracted:
                continue
            out.append(ev.seq)
        return out

    def _round_opener(self) -> int:
        """The seq of the event that opened the round in play (0 before the first deal)."""
        for ev in reversed(self.log):
            if ev.type in ROUND_OPENERS and ev.seq not in self.retracted:
                return ev.seq
        return 0

    def _refold(self) -> None:
        """The state folded anew from the log, without the retracted events."""
        self.state = self.initial(self.started)
        self.irregularities, self.timeouts = [], []
        for ev in self.log[1:]:
            if ev.seq in self.retracted or ev.type in KEPT_BESIDE:
                continue
            fn = self._apply.get(type(ev)) or self._inherited(ev)
            assert fn is not None
            fn(self, ev)

    def rounds_dealt(self) -> int:
        return len(self.state.rounds)


def play_code(seat: int, card: int, at: int | None) -> int:
    """A play as one int a fold's log keeps (:meth:`GameFold.apply_play`): its seat (0-3),
    its card (0-31) and its time, a time code (:mod:`jaslog.events.times`; None: none), which
    may not be negative. :func:`coded_play` reads it.

    >>> coded_play("g", 5, play_code(2, 8, 1767641455)).model_dump(exclude_none=True)
    {'game': 'g', 'seq': 5, 'type': 'play', 'at': '2026-01-05T19:30:55Z', 'seat': 2, 'card': '7D'}
    >>> coded_play("g", 5, play_code(3, 31, None)).model_dump(exclude_none=True)
    {'game': 'g', 'seq': 5, 'type': 'play', 'seat': 3, 'card': 'AS'}
    """
    code = seat * 32 + card
    return code if at is None else code | (at + 1) << 7


def coded_play(game: str, seq: int, code: int) -> FastPlay:
    """The play of game ``game`` at seq ``seq`` that :func:`play_code` gave ``code`` of."""
    return FastPlay(game, seq, (code >> 5) & 3, CARD_TEXT[code & 31],
                    None if code < 128 else time_text((code >> 7) - 1), None, None)


def describe(e: Event) -> str:
    """An event in a few words, for an error message.

    >>> from jaslog.events import parse_event
    >>> describe(parse_event('{"game":"g","seq":4,"type":"play","seat":2,"card":"10H"}'))
    'play 10H by seat 2'
    """
    seat = getattr(e, "seat", None)
    what = getattr(e, "card", None) or getattr(e, "call", None)
    return e.type + (f" {what}" if what else "") + (f" by seat {seat}" if seat is not None else "")


GameFold.dispatch = dispatch_table(GameFold)
