"""The export's read of games built from their stored round facts: their other rows read
into events only when asked for, and a row that does not read leaving its game out as it
always did (same files, same games left out as an export that reads events)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jaslog.export.stored import StoredExport, store_games
from jaslog.store import Store, row_memo
from jaslog.store.export_read import _PENDING
from tests.export.test_stored_changed import _both_ways
from tests.store.conftest import game_events, raw_sql, sqlite_only, store  # noqa: F401  (fixtures)
from tests.store.test_tamper import disable_triggers

#: The export reads columns of a SQLite store only.
pytestmark = sqlite_only

#: The games of the store, in its order: plain ones around the one changed.
GAMES = (("a-0", "amsterdam"), ("r-1", "rotterdam"), ("a-2", "amsterdam"),
         ("a-3", "amsterdam"))


def _read(db: Store) -> list[StoredExport]:
    got = list(store_games(db, since=None, ruleset=None, after=None, until=db.cursor(),
                           batch=100, unreadable=lambda e: pytest.fail(str(e))))
    assert all(isinstance(g, StoredExport) for g in got)
    return got  # type: ignore[return-value]


def _pending(g: StoredExport) -> int:
    sg = g.stored
    return sum(1 for e in sg.batch.others.items[sg.first:sg.first + len(sg.types)]
               if e is _PENDING)


def _fields(e: Any) -> tuple[str, dict[str, Any]]:
    return type(e).__name__, e.__dict__


def _fill(db: Store, games: tuple[tuple[str, str], ...] = GAMES) -> None:
    for i, (gid, ruleset) in enumerate(games):
        db.append(gid, game_events(gid, ruleset, seed=i + 11))


def test_a_plain_games_other_rows_are_read_when_asked_for(store: Store) -> None:  # noqa: F811
    """Of a game built from its stored facts, the rows after its first whose parts a row read
    before had stay rows until its events are asked for, then read to the events
    ``iter_games`` gives; its types and ``game_started`` are there without them."""
    _fill(store)
    _read(store)  # (the rows of one game read, the next ones' repeat them)
    read = _read(store)
    assert all(g.stored.facts is not None for g in read)
    # (its bids and roem: the plays appended live keep their recorded_at, not kept)
    assert all(_pending(g) >= 20 for g in read)
    by_id = dict(store.iter_games(until=store.cursor(), fast=True))
    for g in read:
        sg = g.stored
        assert sg.head is not None and sg.head.type == "game_started"
        want = by_id[sg.game]
        seqs = {int(s) for s in sg.batch.seqs[sg.lo:sg.hi][sg.batch.codes[sg.lo:sg.hi] < 0]}
        assert [e.type for e in want if e.seq in seqs] == sg.types
        assert [_fields(e) for e in sg.others] == [_fields(e) for e in want if e.seq in seqs]
        assert _pending(g) == 0
        assert [_fields(e) for e in g.events()] == [_fields(e) for e in want]


def test_a_plain_games_deals_are_checked_not_read_until_asked_for(store: Store) -> None:  # noqa: F811
    """A deal's row, whose hands are too long to keep, is checked (its fields, as reading it
    would), not read, even in a process that has kept nothing yet: of a game built from its
    stored facts it stays a row until the game's events are asked for, then reads to the
    event ``iter_games`` gives."""
    _fill(store)
    row_memo.forget()
    read = _read(store)
    by_id = dict(store.iter_games(until=store.cursor(), fast=True))
    for g in read:
        sg = g.stored
        assert sg.facts is not None
        items = sg.batch.others.items[sg.first:sg.first + len(sg.types)]
        deals = [e for e, t in zip(items, sg.types, strict=True) if t == "dealt"]
        assert len(deals) >= 2 and all(e is _PENDING for e in deals)
        want = [e for e in by_id[sg.game] if e.type == "dealt"]
        assert [_fields(e) for e in sg.others if e.type == "dealt"] == [_fields(e) for e in want]


def _change_last(sql: Any, kind: str, column: str, value: str) -> None:
    """Set ``column`` to ``value`` (SQL) in game a-2's last row of type ``kind``."""
    key = "(SELECT pos FROM games WHERE id = 'a-2')"
    code = f"(SELECT code FROM event_types WHERE name = '{kind}')"
    seq = sql(f"SELECT max(seq) FROM events WHERE game = {key} AND kind = {code}")[0][0]
    sql(f"UPDATE events SET {column} = {value} WHERE game = {key} AND seq = {seq}")


@pytest.mark.parametrize(("value", "out"), [
    ("CAST(replace(CAST(rest AS TEXT), '\"7C\"', '\"7c\"') AS BLOB)", True),
    ("x'ff'", True),
    ("CAST('[[[' || substr(CAST(rest AS TEXT), instr(CAST(rest AS TEXT), ',') + 1) AS BLOB)",
     False)])
