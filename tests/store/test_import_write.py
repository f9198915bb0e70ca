"""The import's write side (:mod:`jaslog.store.import_writer`): a batch's rows inserted many
to a statement, the collector kept paused until the last write."""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest

from jaslog.play.sim import simulate_game
from jaslog.store import Store
from jaslog.store.appending import INSERT_ROWS
from jaslog.store.rows import ENCODED_COLUMNS

#: One game of each kind, and one cut short in its third round (an open round).
KINDS = (("amsterdam", 3), ("klaberjass-2p", 4), ("kloepper", 5), ("rotterdam", 6))


def club() -> list[list[dict[str, Any]]]:
    games = []
    for i, (ruleset, seed) in enumerate(KINDS):
        seats = ["ann", "bob"] if ruleset.startswith("klaberjass") else None
        games.append(simulate_game(f"w-{i}", ruleset, seed=seed, seats=seats))
    games.append(simulate_game("w-cut", "amsterdam", seed=7)[:90])
    return games


def test_a_batch_goes_in_statements_of_many_rows_each_row_as_given(store: Store) -> None:
    """``insert_encoded`` puts :data:`INSERT_ROWS` rows in a statement on SQLite (then one a
    row for the rest); every row is stored with the values it was given, in order."""
    n = 2 * INSERT_ROWS + 3
    rows = [(900_001, 500 + i, i, bytes([i % 256]) * 32, 1, 1, None, 1_767_641_400 + i, None,
             i % 4, i % 32, None) for i in range(n)]
    values = [v for r in rows for v in r]
    statements: list[str] = []
    with store.engine.connect() as conn, conn.begin():
        raw = conn.connection.dbapi_connection
        if store.dialect == "sqlite":
            raw.set_trace_callback(statements.append)  # type: ignore[union-attr]
        store.insert_encoded(conn, values)
        if store.dialect == "sqlite":
            raw.set_trace_callback(None)  # type: ignore[union-attr]
        cur = raw.cursor()  # type: ignore[union-attr]
        cur.execute(f"SELECT {', '.join(ENCODED_COLUMNS)} FROM events WHERE game = 900001 "
                    "ORDER BY pos")
        stored = [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r)
                  for r in cur.fetchall()]
        conn.rollback()
    assert stored == rows
    if store.dialect == "sqlite":
        inserts = [s for s in statements if s.startswith("INSERT INTO events")]
        assert [s.count("), (") + 1 for s in inserts] == [INSERT_ROWS, INSERT_ROWS, 1, 1, 1]


def test_an_import_keeps_the_collector_paused_until_its_last_write(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between reading the last line and writing the last batch the collector stays paused:
    let run there, it would walk every row and fold the batch still holds."""
    from jaslog.store import importer

    made: list[importer.Importer] = []
    init = importer.Importer.__init__

    def keep(self: importer.Importer, *a: Any, **kw: Any) -> None:
        init(self, *a, **kw)
        made.append(self)

    monkeypatch.setattr(importer.Importer, "__init__", keep)
    held: list[int] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and made and made[0].validator.pending_events:
            held.append(made[0].validator.pending_events)

    lines = [json.dumps(e) for g in club() for e in g]
    assert gc.isenabled()
    gc.callbacks.append(watch)
    try:
        s = store.import_lines(lines, batch_games=100)  # one batch, written at the end
    finally:
        gc.callbacks.remove(watch)
    assert (s.games, s.rejected) == (5, []) and gc.isenabled()
    assert held == []
