"""A row of ``events`` changed behind the store's back (by hand, with sqlite3) to hold a value
of a type or size the store never writes: every reader of the store says which game cannot
be read (``unreadable_game``: the game, the seq and the odd value), or reads it, and never
shows a traceback. A game whose seq-0 row moved to another game or was renumbered, or with a
seq past the largest a store holds, is named by every reader; an event whose ``pos`` is NULL
(left out by every read up to a position) is named by ``verify`` (``position``).

For every column of ``events`` and each odd value (text, a blob, a fraction, a real too
large for any time, the largest integer, a negative one, NULL where SQLite takes it), one
row of each kind is changed at once, each in a game of its own: a ``bid`` (Klaverjas,
Amsterdam), a plain ``play`` (Klaberjass), a ``dealt`` (Kloepper) and a ``game_started``
(Klaverjas, Rotterdam); a fifth game is left alone. Then every reader runs: ``iter_games``
(both ways), ``fold_games``, ``events``, ``stored_events``, ``verify``, the games' listing,
the export, ``jaslog check store:``, ``jaslog replay``, ``jaslog verify`` and the service's
reads of a game.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from jaslog.cli import app
from jaslog.errors import JaslogError
from jaslog.events import canonical_json
from jaslog.events.fast import FastPlay
from jaslog.export import export_store
from jaslog.play.sim import simulate_game
from jaslog.service.app import create_app
from jaslog.store import Store, open_store
from jaslog.store.codec import UnreadableEvent
from jaslog.store.types import StoreError

#: The games of the store, and the kind of row changed in each (None: left alone).
GAMES = {"a-0": ("amsterdam", "bid"), "k-1": ("klaberjass-2p", "play"),
         "p-2": ("kloepper", "dealt"), "r-3": ("rotterdam", "game_started"),
         "c-4": ("amsterdam", None)}
#: The Klaverjas games' options: four deals, not sixteen (a reader is the same on a game of
#: any length; the replays of the changed games, drawn in full, are most of this file's time).
SHORT = {"game_end": {"type": "deals", "count": 4}}
COLUMNS = ("game", "seq", "pos", "kind", "version", "event_id", "at", "recorded_at", "seat",
           "card", "rest", "hash")
#: Odd values, as SQL.
VALUES = {"text": "'x'", "blob": "x'01'", "fraction": "1.5", "huge real": "1e300",
          "largest integer": "9223372036854775807", "negative": "-5", "null": "NULL"}
#: The columns of the primary key of a table WITHOUT ROWID: SQLite never keeps NULL in them.
NEVER_NULL = ("game", "seq")
#: ``pos`` is unique: only the first game's row is changed.
UNIQUE = ("pos",)


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store of :data:`GAMES` (every row with its ``recorded_at``, and a plain play's
    with none), its append-only triggers dropped as anyone owning the file could."""
    path = tmp_path_factory.mktemp("odd") / "store.sqlite"
    store = open_store(str(path))
    for i, (gid, (ruleset, _)) in enumerate(GAMES.items()):
        events = simulate_game(gid, ruleset, SHORT if ruleset in ("amsterdam", "rotterdam")
                               else None, seed=i + 3)
        if gid == "k-1":  # plain plays: imported, nothing but seat, card and time
            store.import_lines([orjson.dumps(e) for e in events])
        else:
            store.append(gid, events)
    store.close()
    con = sqlite3.connect(path)
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' "
                               "AND tbl_name = 'events'").fetchall():
        con.execute(f"DROP TRIGGER {name}")
    con.commit()
    con.close()
    return path


def _target(con: sqlite3.Connection, gid: str, kind: str) -> int:
    """The seq of the row of kind ``kind`` changed in game ``gid``: its last one."""
    key = f"(SELECT pos FROM games WHERE id = '{gid}')"
    where = {"game_started": "seq = 0",
             "play": "kind = 1 AND rest IS NULL"}.get(kind) or \
        f"kind = (SELECT code FROM event_types WHERE name = '{kind}')"
    (seq,), = con.execute(f"SELECT max(seq) FROM events WHERE game = {key} AND {where}")
    assert seq is not None, (gid, kind)
    return int(seq)


