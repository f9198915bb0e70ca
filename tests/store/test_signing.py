"""Signed heads, on SQLite and on PostgreSQL alike: every round's end and the game's end are
signed, and a game rewritten and hashed again behind the store's back fails ``verify``
without any paper."""

from __future__ import annotations

import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.events import event_from_dict
from jaslog.play.fold import start_fold
from jaslog.store import Store, StoreError, open_store
from jaslog.store.codec import link
from jaslog.store.schema import SCHEMA_VERSION
from jaslog.store.signing import KeyDir, PublicKey, head_message, head_message_v2, marks
from jaslog.store.types import GENESIS
from tests.cli import jaslog
from tests.store.conftest import game_events, jsonl
from tests.store.test_tamper import disable_triggers


def signed_seqs(store: Store, game: str) -> list[int]:
    return [s["seq"] for s in store.signatures(game)]


def round_ends(events: list[dict[str, Any]]) -> list[int]:
    """The seqs at which a round (or the game) ended, or a ruling was made, event by event."""
    f = start_fold(event_from_dict(events[0]))
    out = []
    for e in events[1:]:
        before = marks(f)
        f.apply(event_from_dict(e))
        after = marks(f)
        if after[0] > before[0] or after[1] or after[2] > before[2]:
            out.append(e["seq"])
    return out


def rewrite_and_rehash(raw_sql: Callable[..., Any], game: str) -> None:
    """What an attacker with the database does: every event's ``recorded_at`` moved back a
    year, and the whole chain hashed again so that it holds."""
    rows = [(r.seq, r.payload) for r in raw_sql.store.stored_events(game)]  # type: ignore[attr-defined]
    prev = bytes.fromhex(GENESIS)
    for seq, payload in rows:
        e = orjson.loads(bytes(payload))
        e["recorded_at"] = "2025-06-01T00:00:00.000Z"
        new = orjson.dumps(e)
        h = link(prev, new)
        # the new bytes whole in the row, and the chain hashed again
        raw_sql("UPDATE events SET rest = :p, hash = :h WHERE game = "
                "(SELECT pos FROM games WHERE id = :g) AND seq = :s", p=new, h=h, g=game, s=seq)
        prev = h


def test_every_round_end_and_the_game_end_are_signed(store: Store) -> None:
    events = game_events("s-1", seed=5)
    for e in events:  # recorded live, one event at a time
        store.append("s-1", [e])
    assert signed_seqs(store, "s-1") == round_ends(events)
    assert signed_seqs(store, "s-1")[-1] == len(events) - 1  # the end of the game
    key = store.current_key()
    assert key is not None
    for s in store.signatures("s-1"):
        assert s["key"] == key.id and s["version"] == 2
        assert s["signed"] == head_message_v2("s-1", s["seq"], s["hash"], s["event_pos"],
                                              s["pos"]).decode()
        assert key.verify(s["signature"], s["signed"].encode())
    rep = store.verify()
    assert rep.ok and rep.signatures == len(round_ends(events)) and rep.keys == {key.id}
    assert rep.trust == "directory"


