"""The export of a SQLite store read as columns, of a store whose values were changed behind
its back: the files, and the games left out, of an export that reads events."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jaslog.export import export_games, export_store
from jaslog.play.sim import Faults
from jaslog.store import Store
from tests.export.test_stored import files
from tests.store.conftest import game_events, raw_sql, sqlite_only, store  # noqa: F401  (fixtures)
from tests.store.test_tamper import disable_triggers


def _both_ways(exported: Store, tmp_path: Path) -> tuple[dict[str, str], dict[str, str],
                                                      list[str], list[str]]:
    """The files (and the games left out, said) of an export of ``exported`` read as columns and
    of one read as events."""
    got = export_store(exported, tmp_path / "columns", workers=0, chunk_games=3)
    until = exported.cursor()
    by_events: list[str] = []
    export_games((events for _g, events in exported.iter_games(
        until=until, fast=True, unreadable=lambda e: by_events.append(str(e)))),
        tmp_path / "events", cursor=until, source="x", chunk_games=3)
    return files(tmp_path / "columns"), files(tmp_path / "events"), got.unreadable, by_events


@sqlite_only  # (only SQLite stores a value of another type in an integer column)
@pytest.mark.parametrize(("column", "value"), [
    ("seat", "'x'"), ("card", "NULL"), ("seat", "1.5"), ("at", "'soon'"), ("at", "-5"),
    ("card", None), ("seat", "(seat + 1) % 4")])
def test_values_changed_behind_the_stores_back_export_as_from_events(
        store: Store, raw_sql: Any, tmp_path: Path, column: str,  # noqa: F811
        value: str | None) -> None:
    """A play's column changed behind the store's back (into text, nothing, a fraction, a
    time that is none; or into a card already played, or another seat's turn, which the
    rules refuse, though the game's stored round facts say nothing of it): its batch is
    read as rows, or its game built from its events, to the same files and the same games
    left out as an export that reads events."""
    faults = Faults(revoke_rate=0.05, no_hands_rate=0.3, false_roem_rate=0.2)
    for i, (gid, ruleset) in enumerate((("a-0", "amsterdam"), ("r-1", "rotterdam"),
                                        ("a-2", "amsterdam"), ("a-3", "amsterdam"))):
        store.append(gid, game_events(gid, ruleset, seed=i + 3, faults=faults))
    disable_triggers(store, raw_sql)
    key = "(SELECT pos FROM games WHERE id = 'a-2')"
    plays = raw_sql(f"SELECT seq, card FROM events WHERE game = {key} AND kind = 1 "
                    "AND rest IS NULL ORDER BY seq LIMIT 2")
    raw_sql(f"UPDATE events SET {column} = {value if value is not None else plays[0][1]} "
            f"WHERE game = {key} AND seq = {plays[1][0]}")
    columns, events, unreadable, by_events = _both_ways(store, tmp_path)
    assert columns == events and unreadable == by_events
    assert len(columns) > 5


