"""``jaslog new --meta KEY=VALUE``: what is said about a game (its table, event, place) is
stored in its ``game_started.meta``; a malformed pair is refused in a sentence and nothing is
stored. That a scorer token of the table named there may write to the game through a real
``jaslog serve`` on the same SQLite file is tests/service/test_cli.py's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jaslog.cli.store_cmds import TABLE_PATTERN
from jaslog.events import GameStarted
from jaslog.service.auth import TABLE_PATTERN as SERVICE_TABLE_PATTERN
from jaslog.store import open_store
from tests.cli import jaslog


def new(db: Path, gid: str, *meta: str) -> tuple[int, str]:
    res = jaslog("new", "--seats", "ann,bob,cor,dirk", "--id", gid, "--db", str(db),
                 *[x for m in meta for x in ("--meta", m)], text=True)
    return res.returncode, " ".join(res.stderr.split())


def test_meta_is_stored_in_game_started(tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite"
    assert new(db, "m1", "table=3", "event=club night", "place=De Kroon") == (0, "")
    started = open_store(str(db)).events("m1")[0]
    assert isinstance(started, GameStarted)
    assert started.meta == {"table": "3", "event": "club night", "place": "De Kroon"}
    assert new(db, "m2") == (0, "")
    bare = open_store(str(db)).events("m2")[0]
    assert isinstance(bare, GameStarted) and bare.meta is None


@pytest.mark.parametrize(("pair", "said"), [
    ("table", "--meta 'table': write KEY=VALUE (e.g. --meta table=3)"),
    ("=3", "--meta '=3': the key '' is not a name (letters, digits and _.-, starting with a "
           "letter; e.g. table, event, place)"),
    ("9x=3", "the key '9x' is not a name"),
    ("table=", "--meta 'table=': table has no value (e.g. --meta table=3)"),
    ("table=3 west", "--meta table='3 west': a table is 1 to 64 letters, digits and ._:- (as a "
                     "scorer token's table is), e.g. --meta table=3"),
    ("tournament=spring", "--meta tournament: a game joins a tournament only when the "
                          "tournament draws it"),
])
def test_a_malformed_pair_is_refused_and_nothing_stored(tmp_path: Path, pair: str,
                                                        said: str) -> None:
    db = tmp_path / "bad.sqlite"
    code, err = new(db, "bad", pair)
    assert code == 2 and said in err, err
    assert not db.exists()  # refused before the store is opened


def test_a_key_given_twice_is_refused(tmp_path: Path) -> None:
    code, err = new(tmp_path / "t.sqlite", "t", "table=3", "table=4")
    assert code == 2 and "--meta table is given twice ('3' and '4')" in err


def test_the_table_is_named_as_the_service_names_it() -> None:
    assert f"^{TABLE_PATTERN}$" == SERVICE_TABLE_PATTERN
    assert re.fullmatch(TABLE_PATTERN, "zaal-2.tafel:3")
