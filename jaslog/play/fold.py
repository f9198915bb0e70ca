"""Events to game states: ``state = reduce(apply, events, initial(game_started))``.

A :class:`GameFold` holds one game's state and takes its events in seq order. An event the
record cannot contain raises :class:`FoldError`, which names the game, seq, seat, card and
rule; rule violations are kept in the state and reported by :mod:`jaslog.play.audit`.

>>> from jaslog.events import parse_event as p
>>> f = start_fold(p('{"game":"g","seq":0,"type":"game_started","ruleset":"amsterdam",'
...                '"seats":["ann","bob","cor","dirk"],"dealer":3}'))
>>> f.apply(p('{"game":"g","seq":1,"type":"dealt"}'))
>>> f.apply(p('{"game":"g","seq":2,"type":"bid","seat":0,"call":"H"}'))
>>> f.apply(p('{"game":"g","seq":3,"type":"play","seat":1,"card":"7H"}'))
Traceback (most recent call last):
...
jaslog.engine.fold.FoldError: game g seq 3: seat 1 played 7H but it is seat 0's turn [not_your_turn]
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast, overload

from jaslog.engine.base import ClaimJudge, IntegrityError
from jaslog.engine.fold import FoldError, GameFold
from jaslog.engine.options import OptionError
from jaslog.events import Event, GameStarted
from jaslog.games import GAMES, game_of, resolve
from jaslog.logs import Line

if TYPE_CHECKING:  # the solver loads on the first claim judged, not with every fold
    from jaslog.analysis.adapt import SolverAdapter


@dataclass(frozen=True)
class SolverJudge:
    """A game's claim judge (:data:`~jaslog.engine.base.ClaimJudge`): its ``solver`` adapter's
    ``claim_guaranteed``, loaded on the first claim judged (a fold that meets no claim never
    loads the solver)."""

    game: str

    def __call__(self, state: Any, r: Any, seat: int) -> bool:
        adapter = cast("SolverAdapter", GAMES[self.game].adapter("solver"))
        judge: ClaimJudge = adapter.claim_guaranteed
        return judge(state, r, seat)


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
    cls = GAMES[game].fold
    seats = started.seats
    if len(seats) != cls.players:
        raise FoldError(f"{game} has {cls.players} seats, not {len(seats)}",
                        code="bad_seats", game=gid, seq=0)
    if len(set(seats)) != len(seats):
        raise FoldError("a player sits in two seats", code="bad_seats", game=gid, seq=0)
    if started.dealer >= cls.players:
        raise FoldError(f"dealer {started.dealer} is not a seat", code="bad_seat", game=gid, seq=0)
    try:
        f = cls(started, options)
    except IntegrityError as err:
        raise FoldError(err.message, code=err.code, game=gid, seq=0) from None
    # a game without a solver leaves every claim standing as recorded
    f.claim_judge = SolverJudge(game) if GAMES[game].supports("solver") else None
    return f


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


class SourceLines(Sequence[tuple[str, int]]):
    """Where each event of a game was read, in the order folded: ``(source, line)``, kept as
    runs of consecutive lines of one source (a game written line after line in one file
    takes one run a block of lines read, not a pair of objects a line).

    >>> lines = SourceLines([("a.jsonl", 3)])
    >>> lines.append(("a.jsonl", 4)); lines.add_run("a.jsonl", 5, 2); lines.append(("b.jsonl", 1))
    >>> len(lines), lines[3], lines[-1], lines == [("a.jsonl", n) for n in (3, 4, 5, 6)] + [("b.jsonl", 1)]
    (5, ('a.jsonl', 6), ('b.jsonl', 1), True)
    """

    __slots__ = ("_count", "_firsts", "_sources", "_starts")

    def __init__(self, pairs: Iterable[tuple[str, int]] = ()) -> None:
        self._sources: list[str] = []  # each run's source,
        self._firsts: list[int] = []  # its first line,
        self._starts: list[int] = []  # and the index of its first pair
        self._count = 0
        for source, line in pairs:
            self.add_run(source, line, 1)

    def add_run(self, source: str, first: int, count: int) -> None:
        """Add the ``count`` lines of ``source`` from line ``first`` on, in order."""
        if count <= 0:
            return
        if self._sources and self._sources[-1] == source and \
                self._firsts[-1] + self._count - self._starts[-1] == first:
            self._count += count  # (the last run goes on)
            return
        self._sources.append(source)
        self._firsts.append(first)
        self._starts.append(self._count)
        self._count += count

    def append(self, pair: tuple[str, int]) -> None:
        """Add one ``(source, line)``."""
        self.add_run(pair[0], pair[1], 1)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, i: int) -> tuple[str, int]: ...
    @overload
    def __getitem__(self, i: slice) -> list[tuple[str, int]]: ...
    def __getitem__(self, i: int | slice) -> tuple[str, int] | list[tuple[str, int]]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._count))]
        k = i + self._count if i < 0 else i
        if not 0 <= k < self._count:
            raise IndexError("SourceLines index out of range")
        r = bisect_right(self._starts, k) - 1
        return self._sources[r], self._firsts[r] + k - self._starts[r]

    def __iter__(self) -> Iterator[tuple[str, int]]:
        ends = [*self._starts[1:], self._count] if self._starts else []
        for source, first, start, end in zip(self._sources, self._firsts, self._starts, ends,
                                             strict=True):
            for line in range(first, first + end - start):
                yield source, line

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (SourceLines, list, tuple)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # (a list's equal: not hashable either)

    def __repr__(self) -> str:
        return f"SourceLines({list(self)!r})"


@dataclass
class FileGame:
    """A game as read from log files: its fold, or the integrity error that stopped it."""

    game: str
    fold: GameFold | None = None
    error: FoldError | None = None
    lines: SourceLines = field(default_factory=SourceLines)  # (source, line) of each event


def take_line(games: dict[str, FileGame], ln: Line) -> tuple[str | None, FoldError | None]:
    """Fold one read line into its game in ``games`` (made when it is the game's first): (its
    game, None), or (None, the error of a line that names no game). A game that broke keeps
    its first error and folds no more; an unreadable line is that game's error.

    >>> take_line({}, Line("-", 1, None, "not JSON", None, None))[1].code
    'bad_event'
    """
    if ln.event is None:
        gid = ln.game
        err = FoldError(ln.error or "unreadable", code="bad_event", game=gid, seq=ln.seq,
                        source=ln.source, line=ln.number)
        if gid is None:
            return None, err
        g = games.setdefault(gid, FileGame(gid))
        if g.error is None:
            g.error = err
        return gid, None
    gid = ln.event.game
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
    return gid, None


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
        gid, bare = take_line(games, ln)
        if bare is not None:
            yield bare
            continue
        assert gid is not None
        if is_last is not None and is_last(gid, ln):
            yield games.pop(gid)
    yield from games.values()



__all__ = ["FileGame", "FoldError", "GameFold", "SourceLines", "fold", "fold_lines", "start_fold",
           "take_line"]
