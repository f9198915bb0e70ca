"""Where a game is played (``game_places``: its ``meta.table`` as text and ``meta.tournament``)
is written with its header, so that the listings filter by table and tournament through an
index instead of reading every game's first event."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import select, text

from jaslog.play.sim import simulate_game
from jaslog.store import Store, open_store
from jaslog.store.schema import GAME_PLACES, GAMES, SCHEMA_VERSION

SEATS = ["ann", "bob", "cor", "dirk"]


def started(gid: str, **meta: Any) -> dict[str, Any]:
    e: dict[str, Any] = {"game": gid, "seq": 0, "type": "game_started", "ruleset": "amsterdam",
                         "seats": SEATS, "dealer": 0}
    if meta:
        e["meta"] = meta
    return e


#: games and where they are played (a table given as a number is the table of its text)
CLUB = [started("p-1", table=3), started("p-2", table="3"), started("p-3", table="A"),
        started("p-4"), started("p-5", tournament="cup", table="1"),
        started("p-6", tournament=7, table=[1]), started("p-7", table="x" * 300)]


def listed(store: Store, **filters: Any) -> list[str]:
    return [info.game for _, info in store.game_page(limit=100, **filters)]


def test_a_game_is_listed_by_the_table_and_tournament_it_is_played_at(store: Store) -> None:
    store.append("p-0", simulate_game("p-0", seed=1)[:5])  # type: ignore[arg-type]  # no meta
    store.import_lines(json.dumps(e) for e in CLUB)
    assert listed(store, table="3") == ["p-1", "p-2"]  # as the service reads it: str(table)
    assert listed(store, table="A") == ["p-3"] and listed(store, table="[1]") == ["p-6"]
    assert listed(store, tournament="cup") == ["p-5"]
    assert listed(store, tournament="cup", table="1") == ["p-5"]
    assert listed(store, tournament="cup", table="3") == []
    assert listed(store, tournament="7") == []  # not text: no tournament's
    assert listed(store, table="x" * 300) == []  # longer than any listing asks for
    assert listed(store) == ["p-0", *[e["game"] for e in CLUB]]


def test_a_store_an_older_jaslog_wrote_gets_its_games_places(tmp_path: Path) -> None:
    """A store of schema version 3 (no game_places): opened to read, a listing by table adds
    them from each game's game_started; opened to write, it is upgraded at once."""
    db = tmp_path / "old.sqlite"
    with open_store(str(db)) as store:
        store.import_lines(json.dumps(e) for e in CLUB)

    def make_it_old() -> None:
        with sqlite3.connect(db) as con:
            con.executescript("DROP TABLE game_places; "
                              "UPDATE jaslog_meta SET value = '3' WHERE key = 'schema_version';")

    make_it_old()
    with open_store(str(db), create=False) as store:
        assert len(listed(store)) == len(CLUB)
        assert listed(store, table="3") == ["p-1", "p-2"]
    assert sqlite3.connect(db).execute("SELECT value FROM jaslog_meta WHERE key = "
                                       "'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
    make_it_old()
    with open_store(str(db)) as store:
        assert listed(store, tournament="cup") == ["p-5"]


def test_the_place_filters_search_an_index(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "s.sqlite")) as store:
        for column in (GAME_PLACES.c.table_id, GAME_PLACES.c.tournament):
            q = select(GAMES.c.pos, GAMES.c.id).where(GAMES.c.id.in_(
                select(GAME_PLACES.c.game).where(column == "3")))
            sql = str(q.compile(store.engine, compile_kwargs={"literal_binds": True}))
            with store.engine.connect() as conn:
                plan = [r[-1] for r in conn.execute(text("EXPLAIN QUERY PLAN " + sql))]
            assert any("SEARCH game_places USING" in p and "INDEX" in p for p in plan), plan
