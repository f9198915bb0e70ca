"""The import's write side (:mod:`jaslog.store.import_writer`): a batch's rows inserted many
to a statement, the round facts worked out before the write transaction, the collector kept
paused until the last write; a store imported by workers holds the very rows of one imported
in one process."""

from __future__ import annotations

import gc
import json
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy.dialects import sqlite as sqlite_dialect

from jaslog.events import event_from_dict
from jaslog.play.fold import fold
from jaslog.play.sim import simulate_game
from jaslog.store import Store, open_store
from jaslog.store.appending import INSERT_ROWS
from jaslog.store.projection import fact_values, facts_of
from jaslog.store.rows import ENCODED_COLUMNS
from jaslog.store.schema import ROUND_FACTS

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


def test_the_facts_a_batch_writes_are_the_text_sqlalchemy_writes() -> None:
    """The round facts an import works out before its write transaction are, column by
    column, the text SQLAlchemy's ``JSON`` type writes for them (the way an append and a
    reindex write them on PostgreSQL), ``detail``'s None as SQL NULL."""
    dialect = sqlite_dialect.dialect()
    cols = ["round", "seq", "result", "recorded", "score", "final", "roem", "verdicts", "detail"]
    done = 0
    for events in club():
        facts = facts_of(fold(event_from_dict(e) for e in events))
        got = fact_values(len(events) - 1, facts)
        for f, row in zip(facts, got, strict=True):
            want = f.row(1, len(events) - 1)
            for col, value in zip(cols, row, strict=True):
                bind = ROUND_FACTS.c[col].type.bind_processor(dialect)
                assert value == (bind(want[col]) if bind is not None else want[col]), col
            done += 1
    assert done > 30


def _table(path: Path, sql: str) -> list[Any]:
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("workers", [2, 1])
def test_a_store_imported_by_workers_holds_the_rows_of_one_imported_in_process(
        tmp_path: Path, workers: int) -> None:
    """Batches of new games, and a batch with a game stored in part before (its facts
    compared with the stored ones): the events, the round facts (in the order written) and the
    results are the same rows whether workers wrote them or this process did."""
    games = club()
    lines = [orjson.dumps(e) for g in games for e in g]
    part = [orjson.dumps(e) for e in games[0][:200]]
    paths = {}
    for how in (0, workers):
        path = tmp_path / f"s{how}.sqlite"
        with open_store(str(path)) as store:
            store.import_lines(part)
            s = store.import_lines(lines, workers=how, batch_games=2)
            assert (s.games, s.extended, s.rejected) == (4, ["w-0"], [])
            assert store.verify().ok
        paths[how] = path
    for sql in ("SELECT * FROM events ORDER BY pos",
                "SELECT rowid, * FROM round_facts ORDER BY rowid",
                "SELECT * FROM game_results ORDER BY game, seq",
                "SELECT id, pos, ruleset, dealer, seats FROM games ORDER BY pos"):
        one, many = _table(paths[0], sql), _table(paths[workers], sql)
        assert one == many and one, sql
    assert len(_table(paths[0], "SELECT * FROM round_facts")) > 30


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
