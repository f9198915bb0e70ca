"""A store the release before schema 6 wrote (``fixtures/schema5.sqlite``, made by
``fixtures/make_schema5_store.py``), upgraded in place: every game's dump, certificate, head
and signatures as that release gave them (``fixtures/schema5.expected.json``), ``verify``
whole, nothing lost; an upgrade stopped halfway is finished by the next one."""

from __future__ import annotations

import io
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.events import write_events
from jaslog.store import open_store
from jaslog.store.schema import SCHEMA_VERSION
from jaslog.store.types import StoreError
from tests.cli import jaslog

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED: dict[str, Any] = orjson.loads((FIXTURES / "schema5.expected.json").read_bytes())


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    """A copy of the schema-5 store, with its key folder (the private key made private)."""
    db = tmp_path / "club.sqlite"
    shutil.copy(FIXTURES / "schema5.sqlite", db)
    keys = Path(str(db) + ".keys")
    shutil.copytree(FIXTURES / "schema5.sqlite.keys", keys)
    keys.chmod(0o700)
    for f in keys.glob("*.key"):
        f.chmod(0o600)
    return db


def what_it_gives(db: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with open_store(str(db), create=False) as store:
        for info in store.games():
            buf = io.BytesIO()
            write_events(store.events(info.game), buf)
            head = store.head(info.game)
            out[info.game] = {"dump": buf.getvalue().decode(), "certificate": head.certificate,
                              "head": head.hash, "signatures": store.signatures(info.game)}
    return out


def run_cli(args: list[str]) -> Any:
    r = jaslog(*args, text=True)
    r.exit_code, r.output = r.returncode, r.stdout + r.stderr  # type: ignore[attr-defined]
    return r


def tables(db: Path) -> set[str]:
    with sqlite3.connect(db) as c:
        return {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def event_count(db: Path, table: str) -> int:
    with sqlite3.connect(db) as c:
        return int(c.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def test_the_fixture_is_a_schema_5_store_of_every_kind_of_game(old_store: Path) -> None:
    with sqlite3.connect(old_store) as c:
        assert c.execute("SELECT value FROM jaslog_meta WHERE key = 'schema_version'"
                         ).fetchone() == ("5",)
        kinds = {r[0] for r in c.execute("SELECT DISTINCT type FROM events")}
        rulesets = {r[0] for r in c.execute("SELECT DISTINCT ruleset FROM games")}
    assert {"correction", "ruling", "deal_committed", "nonce", "dix", "play"} <= kinds
    assert rulesets == {"amsterdam", "klaberjass-2p", "kloepper"}
    assert len(EXPECTED) == 7 and sum(len(g["signatures"]) for g in EXPECTED.values()) >= 7


def test_reading_an_old_store_says_to_upgrade_it(old_store: Path) -> None:
    with pytest.raises(StoreError) as err:
        open_store(str(old_store), create=False)
    assert "schema version 5" in str(err.value) and "`jaslog upgrade`" in str(err.value)
    assert "events" in tables(old_store) and "events_v5" not in tables(old_store)


def test_upgrade_keeps_every_dump_certificate_and_signature(old_store: Path) -> None:
    before = event_count(old_store, "events")
    r = run_cli(["upgrade", "--db", str(old_store)])
    assert r.exit_code == 0, r.output
    assert f"from schema version 5 to {SCHEMA_VERSION}" in r.output and "7 games" in r.output
    assert "events_v5" not in tables(old_store) and "event_types" in tables(old_store)
    assert event_count(old_store, "events") == before
    assert what_it_gives(old_store) == EXPECTED
    v = run_cli(["verify", "--db", str(old_store)])
    assert v.exit_code == 0, v.output
    again = run_cli(["upgrade", "--db", str(old_store)])
    assert again.exit_code == 0 and "nothing to upgrade" in again.output


def test_an_upgrade_stopped_halfway_is_finished_by_the_next(old_store: Path) -> None:
    before = event_count(old_store, "events")
    r = run_cli(["upgrade", "--games", "3", "--db", str(old_store)])
    assert r.exit_code == 0, r.output
    assert "moved the events of 3 games" in r.output
    # the old events wait beside the new ones; the store still says version 5
    assert {"events", "events_v5"} <= tables(old_store)
    assert 0 < event_count(old_store, "events") < before == event_count(old_store, "events_v5")
    with pytest.raises(StoreError, match="jaslog upgrade"):
        open_store(str(old_store), create=False)
    # opening it to write finishes the upgrade
    with open_store(str(old_store)) as store:
        assert store.schema_version() == SCHEMA_VERSION
    assert "events_v5" not in tables(old_store)
    assert event_count(old_store, "events") == before
    assert what_it_gives(old_store) == EXPECTED
    assert run_cli(["verify", "--db", str(old_store)]).exit_code == 0


def test_an_upgraded_store_takes_new_events(old_store: Path) -> None:
    with open_store(str(old_store)) as store:
        game = "online-klaverjas"
        head = store.head(game)
        n = store.append(game, [{"type": "bid", "seat": 1, "call": "pass"}],
                         expected_seq=head.next_seq).appended
        assert n == 1 and store.events(game)[-1].type == "bid"
        assert store.verify(game).ok


def load_into_postgresql(db: Path, url: str) -> None:
    """The schema-5 store's rows in a PostgreSQL database, its events in schema 5's layout
    (the other tables are as schema 6 has them)."""
    import psycopg
    from sqlalchemy import create_engine

    from jaslog.store.schema import EVENT_TYPES, EVENTS, METADATA

    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.begin() as conn:
            METADATA.create_all(conn, tables=[t for t in METADATA.sorted_tables
                                              if t not in (EVENTS, EVENT_TYPES)])
    finally:
        engine.dispose()
    src = sqlite3.connect(db)
    with psycopg.connect(url) as pg:
        pg.execute("CREATE TABLE events (game VARCHAR(128) NOT NULL, seq INTEGER NOT NULL, "
                   "pos BIGINT NOT NULL UNIQUE, type VARCHAR(32) NOT NULL, "
                   "version INTEGER NOT NULL, event_id VARCHAR(36), at VARCHAR(40), "
                   "payload BYTEA NOT NULL, prev_hash VARCHAR(64) NOT NULL, "
                   "hash VARCHAR(64) NOT NULL, PRIMARY KEY (game, seq))")
        pg.execute("CREATE UNIQUE INDEX events_event_id ON events (game, event_id) "
                   "WHERE event_id IS NOT NULL")
        tables = [r[0] for r in src.execute("SELECT name FROM sqlite_master WHERE type = "
                                            "'table' AND name NOT LIKE 'sqlite_%'")]
        for t in tables:
            cols = [r[1] for r in src.execute(f"PRAGMA table_info({t})")]
            rows = [tuple(bool(v) if (t, c) == ("game_results", "finished") else v
                          for c, v in zip(cols, r, strict=True))
                    for r in src.execute(f"SELECT {', '.join(cols)} FROM {t}")]
            if rows:
                with pg.cursor() as cur:
                    cur.executemany(f"INSERT INTO {t} ({', '.join(cols)}) VALUES "
                                    f"({', '.join(['%s'] * len(cols))})", rows)
    src.close()


def test_a_postgresql_store_of_schema_5_is_upgraded_in_parts(
        old_store: Path, pg_url: str) -> None:
    import os

    load_into_postgresql(old_store, pg_url)
    keys = Path(os.environ["JASLOG_KEYS"])
    shutil.copytree(Path(str(old_store) + ".keys"), keys)
    with pytest.raises(StoreError, match="jaslog upgrade"):
        open_store(pg_url, create=False)
    with open_store(pg_url, create=False, upgrade=False) as store:
        assert store.upgrade(games=4) is False  # stopped halfway
    with open_store(pg_url) as store:  # opened to write: finished
        assert store.schema_version() == SCHEMA_VERSION
        got: dict[str, Any] = {}
        for info in store.games():
            buf = io.BytesIO()
            write_events(store.events(info.game), buf)
            head = store.head(info.game)
            got[info.game] = {"dump": buf.getvalue().decode(), "certificate": head.certificate,
                              "head": head.hash, "signatures": store.signatures(info.game)}
        assert got == EXPECTED
        assert store.verify().ok