def _changed(original: Path, tmp_path: Path, column: str, value: str
             ) -> tuple[Path, dict[str, int]]:
    """A copy of the store with ``column`` set to ``value`` in the row of each game of
    :data:`GAMES` that has a kind (the first only, for a unique column); the games changed,
    each with the seq its row had."""
    path = tmp_path / "store.sqlite"
    shutil.copy(original, path)
    con = sqlite3.connect(path)
    if value == "NULL":  # NOT NULL bypassed: the table rebuilt without it
        (sql,), = con.execute("SELECT sql FROM sqlite_master WHERE name = 'events'")
        con.execute("ALTER TABLE events RENAME TO events_before")
        con.execute(sql.replace("NOT NULL", ""))
        con.execute("INSERT INTO events SELECT * FROM events_before")
        con.execute("DROP TABLE events_before")
    games = [g for g, (_, kind) in GAMES.items() if kind is not None]
    if column in UNIQUE:
        games = games[:1]
    changed: dict[str, int] = {}
    for gid in games:
        seq = changed[gid] = _target(con, gid, GAMES[gid][1] or "")
        n = con.execute(f"UPDATE events SET {column} = {value} WHERE seq = {seq} AND game = "
                        f"(SELECT pos FROM games WHERE id = '{gid}')").rowcount
        assert n == 1
    con.commit()
    con.close()
    return path, changed


class _StoreLevel(Exception):
    """The store as a whole cannot be read (its last position is no integer): the commands
    and the service are still run on it."""


def _unreadable(errors: list[Exception]) -> dict[str, str]:
    """Each error told of a game left out, checked to be located and coded."""
    out: dict[str, str] = {}
    for e in errors:
        assert isinstance(e, UnreadableEvent) and e.code == "unreadable_game", repr(e)
        assert str(e).startswith(f"game {e.game} seq "), str(e)
        out[e.game] = str(e)
    return out


def _events(store: Store, **kw: Any) -> tuple[dict[str, list[bytes]], dict[str, str]]:
    bad: list[Exception] = []
    got = {gid: [e.payload if isinstance(e, FastPlay) else canonical_json(e) for e in evs]
           for gid, evs in store.iter_games(unreadable=bad.append, **kw)}
    return got, _unreadable(bad)


@pytest.fixture(scope="module")
def before(original: Path) -> dict[str, list[bytes]]:
    """The events of every game as stored, before any change."""
    store = open_store(str(original))
    try:
        got, bad = _events(store)
    finally:
        store.close()
    assert not bad and sorted(got) == sorted(GAMES)
    return got


def _no_traceback(res: Any) -> str:
    """The output of a command run by CliRunner, checked to end in no traceback."""
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    out = res.stdout + res.stderr
    assert "Traceback" not in out and res.exit_code in (0, 1, 2), (res.exit_code, out)
    return str(out)


#: The cases ``make test`` runs (one a kind of fault: a value a reader once crashed on, a
#: key, an id, a card, the chain); every other column and value is a soak test.
QUICK = {("version", "text"), ("at", "huge real"), ("rest", "largest integer"), ("seq", "text"),
         ("pos", "text"), ("event_id", "blob"), ("card", "negative"), ("hash", "null")}


@pytest.mark.parametrize(("column", "value"), [
    pytest.param(c, v, id=f"{c}-{v}", marks=() if (c, v) in QUICK else pytest.mark.soak)
    for c in COLUMNS for v in VALUES])
