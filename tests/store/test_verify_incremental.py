"""``verify`` from the last verified, signed head of each game, and in several processes.

A clean run records each game's last signed head (``verified_heads``); the next run starts
each game there, rechecking that the row at that seq still holds the recorded hash and that
a trusted key signed it. The attacker first disables the append-only triggers, as anyone
owning the database could.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.store import Store, open_store
from jaslog.store.codec import link
from jaslog.store.schema import SCHEMA_VERSION
from jaslog.store.verify import verify_store
from tests.store.conftest import game_events
from tests.store.faults import read_only
from tests.store.test_signing import rewrite_and_rehash, signed_seqs
from tests.store.test_tamper import disable_triggers, payload_of

#: The first events of game t-1: it stops in the middle of a round, after its last signature.
PLAYED = 200


@pytest.fixture
def verified(store: Store, raw_sql: Callable[..., Any]) -> Store:
    """Games t-1 (being played: signed at each round end, an unsigned tail) and t-2 (over),
    verified once (which records their signed heads), then the triggers disabled."""
    events = game_events("t-1", seed=21)
    for i in range(0, PLAYED, 10):
        store.append("t-1", events[i:i + 10])
    store.append("t-2", game_events("t-2", seed=22))
    first = verify_store(store)
    assert first.ok and first.checked.recorded == 2 and first.checked.full_games == 2
    disable_triggers(store, raw_sql)
    if store.dialect == "postgresql":
        raw_sql("ALTER TABLE verified_heads DISABLE TRIGGER USER")
    else:
        raw_sql("DROP TRIGGER verified_heads_no_delete")
    return store


def head_of(raw_sql: Callable[..., Any], game: str) -> tuple[int, str]:
    seq, hash_ = raw_sql("SELECT seq, hash FROM verified_heads WHERE game = :g "
                         "ORDER BY seq DESC LIMIT 1", g=game)[0]
    return int(seq), str(hash_)


def same_as_full(store: Store) -> Any:
    """The incremental report, after checking its problems are those of a full run."""
    rep = verify_store(store)
    full = verify_store(store, full=True)
    assert not full.checked.incremental and full.checked.head_games == 0
    assert rep.problems == full.problems and not rep.ok
    assert rep.checked.incremental
    return rep


def test_an_untouched_store_reads_only_the_heads(verified: Store,
                                                 raw_sql: Callable[..., Any]) -> None:
    s1, _ = head_of(raw_sql, "t-1")
    assert s1 == signed_seqs(verified, "t-1")[-1] < PLAYED - 1
    rep = verify_store(verified)
    c = rep.checked
    assert rep.ok and (c.full_games, c.head_games, c.recorded) == (0, 2, 0)
    assert c.head_events == PLAYED - 1 - s1  # t-2 is over: signed at its last event
    # t-2: its head row and seq 0; t-1: its rows from the head on, seq 0, and (for the fold
    # of its unsigned tail) every row
    assert c.read == 2 + (PLAYED - s1) + 1 + PLAYED
    full = verify_store(verified, full=True)
    assert (rep.games, rep.events, rep.heads, rep.signatures) == \
        (full.games, full.events, full.heads, 2)
    assert full.checked.read == full.events == rep.events
    # a game that goes on is checked from its head, and its new head recorded
    verified.append("t-1", game_events("t-1", seed=21)[PLAYED:])
    again = verify_store(verified)
    assert again.ok and again.checked.recorded == 1 and again.checked.head_games == 2
    assert head_of(raw_sql, "t-1")[0] == signed_seqs(verified, "t-1")[-1]
    assert verify_store(verified).checked.read == 4


def test_a_payload_changed_after_the_verified_head(verified: Store,
                                                   raw_sql: Callable[..., Any]) -> None:
    s1, _ = head_of(raw_sql, "t-1")
    e = orjson.loads(payload_of(raw_sql, s1 + 3))
    e["recorded_at"] = "2025-06-01T00:00:00.000Z"
    raw_sql("UPDATE events SET rest = :p WHERE game = (SELECT pos FROM games WHERE id = 't-1') AND seq = :s",
            p=orjson.dumps(e), s=s1 + 3)
    rep = same_as_full(verified)
    assert [(p.game, p.seq, p.kind) for p in rep.problems] == [("t-1", s1 + 3, "changed")]
    assert rep.checked.head_games == 2  # found from the head, not by a full recheck


def test_a_chain_rewritten_and_rehashed_before_the_verified_head(
        verified: Store, raw_sql: Callable[..., Any]) -> None:
    rewrite_and_rehash(raw_sql, "t-1")
    rep = same_as_full(verified)
    assert [(p.game, p.kind) for p in rep.problems] == [("t-1", "signature")]
    assert "changed after they were signed" in rep.problems[0].message
    assert rep.checked.full_games == 1  # the head's hash changed: t-1 was checked in full


def test_an_event_changed_and_rehashed_alone_before_the_head(
        verified: Store, raw_sql: Callable[..., Any]) -> None:
    """Rehashing only the edited event (not those after it) leaves the head's hash as it
    was: the incremental run does not read that far back; --full finds it."""
    prev = raw_sql("SELECT hash FROM events WHERE game = (SELECT pos FROM games WHERE id = 't-1') "
                   "AND seq = 39")[0][0]
    e = orjson.loads(payload_of(raw_sql, 40))
    e["recorded_at"] = "2025-06-01T00:00:00.000Z"
    new = orjson.dumps(e)
    raw_sql("UPDATE events SET rest = :p, hash = :h WHERE game = (SELECT pos FROM games WHERE id = 't-1') "
            "AND seq = 40",
            p=new, h=link(bytes(prev), new))
    assert verify_store(verified).ok
    full = verify_store(verified, full=True)
    # seq 40 holds together alone; seq 41 no longer links to it
    assert [(p.game, p.seq, p.kind) for p in full.problems] == [("t-1", 41, "changed")]


def test_a_payload_changed_before_the_head_without_rehashing(
        verified: Store, raw_sql: Callable[..., Any]) -> None:
    """The bytes of an event before the head edited, its hash left alone: the incremental run
    does not read them (documented); --full finds it. The head's own bytes and seq 0's are
    read, so an edit there is found either way."""
    e = orjson.loads(payload_of(raw_sql, 40))
    e["recorded_at"] = "2025-06-01T00:00:00.000Z"
    raw_sql("UPDATE events SET rest = :p WHERE game = (SELECT pos FROM games WHERE id = 't-1') "
            "AND seq = 40", p=orjson.dumps(e))
    assert verify_store(verified).ok
    assert [(p.seq, p.kind) for p in verify_store(verified, full=True).problems] == \
        [(40, "changed")]
    for seq in (0, head_of(raw_sql, "t-2")[0]):
        old = payload_of(raw_sql, seq, "t-2")
        e = orjson.loads(old)
        e["recorded_at"] = "2025-06-01T00:00:00.000Z"
        raw_sql("UPDATE events SET rest = :p WHERE game = (SELECT pos FROM games WHERE id = 't-2') "
                "AND seq = :s",
                p=orjson.dumps(e), s=seq)
        rep = verify_store(verified)
        assert ("t-2", seq, "changed") in [(p.game, p.seq, p.kind) for p in rep.problems]
        raw_sql("UPDATE events SET rest = :p WHERE game = (SELECT pos FROM games WHERE id = 't-2') "
                "AND seq = :s", p=old, s=seq)


def test_a_deleted_tail(verified: Store, raw_sql: Callable[..., Any]) -> None:
    s2, _ = head_of(raw_sql, "t-2")
    assert raw_sql("DELETE FROM events WHERE game = (SELECT pos FROM games WHERE id = 't-2') "
                   "AND seq >= :s", s=s2 - 5) == 6
    rep = same_as_full(verified)
    assert ("t-2", s2, "signature") in [(p.game, p.seq, p.kind) for p in rep.problems]
    assert "events were removed after they were signed" in " ".join(map(str, rep.problems))


def test_a_forged_verified_head(verified: Store, raw_sql: Callable[..., Any]) -> None:
    # a head no signature covers, recorded behind verify's back: the game is checked in full,
    # finds nothing, and the record is reported
    hash10 = bytes(raw_sql("SELECT hash FROM events WHERE game = (SELECT pos FROM games WHERE id = 't-2') "
                           "AND seq = 10")[0][0]).hex()
    raw_sql("DELETE FROM verified_heads WHERE game = 't-2'")
    raw_sql("INSERT INTO verified_heads (game, seq, hash, pos, verified_at) "
            "VALUES ('t-2', 10, :h, 1, 'x')", h=hash10)
    rep = verify_store(verified)
    assert [(p.game, p.seq, p.kind) for p in rep.problems] == [("t-2", 10, "verified")]
    assert "written behind verify's back" in rep.problems[0].message
    assert verify_store(verified, full=True).ok  # the events themselves are whole
    # a chain rewritten and rehashed, and its record of verified heads rewritten to match:
    # the head's signature still names the old hash
    rewrite_and_rehash(raw_sql, "t-1")
    s1, _ = head_of(raw_sql, "t-1")
    new = bytes(raw_sql("SELECT hash FROM events WHERE game = (SELECT pos FROM games WHERE id = 't-1') "
                        "AND seq = :s", s=s1)[0][0]).hex()
    raw_sql("DELETE FROM verified_heads WHERE game = 't-1'")
    raw_sql("INSERT INTO verified_heads (game, seq, hash, pos, verified_at) "
            "VALUES ('t-1', :s, :h, 1, 'x')", s=s1, h=new)
    rep = verify_store(verified)
    assert [(p.game, p.kind) for p in rep.problems if p.game == "t-1"] == [("t-1", "signature")]


def test_two_workers_give_the_same_report(store: Store, raw_sql: Callable[..., Any]) -> None:
    for k in range(5):
        store.append(f"w-{k}", game_events(f"w-{k}", seed=30 + k))
    assert verify_store(store, workers=2).checked.recorded == 5  # the workers' heads recorded
    for full in (True, False):
        one = verify_store(store, full=full, record=False)
        two = verify_store(store, full=full, workers=2, record=False)
        assert one.ok and one.to_json() == two.to_json()
    disable_triggers(store, raw_sql)
    rewrite_and_rehash(raw_sql, "w-1")
    e = orjson.loads(payload_of(raw_sql, 30, "w-3"))
    e["recorded_at"] = "2025-06-01T00:00:00.000Z"
    raw_sql("UPDATE events SET rest = :p WHERE game = (SELECT pos FROM games WHERE id = 'w-3') "
            "AND seq = 30", p=orjson.dumps(e))
    raw_sql("DELETE FROM events WHERE game = (SELECT pos FROM games WHERE id = 'w-4') AND seq = 3")
    for full in (True, False):
        one, two = verify_store(store, full=full), verify_store(store, full=full, workers=2)
        assert one.checked.incremental != full and two.checked.incremental != full
        assert one.to_json() == two.to_json()
        # from the heads: the rewritten chain, and the deleted event's position; in full, also
        # the edited bytes before the head and the deleted event itself
        assert [p.game for p in one.problems] == \
            (["w-1", "w-3", "w-4", "(store)"] if full else ["w-1", "(store)"])


def test_an_older_store_gets_the_table_when_opened_to_write(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite"
    with open_store(str(db)) as s:
        s.append("o-1", game_events("o-1", seed=3))
    con = sqlite3.connect(db)
    con.executescript("DROP TABLE verified_heads; UPDATE jaslog_meta SET value = '4' "
                      "WHERE key = 'schema_version'")
    con.close()
    with open_store(str(db), create=False) as s:  # opened to read: checked, nothing recorded
        rep = verify_store(s)
        assert rep.ok and rep.checked.recorded == 0 and not rep.checked.incremental
    with open_store(str(db)) as s:
        assert verify_store(s).checked.recorded == 1
        assert verify_store(s).checked.head_games == 1
    con = sqlite3.connect(db)
    assert con.execute("SELECT value FROM jaslog_meta WHERE key = 'schema_version'").fetchone() \
        == (str(SCHEMA_VERSION),)
    con.close()


def test_a_read_only_store_is_verified_without_recording(tmp_path: Path) -> None:
    db = tmp_path / "ro.sqlite"
    with open_store(str(db)) as s:
        s.append("r-1", game_events("r-1", seed=4))
    with read_only(db), open_store(str(db), create=False) as s:
        rep = verify_store(s)
        assert rep.ok and rep.checked.recorded == 0 and rep.checked.full_games == 1
    with open_store(str(db), create=False) as s:
        assert verify_store(s).checked.recorded == 1


def test_the_command_says_how_it_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from jaslog.cli import app

    db = tmp_path / "cli.sqlite"
    with open_store(str(db)) as s:
        s.append("c-1", game_events("c-1", seed=5))
        s.append("c-2", game_events("c-2", seed=6))
    monkeypatch.setenv("JASLOG_DB", str(db))

    def run(*args: str) -> str:
        res = CliRunner().invoke(app, ["verify", *args])
        assert res.exit_code == 0, res.output
        return str(res.stdout)

    first = run("--incremental")  # nothing recorded yet: every game in full, as ever
    assert first.splitlines()[0].startswith("✓ 2 games, ") and "verified" not in first
    assert run("--full") == run() == first  # full by default
    again = " ".join(run("--incremental", "--workers", "2").split())
    assert "(2 games checked from the head the last clean run verified: 0 events after it " \
           "rechecked" in again and ("0 games in full; a run without --incremental rechecks "
                                     "every event)") in again
    js = orjson.loads(run("--incremental", "--json"))
    assert list(js) == ["ok", "games", "events", "problems", "heads", "certified",
                        "signatures", "checked"]
    assert js["checked"]["incremental"] and js["checked"]["from_verified_head"]["games"] == 2
    assert js["checked"]["events_read"] == 4 and js["checked"]["in_full"]["games"] == 0
    full = orjson.loads(run("--full", "--json"))
    assert full["checked"]["in_full"]["events"] == full["events"] == js["events"]
