"""Group commit: the appends waiting for the service's writer are written in one transaction,
each checked in turn and answered on its own, and what they store is what appending them one
at a time stores, byte for byte (on an SQLite file and on PostgreSQL)."""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import event, select, text

from jaslog.engine.sim import Faults
from jaslog.play.audit import violation_dict
from jaslog.play.sim import simulate_game
from jaslog.service.core import Service
from jaslog.store import ConflictError, NoSuchGame, RejectedError, open_store
from jaslog.store.clock import ManualClock
from jaslog.store.engine import DatabaseError
from jaslog.store.schema import (
    EVENTS,
    GAME_PLACES,
    GAME_PLAYERS,
    GAME_RESULTS,
    GAME_WINNERS,
    GAMES,
    SIGNATURES,
    SIGNING_KEYS,
)
from tests.store.conftest import BACKENDS, STORE_TIME

TABLES = (EVENTS, GAMES, GAME_PLAYERS, GAME_PLACES, GAME_RESULTS, GAME_WINNERS, SIGNATURES,
          SIGNING_KEYS)


@pytest.fixture(params=BACKENDS)
def two_urls(request: pytest.FixtureRequest, tmp_path: Path,
             monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    """Two empty stores of one backend that sign with one key (``$JASLOG_KEYS``): what both
    sign is then the same bytes."""
    if request.param == "sqlite":
        monkeypatch.setenv("JASLOG_KEYS", str(tmp_path / "keys"))
        yield str(tmp_path / "a.sqlite"), str(tmp_path / "b.sqlite")
        return
    from sqlalchemy.engine import make_url

    first = str(request.getfixturevalue("pg_url"))
    monkeypatch.setenv("JASLOG_KEYS", str(tmp_path / "keys"))
    admin = make_url(first).set(database="postgres").render_as_string(hide_password=False)
    name = f"jaslog_t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as c:
        c.execute(f"CREATE DATABASE {name}")
    yield first, make_url(first).set(database=name).render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as c:
        c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@dataclass(eq=False)
class Request:
    """One append as a client sends it, and the answer it got."""

    game: str
    events: list[dict[str, Any]]
    expected_seq: int | None
    answer: Any = None
    future: Future[Any] | None = field(default=None, repr=False)


def _plain(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k not in ("game", "seq")} for e in events]


def workload(thread: int) -> list[Request]:
    """A client's appends to its own three games, taken in turn: each game begun by its
    ``game_started``, then its events by 1 to 3 (some with ids), with a retry, a stale
    conflict, a play the rules refuse and a malformed event among them. One game is played
    to its end (its result is stored); the games have faults the rules record (violations)."""
    logs = {
        f"t{thread}-short": _plain(simulate_game(f"t{thread}-short", "klaberjass-2p",
                                                 seed=thread, faults=Faults(revoke_rate=0.2))),
        f"t{thread}-a": _plain(simulate_game(f"t{thread}-a", "amsterdam", seed=10 + thread,
                                             faults=Faults(revoke_rate=0.3)))[:80],
        f"t{thread}-b": _plain(simulate_game(f"t{thread}-b", "kloepper", seed=20 + thread))[:60],
    }
    for gid, evs in logs.items():
        if gid.endswith("-a"):  # events with ids: their retries are recognised by them
            for i, e in enumerate(evs):
                e["id"] = str(uuid.UUID(int=thread * 10_000 + i))
        evs[0]["meta"] = {"table": thread}
    at = dict.fromkeys(logs, 0)
    out: list[Request] = []
    n = 0
    while any(at[g] < len(evs) for g, evs in logs.items()):
        for gid, evs in logs.items():
            seq = at[gid]
            if seq >= len(evs):
                continue
            size = 1 if seq == 0 else 1 + n % 3
            chunk = evs[seq:seq + size]
            n += 1
            out.append(Request(gid, chunk, seq))
            at[gid] = seq + len(chunk)
            if n % 7 == 0 and seq > 0:  # a retry of what was just sent (ids: already stored)
                out.append(Request(gid, chunk, seq))
            if n % 11 == 0:  # stale: the game has moved on
                out.append(Request(gid, evs[seq:seq + 1], seq))
            if n % 13 == 0:
                out.append(Request(gid, [{"type": "play", "seat": 9, "card": "AS"}], at[gid]))
            if n % 17 == 0 and at[gid] < len(evs) and evs[at[gid]]["type"] == "play":
                wrong = {**evs[at[gid]], "seat": (evs[at[gid]]["seat"] + 1) % 2}
                out.append(Request(gid, [wrong], at[gid]))
    return out


