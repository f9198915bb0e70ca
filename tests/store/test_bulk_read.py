"""The bulk read a fold takes (``iter_games(fast=True)``, ``games_by_id(fast=True)``): the
games of a batch in one statement, their rows fetched in chunks, each game's events the same
as the models a plain read gives, in the order asked for."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from jaslog.events import canonical_json
from jaslog.events.fast import FastPlay
from jaslog.play.fold import fold
from jaslog.play.sim import simulate_game
from jaslog.store import open_store, queries
from jaslog.store.codec import UnreadableEvent
from tests.store.test_door import store_unreadable_game

GAMES = ["b-0", "b-1", "b-2", "b-3"]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "s.sqlite"
    with open_store(str(path)) as s:
        for i, gid in enumerate(GAMES):
            s.append(gid, simulate_game(gid, seed=i + 1))  # type: ignore[arg-type]
    return path


def _same(fast: list[Any], plain: list[Any]) -> None:
    assert len(fast) == len(plain)
    for f, p in zip(fast, plain, strict=True):
        if isinstance(f, FastPlay):
            assert p.type == "play" and f.payload == canonical_json(p)
        else:
            assert f == p


def test_a_batch_of_games_is_read_in_one_statement(db: Path) -> None:
    statements: list[str] = []
    with open_store(str(db)) as s:
        plain = dict(s.iter_games())
        with s.engine.connect() as c:  # the pool's one connection, which the reads reuse
            raw = c.connection.dbapi_connection
            assert isinstance(raw, sqlite3.Connection)
            raw.set_trace_callback(statements.append)
        fast = dict(s.iter_games(fast=True))
        raw.set_trace_callback(None)
    reads = [q for q in statements if "FROM events" in q]
    assert len(reads) == 1, reads  # not a statement (or two) a game
    assert list(fast) == GAMES
    for gid in GAMES:
        _same(fast[gid], plain[gid])
        assert fold(fast[gid]).state.finished == fold(plain[gid]).state.finished


def test_rows_fetched_in_small_chunks_give_the_same_games_in_the_order_asked(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queries, "FETCH_ROWS", 7)  # chunks that end inside games
    with open_store(str(db)) as s:
        plain = dict(s.iter_games())
        asked = ["b-3", "b-0", "nope", "b-2"]
        got = list(s.games_by_id(asked, fast=True))
        assert [g for g, _ in got] == ["b-3", "b-0", "b-2"]
        for gid, events in got:
            _same(events, plain[gid])
        until = s.cursor() - 5  # the last game cut five events short
        cut = dict(s.iter_games(fast=True, until=until))
        assert len(cut["b-3"]) == len(plain["b-3"]) - 5
        _same(cut["b-3"], plain["b-3"][:-5])


def test_an_unreadable_game_is_told_in_its_place(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with open_store(str(path)) as s:
        s.append("ok-0", simulate_game("ok-0", seed=1))  # type: ignore[arg-type]
    store_unreadable_game(path, "old-1")
    with open_store(str(path)) as s:
        s.append("ok-1", simulate_game("ok-1", seed=2))  # type: ignore[arg-type]
        seen: list[str] = []
        for gid, _ in s.iter_games(fast=True, unreadable=lambda e: seen.append(f"bad {e.game}")):
            seen.append(gid)
        assert seen == ["ok-0", "bad old-1", "ok-1"]
        seen.clear()
        for gid, _ in s.games_by_id(["ok-1", "old-1", "ok-0"], fast=True,
                                    unreadable=lambda e: seen.append(f"bad {e.game}")):
            seen.append(gid)
        assert seen == ["ok-1", "bad old-1", "ok-0"]
        with pytest.raises(UnreadableEvent):
            list(s.iter_games(fast=True))
