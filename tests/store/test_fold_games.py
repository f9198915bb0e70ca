"""The store's bulk fold (``Store.fold_games``): every game folded as a fold of the events
``iter_games`` reads gives it (state, report, log, error), on both backends; a SQLite store
reads each game's plays as one row of codes."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from jaslog.engine.fold import FoldError, GameFold
from jaslog.events.times import SECONDS_MAX
from jaslog.play.audit import game_report
from jaslog.play.sim import Faults
from jaslog.store import Store
from jaslog.store.bulk_read import AT_SHIFT, SEQS, code_seq, game_codes
from jaslog.store.fold_read import fold_one
from tests.store.conftest import game_events, sqlite_only
from tests.store.test_tamper import disable_triggers

RULESETS = {"a-0": "amsterdam", "k-1": "klaberjass-2p", "p-2": "kloepper", "r-3": "rotterdam"}

#: The batch statement (each game one entry of one row), as the trace shows it.
BATCH_READ = "WITH batch(game, entries) AS (SELECT game, "


def _stored(store: Store, imported: bool = False) -> None:
    """The games of :data:`RULESETS` appended (each row with its ``recorded_at``), or
    imported (a play with nothing but its seat, card and time: a plain play)."""
    faults = Faults(revoke_rate=0.05, no_hands_rate=0.3, false_roem_rate=0.2)
    for i, (gid, ruleset) in enumerate(RULESETS.items()):
        events = game_events(gid, ruleset, seed=i + 3, faults=faults)
        if imported:
            assert store.import_lines([orjson.dumps(e) for e in events]).events == len(events)
        else:
            store.append(gid, events)


def _seen(folded: GameFold | FoldError) -> Any:
    """What a reader sees of a fold: its report and its log, or the error's text."""
    if isinstance(folded, FoldError):
        return str(folded), folded.seq, folded.seat, folded.card
    return (orjson.dumps(game_report(folded.game_id, folded, None)),
            [e.model_dump() for e in folded.log], folded.next_seq, folded.last_at)


def _by_events(store: Store, **kw: Any) -> list[tuple[str, Any]]:
    return [(gid, _seen(fold_one(gid, evs))) for gid, evs in store.iter_games(**kw)]


def _changed(store: Store, raw_sql: Callable[..., Any], change: str, where: str
             ) -> tuple[list[tuple[str, Any]], list[str]]:
    """The games of :data:`RULESETS` imported, then ``SET change`` on the row of game p-2
    whose seq is ``where`` (SQL over ``events``, its game ``{key}``) behind the store's back:
    what ``fold_games`` gives (each game seen, the unreadable ones' errors), checked to be
    what the events ``iter_games`` reads give."""
    _stored(store, imported=True)
    disable_triggers(store, raw_sql)
    key = "(SELECT pos FROM games WHERE id = 'p-2')"
    raw_sql(f"UPDATE events SET {change} WHERE game = {key} AND seq = ("
            + where.format(key=key) + ")")
    bad: list[str] = []
    by_events: list[str] = []
    got = [(gid, _seen(f)) for gid, f in store.fold_games(unreadable=lambda e: bad.append(str(e)))]
    want = [(gid, _seen(fold_one(gid, evs))) for gid, evs in store.iter_games(
        fast=True, unreadable=lambda e: by_events.append(str(e)))]
    assert got == want and bad == by_events
    return got, bad


@pytest.mark.parametrize("imported", [False, True], ids=["appended", "imported"])
def test_every_game_folds_as_its_events_fold(store: Store, imported: bool) -> None:
    _stored(store, imported)
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


