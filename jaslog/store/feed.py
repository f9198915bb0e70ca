"""Every event of every game in store order: the ``pos`` each event was stored at.

Positions are handed out in commit order on both backends (SQLite's one writer, PostgreSQL's
writers' advisory lock, held until the commit: :func:`jaslog.store.engine.write_tx`), and a
read is one snapshot: every position up to the highest a read sees is committed, so a reader
that goes on after the last position it read misses nothing and sees nothing twice, also
while others append.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sqlalchemy import bindparam, select

from jaslog.events import Event
from jaslog.store import engine as eng
from jaslog.store.codec import decode
from jaslog.store.rows import codec, event_select, payload_of
from jaslog.store.schema import EVENTS, GAMES

#: The most events one page holds.
MOST_PER_PAGE = 1000

_PAGE = (event_select(EVENTS.c.pos > bindparam("after")).order_by(EVENTS.c.pos)
         .limit(bindparam("limit")))
_GAMES = (select(EVENTS.c.pos, GAMES.c.id.label("game"))
          .join_from(EVENTS, GAMES, GAMES.c.pos == EVENTS.c.game)
          .where(EVENTS.c.pos > bindparam("after"))
          .order_by(EVENTS.c.pos).limit(bindparam("limit")))


class FeedRow(NamedTuple):
    """An event's place in the store: its position, game and seq, and its stored bytes."""

    pos: int
    game: str
    seq: int
    version: int
    payload: bytes

    def event(self) -> Event:
        """The event (upcast to the current format)."""
        return decode(self.payload, self.version, self.game, self.seq)


def events_after(store: Any, after: int = 0, limit: int = 100) -> list[FeedRow]:
    """The events stored after position ``after``, in store order, at most ``limit``
    (1 to :data:`MOST_PER_PAGE`)."""
    if not 1 <= limit <= MOST_PER_PAGE:
        raise ValueError(f"limit must be 1 to {MOST_PER_PAGE}")
    with eng.read_tx(store.engine) as conn:
        c = codec(conn)
        rows = list(conn.execute(_PAGE, {"after": max(after, 0), "limit": limit}))
        if any(int(r.kind) & 0xFFFF not in c.names for r in rows):
            c = codec(conn, refresh=True)
        return [FeedRow(r.pos, r.game, r.seq, r.version, payload_of(c, r.game, r.seq, r))
                for r in rows]


def games_after(store: Any, after: int = 0, limit: int = MOST_PER_PAGE) -> list[tuple[int, str]]:
    """The ``(pos, game)`` of each event stored after position ``after``, in store order, at
    most ``limit``: what a watcher of the whole store reads to learn which games moved
    (no payload is read)."""
    if not 1 <= limit <= MOST_PER_PAGE:
        raise ValueError(f"limit must be 1 to {MOST_PER_PAGE}")
    with eng.read_tx(store.engine) as conn:
        return [(int(r.pos), str(r.game))
                for r in conn.execute(_GAMES, {"after": max(after, 0), "limit": limit})]


#: :func:`games_after` as one statement for a PostgreSQL connection of psycopg's own (its
#: parameters: after, limit): one statement is one snapshot, as :func:`games_after`'s read.
PG_GAMES_AFTER_SQL = ("SELECT e.pos, g.id FROM events e JOIN games g ON g.pos = e.game "
                      "WHERE e.pos > %s ORDER BY e.pos LIMIT %s")


def games_after_on(conn: Any, after: int = 0,
                   limit: int = MOST_PER_PAGE) -> list[tuple[int, str]]:
    """:func:`games_after` on ``conn``, a psycopg connection to a PostgreSQL store in
    autocommit mode (a watch's own, which listens for ``NOTIFY`` too): one exchange with
    the server, where a read through the store's pool takes four (its check of the
    connection, the transaction's start, the read, its end)."""
    if not 1 <= limit <= MOST_PER_PAGE:
        raise ValueError(f"limit must be 1 to {MOST_PER_PAGE}")
    return [(int(pos), str(game))
            for pos, game in conn.execute(PG_GAMES_AFTER_SQL, (max(after, 0), limit))]


#: The store's last position, for a PostgreSQL connection of psycopg's own.
PG_LAST_POS_SQL = "SELECT coalesce(max(pos), 0) FROM events"


def last_pos_on(conn: Any) -> int:
    """The ``pos`` of the last event stored (0 when none) on ``conn``, a psycopg connection
    to a PostgreSQL store in autocommit mode (as :func:`games_after_on`): every position up
    to it is committed."""
    row = conn.execute(PG_LAST_POS_SQL).fetchone()
    return int(row[0]) if row is not None else 0
