"""A plain stored Klaverjas game exported from its stored round facts and the batch's columns,
not folded (:meth:`jaslog.export.stored.StoredExport.build`): the same files as an export
that folds every game from its events, for every trump method, Amsterdam and Rotterdam,
roem, nat and pit, rules broken, rulings and notes; and a store whose facts cannot say it
all (built before they kept each round's detail, a round's latest row without it, a game
appended after the export's cursor) has its games folded, to the same files."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.events import event_from_dict
from jaslog.export import export_games
from jaslog.export.stored import StoredExport, store_games
from jaslog.play.sim import Faults, simulate_game
from jaslog.store import Store, open_store
from jaslog.store.projection import facts_detailed
from tests.export.test_stored import files

FAULTS = Faults(revoke_rate=0.01, false_roem_rate=0.05, no_hands_rate=0.1)
#: (ruleset, options, faults): every trump method, both rulesets, roem claimed and on the table
MIX: list[tuple[str, dict[str, Any] | None, Faults]] = [
    ("amsterdam", None, Faults()),
    ("amsterdam", None, FAULTS),
    ("rotterdam", None, Faults()),
    ("rotterdam", {"trump_selection": "random"}, Faults()),
    ("rotterdam", {"trump_selection": "random", "random.all_pass": "second_round_other_suits"},
     FAULTS),
    ("amsterdam-kbn", None, Faults()),
    ("klaverjas-online-501", None, FAULTS),
    ("amsterdam", {"roem.stuk_in_hand": True, "roem.claim_mode": "auto"}, Faults()),
    ("amsterdam", {"trump_selection": "dealer_must_choose", "first_lead": "trump_chooser"},
     FAULTS),
    # claims of the rest, roem left unclaimed or claimed in part
    ("amsterdam", None, Faults(claim_rate=0.4, unclaimed_roem_rate=0.2, partial_roem_rate=0.2,
                               revoke_rate=0.02)),
    ("rotterdam", None, Faults(claim_rate=0.4)),
]


def _games() -> list[list[dict[str, Any]]]:
    games = []
    for i, (ruleset, options, faults) in enumerate(MIX):
        for k in range(2):
            games.append(simulate_game(f"f-{i}-{k}", ruleset, options, seed=300 + 10 * i + k,
                                       faults=faults, at=f"2026-03-{1 + i:02d}T19:30:00Z"))
    ruled = simulate_game("f-ruled", "amsterdam", seed=91, at="2026-04-04T20:00:00Z")
    for rnd, score in ((2, [0, 182]), (5, [90, 72])):
        ruled.append({"game": "f-ruled", "seq": len(ruled), "type": "ruling", "round": rnd,
                      "score": score, "reason": f"referee decision on round {rnd}",
                      "at": "2026-04-04T23:59:00Z"})
    ruled.append({"game": "f-ruled", "seq": len(ruled), "type": "note", "round": 3,
                  "text": "the lights went out", "at": "2026-04-04T23:59:30Z"})
    games.append(ruled)
    # notes between any two cards, with a seat, with and without a round
    noted: list[dict[str, Any]] = []
    for k, e in enumerate(simulate_game("f-noted", "rotterdam", seed=92,
                                        at="2026-04-05T20:00:00Z")):
        noted.append(e)
        if e["type"] == "play" and k % 5 == 0:
            noted.append({"game": "f-noted", "seq": 0, "type": "note", "text": "a note",
                          "seat": k % 4, **({"round": 1} if k % 2 else {})})
    games.append([{**e, "seq": k} for k, e in enumerate(noted)])
    return games


def _import(store: Store, games: list[list[dict[str, Any]]]) -> None:
    for g in games:
        summary = store.import_lines([orjson.dumps(e) + b"\n" for e in g], source="archive")
        assert summary.ok, summary.rejected[:3]


def _both_ways(path: Path, out: Path, *, write: bool = False) -> tuple[dict[str, str],
                                                                        dict[str, str],
                                                                        list[str]]:
    """The files of an export of the store at ``path`` read as columns, of one that folds
    every game from its events, and the games the first built from their stored facts."""
    with open_store(str(path), create=write) as store:
        until = store.cursor()
        read = list(store_games(store, since=None, ruleset=None, after=None, until=until,
                                batch=6, unreadable=lambda e: pytest.fail(str(e))))
        unfolded = [g.game for g in read if isinstance(g, StoredExport)
                    and g.stored.facts is not None]
        export_games(read, out / "columns", cursor=until, source="x", chunk_games=5)
        export_games((events for _g, events in store.iter_games(until=until, fast=True)),
                     out / "events", cursor=until, source="x", chunk_games=5)
    return files(out / "columns"), files(out / "events"), unfolded


@pytest.fixture(scope="module")
def store_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("facts") / "s.sqlite"
    with open_store(str(path)) as store:
        _import(store, _games())
    return path


def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "copy.sqlite"
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    return dst


def test_plain_games_are_built_from_their_facts_to_the_same_files(store_file: Path,
                                                                  tmp_path: Path) -> None:
    columns, events, unfolded = _both_ways(store_file, tmp_path)
    assert len(columns) > 10
    assert columns == events
    # every game is plain and finished: none is folded
    assert sorted(unfolded) == sorted(g[0]["game"] for g in _games())
    # what they hold: every result, rules broken, roem, rulings, every trump method
    with open_store(str(store_file), create=False) as store:
        facts = list(store.round_facts())
    assert {f.result for f in facts} >= {"made", "nat", "pit"}
    assert any(f.verdicts for f in facts) and any(sum(f.roem or []) for f in facts)
    with sqlite3.connect(store_file) as db:
        hows = {orjson.loads(d)[5] for (d,) in db.execute("SELECT detail FROM round_facts")}
        rulings = db.execute("SELECT count(*) FROM round_facts WHERE detail LIKE '%referee%'")
        assert rulings.fetchone()[0] >= 2
        claimed = db.execute("SELECT count(*) FROM round_facts WHERE detail IS NOT NULL AND "
                             "json_extract(detail, '$[23]') IS NOT NULL").fetchone()[0]
    assert hows >= {"chosen", "turned", "forced", "accepted", "named"}
    assert claimed >= 3


def test_a_round_whose_latest_facts_lack_the_detail_folds_its_game(store_file: Path,
                                                                   tmp_path: Path) -> None:
    """A round whose latest row was written without a detail (by a jaslog before it kept
    one): its game is folded, the others not, to the same files."""
    path = _copy(store_file, tmp_path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE round_facts SET detail = NULL WHERE round = 2 AND game = "
                   "(SELECT pos FROM games WHERE id = 'f-3-0')")
    columns, events, unfolded = _both_ways(path, tmp_path)
    assert columns == events
    assert "f-3-0" not in unfolded and "f-3-1" in unfolded


@pytest.mark.parametrize("detail", ["'[1, 2'", "'not json'", "x'00ff'"])
def test_a_round_whose_facts_are_no_json_folds_its_batch(store_file: Path, tmp_path: Path,
                                                         detail: str) -> None:
    """A round's detail changed behind the store's back into text that is no JSON: the games
    read with it are folded (the others still built from their facts), to the same files."""
    path = _copy(store_file, tmp_path)
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE round_facts SET detail = {detail} WHERE round = 2 AND game = "
                   "(SELECT pos FROM games WHERE id = 'f-3-0')")
    columns, events, unfolded = _both_ways(path, tmp_path)
    assert columns == events
    assert "f-3-0" not in unfolded and "f-0-0" in unfolded and "f-9-0" in unfolded


def test_facts_built_before_the_detail_fold_until_opened_to_write(store_file: Path,
                                                                 tmp_path: Path) -> None:
    """A store whose round facts were built before they kept each round's detail (no
    column): read, every game is folded, to the same files; opened to write, the facts are
    built again, with it, and the games are built from them."""
    path = _copy(store_file, tmp_path)
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE round_facts DROP COLUMN detail")
    columns, events, unfolded = _both_ways(path, tmp_path / "read")
    assert columns == events and unfolded == []
    columns, events, unfolded = _both_ways(path, tmp_path / "write", write=True)
    assert columns == events and len(unfolded) == len(_games())
    with open_store(str(path), create=False) as store, store.engine.connect() as conn:
        assert facts_detailed(conn)


def test_a_game_appended_in_parts_exports_as_of_the_cursor(tmp_path: Path) -> None:
    """A game appended round by round, exported at a cursor between two appends: its facts
    as of its last event then (a round not closed yet: the game is folded)."""
    path = tmp_path / "parts.sqlite"
    game = simulate_game("p-0", "rotterdam", seed=12, at="2026-05-05T20:00:00Z")
    deals = [k for k, e in enumerate(game) if e["type"] == "dealt"]
    with open_store(str(path)) as store:
        store.append("p-0", [event_from_dict(e) for e in game[:deals[3]]])
        mid = store.cursor()
        store.append("p-0", [event_from_dict(e) for e in game[deals[3]:deals[5] + 10]])
        cut = store.cursor()
        store.append("p-0", [event_from_dict(e) for e in game[deals[5] + 10:]])
        for until, built in ((mid, True), (cut, False), (store.cursor(), True)):
            read = list(store_games(store, since=None, ruleset=None, after=None, until=until,
                                    batch=6, unreadable=lambda e: pytest.fail(str(e))))
            assert [g.stored.facts is not None for g in read  # type: ignore[union-attr]
                    ] == [built]
            export_games(read, tmp_path / f"c{until}", cursor=until, source="x")
            export_games((ev for _g, ev in store.iter_games(until=until, fast=True)),
                         tmp_path / f"e{until}", cursor=until, source="x")
            assert files(tmp_path / f"c{until}") == files(tmp_path / f"e{until}")

