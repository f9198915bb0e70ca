"""A SQLite store exported from its events fetched as Arrow columns (:mod:`jaslog.export.fetch`)
gives the same files as the export that reads every event as an object: byte for byte, on
the export corpus, on games recorded as a real table records them (corrections, score-only
rounds, irregularities, rulings), on the other games of the family, on a game whose plays
carry ids and times in milliseconds, and incrementally."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from jaslog.events import Event
from jaslog.export import export_store
from jaslog.export.columns import EventsColumns
from jaslog.export.fetch import StoredGame, store_file, stored_games
from jaslog.play.sim import simulate_game
from jaslog.store import Store, open_store
from tests.export.conftest import make_corpus, to_events
from tests.export.real_table import real_table


def lines_of(games: Sequence[Sequence[Event]]) -> list[bytes]:
    return [orjson.dumps(e.model_dump(exclude_none=True)) + b"\n" for g in games for e in g]


def files(result: Any) -> dict[str, str]:
    manifest = json.loads((result.path / "manifest.json").read_text())
    return {f["path"]: f["sha256"] for f in manifest["files"]}


def first_difference(a: Path, b: Path, path: str) -> str:
    ta, tb = pq.read_table(a / path), pq.read_table(b / path)
    for name in tb.column_names:
        x, y = ta.column(name).to_pylist(), tb.column(name).to_pylist()
        if x != y:
            at = next((i for i, (u, v) in enumerate(zip(x, y, strict=False)) if u != v),
                      min(len(x), len(y)))
            return f"{path} {name}: row {at}: {x[at:at + 1]!r} != {y[at:at + 1]!r}"
    return f"{path}: the same values, other bytes"


def assert_same_export(store: Store, out: Path, chunk: int) -> dict[str, int]:
    """Export ``store`` both ways into ``out``/arrow and ``out``/objects: the same files."""
    by_arrow = export_store(store, out / "arrow", workers=0, chunk_games=chunk)
    by_objects = export_store(store, out / "objects", workers=0, chunk_games=chunk, arrow=False)
    a, b = files(by_arrow), files(by_objects)
    assert a.keys() == b.keys()
    differ = [p for p in a if a[p] != b[p]]
    assert not differ, first_difference(by_arrow.path, by_objects.path, differ[0])
    assert by_arrow.rows_total == by_objects.rows_total
    return by_arrow.rows_total


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Any:
    with open_store(str(tmp_path / "store.sqlite")) as store:
        yield store


def test_the_corpus_gives_the_same_files(sqlite_store: Store, tmp_path: Path) -> None:
    sqlite_store.import_lines(lines_of(make_corpus()), source="corpus")
    rows = assert_same_export(sqlite_store, tmp_path, chunk=7)
    assert rows["events"] > 10_000 and rows["plays"] > 10_000


def test_real_tables_and_the_other_games_give_the_same_files(sqlite_store: Store,
                                                            tmp_path: Path) -> None:
    games = [real_table(f"rt-{rs}", rs, seed=7).events
             for rs in ("amsterdam", "rotterdam", "klaberjass-2p", "kloepper")]
    games += [to_events(simulate_game(f"o-{rs}", rs, seed=3))
              for rs in ("klaberjass-2p", "kloepper", "amsterdam")]
    sqlite_store.import_lines(lines_of(games), source="mixed")
    types = {e.type for g in games for e in g}
    assert {"correction", "irregularity", "round_score", "ruling"} <= types
    assert_same_export(sqlite_store, tmp_path, chunk=3)


def test_plays_with_ids_and_milliseconds_are_read_as_events(sqlite_store: Store,
                                                           tmp_path: Path) -> None:
    """A play with an id, a time in milliseconds or a ``recorded_at`` is not a plain play:
    its row comes from its event, among the plain plays' rows built from the columns."""
    events = simulate_game("ms", "amsterdam", seed=4)
    plays = [k for k, e in enumerate(events) if e["type"] == "play"]
    events[plays[0]]["id"] = "0b6f8f5e-3c55-4a5e-9a36-1c8b7f1f2a10"
    events[plays[1]]["at"] = "2026-01-05T19:30:55.120Z"
    events[plays[2]]["recorded_at"] = "2026-01-05T19:31:00Z"
    sqlite_store.import_lines(lines_of([to_events(events)]), source="ms")
    assert_same_export(sqlite_store, tmp_path, chunk=1)


def test_an_incremental_export_gives_the_same_files(sqlite_store: Store, tmp_path: Path) -> None:
    whole = [to_events(simulate_game(f"i-{i}", "amsterdam", seed=20 + i)) for i in range(4)]
    sqlite_store.import_lines(lines_of([g[:200] for g in whole[:3]]), source="first")
    assert_same_export(sqlite_store, tmp_path, chunk=2)
    sqlite_store.import_lines(lines_of([whole[0], whole[3]]), source="more")
    rows = assert_same_export(sqlite_store, tmp_path, chunk=2)
    assert rows["games"] == 4