def test_an_odd_value_in_any_column_is_an_unreadable_game_on_every_reader(
        original: Path, before: dict[str, list[bytes]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, column: str, value: str) -> None:
    sql = VALUES[value]
    if sql == "NULL" and column in NEVER_NULL:
        # what SQLite lets one write: no NULL in a key of a table WITHOUT ROWID, even rebuilt
        with pytest.raises(sqlite3.IntegrityError, match="NOT NULL"):
            _changed(original, tmp_path, column, sql)
        return
    path, changed = _changed(original, tmp_path, column, sql)
    store = open_store(str(path))
    try:
        if column == "pos" and sql in ("'x'", "x'01'", "1e300"):
            # the store's last position is no integer: every reader says so, coded
            for read in (store.cursor, lambda: list(store.fold_games()),
                         lambda: export_store(store, tmp_path / "export", workers=0)):
                with pytest.raises(StoreError, match="changed behind the store's back") as e:
                    read()
                assert e.value.code == "store_error"
            changed = {}
            raise _StoreLevel
        until = store.cursor()  # (fold_games reads up to it: iter_games the same)
        got, bad = _events(store, until=until)
        fast, bad_fast = _events(store, fast=True, until=until)
        # a game left alone reads as it was; one changed is read or said unreadable, one of
        # the two (a game whose seq-0 row moved to another game, or was renumbered, is named
        # for its missing seq 0)
        for gid in GAMES:
            if gid not in changed:
                assert got.get(gid) == before[gid] and fast.get(gid) == before[gid], gid
        assert set(bad) <= set(changed) and not set(bad) & set(got), bad
        assert set(changed) <= set(got) | set(bad), (sorted(got), bad)
        if column in ("game", "seq"):
            assert bad["r-3"].startswith("game r-3 seq "), bad
        if column == "game":
            assert bad["r-3"].startswith("game r-3 seq 0: no event is stored at seq 0"), bad
        if (column, value) == ("seq", "largest integer"):  # (a seq no store holds)
            assert sorted(bad) == sorted(changed), bad
            assert all(f"seq {2**63 - 1}: its seq is past the largest" in bad[g]
                       for g in ("a-0", "k-1", "p-2")), bad
        assert bad_fast == bad and sorted(fast) == sorted(got)
        # the bulk fold leaves out and tells the same games
        folded_bad: list[Exception] = []
        folded = [g for g, _ in store.fold_games(unreadable=folded_bad.append)]
        assert _unreadable(folded_bad) == bad and folded == list(got)
        # one game's reads: its events, its rows as stored, the listing
        for gid in GAMES:
            try:
                store.events(gid)
            except UnreadableEvent as e:
                assert e.game == gid and gid in bad, str(e)
            except JaslogError as e:  # (its rows moved to no game at all: no such game)
                assert gid in changed and column in ("game",), str(e)
            else:
                assert gid not in bad
            try:
                store.stored_events(gid)
            except JaslogError as e:
                assert gid in changed and e.code in ("unreadable_game", "no_such_game"), str(e)
        # the listing lists every game, readable or not
        assert sorted(i.game for i in store.games()) == sorted(GAMES)
        # verify names every changed game whose events read otherwise than they were stored
        # or cannot be read
        report = store.verify()
        flagged = {p.game for p in report.problems}
        for gid in changed:
            if got.get(gid) != before[gid]:
                assert gid in flagged, (gid, report.problems)
        if (column, value) == ("pos", "null"):  # (every read up to a position leaves it out)
            assert [(p.game, p.seq, p.kind) for p in report.problems] == \
                [("a-0", changed["a-0"], "position")], report.problems
        assert not flagged & (set(GAMES) - set(changed)) or column in ("game", "pos"), \
            report.problems
        # the export leaves out the games iter_games leaves out, and says so
        result = export_store(store, tmp_path / "export", workers=0)
        assert sorted(result.unreadable) == sorted(bad.values())
    except _StoreLevel:
        bad = {}
    finally:
        store.close()
    # the commands
    monkeypatch.setenv("JASLOG_DB", str(path))
    runner = CliRunner()
    checked = _no_traceback(runner.invoke(app, ["check", "store:"]))
    for gid in bad:
        assert any(line.startswith(f"✗ {gid} ") and "[unreadable_game]" in line
                   for line in checked.splitlines()), checked
    for gid in changed:
        shown = _no_traceback(runner.invoke(app, ["replay", f"store:{gid}"]))
        if gid in bad:
            assert f"game {gid} seq" in shown, shown
    verified = _no_traceback(runner.invoke(app, ["verify"]))
    if (column, value) == ("pos", "null"):
        assert f"game a-0 seq {changed['a-0']}: position: the event has no position" in verified
    # the service's reads: an answer with a code, never the service's own failure
    application = create_app(str(path))
    token = application.state.service.tokens.create("admin")[0]
    with TestClient(application, raise_server_exceptions=False) as client:
        auth = {"Authorization": f"Bearer {token}"}
        # the listing lists every game, one whose first event cannot be read with why
        listed = client.get("/api/games", headers=auth)
        assert listed.status_code == 200, listed.text
        said = {g["game"]: g.get("unreadable") for g in listed.json()}
        assert sorted(said) == sorted(GAMES), said
        if column == "game":
            assert str(said["r-3"]).startswith("game r-3 seq 0: "), said
        for url in ("/api/games", *(f"/api/games/{g}{end}" for g in changed
                                   for end in ("", "/events", "/state", "/replay"))):
            r = client.get(url, headers=auth)
            if r.status_code >= 400:  # (a game no reader can read is the store's fault: 500)
                code = r.json()["code"]
                assert code != "internal_error" and (code != "unreadable_game" or any(
                    f"game {g} seq" in r.text for g in changed)), (url, r.text)