def _answer(fut: Future[Any]) -> Any:
    """What a request was answered, comparable across stores."""
    try:
        res, violations = fut.result(timeout=120)
    except (ConflictError, RejectedError) as e:
        return (type(e).__name__, e.code, str(e), getattr(e, "expected", None),
                getattr(e, "actual", None))
    return ("ok", res.appended, res.already_stored, res.head.next_seq, res.head.hash,
            violations)


def dump(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the tables an append writes, in a fixed order."""
    with open_store(url) as s, s.engine.connect() as conn:
        ids = {int(r.pos): r.id for r in conn.execute(text("SELECT id, pos FROM games"))}
        out = {t.name: sorted((tuple(bytes(v) if isinstance(v, memoryview) else v for v in r)
                               for r in conn.execute(select(t))), key=repr) for t in TABLES}
    # an event's game is its game's position among the games: its id, to compare stores
    out["events"] = sorted(((ids[int(r[0])], *r[1:]) for r in out["events"]), key=repr)
    return out


def kept_folds(svc: Service) -> dict[str, Any]:
    """The folds the service's writer keeps between appends, as data."""
    return {g: (seq, head, [violation_dict(v) for v in f.state.violations])
            for g, (seq, head, f, _marks) in sorted(svc.writer._folds.items())}


@pytest.mark.soak
def test_appends_from_several_threads_store_what_one_by_one_stores(
        two_urls: tuple[str, str]) -> None:
    grouped_url, one_by_one_url = two_urls
    clients = [workload(k) for k in range(4)]
    svc = Service(grouped_url, clock=ManualClock(STORE_TIME))
    commits = write_transactions(svc)

    def client(k: int) -> None:
        for r in clients[k]:
            r.future = svc.submit(r.game, r.events, r.expected_seq)
            if k % 2 == 0:  # half the clients wait for each answer, half send all at once
                r.future.exception(timeout=120)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for reqs in clients:
        for r in reqs:
            assert r.future is not None
            r.answer = _answer(r.future)
    grouped_folds = kept_folds(svc)
    svc.close()
    requests = [r for reqs in clients for r in reqs]
    # (the clients that send all at once are written in a few transactions)
    assert len(commits) < len(requests) - 300, "the appends were not written in groups"
    kinds = {a[0] if a[0] != "RejectedError" else a[1] for a in (r.answer for r in requests)}
    assert {"ok", "ConflictError", "bad_event", "not_your_turn"} <= kinds, kinds
    assert any(r.answer[0] == "ok" and r.answer[2] > 0 for r in requests)  # retries recognised
    assert any(r.answer[0] == "ok" and r.answer[5] for r in requests)  # violations told

    # the same appends one at a time, in the order the groups wrote them (a refused or
    # empty append writes nothing: it goes where its game's other appends put it)
    grouped = dump(grouped_url)
    pos = {(row[0], row[1]): row[2] for row in grouped["events"]}

    def first_pos(r: Request) -> int:
        return int(pos[(r.game, r.answer[3] - r.answer[1])])

    order: list[Request] = []
    placed: set[int] = set()
    by_game: dict[str, list[Request]] = {}
    for r in requests:
        by_game.setdefault(r.game, []).append(r)
    wrote = sorted((r for r in requests if r.answer[0] == "ok" and r.answer[1] > 0),
                   key=first_pos)
    last: Request | None
    for last in [*wrote, None]:
        for q in (by_game[last.game] if last is not None else requests):
            if id(q) not in placed:
                placed.add(id(q))
                order.append(q)
            if q is last:
                break
    assert len(order) == len(requests)
    one = Service(one_by_one_url, clock=ManualClock(STORE_TIME))
    for r in order:
        fut: Future[Any] = Future()
        try:
            fut.set_result(one.append(r.game, r.events, r.expected_seq))
        except (ConflictError, RejectedError) as e:
            fut.set_exception(e)
        assert _answer(fut) == r.answer, (r.game, r.expected_seq)
    assert kept_folds(one) == grouped_folds
    one.close()
    assert dump(one_by_one_url) == grouped
    assert grouped["signatures"] and grouped["game_results"] and grouped["game_winners"]


def write_transactions(svc: Service) -> list[str]:
    """A list that gets an item for each write transaction the service's writer begins."""
    seen: list[str] = []

    def begun(conn: Any) -> None:
        if conn.get_execution_options().get("jaslog_write", False):
            seen.append(conn.dialect.name)

    event.listen(svc.writer.engine, "begin", begun)
    return seen


def _held(svc: Service) -> threading.Lock:
    """The writer's lock, taken: appends submitted now wait together for one group."""
    svc._write_lock.acquire()
    return svc._write_lock


def _waiting(svc: Service, n: int) -> None:
    """Waits until the writer's thread has taken the first of the ``n`` appends submitted while
    its lock is held (and waits at the lock) and the others are queued behind it."""
    deadline = time.monotonic() + 30
    while svc._queue.qsize() != n - 1 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert svc._queue.qsize() == n - 1, (svc._queue.qsize(), n)


def test_appends_queued_while_a_group_begins_join_it(store_url: str) -> None:
    """An append queued while the writer's group begins its transaction (on PostgreSQL an
    exchange with the server) is written in that group, not in one of its own after it, and
    answered as it would have been there: four appends to four games, one transaction."""
    svc = Service(store_url, clock=ManualClock(STORE_TIME))
    logs = {f"g{i}": _plain(simulate_game(f"g{i}", "amsterdam", seed=i)) for i in range(4)}
    for gid, evs in logs.items():
        svc.append(gid, evs[:3], 0)
    later: list[Future[Any]] = []

    def begun(conn: Any) -> None:  # the first group's transaction begins: three more come
        if conn.get_execution_options().get("jaslog_write", False) and not later:
            later.extend(svc.submit(gid, [evs[3]], 3) for gid, evs in list(logs.items())[1:])

    seen = write_transactions(svc)
    event.listen(svc.writer.engine, "begin", begun)
    first = svc.submit("g0", [logs["g0"][3]], 3).result(timeout=60)[0]
    answers = [first, *(f.result(timeout=60)[0] for f in later)]
    assert [(a.game, a.appended, a.head.next_seq) for a in answers] == \
        [(gid, 1, 4) for gid in logs]
    assert len(seen) == 1
    svc.close()
    with open_store(store_url) as s:
        assert all(s.head(gid).next_seq == 4 for gid in logs) and s.verify().ok


def test_a_refused_append_leaves_the_others_of_its_group_written(store_url: str) -> None:
    svc = Service(store_url, clock=ManualClock(STORE_TIME))
    g = _plain(simulate_game("g", "amsterdam", seed=1))
    h = _plain(simulate_game("h", "amsterdam", seed=2))
    for gid, evs in (("g", g), ("h", h)):
        svc.append(gid, evs[:3], 0)
    commits = write_transactions(svc)
    lock = _held(svc)
    ids = [str(uuid.UUID(int=i)) for i in range(4)]
    futs = [svc.submit("g", [{**g[3], "id": ids[0]}], 3),              # written
            svc.submit("h", [h[4]], 4),                                 # a gap: a conflict
            svc.submit("h", [{**h[3], "card": "AS"}], 3),               # refused by the rules
            svc.submit("h", [{"type": "play", "seat": 9}], 3),          # malformed
            svc.submit("g", [{**g[3], "id": ids[0]}], 3),               # a retry of the first
            svc.submit("g", [{**g[4], "id": ids[1]}, g[5]], 4),         # written after it
            svc.submit("nope", [h[3]], 3),                              # no such game
            svc.submit("h", [h[3], h[4]], 3)]                           # written
    _waiting(svc, len(futs))
    lock.release()
    answers: list[Any] = []
    for f in futs:
        e = f.exception(timeout=60)
        answers.append(type(e).__name__ if e is not None else f.result()[0].appended)
    assert answers == [1, "ConflictError", "RejectedError", "RejectedError", 0, 2,
                       "ConflictError", 2]
    assert len(commits) == 1
    assert futs[4].result()[0].already_stored == 1
    assert svc.writer.head("g").next_seq == 6 and svc.writer.head("h").next_seq == 5
    with pytest.raises(RejectedError) as refused:
        futs[2].result()
    assert refused.value.code == "card_not_held"
    svc.close()
    with open_store(store_url) as s:
        assert [e.seq for e in s.events("g")] == list(range(6))
        assert s.verify().ok


def test_a_database_failure_fails_every_append_of_the_group(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JASLOG_LOCK_TIMEOUT", "1")
    db = tmp_path / "s.sqlite"
    svc = Service(str(db), clock=ManualClock(STORE_TIME))
    g = _plain(simulate_game("g", "amsterdam", seed=1))
    svc.append("g", g[:3], 0)
    lock = _held(svc)
    futs = [svc.submit("g", [g[3]], 3), svc.submit("g", [g[4]], 4),
            svc.submit("g", [{"type": "play", "seat": 9}], 5)]
    other = sqlite3.connect(db, isolation_level=None)  # another process's writer holds on
    other.execute("BEGIN IMMEDIATE")
    _waiting(svc, len(futs))
    lock.release()
    errors = [f.exception(timeout=60) for f in futs]
    other.execute("ROLLBACK")
    other.close()
    assert all(isinstance(e, DatabaseError) and e.code == "store_busy" for e in errors), errors
    assert svc.writer.head("g").next_seq == 3
    res, _ = svc.submit("g", [g[3]], 3).result(timeout=60)  # the writer goes on
    assert res.appended == 1
    svc.close()


def test_rows_the_database_refuses_fail_their_append_only(store_url: str) -> None:
    """A store damaged behind its back (a place row of a game not begun yet): the new game's
    header rows are refused once its append is checked; the group is written again one
    append at a time, and that append alone fails, as it fails alone."""
    from sqlalchemy import insert

    svc = Service(store_url, clock=ManualClock(STORE_TIME))
    g = _plain(simulate_game("g", "amsterdam", seed=1))
    x = _plain(simulate_game("x", "amsterdam", seed=2))
    svc.append("g", g[:3], 0)
    with svc.writer.engine.begin() as conn:
        conn.execute(insert(GAME_PLACES).values(game="x", table_id=None, tournament=None))
    with pytest.raises(ConflictError) as alone:
        svc.append("x", x[:1], 0)
    transactions = write_transactions(svc)
    lock = _held(svc)
    futs = [svc.submit("g", [g[3]], 3), svc.submit("x", x[:1], 0), svc.submit("g", [g[4]], 4)]
    _waiting(svc, len(futs))
    lock.release()
    errors = [f.exception(timeout=60) for f in futs]
    assert errors[0] is None and errors[2] is None
    assert isinstance(errors[1], ConflictError) and str(errors[1]) == str(alone.value)
    assert "the database refused the rows" in str(errors[1])
    assert len(transactions) == 4  # the group, then each of its appends alone
    assert svc.writer.head("g").next_seq == 5
    with pytest.raises(NoSuchGame):
        svc.writer.head("x")
    svc.close()


def exchanges(svc: Service, folder: Path, traces: list[str] | None = None) -> list[int]:
    """A list that gets, for each write transaction of the service's writer on PostgreSQL,
    how many exchanges with the server it took from its start to its end (its commit, or
    the connection's return to the pool): libpq's own trace of the protocol (to a file in
    ``folder``), counting the server's ``ReadyForQuery`` (one ends each exchange: a query,
    or a pipeline's sync). ``traces`` gets each transaction's whole trace."""
    import os

    seen: list[int] = []
    traced: dict[int, tuple[int, Path]] = {}

    def begun(conn: Any) -> None:
        if conn.get_execution_options().get("jaslog_write", False):
            raw = conn.connection.dbapi_connection
            path = folder / f"trace-{len(seen)}.txt"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            traced[id(raw)] = (fd, path)
            raw.pgconn.trace(fd)
            raw.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)

    def returned(raw: Any, _record: Any = None) -> None:
        fd, path = traced.pop(id(raw), (-1, folder))
        if fd >= 0:
            raw.pgconn.untrace()
            os.close(fd)
            trace = path.read_text()
            seen.append(trace.count("\tReadyForQuery\t"))
            if traces is not None:
                traces.append(trace)

    def committed(conn: Any) -> None:  # (the writer keeps its connection between groups)
        returned(conn.connection.dbapi_connection)

    event.listen(svc.writer.engine, "begin", begun)
    event.listen(svc.writer.engine, "commit", committed)
    event.listen(svc.writer.engine, "checkin", returned)
    return seen


def test_a_group_on_postgresql_is_two_exchanges_with_the_server(pg_url: str,
                                                                 tmp_path: Path) -> None:
    """Eight appends to eight games in one group: the transaction's start (its lock, the
    last position) is one exchange with the server, its rows and its commit another; no
    head is read (each game's is kept from its last append) and no row written alone."""
    svc = Service(pg_url, clock=ManualClock(STORE_TIME))
    logs = {f"g{i}": _plain(simulate_game(f"g{i}", "amsterdam", seed=i)) for i in range(8)}
    for gid, evs in logs.items():
        svc.append(gid, evs[:3], 0)
    counted = exchanges(svc, tmp_path)
    lock = _held(svc)
    futs = [svc.submit(gid, [evs[3]], 3) for gid, evs in logs.items()]
    _waiting(svc, len(futs))
    lock.release()
    assert [f.result(timeout=60)[0].appended for f in futs] == [1] * 8
    assert counted == [2]
    svc.close()
    with open_store(pg_url) as s:
        assert all(s.head(gid).next_seq == 4 for gid in logs) and s.verify().ok


def test_a_group_on_postgresql_sends_two_query_strings(pg_url: str, tmp_path: Path) -> None:
    """A group's two exchanges are two query strings in PostgreSQL's simple protocol (its
    start; its rows, its NOTIFY and its commit): no statement is parsed, bound or its
    parameters adapted apart, which cost the writer's process some three times the CPU. The
    rows are stored as sent and the NOTIFY is delivered with the commit, once."""
    svc = Service(pg_url, clock=ManualClock(STORE_TIME))
    logs = {f"g{i}": _plain(simulate_game(f"g{i}", "amsterdam", seed=i)) for i in range(8)}
    for gid, evs in logs.items():
        svc.append(gid, evs[:3], 0)
    svc.notify = ("jaslog_events", "it's-this-process")
    traces: list[str] = []
    counted = exchanges(svc, tmp_path, traces)
    with psycopg.connect(pg_url.replace("+psycopg", ""), autocommit=True) as listener:
        listener.execute("LISTEN jaslog_events")
        lock = _held(svc)
        futs = [svc.submit(gid, [evs[3]], 3) for gid, evs in logs.items()]
        _waiting(svc, len(futs))
        lock.release()
        assert [f.result(timeout=60)[0].appended for f in futs] == [1] * 8
        heard = [n.payload for n in listener.notifies(timeout=2, stop_after=2)]
    assert heard == ["it's-this-process"]
    assert counted == [2]
    sent = [line.split("\t")[2] for line in traces[0].splitlines()
            if line.startswith("F\t")]
    assert sent == ["Query", "Query"]
    svc.close()
    with open_store(pg_url) as s:
        assert all(s.head(gid).next_seq == 4 for gid in logs) and s.verify().ok
        for gid, evs in logs.items():
            assert [e.model_dump(exclude_none=True, exclude={"recorded_at", "at"})
                    for e in s.events(gid)] == \
                [{**e, "game": gid, "seq": i} for i, e in enumerate(evs[:4])]


def test_a_group_on_postgresql_opens_no_cursor_of_the_driver(pg_url: str,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """A group's two query strings go through libpq's own ``PQexec`` (``pg_exec``), not
    through the driver's cursors (each one's preparing, its adapters, its wait loop cost the
    writer's thread more CPU than the exchange itself): eight appends in one group, no
    cursor of psycopg made while it is written, and every append stored."""
    svc = Service(pg_url, clock=ManualClock(STORE_TIME))
    logs = {f"g{i}": _plain(simulate_game(f"g{i}", "amsterdam", seed=i)) for i in range(8)}
    for gid, evs in logs.items():
        svc.append(gid, evs[:3], 0)
    made: list[str] = []
    real_init = psycopg.Cursor.__init__

    def counted(self: Any, *args: Any, **kwargs: Any) -> None:
        made.append(threading.current_thread().name)
        real_init(self, *args, **kwargs)

    lock = _held(svc)
    futs = [svc.submit(gid, [evs[3]], 3) for gid, evs in logs.items()]
    _waiting(svc, len(futs))
    monkeypatch.setattr(psycopg.Cursor, "__init__", counted)
    lock.release()
    assert [f.result(timeout=60)[0].appended for f in futs] == [1] * 8
    monkeypatch.undo()
    assert [t for t in made if t == "jaslog-writer"] == []
    svc.close()
    with open_store(pg_url) as s:
        assert all(s.head(gid).next_seq == 4 for gid in logs) and s.verify().ok


def test_pg_exec_raises_what_the_driver_raises(pg_url: str) -> None:
    """``pg_exec`` (libpq's ``PQexec`` under the group's query strings) answers the last
    statement's rows, and fails as the driver's ``execute`` would: the error class of the
    statement's SQLSTATE (a refused row an ``IntegrityError``, which the group answers as a
    conflict), and ``OperationalError`` with the connection marked closed when the server
    dropped it (the kept writer then begins again on a fresh connection)."""
    from jaslog.store.engine import pg_exec

    url = pg_url.replace("+psycopg", "")
    with psycopg.connect(url, autocommit=True) as raw, \
            psycopg.connect(url, autocommit=True) as other:
        res = pg_exec(raw, "CREATE TEMP TABLE t (k int PRIMARY KEY); SELECT 41 + 1")
        assert res.get_value(0, 0) == b"42"
        pg_exec(raw, "INSERT INTO t VALUES (1)")
        with pytest.raises(psycopg.IntegrityError, match="duplicate key"):
            pg_exec(raw, "BEGIN; INSERT INTO t VALUES (2); INSERT INTO t VALUES (1); COMMIT")
        assert raw.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
        raw.rollback()
        assert raw.execute("SELECT count(*) FROM t").fetchone() == (1,)
        with pytest.raises(psycopg.errors.DivisionByZero):
            pg_exec(raw, "SELECT 1/0")
        other.execute("SELECT pg_terminate_backend(%s)", (raw.info.backend_pid,))
        with pytest.raises(psycopg.OperationalError):
            pg_exec(raw, "SELECT 1")
        assert raw.closed


def test_a_group_on_sqlite_reads_no_head(tmp_path: Path) -> None:
    """Eight appends to eight games in one group on SQLite: each is checked against the
    head its game's last append left (kept with its fold), none is read from the store."""
    url = f"sqlite:///{tmp_path / 'heads.sqlite'}"
    svc = Service(url, clock=ManualClock(STORE_TIME))
    logs = {f"g{i}": _plain(simulate_game(f"g{i}", "amsterdam", seed=i)) for i in range(8)}
    for gid, evs in logs.items():
        svc.append(gid, evs[:3], 0)
    statements: list[str] = []

    def traced(conn: Any) -> None:  # each transaction's (the group's connection is kept)
        conn.connection.dbapi_connection.set_trace_callback(statements.append)

    event.listen(svc.writer.engine, "begin", traced)
    lock = _held(svc)
    futs = [svc.submit(gid, [evs[3]], 3) for gid, evs in logs.items()]
    _waiting(svc, len(futs))
    lock.release()
    assert [f.result(timeout=60)[0].appended for f in futs] == [1] * 8
    assert sum("INSERT INTO events" in q for q in statements) == 8  # (the trace works)
    assert [q for q in statements if "SELECT e.seq, e.hash FROM events" in q] == []
    svc.close()
    with open_store(url) as s:
        assert all(s.head(gid).next_seq == 4 for gid in logs) and s.verify().ok


def test_a_groups_rows_wait_for_one_statement(store_url: str) -> None:
    """The event rows of a group's appends are written together, in one statement, when the
    group ends or an append reads what the group wrote (:meth:`AppendGroup.flush`): not one
    statement an append."""
    logs = {gid: simulate_game(gid, "amsterdam", seed=i) for i, gid in enumerate("ab")}
    with open_store(store_url, clock=ManualClock(STORE_TIME)) as s:
        for gid, evs in logs.items():
            s.append(gid, evs[:3])
        with s.group() as g:
            g.append("a", logs["a"][3:4])
            g.append("b", logs["b"][3:5])
            waiting = g.conn.exec_driver_sql("SELECT count(*) FROM events").scalar()
            g.flush()
            written = g.conn.exec_driver_sql("SELECT count(*) FROM events").scalar()
        assert (waiting, written) == (6, 9)
        assert [s.head(gid).next_seq for gid in "ab"] == [4, 5] and s.verify().ok


def test_groups_on_sqlite_keep_their_connection(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer's groups on SQLite take no connection from the pool, one after another
    (the transaction goes on the connection the first group took); a group that failed
    gives it back, and the next takes a fresh one."""
    monkeypatch.setenv("JASLOG_LOCK_TIMEOUT", "1")
    db = tmp_path / "kept.sqlite"
    svc = Service(str(db), clock=ManualClock(STORE_TIME))
    g = _plain(simulate_game("g", "amsterdam", seed=1))
    svc.submit("g", g[:3], 0).result(timeout=60)
    checkouts: list[int] = []
    event.listen(svc.writer.engine, "checkout", lambda *_: checkouts.append(1))
    for seq in range(3, 9):
        assert svc.submit("g", [g[seq]], seq).result(timeout=60)[0].appended == 1
    assert checkouts == []
    other = sqlite3.connect(db, isolation_level=None)  # another process's writer holds on
    other.execute("BEGIN IMMEDIATE")
    busy = svc.submit("g", [g[9]], 9).exception(timeout=60)
    other.execute("ROLLBACK")
    other.close()
    assert isinstance(busy, DatabaseError) and busy.code == "store_busy"
    for seq in range(9, 12):
        assert svc.submit("g", [g[seq]], seq).result(timeout=60)[0].appended == 1
    assert checkouts == [1]
    svc.close()
    with open_store(str(db)) as s:
        assert s.head("g").next_seq == 12 and s.verify().ok


def test_a_group_on_postgresql_past_the_lock_timeout_leaves_its_connection_whole(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another writer holds the writers' lock past the lock timeout: the group is refused,
    ``store_busy``, and the transaction it had begun is ended on its connection, which goes
    back to the pool whole (not thrown away); the next group is written."""
    from jaslog.store.engine import PG_WRITE_LOCK

    monkeypatch.setenv("JASLOG_LOCK_TIMEOUT", "0.3")
    g = simulate_game("busy", "amsterdam", seed=4)
    with open_store(pg_url, clock=ManualClock(STORE_TIME)) as s:
        with s.group() as grp:
            grp.append("busy", g[:3])
        thrown: list[int] = []
        event.listen(s.engine, "invalidate", lambda *_: thrown.append(1))
        with psycopg.connect(pg_url) as holder:  # another process's writer, holding on
            holder.execute(f"SELECT pg_advisory_xact_lock({PG_WRITE_LOCK})")
            with pytest.raises(DatabaseError) as err, s.group() as grp:
                grp.append("busy", g[3:4])
            assert err.value.code == "store_busy"
        with s.group() as grp:
            assert grp.append("busy", g[3:5]).appended == 2
        assert thrown == [] and s.head("busy").next_seq == 5


def test_a_game_moved_by_another_writer_is_answered_as_stored(store_url: str) -> None:
    """The writer checks an append against the head its last append left; another writer
    (another process's store) moved the game since. Each answer is the one the stored head
    gives, a refusal by the rules included: a conflict where the game moved on, the append
    written where it goes on from the stored head, and the other appends of its group
    written."""
    svc = Service(store_url, clock=ManualClock(STORE_TIME))
    g = _plain(simulate_game("g", "amsterdam", seed=1))
    h = _plain(simulate_game("h", "amsterdam", seed=2))
    for gid, evs in (("g", g), ("h", h)):
        svc.append(gid, evs[:3], 0)
    with open_store(store_url, clock=ManualClock(STORE_TIME)) as other:
        other.append("g", [{**g[3], "game": "g", "seq": 3}])
    lock = _held(svc)
    futs = [svc.submit("h", [h[3]], 3),                        # written
            svc.submit("g", [g[3]], 3),                        # the game moved: a conflict
            svc.submit("g", [{**g[3], "card": "AS"}], 3)]      # a conflict, not a rule's
    _waiting(svc, len(futs))
    lock.release()
    answers = [_answer(f) for f in futs]
    fresh = Service(store_url, clock=ManualClock(STORE_TIME))  # keeps nothing: reads every head
    try:
        for f, (gid, evs, seq) in zip(futs[1:], (("g", [g[3]], 3),
                                                  ("g", [{**g[3], "card": "AS"}], 3)),
                                      strict=True):
            assert _answer(f) == _answer(fresh.submit(gid, evs, seq))
    finally:
        fresh.close()
    assert answers[0][:4] == ("ok", 1, 0, 4)
    assert [a[0] for a in answers[1:]] == ["ConflictError"] * 2
    assert [a[4] for a in answers[1:]] == [4, 4]  # the stored head's next seq
    res, _ = svc.submit("g", [g[4]], 4).result(timeout=60)  # goes on from the stored head
    assert res.appended == 1 and res.head.next_seq == 5
    svc.close()
    with open_store(store_url) as s:
        assert [e.seq for e in s.events("g")] == list(range(5)) and s.verify().ok