def test_an_append_takes_where_its_game_stood_from_the_append_before(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a game stands (its closed rounds, whether it is over, its rulings: what says a
    head is due to be signed) is worked out once an append, after its events, and kept with
    the game's fold for the next append: not worked out again before it."""
    from jaslog.store import appending

    counted: list[int] = []

    def counting_marks(f: Any) -> Any:
        counted.append(1)
        return marks(f)

    monkeypatch.setattr(appending, "marks", counting_marks)
    events = game_events("m-1", seed=5)
    for e in events:  # recorded live, one event at a time
        store.append("m-1", [e])
    assert len(counted) == len(events) + 1  # (the new game's append: before it too)
    assert signed_seqs(store, "m-1") == round_ends(events)
    assert store.verify().ok


def test_a_round_end_is_signed_through_the_driver_alone(store: Store) -> None:
    """The statements of a live round's signature (the key recorded, the head not signed
    yet, the next position, the row) go through the driver's own cursor: none through
    SQLAlchemy's execution, a tenth of its cost each at every round's end."""
    from sqlalchemy import event

    events = game_events("s-d", seed=5)
    end = round_ends(events)[0]
    store.append("s-d", events[:end])
    seen: list[str] = []

    def executed(conn: Any, clause: Any, *args: Any) -> None:
        seen.append(str(clause))

    event.listen(store.engine, "before_execute", executed)
    try:
        store.append("s-d", events[end:end + 1])  # the round's last card: signed
    finally:
        event.remove(store.engine, "before_execute", executed)
    assert signed_seqs(store, "s-d") == [end]
    assert [q for q in seen if "signatures" in q or "signing_keys" in q] == []
    assert store.verify("s-d").ok


def test_a_round_being_played_may_follow_the_last_signature(store: Store) -> None:
    events = game_events("s-2", seed=6)
    ends = round_ends(events)
    mid = ends[1] + 5  # a few events into round 3
    store.append("s-2", events[:ends[0] + 1])
    store.append("s-2", events[ends[0] + 1:mid])
    assert signed_seqs(store, "s-2") == [ends[0], mid - 1]  # the batch that ended round 2
    assert store.verify("s-2").ok


def test_a_ruling_is_signed_at_once(store: Store) -> None:
    events = game_events("s-9", seed=14)
    first = round_ends(events)[0]
    store.append("s-9", events[:first + 1])
    ruling = {"type": "ruling", "round": 1, "score": [0, 162], "reason": "revoke by bob"}
    head = store.append("s-9", [ruling], expected_seq=first + 1).head
    assert signed_seqs(store, "s-9") == [first, head.seq]
    assert store.verify("s-9").ok


def test_a_game_rewritten_and_rehashed_fails_verify_without_paper(store: Store,
                                                                  raw_sql: Callable[..., Any]) -> None:
    events = game_events("s-3", seed=7)
    for i in range(0, len(events), 10):
        store.append("s-3", events[i:i + 10])
    store.append("s-4", game_events("s-4", seed=8))
    assert store.verify().ok
    disable_triggers(store, raw_sql)
    rewrite_and_rehash(raw_sql, "s-3")
    rep = store.verify()
    assert [(p.game, p.kind) for p in rep.problems] == [("s-3", "signature")]
    first = signed_seqs(store, "s-3")[0]
    assert rep.problems[0].seq == first
    assert "changed after they were signed" in rep.problems[0].message
    assert store.verify("s-4").ok
    # without the signatures the chain alone is fooled: it holds everywhere
    assert rep.heads["s-3"] == bytes(raw_sql(
        "SELECT hash FROM events WHERE game = (SELECT pos FROM games WHERE id = 's-3') "
        "ORDER BY seq DESC LIMIT 1")[0][0]).hex()


def test_removing_the_signatures_too_leaves_a_round_end_unsigned(store: Store,
                                                               raw_sql: Callable[..., Any]) -> None:
    store.append("s-5", game_events("s-5", seed=9))
    store.append("s-6", game_events("s-6", seed=10))
    disable_triggers(store, raw_sql)
    for t in ("signatures",):
        if store.dialect == "postgresql":
            raw_sql(f"ALTER TABLE {t} DISABLE TRIGGER USER")
        else:
            raw_sql(f"DROP TRIGGER {t}_no_delete")
    rewrite_and_rehash(raw_sql, "s-5")
    raw_sql("DELETE FROM signatures WHERE game = 's-5'")
    rep = store.verify()
    kinds = [(p.game, p.kind) for p in rep.problems]
    assert ("s-5", "unsigned") in kinds
    p = next(p for p in rep.problems if p.kind == "unsigned")
    assert "no signature covers it" in p.message


def test_a_forger_signing_with_a_key_of_their_own_is_found(store: Store,
                                                          raw_sql: Callable[..., Any]) -> None:
    store.append("s-7", game_events("s-7", seed=11))
    club = store.signing_key()
    disable_triggers(store, raw_sql)
    if store.dialect == "postgresql":
        raw_sql("ALTER TABLE signatures DISABLE TRIGGER USER")
    else:
        raw_sql("DROP TRIGGER signatures_no_delete")
    rewrite_and_rehash(raw_sql, "s-7")
    raw_sql("DELETE FROM signatures WHERE game = 's-7'")
    # the forger's own key, recorded in the store, signs the rewritten head
    forger = KeyDir(None).create()
    head = store.head("s-7")
    raw_sql("INSERT INTO signing_keys (id, algorithm, public_key, created_at) VALUES "
            "(:i, 'ed25519', :k, '2026-01-01T00:00:00Z')", i=forger.id, k=forger.public.text)
    raw_sql("INSERT INTO signatures (game, seq, key_id, pos, hash, signature, signed_at) VALUES "
            "('s-7', :s, :k, 1, :h, :sig, '2026-01-01T00:00:00Z')", s=head.seq, k=forger.id,
            h=head.hash, sig=forger.sign_head("s-7", head.seq, head.hash, head.seq + 1, 1))
    rep = store.verify()
    assert [(p.game, p.kind) for p in rep.problems] == [("s-7", "signature")]
    assert f"signed by key {forger.id}, which is not one of this store's keys" in rep.problems[0].message
    against_club = store.verify(keys=[club])
    assert not against_club.ok and "not one of the key given" in against_club.problems[0].message


def test_an_import_signs_every_game_it_stores(store: Store, tmp_path: Path) -> None:
    games = [game_events(f"i-{n}", seed=20 + n) for n in range(5)]
    path = tmp_path / "games.jsonl"
    path.write_bytes(b"".join(jsonl(g) for g in games))
    summary = store.import_files([path], workers=0)
    assert summary.games == 5
    for g in games:
        assert signed_seqs(store, g[0]["game"]) == [len(g) - 1]
    rep = store.verify()
    assert rep.ok and rep.signatures == 5


def test_a_parallel_import_signs_in_its_workers(tmp_path: Path) -> None:
    games = [game_events(f"p-{n}", seed=30 + n) for n in range(6)]
    path = tmp_path / "games.jsonl"
    path.write_bytes(b"".join(jsonl(g) for g in games))
    with open_store(str(tmp_path / "p.sqlite")) as store:
        assert store.import_files([path], workers=2).games == 6
        assert all(signed_seqs(store, g[0]["game"]) == [len(g) - 1] for g in games)
        rep = store.verify()
        assert rep.ok and rep.signatures == 6 and len(rep.keys) == 1  # one key, made once


def test_rotation_keeps_the_old_signatures_valid(store: Store) -> None:
    store.append("r-1", game_events("r-1", seed=40))
    old = store.signing_key()
    new, retired = store.rotate_key()
    assert [k.id for k in retired] == [old.id] and new.id != old.id
    store.append("r-2", game_events("r-2", seed=41))
    assert {s["key"] for s in store.signatures("r-1")} == {old.id}
    assert {s["key"] for s in store.signatures("r-2")} == {new.id}
    rep = store.verify()
    assert rep.ok and rep.keys == {old.id, new.id}
    assert store.verify(keys=[old, new]).ok
    only_new = store.verify(keys=[new])
    assert [p.game for p in only_new.problems] == ["r-1"]
    if store.keys.path is not None:  # the retired private half is gone, its public half stays
        names = sorted(p.name for p in store.keys.path.iterdir() if not p.name.startswith("."))
        assert names == sorted([f"{new.id}.key", f"{new.id}.pub", f"{old.id}.pub"])
    assert [k.id for k in store.public_keys()] == [new.id, old.id]


def test_the_private_key_is_private(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "k.sqlite")) as store:
        key = store.signing_key()
    d = tmp_path / "k.sqlite.keys"
    assert stat.S_IMODE(d.stat().st_mode) == 0o700
    f = d / f"{key.id}.key"
    assert stat.S_IMODE(f.stat().st_mode) == 0o600
    f.chmod(0o644)
    with open_store(str(tmp_path / "k.sqlite")) as store, pytest.raises(StoreError, match="chmod 600"):
        store.append("k-1", game_events("k-1", seed=2))
    f.chmod(0o600)
    with open_store(str(tmp_path / "k.sqlite")) as store:
        store.append("k-1", game_events("k-1", seed=2))
        assert store.verify().ok


