"""The export of a SQLite store read as columns (:mod:`jaslog.export.stored`) writes the
files an export of the same games read as events writes, byte for byte."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import orjson
import pytest

from jaslog.events import Event, event_from_dict
from jaslog.export import export_games, export_store
from jaslog.export.stored import StoredExport, store_games
from jaslog.play.sim import simulate_game
from jaslog.store import Store, open_store
from tests.export.real_table import real_table

SEATS4 = ["ann", "bob", "cas", "dirk"]

#: The batch statement (each game one entry of one row), as the trace shows it.
BATCH_READ = "WITH batch(game, entries) AS (SELECT game, "


def _games(corpus: list[list[Event]]) -> list[list[Event]]:
    """The export corpus (rulings, an unfinished game, games without times), with times in
    milliseconds and ids on some plays, a game with a correction and an irregularity, and a
    game of each other game of the family."""
    games = [list(g) for g in corpus]
    for i, e in enumerate(games[0]):
        if e.type == "play" and e.at is not None and i % 3 == 0:
            games[0][i] = e.model_copy(update={"at": e.at[:19] + ".120Z"})
        elif e.type == "play" and i % 7 == 0:
            games[0][i] = e.model_copy(update={"id": f"00000000-0000-4000-8000-{i:012d}"})
    games.append(real_table("s-real").events)
    games.append([event_from_dict(e) for e in simulate_game(
        "s-klaberjass", "klaberjass-2p", seed=5, seats=["ann", "bob"],
        at="2026-02-02T20:00:00Z")])
    games.append([event_from_dict(e) for e in simulate_game("s-kloepper", "kloepper", seed=6,
                                                            seats=SEATS4)])
    return games


def _stored(store: Store, games: list[list[Event]]) -> None:
    for g in games:
        summary = store.import_lines([orjson.dumps(e.model_dump(exclude_none=True)) + b"\n"
                                      for e in g], source="archive")
        assert summary.ok, summary.rejected[:3]


def files(out: Path) -> dict[str, str]:
    manifest = json.loads((out / "current" / "manifest.json").read_text())
    return {f["path"].replace(f"part-{manifest['version']:06d}", "part"): f["sha256"]
            for f in manifest["files"]}


@pytest.fixture(scope="module")
def store_file(tmp_path_factory: pytest.TempPathFactory, corpus: list[list[Event]]) -> Path:
    path = tmp_path_factory.mktemp("stored") / "s.sqlite"
    with open_store(str(path)) as store:
        _stored(store, _games(corpus))
    return path


@pytest.mark.parametrize("chunk", [200, 5])
def test_columns_and_events_write_the_same_bytes(store_file: Path, tmp_path: Path,
                                                 chunk: int) -> None:
    with open_store(str(store_file)) as store:
        export_store(store, tmp_path / "columns", workers=0, chunk_games=chunk)
        until = store.cursor()
        export_games((events for _g, events in store.iter_games(until=until, fast=True)),
                     tmp_path / "events", cursor=until, source="x", chunk_games=chunk)
    columns, events = files(tmp_path / "columns"), files(tmp_path / "events")
    assert len(columns) > 10
    assert columns == events


def test_most_games_are_built_from_the_columns(store_file: Path, tmp_path: Path,
                                               corpus: list[list[Event]]) -> None:
    """Every stored game comes read as columns; the games with a correction, an irregularity
    or rules the columns do not build are built from their events, the others not."""
    from jaslog.export.plays import columns_for
    from jaslog.export.rows import build_game
    from jaslog.export.schema import GAME_TABLES

    with open_store(str(store_file)) as store:
        read = list(store_games(store, since=None, ruleset=None, after=None,
                                until=store.cursor(), batch=7,
                                unreadable=lambda e: pytest.fail(str(e))))
    assert len(read) == len(corpus) + 3
    assert all(isinstance(g, StoredExport) for g in read)
    built: list[str] = []
    for g in read:
        assert isinstance(g, StoredExport)
        rows = {t: columns_for(t) for t in GAME_TABLES}
        if g.build(lambda part, rows=rows: rows):  # type: ignore[misc]
            built.append(g.game)
            assert len(rows["events"]) == g.last + 1
        else:
            build_game(g.events(), lambda part, rows=rows: rows)  # type: ignore[misc]
            assert len(rows["events"]) == g.last + 1
    assert "s-real" not in built and "s-klaberjass" not in built
    assert len(built) >= len(corpus) - 2


def test_the_export_reads_a_batch_as_the_replay_does(store_file: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The export reads a SQLite store's batch with the replay's one statement (each game
    as one row: its codes and its other rows joined), by the same reader thread on its own
    connection, and no statement of its own; each game's fold, when it is folded (a game
    built from its stored round facts is not, until asked), keeps its plain plays as their
    codes (no event made for a play)."""
    from jaslog.store import read_ahead

    statements: list[str] = []
    opened: list[sqlite3.Connection] = []

    def traced(path: str) -> sqlite3.Connection:
        conn = connect(path)
        conn.set_trace_callback(statements.append)
        opened.append(conn)
        return conn

    connect = read_ahead.connect
    monkeypatch.setattr(read_ahead, "connect", traced)
    with open_store(str(store_file)) as store:
        with store.engine.connect() as c:  # the pool's one connection, which the reads reuse
            raw = c.connection.dbapi_connection
            assert isinstance(raw, sqlite3.Connection)
            raw.set_trace_callback(statements.append)
        read = list(store_games(store, since=None, ruleset=None, after=None,
                                until=store.cursor(), batch=7,
                                unreadable=lambda e: pytest.fail(str(e))))
        raw.set_trace_callback(None)
    reads = [q for q in statements if q.startswith(BATCH_READ)]  # the events' rows
    codes = [q for q in reads if q.count("group_concat(CASE WHEN") == 1 and "GROUP BY game" in q]
    batches = -(-len(read) // 7)
    assert len(codes) == len(reads) == batches, reads
    assert len(opened) == 1  # one reader for the whole export, its connection closed after
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        opened[0].total_changes  # noqa: B018
    coded = 0
    for g in read:
        assert isinstance(g, StoredExport)
        assert g.stored.folded()
        fold = g.stored.fold
        if fold is not None:
            coded += sum(isinstance(x, int) for x in fold.entries)
    assert coded > 32 * len(read)


@pytest.mark.parametrize("codes", [
    # days far apart (only the days met are written), the edges of a day and of the range
    [1767641455, 1767641455120, 0, 1767641515, 0, 86399, 86400, 253_402_300_799,
     1767641455000, 951782400],
    # days close together (every day from the first to the last is written)
    [1767641455, 1767641455120, 0, 1767641515, 1767830399, 1767830400, 1767641455000,
     1767600000],
])
def test_time_texts_are_the_stores_own(codes: list[int]) -> None:
    """A plain play's time written by Arrow is the store's text of its code: seconds, the
    edges of a day and of the range, milliseconds (``.000`` kept), and none; its seat and
    card follow."""
    import numpy as np
    import pyarrow.compute as pc

    from jaslog.cards import CARD_TEXT
    from jaslog.export.stored import SECONDS_MAX, _play_pieces
    from jaslog.store.compact import time_text

    at = np.array(codes, np.int64)
    null = np.zeros(len(at), bool)
    null[2] = True
    play = np.arange(len(at)) * 13 % 128  # seat * 32 + card
    got = pc.binary_join_element_wise(*_play_pieces(at, at > SECONDS_MAX, null, play),
                                      "").to_pylist()
    tails = [f',"seat":{p >> 5},"card":"{CARD_TEXT[p & 31]}"}}' for p in play]
    assert got == [(',"type":"play"' if n else f',"type":"play","at":"{time_text(int(c))}"') + t
                   for c, n, t in zip(at, null, tails, strict=True)]
    assert got[1].startswith(',"type":"play","at":"2026-01-05T19:30:55.120Z",')
    assert got[-2].startswith(',"type":"play","at":"2026-01-05T19:30:55.000Z",')