def test_the_fetch_reads_each_game_with_its_rows(sqlite_store: Store) -> None:
    games = [to_events(simulate_game(f"f-{i}", "amsterdam", seed=i)) for i in range(3)]
    sqlite_store.import_lines(lines_of(games), source="f")
    path = store_file(sqlite_store)
    assert path is not None
    until = sqlite_store.cursor()
    read = list(stored_games(sqlite_store, path, sqlite_store.game_id_batches(until=until),
                             until, lambda e: None))
    assert [type(g) for g in read] == [StoredGame] * 3
    for got, want in zip(read, games, strict=True):
        assert [e.seq for e in got] == [e.seq for e in want]
        rows = got.fetched.table.slice(got.start, got.size)
        assert rows.column("seq").to_pylist() == [e.seq for e in want]
        plain = got.fetched.plain[got.start:got.start + got.size]
        assert plain.sum() == sum(e.type == "play" for e in want) > 0
        assert not plain[0]  # game_started


def test_no_fetch_for_a_store_in_memory() -> None:
    with open_store("sqlite://") as store:
        assert store_file(store) is None


def test_list_rows_and_fetched_blocks_keep_their_order(sqlite_store: Store) -> None:
    """A partition holding games read both ways keeps each game's rows where it was added."""
    from jaslog.export.rows import build_game

    games = [to_events(simulate_game(f"m-{i}", "amsterdam", seed=i)) for i in range(3)]
    sqlite_store.import_lines(lines_of(games), source="m")
    path = store_file(sqlite_store)
    assert path is not None
    until = sqlite_store.cursor()
    fetched = list(stored_games(sqlite_store, path, sqlite_store.game_id_batches(until=until),
                                until, lambda e: None))

    def events_of(order: Sequence[list[Event]]) -> pa.Table:
        rows: dict[str, Any] = {}

        def rows_for(_part: Any) -> dict[str, Any]:
            if not rows:
                from jaslog.export.plays import columns_for
                from jaslog.export.schema import GAME_TABLES

                rows.update({t: columns_for(t) for t in GAME_TABLES})
            return rows

        for events in order:
            build_game(events, rows_for, columnar=False)
        assert isinstance(rows["events"], EventsColumns)
        return rows["events"].to_table()

    mixed = events_of([games[0], fetched[1], games[2]])
    listed = events_of(games)
    assert mixed.column("game").to_pylist()[0] == "m-0"
    assert mixed.equals(listed)


def test_a_file_the_driver_cannot_read_is_said(sqlite_store: Store, tmp_path: Path) -> None:
    from jaslog.store.engine import DatabaseError

    sqlite_store.import_lines(lines_of([to_events(simulate_game("d", "amsterdam", seed=1))]),
                              source="d")
    garbage = tmp_path / "not-a-store.sqlite"
    garbage.write_bytes(b"this is not a database file " * 200)
    until = sqlite_store.cursor()
    with pytest.raises(DatabaseError, match=r"cannot read the events of the store at .*"
                                            r"not-a-store\.sqlite through the ADBC SQLite driver"):
        list(stored_games(sqlite_store, garbage, sqlite_store.game_id_batches(until=until),
                          until, lambda e: None))


def test_workers_fetch_as_one_process_does(sqlite_store: Store, tmp_path: Path) -> None:
    sqlite_store.import_lines(lines_of(make_corpus()[:12]), source="corpus")
    by_workers = export_store(sqlite_store, tmp_path / "workers", workers=2, chunk_games=3)
    by_objects = export_store(sqlite_store, tmp_path / "objects", workers=0, chunk_games=3,
                              arrow=False)
    assert by_workers.rows_total["events"] > 5_000
    assert files(by_workers) == files(by_objects)


def test_a_game_with_an_unreadable_event_is_left_out_and_said(sqlite_store: Store,
                                                             tmp_path: Path) -> None:
    import sqlite3

    games = [to_events(simulate_game(f"u-{i}", "amsterdam", seed=30 + i)) for i in range(3)]
    sqlite_store.import_lines(lines_of(games), source="u")
    path = store_file(sqlite_store)
    assert path is not None
    con = sqlite3.connect(path)  # an event an older jaslog might have stored: its rest broken
    try:
        key, seq = con.execute("SELECT g.pos, max(e.seq) FROM games g JOIN events e "
                               "ON e.game = g.pos WHERE g.id = 'u-1'").fetchone()
        kind = con.execute("SELECT code FROM event_types WHERE name = 'bid'").fetchone()[0]
        pos = con.execute("SELECT max(pos) FROM events").fetchone()[0]
        con.execute("INSERT INTO events (game, seq, pos, kind, version, rest, hash) "
                    "VALUES (?, ?, ?, ?, 1, ?, ?)", (key, seq + 1, pos + 1, kind, b"[broken",
                                                    bytes(32)))
        con.commit()
    finally:
        con.close()
    by_arrow = export_store(sqlite_store, tmp_path / "arrow", workers=0)
    by_objects = export_store(sqlite_store, tmp_path / "objects", workers=0, arrow=False)
    assert len(by_arrow.unreadable) == 1 and "u-1" in by_arrow.unreadable[0]
    assert by_arrow.unreadable == by_objects.unreadable
    assert by_arrow.rows_total["games"] == 2
    assert files(by_arrow) == files(by_objects)
