"""Where each stored game stands (``game_results``, ``game_winners``), on SQLite and on
PostgreSQL alike: written with the events that change it (the end of the game, a ruling
after it that turns the winner; a scorer's correction never reopens it), by an append and
by an import; added to a store an older jaslog wrote; and what the listings filter by, through
the indexes."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text

from jaslog.events import event_from_dict
from jaslog.games import GAMES as GAME_REGISTRY
from jaslog.games import PRESETS
from jaslog.games.klaverjas import GAME as KLAVERJAS
from jaslog.play.fold import fold
from jaslog.play.sim import simulate_game
from jaslog.store import RejectedError, Store, open_store
from jaslog.store.results import PLAYING, Standing, standing, stored_standing, where_stands
from jaslog.store.schema import GAMES, SCHEMA_VERSION
from tests.store.conftest import game_events


def folded(events: list[dict[str, Any]]) -> Standing:
    return standing(fold(event_from_dict(e) for e in events))


def stands(store: Store, game: str) -> Standing:
    with store.engine.connect() as conn:
        return stored_standing(conn, game)


def listed(store: Store, **filters: Any) -> list[str]:
    return [i.game for _, i in store.game_page(limit=100, **filters)]


def test_an_append_writes_where_the_game_stands_when_that_changes(store: Store) -> None:
    """Seed 0's Amsterdam game: live until its last card, then won by team 1; a ruling
    after the end gives round 1 to team 0, who then win; a correction retracting the last
    card (and the ruling after it) is refused: the game is over."""
    events = game_events("r-1", seed=0)
    for i in range(0, len(events) - 1, 60):
        store.append("r-1", events[i:min(i + 60, len(events) - 1)])
    assert stands(store, "r-1") == PLAYING
    assert listed(store, status="live") == ["r-1"] and listed(store, status="finished") == []
    store.append("r-1", events[-1:])
    won = folded(events)
    assert won.finished and won.winner == "1" and stands(store, "r-1") == won
    seats = events[0]["seats"]
    assert set(won.winners) == {seats[1], seats[3]}
    assert listed(store, status="finished") == ["r-1"] and listed(store, status="live") == []
    assert listed(store, winner=seats[1]) == ["r-1"] and listed(store, winner=seats[0]) == []
    store.set_player(seats[3], "Noor van Dijk")
    assert listed(store, winner="noor VAN dijk") == ["r-1"]

    ruled = [*events, {"game": "r-1", "seq": len(events), "type": "ruling", "round": 1,
                       "score": [1882, 0], "reason": "the round to team 0 on appeal"}]
    store.append("r-1", ruled[-1:])
    assert stands(store, "r-1") == folded(ruled) and folded(ruled).winner == "0"
    assert listed(store, winner=seats[0]) == ["r-1"] and listed(store, winner=seats[1]) == []

    # a scorer's correction does not reopen a finished game (decision 9): nothing is stored
    reopen = {"game": "r-1", "seq": len(ruled), "type": "correction",
              "retracts": [len(events) - 1, len(events)],
              "reason": "the last card keyed twice, so no ruling yet"}
    with pytest.raises(RejectedError) as err:
        store.append("r-1", [reopen])
    assert err.value.code == "retract_game_over" and "nothing was written" in str(err.value)
    assert store.head("r-1").next_seq == len(ruled)
    assert stands(store, "r-1") == folded(ruled) and listed(store, status="finished") == ["r-1"]
    with store.engine.connect() as conn:  # one row per change, none updated
        rows = conn.execute(text("SELECT seq, finished, winner FROM game_results "
                                 "WHERE game = 'r-1' ORDER BY seq")).all()
    assert [tuple(r) for r in rows] == [(len(events) - 1, True, "1"), (len(events), True, "0")]


def club(n: int = 8) -> dict[str, list[dict[str, Any]]]:
    """Games of the three kinds as the simulator plays them, two cut short (live)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for i in range(n):
        ruleset = ("amsterdam", "klaberjass-2p", "kloepper", "rotterdam")[i % 4]
        seats = ["ann", "bob"] if ruleset.startswith("klaberjass") else None
        evs = simulate_game(f"c-{i}", ruleset, seed=40 + i, seats=seats)
        out[f"c-{i}"] = evs[:len(evs) // 3] if i in (1, 6) else evs
    return out


def test_an_import_writes_where_each_game_stands(store: Store) -> None:
    games = club()
    summary = store.import_lines(json.dumps(e) for g in games.values() for e in g)
    assert not summary.rejected and summary.games == len(games)
    for gid, evs in games.items():
        assert stands(store, gid) == folded(evs), gid
    assert listed(store, status="live") == ["c-1", "c-6"]
    assert listed(store, status="finished") == [g for g in games if g not in ("c-1", "c-6")]
    # an import that finishes a game stored in part
    whole = simulate_game("c-1", "klaberjass-2p", seed=41, seats=["ann", "bob"])
    store.import_lines(json.dumps(e) for e in whole)
    assert stands(store, "c-1") == folded(whole) and folded(whole).finished
    assert "c-1" in listed(store, status="finished")


def test_a_store_an_older_jaslog_wrote_gets_where_its_games_stand(tmp_path: Path) -> None:
    """A store of schema version 2 (no game_results): opened to read, a listing by status
    adds them; every game then stands as its fold says."""
    db = tmp_path / "old.sqlite"
    games = club()
    with open_store(str(db)) as store:
        store.import_lines(json.dumps(e) for g in games.values() for e in g)
    con = sqlite3.connect(db)
    con.executescript("DROP TABLE game_winners; DROP TABLE game_results; "
                      "UPDATE jaslog_meta SET value = '2' WHERE key = 'schema_version';")
    con.commit()
    con.close()
    with open_store(str(db), create=False) as store:
        assert listed(store) == list(games)  # no filter by status: nothing written
        assert not sqlite3.connect(db).execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'game_results'").fetchone()
        assert listed(store, status="live") == ["c-1", "c-6"]
        for gid, evs in games.items():
            assert stands(store, gid) == folded(evs), gid
    assert sqlite3.connect(db).execute("SELECT value FROM jaslog_meta WHERE key = "
                                       "'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
    # opened to write, a store of version 2 is upgraded at once
    con = sqlite3.connect(db)
    con.executescript("DROP TABLE game_winners; DROP TABLE game_results; "
                      "UPDATE jaslog_meta SET value = '2' WHERE key = 'schema_version';")
    con.commit()
    con.close()
    with open_store(str(db)) as store:
        assert stands(store, "c-0") == folded(games["c-0"]) != PLAYING


def test_the_listing_filters_through_the_indexes(tmp_path: Path) -> None:
    """SQLite's plan of a page by status or winner searches game_results and game_winners
    by their indexes: no scan of them, no game folded."""
    with open_store(str(tmp_path / "s.sqlite")) as store:
        for filters, table in (({"status": "finished"}, "game_results"),
                               ({"status": "live"}, "game_results"),
                               ({"winner": "draw"}, "game_results"),
                               ({"winner": "ann"}, "game_winners")):
            q = where_stands(select(GAMES.c.pos, GAMES.c.id), **filters).order_by(GAMES.c.pos)
            sql = str(q.compile(store.engine, compile_kwargs={"literal_binds": True}))
            with store.engine.connect() as conn:
                plan = [r[-1] for r in conn.execute(text("EXPLAIN QUERY PLAN " + sql))]
            steps = [p for p in plan if f" {table} " in p or " latest " in p]
            assert any(f"SEARCH {table} USING" in p for p in steps), (filters, plan)
            assert all(p.startswith("SEARCH") and "INDEX" in p for p in steps), (filters, plan)


def test_an_import_refuses_a_correction_that_reopens_a_finished_game(store: Store) -> None:
    events = game_events("r-2", seed=0)
    store.append("r-2", events)
    fix = {"game": "r-2", "seq": len(events), "type": "correction",
           "retracts": [len(events) - 1], "reason": "the last card keyed wrong"}
    summary = store.import_lines([json.dumps(fix)])
    assert summary.events == 0 and "r-2" in {r.game for r in summary.rejected}
    assert "[retract_game_over]" in " ".join(r.reason for r in summary.rejected)
    assert store.head("r-2").next_seq == len(events) and stands(store, "r-2").finished


def test_a_team_game_registered_under_any_name_is_won_by_its_team(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Who won is read from the game's declared ``scoring``, never from its name: a team
    game registered as ``vierjas`` (Klaverjas's rules under a new name, its Amsterdam preset
    moved over to it) stores both partners of the winning team as winners."""
    class VierjasFold(KLAVERJAS.fold):  # type: ignore[name-defined,misc]
        game = "vierjas"

    vierjas = replace(KLAVERJAS, name="vierjas", title="Vierjas", fold=VierjasFold)
    monkeypatch.setitem(GAME_REGISTRY, "vierjas", vierjas)
    monkeypatch.setitem(PRESETS, "amsterdam", {**PRESETS["amsterdam"], "game": "vierjas"})
    events = game_events("v-1", seed=0)
    won = folded(events)
    assert won.finished and won.winner == "1"
    seats = events[0]["seats"]
    assert won.winners == tuple(sorted({seats[1], seats[3]}))
    with open_store(str(tmp_path / "vierjas.sqlite")) as store:
        store.append("v-1", events)
        assert stands(store, "v-1") == won
        assert listed(store, winner=seats[3]) == ["v-1"] and listed(store, winner=seats[0]) == []