def test_a_deal_row_that_does_not_read_leaves_its_game_out_as_reading_events(
        store: Store, raw_sql: Any, tmp_path: Path, value: str, out: bool) -> None:  # noqa: F811
    """A deal's ``rest`` changed behind the store's back, though its game has stored facts:
    a card no model knows or bytes that are no JSON leave the game out, with the same
    error; a hand of seven reads (the rules refuse it); either way to the same files as an
    export that reads events."""
    _fill(store)
    _read(store)
    disable_triggers(store, raw_sql)
    _change_last(raw_sql, "dealt", "rest", value)
    columns, events, unreadable, by_events = _both_ways(store, tmp_path)
    assert columns == events and unreadable == by_events
    assert len(unreadable) == out and all("a-2" in u for u in unreadable)
    assert len(columns) > 5


@pytest.mark.parametrize(("column", "value", "out"), [
    ("rest", "x'ff'", True), ("rest", "x'5b5d'", True), ("version", "99", True),
    ("kind", "9999", True), ("at", "-5", False), ("at", "'soon'", True),
    ("event_id", "x'0102'", True), ("seat", "7", True), ("seat", "'x'", True),
    ("seat", "1.0", False), ("recorded_at", "253402300800000", True)])
def test_a_bid_row_that_does_not_read_leaves_its_game_out_as_reading_events(
        store: Store, raw_sql: Any, tmp_path: Path, column: str,  # noqa: F811
        value: str, out: bool) -> None:
    """A bid row changed behind the store's back, in a game among plain ones whose other
    rows are read only when asked for: the game is left out, with the same error, to the
    same files as an export that reads events."""
    _fill(store)
    _read(store)
    assert _pending(next(g for g in _read(store) if g.game == "a-2")) > 0
    disable_triggers(store, raw_sql)
    _change_last(raw_sql, "bid", column, value)
    columns, events, unreadable, by_events = _both_ways(store, tmp_path)
    assert columns == events and unreadable == by_events
    assert len(unreadable) == out and all("a-2" in u for u in unreadable)
    assert len(columns) > 5


@pytest.mark.parametrize(("column", "value"), [
    ("rest", "x'ff'"), ("at", "-5"), ("version", "99"), ("seat", "2"),
    ("kind", "(SELECT code FROM event_types WHERE name = 'note')")])
def test_an_odd_game_started_row_exports_as_reading_events(
        store: Store, raw_sql: Any, tmp_path: Path, column: str,  # noqa: F811
        value: str) -> None:
    """A game's ``game_started`` row changed behind the store's back (that does not read, or
    reads to another event): the same files, the same games left out, as reading events."""
    _fill(store)
    _read(store)
    disable_triggers(store, raw_sql)
    key = "(SELECT pos FROM games WHERE id = 'a-2')"
    raw_sql(f"UPDATE events SET {column} = {value} WHERE game = {key} AND seq = 0")
    columns, events, unreadable, by_events = _both_ways(store, tmp_path)
    assert columns == events and unreadable == by_events
    assert len(columns) > 5


def test_a_corrected_game_among_plain_ones_is_folded_to_the_same_files(
        store: Store, tmp_path: Path) -> None:  # noqa: F811
    """A game with a correction, in the same batch as plain games: it is folded (its other
    rows all read), the plain ones around it built from their facts, to the same files as
    an export that reads events."""
    store.append("a-0", game_events("a-0", "amsterdam", seed=11))
    g = game_events("c-1", "amsterdam", seed=12)
    deals = [i for i, e in enumerate(g) if e["type"] == "dealt"]
    mistake = next(i for i, e in enumerate(g) if e["type"] == "play" and i > deals[1] + 3)
    g[mistake + 1:mistake + 1] = [{"game": "c-1", "type": "correction", "retracts": [mistake],
                                   "reason": "recorded by mistake"}, dict(g[mistake])]
    store.append("c-1", [{**e, "seq": k} for k, e in enumerate(g)])
    store.append("a-2", game_events("a-2", "amsterdam", seed=13))
    _read(store)
    read = {g.game: g for g in _read(store)}
    assert read["c-1"].stored.facts is None and read["c-1"].stored.fold is not None
    assert read["c-1"].stored.fold.retracted
    assert _pending(read["c-1"]) == 0
    assert read["a-2"].stored.facts is not None and _pending(read["a-2"]) > 0
    columns, events, unreadable, by_events = _both_ways(store, tmp_path)
    assert columns == events and unreadable == by_events == []
    assert len(columns) > 5
