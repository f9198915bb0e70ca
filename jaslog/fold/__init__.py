"""Events to game states: ``state = reduce(apply, events, initial(game_started))``.

A :class:`GameFold` holds one game's state and takes its events in seq order. An event the
record cannot contain raises :class:`FoldError`, which names the game, seq, seat, card and
rule; rule violations are kept in the state and reported by :mod:`jaslog.audit`.

>>> from jaslog.events import parse_event as p
>>> f = start_fold(p('{"game":"g","seq":0,"type":"game_started","ruleset":"amsterdam",'
...                '"seats":["ann","bob","cor","dirk"],"dealer":3}'))
>>> f.apply(p('{"game":"g","seq":1,"type":"dealt"}'))
>>> f.apply(p('{"game":"g","seq":2,"type":"bid","seat":0,"call":"H"}'))
>>> f.apply(p('{"game":"g","seq":3,"type":"play","seat":1,"card":"7H"}'))
Traceback (most recent call last):
...
jaslog.fold.FoldError: game g seq 3: seat 1 played 7H but it is seat 0's turn [not_your_turn]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from jaslog.events import Event, GameStarted, Line
from jaslog.rules.base import IntegrityError
from jaslog.rules.options import OptionError, game_of, resolve


class FoldError(ValueError):
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


class GameFold:
    """One game's fold: the state after every event applied so far.

    The game's own events are turned into rule actions by a handler per event type; each
    game registers its fold class in :data:`FOLDS` (see :mod:`jaslog.fold.klaverjas`).
    """

    game = ""
    players = 4
    #: Handlers by event type: a method name of the subclass.
    handlers: ClassVar[dict[str, str]] = {}

    def __init__(self, started: GameStarted, options: dict[str, Any]) -> None:
        self.game_id = started.game
        self.started = started
        self.ruleset = started.ruleset
        self.options = options
        self.seats = list(started.seats)
        self.next_seq = 1
        self.last_at: str | None = started.at
        self.notes: list[Event] = []
        self.state: Any = self.initial(started)
        # plain functions, not bound methods: a fold is no reference cycle, so it is freed
        # as soon as it is dropped (bulk imports run with the cycle collector paused)
        cls = type(self)
        self._apply: dict[str, Callable[[Any, Any], None]] = {
            t: getattr(cls, name) for t, name in self.handlers.items()}
        self._apply["note"] = cls._note

    def initial(self, started: GameStarted) -> Any:
        raise NotImplementedError

    def apply(self, e: Event) -> None:
        """Move the state on by one event, or raise :class:`FoldError` and change nothing."""
        if e.game != self.game_id:
            raise FoldError(f"event of game {e.game} given to game {self.game_id}",
                            code="wrong_game", game=e.game, seq=e.seq)
        if e.seq != self.next_seq:
            what = "a duplicate of" if e.seq < self.next_seq else "a gap before"
            raise FoldError(f"seq {e.seq} is {what} the expected seq {self.next_seq}",
                            code="seq_duplicate" if e.seq < self.next_seq else "seq_gap",
                            game=self.game_id, seq=e.seq)
        handler = self._apply.get(e.type)
        if handler is None:
            what = ("is only the first event of a game" if e.type == "game_started"
                    else f"is not an event of {self.game}")
            raise FoldError(f"{e.type} {what}", code="misplaced_event",
                            game=self.game_id, seq=e.seq)
        try:
            handler(self, e)
        except IntegrityError as err:
            raise self.located(err, e) from None
        self.next_seq += 1
        if e.at is not None:
            self.last_at = e.at

    def located(self, err: IntegrityError, e: Event) -> FoldError:
        """The fold error for an integrity error that event ``e`` raised in the rules."""
        return FoldError(err.message, code=err.code, game=self.game_id, seq=e.seq,
                         seat=err.seat if err.seat is not None else getattr(e, "seat", None),
                         card=getattr(e, "card", None))

    def _note(self, e: Any) -> None:
        if e.round is not None and e.round > self.rounds_dealt():
            raise IntegrityError("no_such_round", f"a note names round {e.round}, which was not dealt")
        if e.seat is not None and e.seat >= self.players:
            raise IntegrityError("bad_seat", f"{e.seat} is not a seat")
        self.notes.append(e)

    def rounds_dealt(self) -> int:
        return len(self.state.rounds)


#: The fold class of each game, by game name (filled in by the game modules below).
FOLDS: dict[str, type[GameFold]] = {}


def start_fold(started: Event) -> GameFold:
    """The fold of a new game, from its ``game_started`` event."""
    if not isinstance(started, GameStarted) or started.seq != 0:
        raise FoldError("a game's first event is game_started at seq 0",
                        code="no_game_started", game=started.game, seq=started.seq)
    gid = started.game
    try:
        game = game_of(started.ruleset)
        options = resolve(started.ruleset, started.options)
    except OptionError as e:
        raise FoldError(str(e), code="bad_options", game=gid, seq=0) from None
    cls = FOLDS.get(game)
    if cls is None:
        raise FoldError(f"{game} is not supported yet", code="unsupported_game", game=gid, seq=0)
    seats = started.seats
    if len(seats) != cls.players:
        raise FoldError(f"{game} has {cls.players} seats, not {len(seats)}",
                        code="bad_seats", game=gid, seq=0)
    if len(set(seats)) != len(seats):
        raise FoldError("a player sits in two seats", code="bad_seats", game=gid, seq=0)
    if started.dealer >= cls.players:
        raise FoldError(f"dealer {started.dealer} is not a seat", code="bad_seat", game=gid, seq=0)
    try:
        return cls(started, options)
    except IntegrityError as err:
        raise FoldError(err.message, code=err.code, game=gid, seq=0) from None


def fold(events: Iterable[Event]) -> GameFold:
    """Fold one game's events (in seq order) and return the fold."""
    it = iter(events)
    try:
        first = next(it)
    except StopIteration:
        raise FoldError("a game needs at least its game_started event", code="empty_game") from None
    f = start_fold(first)
    for e in it:
        f.apply(e)
    return f