@sqlite_only  # (the codes are read from a SQLite file)
def test_sqlite_reads_a_game_as_one_row(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """On SQLite a batch is read with one statement, by the reader thread on its own
    connection to the file (the store's connection reads the batches' ids meanwhile): each
    game's rows as one row, each row's entry (a plain play's code, another row's columns)
    worked out by one CASE and joined by SQLite (no row-by-row read of any row)."""
    _stored(store, imported=True)
    from jaslog.store import read_ahead

    statements: list[str] = []
    ahead: list[str] = []
    with store.engine.connect() as c:  # the pool's one connection, which the reads reuse
        raw = c.connection.dbapi_connection
        assert isinstance(raw, sqlite3.Connection)
        raw.set_trace_callback(statements.append)
    opened: list[sqlite3.Connection] = []

    def traced(path: str) -> sqlite3.Connection:
        conn = connect(path)
        conn.set_trace_callback(ahead.append)
        opened.append(conn)
        return conn

    connect = read_ahead.connect
    monkeypatch.setattr(read_ahead, "connect", traced)
    folds = list(store.fold_games())
    raw.set_trace_callback(None)
    assert not [q for q in statements if q.startswith(BATCH_READ)]
    reads = [q for q in ahead if q.startswith(BATCH_READ)]  # the events' rows
    assert len(reads) == 1, reads
    assert reads[0].count("group_concat(CASE WHEN") == 1 and "GROUP BY game" in reads[0]
    assert reads[0].count("CASE") == 1 and reads[0].count("rest IS NULL AND kind = 1") == 1
    assert reads[0].endswith("SELECT group_concat(game || ':' || coalesce(entries, ''), ';') "
                             "FROM batch")  # the batch as one row
    assert len(opened) == 1
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        opened[0].total_changes  # noqa: B018 - the reader closed its connection
    assert len(folds) == len(RULESETS)
    assert [(gid, _seen(f)) for gid, f in folds] == _by_events(store)


#: Changes behind the store's back to a row of game p-2 that is not a play (SQL ``SET``
#: clauses): a value of a type the store never writes in that column.
ODD_OTHERS = {
    "a seat as text": "seat = 'x'",
    "a seat as a fraction": "seat = 0.5",
    "a seat as a blob": "seat = x'01'",
    "a rest as text": "rest = CAST(rest AS TEXT)",
    "an id as an integer": "event_id = 7",
    "a time as text": "at = '2026'",
    "a kind as a fraction": "kind = kind + 0.5",
    "a version as a fraction": "version = 1.5",
    "a time as a fraction": "at = 1767641455.25",
    "a card as a blob": "card = x'1f'",
    "a recorded time as text": "recorded_at = '2026'",
    "an id as text": "event_id = 'id'",
    "a seq below 0": "seq = -5",
}


@sqlite_only  # (only SQLite stores a value of another type in an integer column)
@pytest.mark.parametrize("change", list(ODD_OTHERS), ids=list(ODD_OTHERS))
def test_an_odd_other_row_is_read_as_rows(store: Store, raw_sql: Callable[..., Any],
                                          change: str) -> None:
    """A row that is not a play, changed behind the store's back to hold a value of another
    type in a column: its batch is read row by row, to the same folds, errors and unreadable
    games as the events iter_games reads."""
    got, bad = _changed(store, raw_sql, ODD_OTHERS[change], "SELECT max(seq) FROM events "
                        "WHERE game = {key} AND rest IS NOT NULL AND seq > 0")
    assert len(got) + len(bad) == len(RULESETS)


@sqlite_only  # (only SQLite stores a value of another type in an integer column)
@pytest.mark.parametrize(("column", "value"), [("seat", "'x'"), ("card", "NULL"),
                                               ("seat", "1.5")])
def test_a_play_the_columns_do_not_take_is_read_as_rows(store: Store,
                                                        raw_sql: Callable[..., Any],
                                                        column: str, value: str) -> None:
    """A play's seat or card changed behind the store's back into what no plain play holds
    (text, nothing, a fraction): its batch is read row by row, as iter_games reads it, to
    the same folds and the same unreadable game."""
    got, bad = _changed(store, raw_sql, f"{column} = {value}", "SELECT max(seq) FROM events "
                        "WHERE game = {key} AND kind = 1 AND rest IS NULL")
    assert len(bad) == 1 and bad[0].startswith("game p-2 seq ")
    assert [g for g, _ in got] == [g for g in RULESETS if g != "p-2"]


#: Changes behind the store's back to the last plain play of game p-2 (SQL ``SET`` clauses).
ODD_PLAYS = {
    "a time in seconds": "at = 1767641455",
    "a time in milliseconds": "at = 1767641455120",
    "a time past what a code holds": f"at = {SECONDS_MAX * 1000 + 999}",
    "a time before 1970": "at = -5",
    "a time as a fraction": "at = 1767641455.5",
    "a seq past the end": "seq = seq + 20000",
    "a seq past what a code holds": "seq = 8192",
}


@pytest.mark.parametrize("change", list(ODD_PLAYS), ids=list(ODD_PLAYS))
def test_an_odd_play_folds_as_its_events_fold(store: Store, raw_sql: Callable[..., Any],
                                              change: str) -> None:
    """A play changed behind the store's back into what a code holds (a time in
    milliseconds) or does not (a time too late or before 1970, a fraction, a seq out of
    line): the same folds, errors and unreadable games as the events read by iter_games."""
    if store.dialect != "sqlite" and "fraction" in change:
        pytest.skip("only SQLite stores a fraction in an integer column")
    got, bad = _changed(store, raw_sql, ODD_PLAYS[change], "SELECT max(seq) - 3 FROM events "
                        "WHERE game = {key} AND kind = 1 AND rest IS NULL")
    assert [g for g, _ in got] + [b.split()[1] for b in bad] != []
    if "a time in" in change:  # a time a code holds: the play keeps it
        folded = dict(store.fold_games())["p-2"]
        assert isinstance(folded, GameFold)
        assert [e.at for e in folded.log if e.at] == \
            ["2026-01-05T19:30:55" + (".120Z" if "milli" in change else "Z")]


def test_a_games_codes_are_read_in_seq_order_or_not_at_all() -> None:
    """The entries SQLite joins for a game are taken only as codes (integers from 0) and
    other rows (arrays of their nine columns) whose seqs (a play's in its code, another
    row's first) run on one by one from seq 0: in seq order, no gap; another row's code is
    -1 - seq."""
    play = (1 << AT_SHIFT) * 1767641456 + 2 * 32 + 8  # seat 2 plays 7D
    first = '[0,10,1,null,1767641400,null,null,null,"5B315D"]'
    third = '[2,3,1,"0A0B",null,17,1,null,null]'
    row0 = (0, 10, 1, None, 1767641400, None, None, None, b"[1]")
    assert game_codes(f"{first},{play + 128},{third}") == \
        ([-1, play + 128, -3], [row0, (2, 3, 1, b"\n\x0b", None, 17, 1, None, None)])
    assert game_codes(f"{third},{play + 128},{first}") is None  # out of order
    assert game_codes(f"{first},{play + 2 * 128}") is None  # a gap
    assert game_codes(f"{first},{play + 128}.0") is None  # a fraction
    assert game_codes(f"{first},-1") is None  # a row SQLite marked odd
    assert game_codes(f"{first},{first}") is None  # a seq twice
    assert game_codes(f"{first},-2") is None and game_codes(f"{play + 128},-1") is None
    assert game_codes(f"{first},Inf") is None and game_codes(f"{first},true") is None
    assert game_codes(f"{first},9.22337203685478e+18") is None  # a code past 63 bits: a real
    for odd in ('[1,10,1]', '[-1,10,1,null,null,null,null,null,null]',
                '[1.5,10,1,null,null,null,null,null,null]', '[1,10.5,1,null,null,null,null,null,null]',
                '[1,10,null,null,null,null,null,null,null]', '[1,10,1,null,5.5,null,null,null,null]',
                '[1,10,1,null,null,null,"x",null,null]', '[1,10,1,null,null,null,null,true,null]',
                '[1,10,1,"0G",null,null,null,null,null]', '[1,10,1,null,null,null,null,null,7]',
                '{"seq":1}', 'null'):
        assert game_codes(f"{first},{odd}") is None, odd
    # a game's rows from seq 5 on (its seq-0 row moved to another game or renumbered): not
    # taken, the batch is read as rows, which names the game
    assert game_codes(f"{play + 5 * 128},[6,3,1,null,null,null,1,null,null],{play + 7 * 128}") \
        is None
    assert [code_seq(v) for v in (-1, -8192, play + (SEQS - 1) * 128)] == [0, 8191, SEQS - 1]


@pytest.mark.parametrize("timed", ["every event", "the plays", "the other events",
                                   "up to the last other event"])
def test_the_last_time_is_the_last_timed_events(store: Store, raw_sql: Callable[..., Any],
                                                timed: str) -> None:
    """A fold's last time is its last timed event's, a play's or another's, as a fold of the
    events gives it (the bulk fold writes a play's time once, at the end)."""
    _stored(store, imported=True)
    disable_triggers(store, raw_sql)
    which = {"every event": "", "the plays": " AND kind = 1 AND rest IS NULL",
             "the other events": " AND NOT (kind = 1 AND rest IS NULL)",
             "up to the last other event": " AND seq <= (SELECT max(o.seq) FROM events o WHERE "
             "o.game = events.game AND NOT (o.kind = 1 AND o.rest IS NULL))"}[timed]
    raw_sql(f"UPDATE events SET at = 1767641455 + seq * 7 WHERE seq > 0{which}")
    got = [(gid, _seen(f)) for gid, f in store.fold_games()]
    assert got == _by_events(store)
    lasts = {gid: f.last_at for gid, f in store.fold_games() if isinstance(f, GameFold)}
    assert len(set(lasts.values())) > 1 and None not in lasts.values()
