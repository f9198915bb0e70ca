"""The store's bulk fold (``Store.fold_games``): every game folded as a fold of the events
``iter_games`` reads gives it (state, report, log, error), on both backends; a SQLite store
reads its plain plays as columns."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from jaslog.engine.fold import FoldError, GameFold
from jaslog.play.audit import game_report
from jaslog.play.sim import Faults
from jaslog.store import Store
from jaslog.store.fold_read import fold_one
from tests.store.conftest import game_events
from tests.store.test_tamper import disable_triggers

RULESETS = {"a-0": "amsterdam", "k-1": "klaberjass-2p", "p-2": "kloepper", "r-3": "rotterdam"}


def _stored(store: Store) -> None:
    faults = Faults(revoke_rate=0.05, no_hands_rate=0.3, false_roem_rate=0.2)
    for i, (gid, ruleset) in enumerate(RULESETS.items()):
        store.append(gid, game_events(gid, ruleset, seed=i + 3, faults=faults))


def _seen(folded: GameFold | FoldError) -> Any:
    """What a reader sees of a fold: its report and its log, or the error's text."""
    if isinstance(folded, FoldError):
        return str(folded), folded.seq, folded.seat, folded.card
    return (orjson.dumps(game_report(folded.game_id, folded, None)),
            [e.model_dump() for e in folded.log], folded.next_seq, folded.last_at)


def _by_events(store: Store, **kw: Any) -> list[tuple[str, Any]]:
    return [(gid, _seen(fold_one(gid, evs))) for gid, evs in store.iter_games(**kw)]


def test_every_game_folds_as_its_events_fold(store: Store) -> None:
    _stored(store)
    got = [(gid, _seen(f)) for gid, f in store.fold_games()]
    assert [g for g, _ in got] == list(RULESETS)
    assert got == _by_events(store)
    for gid, folded in store.fold_games():
        assert isinstance(folded, GameFold) and folded.ruleset == RULESETS[gid]
        assert sum(e.type == "play" for e in folded.log) >= 32
    until = store.cursor() - 5  # the last game cut five events short, the others whole
    cut = [(gid, _seen(f)) for gid, f in store.fold_games(until=until)]
    assert cut == _by_events(store, until=until)
    assert [(gid, _seen(f)) for gid, f in store.fold_games(ruleset="kloepper")] == \
        _by_events(store, ruleset="kloepper")


def test_a_play_the_rules_refuse_is_the_games_error(store: Store,
                                                     raw_sql: Callable[..., Any]) -> None:
    """A play changed behind the store's back into a card already played: the game comes
    with the fold's error (its seq, seat, card, rule), the others with their folds."""
    _stored(store)
    disable_triggers(store, raw_sql)
    key = "(SELECT pos FROM games WHERE id = 'a-0')"
    plays = raw_sql(f"SELECT seq, card FROM events WHERE game = {key} AND kind = 1 "
                    "ORDER BY seq LIMIT 2")
    raw_sql(f"UPDATE events SET card = :c WHERE game = {key} AND seq = :s",
            c=plays[0][1], s=plays[1][0])
    got = [(gid, _seen(f)) for gid, f in store.fold_games()]
    assert got == _by_events(store)
    error = dict(got)["a-0"]
    assert error[1] == plays[1][0] and "[" in error[0]
    assert all(isinstance(dict(got)[g], tuple) and len(dict(got)[g]) == 4 for g in RULESETS)


def test_sqlite_reads_plain_plays_as_columns(store: Store) -> None:
    """On SQLite a batch is read with two statements through the store's own connection:
    every row's play code as a column, and whole only the rows that are not plain plays
    (no row-by-row read of the plays)."""
    if store.dialect != "sqlite":
        pytest.skip("the columns are read from a SQLite file")
    _stored(store)
    statements: list[str] = []
    with store.engine.connect() as c:  # the pool's one connection, which the reads reuse
        raw = c.connection.dbapi_connection
        assert isinstance(raw, sqlite3.Connection)
        raw.set_trace_callback(statements.append)
    folds = list(store.fold_games())
    raw.set_trace_callback(None)
    reads = [q for q in statements if q.startswith("SELECT game, seq")]  # the events' rows
    codes = [q for q in reads if "CASE WHEN" in q]
    others = [q for q in reads if "AND NOT (kind = 1" in q]
    assert codes and others and len(codes) + len(others) == len(reads), reads
    assert len(folds) == len(RULESETS)



@pytest.mark.parametrize(("column", "value"), [("seat", "'x'"), ("card", "NULL"),
                                               ("seat", "1.5")])
def test_a_play_the_columns_do_not_take_is_read_as_rows(store: Store,
                                                        raw_sql: Callable[..., Any],
                                                        column: str, value: str) -> None:
    """A play's seat or card changed behind the store's back into what no plain play holds
    (text, nothing, a fraction): its batch is read row by row, as iter_games reads it, to
    the same folds and the same unreadable game."""
    if store.dialect != "sqlite":
        pytest.skip("only SQLite stores a value of another type in an integer column")
    _stored(store)
    disable_triggers(store, raw_sql)
    key = "(SELECT pos FROM games WHERE id = 'p-2')"
    raw_sql(f"UPDATE events SET {column} = {value} WHERE game = {key} AND seq = (SELECT "
            f"max(seq) FROM events WHERE game = {key} AND kind = 1 AND rest IS NULL)")
    bad: list[str] = []
    by_events: list[str] = []
    got = [(gid, _seen(f)) for gid, f in store.fold_games(unreadable=lambda e: bad.append(str(e)))]
    want = [(gid, _seen(fold_one(gid, evs))) for gid, evs in store.iter_games(
        fast=True, unreadable=lambda e: by_events.append(str(e)))]
    assert got == want and bad == by_events
    assert len(bad) == 1 and bad[0].startswith("game p-2 seq ")
    assert [g for g, _ in got] == [g for g in RULESETS if g != "p-2"]
