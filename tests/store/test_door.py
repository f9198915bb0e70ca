"""Every limit holds at the store's door: nothing is stored that a reader cannot read back. A
game stored before that (by an older jaslog) is one unreadable game: the others are still
listed, checked and exported, and it is reported by its id."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import orjson
import pytest

from jaslog.events import MAX_LINE
from jaslog.play.sim import simulate_game
from jaslog.store import NoSuchGame, RejectedError, Store, open_store
from jaslog.store.codec import UnreadableEvent
from tests.cli import jaslog

SEATS = ["a1", "b1", "c1", "d1"]
#: a game_started one reader in all would refuse: longer than a line may be
HUGE = {"game": "huge-1", "seq": 0, "type": "game_started", "ruleset": "amsterdam",
        "seats": SEATS, "dealer": 0, "meta": {"x": "y" * MAX_LINE}}


def test_an_append_longer_than_a_line_is_refused(store: Store) -> None:
    from jaslog.events import GameStarted

    made = GameStarted.model_construct(**HUGE)  # type: ignore[arg-type]  # made in Python
    for batch in ([HUGE], [made]):
        with pytest.raises(RejectedError, match=r"the limit is 1048576 \(1 MiB\); nothing was "
                                                 "written") as err:
            store.append("huge-1", batch)  # type: ignore[arg-type]
        assert err.value.code == "bad_event"
    with pytest.raises(NoSuchGame):
        store.head("huge-1")
    assert store.games() == []


def test_an_event_just_under_a_line_that_the_stamp_takes_over_is_refused(store: Store) -> None:
    """The store stamps ``recorded_at`` on a live event: an event the client sent just under
    the limit may be over it as stored; the store refuses it rather than keep it."""
    base = len(orjson.dumps({**HUGE, "meta": {"x": ""}}))
    e = {**HUGE, "meta": {"x": "y" * (MAX_LINE - base - 10)}}
    assert len(orjson.dumps(e)) < MAX_LINE
    with pytest.raises(RejectedError, match="bytes long as a jaslog/1 line"):
        store.append("huge-1", [e])


def test_the_cli_append_refuses_it_with_a_sentence(tmp_path: Path) -> None:
    db = str(tmp_path / "s.sqlite")
    r = jaslog("append", "huge-1", "--json", "-", "--db", db, input=orjson.dumps(HUGE), text=True)
    assert r.returncode == 2 and "the limit is 1048576 (1 MiB)" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_the_import_refuses_an_event_whose_canonical_line_is_too_long(tmp_path: Path) -> None:
    """A line under 1 MiB whose canonical text is over it (``1e5`` is written ``100000.0``):
    its game is rejected with file and line, the others are stored."""
    ok = simulate_game("ok-1", seed=1)
    n = MAX_LINE // 8
    wide = orjson.dumps({**HUGE, "game": "wide-1", "meta": {}})[:-3] + \
        b'{"x":[' + b",".join([b"1e5"] * n) + b"]}}"
    assert len(wide) < MAX_LINE
    log = tmp_path / "g.jsonl"
    log.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in ok) + wide + b"\n")
    with open_store(str(tmp_path / "s.sqlite")) as s:
        summary = s.import_files([log])
        assert summary.games == 1 and [r.game for r in summary.rejected] == ["wide-1"]
        assert summary.rejected[0].reason.startswith(f"{log}:{len(ok) + 1}: game wide-1")
        assert "bytes long as a jaslog/1 line; the limit is 1048576" in summary.rejected[0].reason


def store_unreadable_game(db: Path, gid: str) -> None:
    """A game stored by an older jaslog, before the line limit held at the door: its
    game_started is longer than any reader reads (written here behind the store's back)."""
    payload = orjson.dumps({**HUGE, "game": gid})
    with sqlite3.connect(db) as c:
        pos = c.execute("SELECT coalesce(max(pos), 0) + 1 FROM events").fetchone()[0]
        gpos = c.execute("SELECT coalesce(max(pos), 0) + 1 FROM games").fetchone()[0]
        c.execute("INSERT INTO games (id, pos, ruleset, dealer, seats, created_at, stored_at) "
                  "VALUES (?, ?, 'amsterdam', 0, ?, '2026-01-01T00:00:00.000000Z', "
                  "'2026-01-01T00:00:00.000000Z')", (gid, gpos, orjson.dumps(SEATS).decode()))
        c.executemany("INSERT INTO game_players (game, seat, player) VALUES (?, ?, ?)",
                      [(gid, i, p) for i, p in enumerate(SEATS)])
        c.execute("INSERT INTO events (game, seq, pos, kind, version, rest, hash) VALUES "
                  "(?, 0, ?, (SELECT code FROM event_types WHERE name = 'game_started'), 1, ?, ?)",
                  (gpos, pos, payload, hashlib.sha256(bytes(32) + payload).digest()))


@pytest.fixture
def with_unreadable(tmp_path: Path) -> Path:
    db = tmp_path / "s.sqlite"
    with open_store(str(db)) as s:
        s.append("ok-0", simulate_game("ok-0", seed=1))  # type: ignore[arg-type]
        store_unreadable_game(db, "old-1")
        s.append("ok-1", simulate_game("ok-1", seed=2))  # type: ignore[arg-type]
    return db


def test_the_store_reads_every_other_game_and_names_the_unreadable_one(with_unreadable: Path
                                                                       ) -> None:
    with open_store(str(with_unreadable)) as s:
        told: list[UnreadableEvent] = []
        read = [g for g, _ in s.iter_games(batch=2, unreadable=told.append)]
        assert read == ["ok-0", "ok-1"] and [(e.game, e.seq) for e in told] == [("old-1", 0)]
        assert str(told[0]).startswith("game old-1 seq 0: the stored event (format version 1) "
                                       "cannot be read: line is ")
        with pytest.raises(UnreadableEvent):  # without a listener: said, not skipped
            list(s.iter_games())
        assert [g for g, _ in s.games_by_id(["old-1", "ok-1"], unreadable=told.append)] == ["ok-1"]
        assert {g.game for g in s.games()} == {"ok-0", "old-1", "ok-1"}


def test_check_export_and_dump_go_on_past_the_unreadable_game(with_unreadable: Path,
                                                              tmp_path: Path) -> None:
    db = str(with_unreadable)
    r = jaslog("check", "store:", "--db", db, "--json", text=True)
    checked = {g["game"]: g for g in map(orjson.loads, r.stdout.splitlines())}
    assert checked["ok-0"]["ok"] and checked["ok-1"]["ok"] and not checked["old-1"]["ok"]
    assert "[unreadable_game]" in checked["old-1"]["error"] and "Traceback" not in r.stderr
    for workers in ("0", "2"):
        out = tmp_path / f"out-{workers}"
        r = jaslog("export", str(out), "--db", db, "--workers", workers, "--chunk", "1", text=True)
        assert r.returncode == 2, r.stderr
        assert r.stderr.startswith("jaslog: not exported: game old-1 seq 0: the stored event")
        assert "exported 2 new games" in " ".join(r.stdout.split())
        r = jaslog("export", str(out), "--db", db, "--json", "--full", text=True)
        assert orjson.loads(r.stdout)["unreadable"][0].startswith("game old-1 seq 0:")
    assert jaslog("dump", "ok-1", "--db", db).returncode == 0
    r = jaslog("dump", "old-1", "--db", db, text=True)
    assert r.returncode == 2 and r.stderr.startswith("jaslog: game old-1 seq 0: the stored event")


def test_an_event_over_the_limit_stored_in_parts_is_unreadable_too(tmp_path: Path) -> None:
    """The same game_started as above, stored by an older jaslog in parts (its fields in
    ``rest``, not its bytes whole): its line is still over the limit, so its game is still
    unreadable, however the reader builds its model."""
    from jaslog.store.compact import Codec

    db = tmp_path / "s.sqlite"
    open_store(str(db)).close()
    payload = orjson.dumps({**HUGE, "game": "old-2"})
    with sqlite3.connect(db) as c:
        codec = Codec(dict(c.execute("SELECT code, name FROM event_types").fetchall()))
        row = codec.encode(payload, codec.codes["game_started"])
        assert row[6] is not None and row[6][:1] == b"["  # in parts, not whole
        c.execute("INSERT INTO games (id, pos, ruleset, dealer, seats, created_at, stored_at) "
                  "VALUES ('old-2', 1, 'amsterdam', 0, ?, '2026-01-01T00:00:00.000000Z', "
                  "'2026-01-01T00:00:00.000000Z')", (orjson.dumps(SEATS).decode(),))
        c.execute("INSERT INTO events (game, seq, pos, kind, version, rest, hash) VALUES "
                  "(1, 0, 1, ?, 1, ?, ?)", (row[0], row[6],
                                           hashlib.sha256(bytes(32) + payload).digest()))
    with open_store(str(db)) as s:
        told: list[UnreadableEvent] = []
        assert list(s.iter_games(unreadable=told.append)) == []
        assert [(e.game, e.seq) for e in told] == [("old-2", 0)] and "line is " in str(told[0])
        with pytest.raises(UnreadableEvent, match="line is "):
            s.events("old-2")
