"""A store of schema 5 or older to schema 6: its events in parts (:mod:`jaslog.store.compact`),
in place, resumably, nothing lost.

Three steps, each one transaction or more, each leaving a store the next run carries on from:

1. the old ``events`` table is renamed ``events_v5`` and the new ``events`` and
   ``event_types`` are made (a rename is no edit of a row);
2. the games' events are copied, :data:`BATCH_GAMES` games a transaction in the order they
   were stored (``games.pos``): each event's canonical bytes become its row in parts, its
   hash is kept as it was, and the row must rebuild those bytes and link to the row before
   it as stored (``prev_hash``), or the upgrade stops and says which event (``jaslog verify``
   tells more); a crash leaves the games copied so far, and the next run starts after them;
3. when every event of ``events_v5`` is in ``events`` (counted), ``events_v5`` is dropped.

No event is updated or deleted: the new table is written, the old one dropped whole once its
every row is in the new one, byte for byte as the hashes and signatures cover them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from jaslog.store import engine as eng
from jaslog.store.codec import as_bytes
from jaslog.store.types import GENESIS, StoreError

#: Where the old events wait while they are copied.
LEGACY = "events_v5"
#: Games copied in one transaction.
BATCH_GAMES = 200
_OLD_COLUMNS = "game, seq, pos, type, version, event_id, at, payload, prev_hash, hash"


def needs_events(conn: Connection) -> bool:
    """Whether the store's events are still in the old layout (or being copied)."""
    have = inspect(conn)
    if have.has_table(LEGACY):
        return True
    if not have.has_table("events"):
        return False
    return "payload" in {c["name"] for c in have.get_columns("events")}


def _set_aside(conn: Connection) -> None:
    """Step 1: the old table renamed, the new ones made (with their triggers)."""
    from jaslog.store.schema import EVENT_TYPES, _tables_and_triggers

    pg = conn.dialect.name == "postgresql"
    if pg:
        names = [r[0] for r in conn.exec_driver_sql(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'events'")]
        conn.exec_driver_sql(f"ALTER TABLE events RENAME TO {LEGACY}")
        for n in names:  # index names are the schema's: the new table's would clash
            conn.exec_driver_sql(f'ALTER INDEX "{n}" RENAME TO "{LEGACY}_{n}"')
    else:
        for op in ("update", "delete"):  # named for the table; the new one gets its own
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS events_no_{op}")
        conn.exec_driver_sql(f"ALTER TABLE events RENAME TO {LEGACY}")
    _tables_and_triggers(conn)
    from jaslog.store.compact import first_codes

    conn.execute(EVENT_TYPES.insert(), [{"code": c, "name": n} for c, n in first_codes().items()])


def _copied_up_to(conn: Connection) -> int:
    v = conn.exec_driver_sql("SELECT max(game) FROM events").scalar()
    return -1 if v is None else int(v)


def _copy_batch(store: Any, conn: Connection, most: int = BATCH_GAMES) -> int:
    """Step 2, one batch: the events of the next ``most`` games; how many games."""
    after = _copied_up_to(conn)
    games = [r[0] for r in conn.execute(text(
        "SELECT id FROM games WHERE pos > :after ORDER BY pos LIMIT :n"),
        {"after": after, "n": most})]
    if not games:
        return 0
    q = text(f"SELECT {_OLD_COLUMNS} FROM {LEGACY} WHERE game IN :ids ORDER BY pos") \
        .bindparams(_expanding("ids"))
    rows = [list(r) for r in conn.execute(q, {"ids": games})]
    order = {g: i for i, g in enumerate(games)}
    rows.sort(key=lambda r: (order[r[0]], r[1]))
    prev_game, prev = None, GENESIS
    for r in rows:
        game, seq = r[0], r[1]
        if game != prev_game:
            prev_game, prev = game, GENESIS
        if r[8] != prev:
            raise StoreError(f"game {game} seq {seq}: its link to the event before it "
                             "(prev_hash) is not that event's hash: the store was changed "
                             "behind its back; `jaslog verify` says where; the upgrade stops "
                             "here, nothing of this batch was written")
        prev = r[9]
        r[7] = as_bytes(r[7])
    store.insert_rows(conn, rows)
    # each row must give back its bytes: read them back and compare
    from jaslog.store.rows import GAMES, read_rows

    back = {(b.game, b.seq): b.payload for b in read_rows(conn, GAMES.c.id.in_(games))}
    for r in rows:
        if back.get((r[0], r[1])) != r[7]:
            raise StoreError(f"game {r[0]} seq {r[1]}: its row in parts does not give its "
                             "bytes back; the upgrade stops here, nothing of this batch was "
                             "written")
    return len(games)


def _expanding(name: str) -> Any:
    from sqlalchemy import bindparam

    return bindparam(name, expanding=True)


def _finish(conn: Connection) -> None:
    """Step 3: the old table dropped, once every one of its events is in the new one."""
    old = int(conn.exec_driver_sql(f"SELECT count(*) FROM {LEGACY}").scalar_one())
    new = int(conn.exec_driver_sql("SELECT count(*) FROM events").scalar_one())
    if old != new:
        raise StoreError(f"the upgrade copied {new} of the store's {old} events: the others "
                         "belong to no game (no header row); `jaslog verify` names them; "
                         f"the old events are kept in {LEGACY}")
    conn.exec_driver_sql(f"DROP TABLE {LEGACY}")


def migrate_events(store: Any, games: int | None = None,
                   progress: Callable[[int], None] | None = None) -> bool:
    """Bring the store's events to schema 6's layout, a transaction a step; True when done.
    ``games``: copy the events of that many games at most, and stop (the next run goes on);
    ``progress`` is told the games copied in each batch."""
    with eng.write_tx(store.engine) as conn:
        if not needs_events(conn):
            return True
        if not inspect(conn).has_table(LEGACY):
            _set_aside(conn)
    copied = 0
    while True:
        most = BATCH_GAMES if games is None else min(BATCH_GAMES, games - copied)
        if most <= 0:
            with eng.read_tx(store.engine) as conn:  # done when no game is left to copy
                left = conn.execute(text("SELECT 1 FROM games WHERE pos > :after LIMIT 1"),
                                    {"after": _copied_up_to(conn)}).first()
            if left is not None:
                return False
            break
        with eng.write_tx(store.engine) as conn:
            n = _copy_batch(store, conn, most)
        if not n:
            break
        copied += n
        if progress is not None:
            progress(n)
    with eng.write_tx(store.engine) as conn:
        if inspect(conn).has_table(LEGACY):
            _finish(conn)
    return True