def test_an_in_memory_store_signs_with_a_key_in_memory() -> None:
    with open_store("sqlite://") as store:
        store.append("m-1", game_events("m-1", seed=3))
        assert store.keys.path is None and store.verify().ok and store.verify().signatures == 1


def test_a_store_written_before_signing_is_upgraded_and_signed(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite"
    with open_store(str(db)) as store:
        store.append("o-1", game_events("o-1", seed=4))
    # the store as a version without signatures left it (nor any table of a later version)
    con = sqlite3.connect(db)
    con.executescript("DROP TABLE signatures; DROP TABLE signing_keys; DROP TABLE game_winners; "
                      "DROP TABLE game_results; DROP TABLE game_places; "
                      "DROP TABLE verified_heads; "
                      "UPDATE jaslog_meta SET value = '1' WHERE key = 'schema_version';")
    con.commit()
    con.close()
    with open_store(str(db), create=False) as store:  # read only: nothing is added
        rep = store.verify()
        assert [(p.game, p.kind) for p in rep.problems] == [("o-1", "unsigned")]
        assert "`jaslog key sign`" in rep.problems[0].message
    with open_store(str(db)) as store:  # opened to write: the tables of signatures are added
        assert store.verify().problems[0].kind == "unsigned"
        assert store.sign_unsigned() == 1 and store.sign_unsigned() == 0
        assert store.verify().ok
    con = sqlite3.connect(db)
    assert con.execute("SELECT value FROM jaslog_meta WHERE key = 'schema_version'").fetchone() \
        == (str(SCHEMA_VERSION),)
    con.close()


def test_a_dumped_log_is_checked_against_the_published_key(tmp_path: Path) -> None:
    db = str(tmp_path / "club.sqlite")
    with open_store(db) as store:
        store.append("d-1", game_events("d-1", seed=12))
    key = jaslog("key", "--db", db, text=True)
    assert key.returncode == 0, key.stderr
    published = key.stdout.splitlines()[0]
    assert PublicKey.parse(published).text == published
    log, sig = tmp_path / "d-1.jsonl", tmp_path / "d-1.jsonl.sig"
    dumped = jaslog("dump", "d-1", "--db", db, "--signatures", str(sig))
    assert dumped.returncode == 0
    log.write_bytes(dumped.stdout)
    ok = jaslog("verify", "--log", str(log), "--key", published, text=True)
    assert ok.returncode == 0 and "1 signature by key" in ok.stdout, ok.stdout + ok.stderr
    # a time changed in the log: its chain no longer meets the signature
    lines = log.read_bytes().splitlines()
    e = orjson.loads(lines[40])
    e["at"] = "2025-01-01T00:00:00Z"
    lines[40] = orjson.dumps(e)
    log.write_bytes(b"\n".join(lines) + b"\n")
    bad = jaslog("verify", "--log", str(log), "--key", published, text=True)
    assert bad.returncode == 1 and "changed after they were signed" in bad.stdout
    other = KeyDir(None).create().public.text
    log.write_bytes(dumped.stdout)
    wrong = jaslog("verify", "--log", str(log), "--key", other, text=True)
    assert wrong.returncode == 1 and "not one of the key given" in wrong.stdout


def test_verify_on_the_command_line_fails_a_rewritten_store(tmp_path: Path) -> None:
    db = tmp_path / "cli.sqlite"
    with open_store(str(db)) as store:
        store.append("c-1", game_events("c-1", seed=13))
    assert jaslog("verify", "--db", str(db)).returncode == 0
    con = sqlite3.connect(db)
    con.execute("DROP TRIGGER events_no_update")
    con.commit()

    def run(sql: str, **params: Any) -> Any:
        cur = con.execute(sql, params)
        con.commit()
        return cur.fetchall()

    with open_store(str(db), create=False) as store:
        run.store = store  # type: ignore[attr-defined]  # the bytes as stored, to rewrite
        rewrite_and_rehash(run, "c-1")
    con.close()
    out = jaslog("verify", "--db", str(db), text=True)
    assert out.returncode == 1 and "c-1" in out.stdout and "signature" in out.stdout


def test_signatures_of_the_first_message_version_keep_verifying(store: Store,
                                                                raw_sql: Callable[..., Any]) -> None:
    """A store signed before signatures pinned their positions (message version 1, ``jaslog
    head GAME SEQ HASH``) verifies as before; the signatures made after it are of version 2."""
    store.append("v-1", game_events("v-1", seed=3))
    signer = store._signer_now()
    if store.dialect == "postgresql":
        raw_sql("ALTER TABLE signatures DISABLE TRIGGER USER")
    else:
        raw_sql("DROP TRIGGER signatures_no_update")
    for pos, seq, hash_ in raw_sql("SELECT pos, seq, hash FROM signatures WHERE game = 'v-1'"):
        raw_sql("UPDATE signatures SET signature = :s WHERE pos = :p", p=pos,
                s=signer.sign(head_message("v-1", seq, hash_)))
    assert {s["version"] for s in store.signatures("v-1")} == {1}
    assert store.verify().ok
    store.append("v-2", game_events("v-2", seed=4))
    assert {s["version"] for s in store.signatures("v-2")} == {2}
    rep = store.verify()
    assert rep.ok and rep.signatures == len(store.signatures("v-1")) + len(store.signatures("v-2"))
    # a version 1 signature altered is found as before
    raw_sql("UPDATE signatures SET signature = :s WHERE pos = 1",
            s=signer.sign(head_message("v-1", 0, "0" * 64)))
    assert [p.kind for p in store.verify().problems] == ["signature"]