@dataclass
class FileGame:
    """A game as read from log files: its fold, or the integrity error that stopped it."""

    game: str
    fold: GameFold | None = None
    error: FoldError | None = None
    lines: list[tuple[str, int]] = field(default_factory=list)  # (source, line) of each event


def fold_lines(lines: Iterable[Line], is_last: Callable[[str, Line], bool] | None = None,
               ) -> Iterator[FileGame | FoldError]:
    """Fold every game found in ``lines`` (games may interleave; each in seq order).

    Yields a :class:`FileGame` per game: at its last line when ``is_last(game, line)`` tells
    which line that is (:meth:`jaslog.logs.LogFiles.is_last`: memory then holds only the games
    under way), else in order of first appearance once all lines are read. A line that names
    no game is yielded as a bare :class:`FoldError` at once.
    """
    games: dict[str, FileGame] = {}
    for ln in lines:
        gid = ln.event.game if ln.event is not None else ln.game
        if ln.event is None:
            err = FoldError(ln.error or "unreadable", code="bad_event", game=gid, seq=ln.seq,
                            source=ln.source, line=ln.number)
            if gid is None:
                yield err
                continue
            g = games.setdefault(gid, FileGame(gid))
            if g.error is None:
                g.error = err
        else:
            assert gid is not None
            g = games.get(gid) or games.setdefault(gid, FileGame(gid))
            if g.error is None:
                g.lines.append((ln.source, ln.number))
                try:
                    if g.fold is None:
                        g.fold = start_fold(ln.event)
                    else:
                        g.fold.apply(ln.event)
                except FoldError as e:
                    g.error = e.located(ln.source, ln.number)
        if is_last is not None and is_last(gid, ln):
            yield games.pop(gid)
    yield from games.values()


from jaslog.fold import klaberjass as _klaberjass  # noqa: E402  (registers the game)
from jaslog.fold import klaverjas as _klaverjas  # noqa: E402  (registers the game)
from jaslog.fold import kloepper as _kloepper  # noqa: E402  (registers the game)

__all__ = [
    "FOLDS",
    "FileGame",
    "FoldError",
    "GameFold",
    "_klaberjass",
    "_klaverjas",
    "_kloepper",
    "fold",
    "fold_lines",
    "start_fold",
]
