"""The :class:`Store`: one contract over SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from jaslog.events import Event, Line
from jaslog.store.types import (
    AppendResult,
    GameInfo,
    Head,
    ImportSummary,
    StoredEvent,
    VerifyReport,
)

EventLike = Event | dict[str, Any] | bytes | str


class Store:
    """A jaslog event store on one database (``sqlite:///...`` or ``postgresql+psycopg://...``).

    Open it with :func:`open_store`. A Store is safe to use from one thread; open one per
    process (the database serializes writers).
    """

    url: str
    dialect: str  # "sqlite" or "postgresql"

    def append(self, game: str, events: Iterable[EventLike],
               expected_seq: int | None = None) -> AppendResult:
        """Append ``events`` (in seq order) to ``game`` in one transaction.

        Events may be :class:`jaslog.events.Event` models, dicts or JSON text; a dict
        without ``game`` or ``seq`` gets the game and the next seq. ``expected_seq`` is the
        seq the first new event must get (default: the first event's own seq). Raises
        :class:`ConflictError` (expected vs actual seq) when the game moved on,
        :class:`RejectedError` when the fold refuses an event; in both cases nothing is
        written. Events already stored at their position with the same ``id`` (retries)
        are skipped and counted in ``already_stored``.
        """
        raise NotImplementedError

    def new_game(self, ruleset: str, seats: list[str], *, dealer: int = 0,
                 options: dict[str, Any] | None = None, game: str | None = None,
                 meta: dict[str, Any] | None = None, at: str | None = None) -> str:
        """Start a game (its ``game_started`` event) and return its id (generated if None)."""
        raise NotImplementedError

    def import_lines(self, lines: Iterable[Line | bytes | str], *, source: str = "<lines>",
                     batch_games: int = 500,
                     progress: Callable[[int], None] | None = None) -> ImportSummary:
        """Import ``jaslog/1`` lines (games may interleave), streaming.

        Each game is folded; finished games are written in batches of ``batch_games`` per
        transaction with bulk inserts. A game already stored with identical events is
        skipped (``already_present``), one stored with other events is rejected, one
        stored in part is extended. A game with a bad line or an integrity error is
        rejected whole. ``progress`` is called with the number of lines read so far.
        """
        raise NotImplementedError

    def import_files(self, paths: Iterable[str | Path], *, batch_games: int = 500,
                     progress: Callable[[int], None] | None = None) -> ImportSummary:
        """:meth:`import_lines` over files (``-`` is stdin); ``progress`` gets bytes read."""
        raise NotImplementedError

    def head(self, game: str) -> Head:
        """The game's head: next seq and last hash (raises :class:`NoSuchGame`)."""
        raise NotImplementedError

    def events(self, game: str, upto: int | None = None) -> list[Event]:
        """The game's events in seq order (upcast to the current format), up to seq ``upto``."""
        raise NotImplementedError

    def stored_events(self, game: str) -> list[StoredEvent]:
        """The game's rows as stored: raw payload bytes, format version, hash chain."""
        raise NotImplementedError

    def games(self, *, player: str | None = None, ruleset: str | None = None,
              since: str | None = None, limit: int | None = None) -> list[GameInfo]:
        """Games, oldest first; ``player`` matches a player id or display name, ``since`` is
        an RFC 3339 time or a date (``2026-01-31``) compared with the game's start."""
        raise NotImplementedError

    def iter_games(self, *, since: str | None = None, ruleset: str | None = None,
                   after: int | None = None, until: int | None = None,
                   batch: int = 200) -> Iterator[tuple[str, list[Event]]]:
        """Stream ``(game_id, events)`` for every game, in order of creation.

        For incremental export: ``after`` and ``until`` are cursors (see :meth:`cursor`);
        with them, only games that received an event in ``(after, until]`` are yielded,
        each with its events up to ``until``. Games are read ``batch`` at a time.
        """
        raise NotImplementedError

    def cursor(self) -> int:
        """The store's write position: the ``pos`` of the last event stored (0 when empty).

        Positions are contiguous and in commit order on both backends.
        """
        raise NotImplementedError

    def verify(self, game: str | None = None, *, certificate: str | None = None) -> VerifyReport:
        """Recheck the hash chains (of one game, or all); ``certificate`` is a head hash (or
        its short form) the game's head must match."""
        raise NotImplementedError

    def players(self) -> dict[str, str]:
        """Display names by player id."""
        raise NotImplementedError

    def set_player(self, player: str, name: str) -> None:
        """Set a player's display name (outside the hash chains)."""
        raise NotImplementedError

    def erase_player(self, player: str) -> bool:
        """Erase a player's display name; True if there was one."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the database connections."""
        raise NotImplementedError

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(url: str | None = None) -> Store:
    """Open (creating if needed) the store at ``url``: a path, ``sqlite:///path``,
    ``postgresql://...``; None means ``$JASLOG_DB`` or the platform's user data folder."""
    raise NotImplementedError
