"""The round facts kept beside the events (``round_facts``: :mod:`jaslog.store.projection`),
on SQLite and on PostgreSQL alike: the same after an import, after live appends and after
``jaslog reindex``; written again when a ruling changes a round; built for a store of schema
6 that has none when it is upgraded; rebuilt resumably; never part of the log."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from jaslog.engine.sim import Faults
from jaslog.events import event_from_dict
from jaslog.play.fold import fold
from jaslog.play.sim import simulate_game
from jaslog.store import Store, open_store
from jaslog.store.projection import facts_of
from jaslog.store.schema import SCHEMA_VERSION
from tests.cli import jaslog

#: One game of each kind, and one cut short in its third round (live, an open round).
KINDS = (("amsterdam", 3), ("klaberjass-2p", 4), ("kloepper", 5), ("rotterdam", 6))


def club(prefix: str) -> dict[str, list[dict[str, Any]]]:
    out = {}
    for i, (ruleset, seed) in enumerate(KINDS):
        seats = ["ann", "bob"] if ruleset.startswith("klaberjass") else None
        out[f"{prefix}-{i}"] = simulate_game(f"{prefix}-{i}", ruleset, seed=seed, seats=seats)
    cut = simulate_game(f"{prefix}-cut", "amsterdam", seed=7)
    out[f"{prefix}-cut"] = cut[:90]
    return out


def facts(store: Store, prefix: str) -> list[dict[str, Any]]:
    """The stored facts of the games named ``prefix-...``, without their ids' prefix."""
    out = []
    for r in store.round_facts():
        if r.game.startswith(prefix + "-"):
            d = asdict(r)
            d["game"] = r.game[len(prefix):]
            out.append(d)
    return out


def test_the_facts_after_an_import_after_appends_and_after_reindex_are_the_same(
        store: Store) -> None:
    imported, live = club("imp"), club("live")
    summary = store.import_lines(json.dumps(e) for g in imported.values() for e in g)
    assert not summary.rejected
    for gid, evs in live.items():
        for i in range(0, len(evs), 11):
            store.append(gid, evs[i:i + 11])
    after_import, after_appends = facts(store, "imp"), facts(store, "live")
    assert after_import == after_appends
    # what the folds say, round by round: every closed round, none of the open one
    for gid, evs in imported.items():
        want = facts_of(fold(event_from_dict(e) for e in evs))
        got = [r for r in after_import if r["game"] == gid[3:]]
        assert [(r["round"], r["result"], r["score"], r["final"], r["roem"]) for r in got] == \
            [(f.round, f.result, f.score, f.final, f.roem) for f in want], gid
    assert {r["game"] for r in after_import} == {g[3:] for g in imported}
    assert len([r for r in after_import if r["game"] == "-cut"]) == 2  # the third is open
    kinds = {r["game"]: r for r in after_import}
    assert kinds["-0"]["roem"] is not None and kinds["-2"]["roem"] is None  # kloepper: none
    assert store.reindex() is True
    assert facts(store, "imp") == after_import and facts(store, "live") == after_appends


def test_a_ruling_writes_the_facts_of_the_round_it_changes(store: Store) -> None:
    events = simulate_game("r-1", seed=0)
    store.append("r-1", events)
    first = next(store.round_facts())
    assert first.final != [1882, 0]
    ruled = {"game": "r-1", "seq": len(events), "type": "ruling", "round": 1,
             "score": [1882, 0], "reason": "the round to team 0 on appeal"}
    store.append("r-1", [ruled])
    again = list(store.round_facts())
    assert again[0].final == [1882, 0] and again[0].score == first.score
    with store.engine.connect() as conn:  # one new row, for round 1 only, none updated
        rows = conn.execute(text("SELECT round, seq FROM round_facts WHERE seq = :s"),
                            {"s": len(events)}).all()
    assert [tuple(r) for r in rows] == [(1, len(events))]
    assert store.reindex() is True
    assert list(store.round_facts()) == again


def test_the_verdicts_name_each_rule_broken_in_its_round(store: Store) -> None:
    evs = simulate_game("v-1", seed=11, faults=Faults(revoke_rate=0.05, false_roem_rate=0.2))
    summary = store.import_lines(json.dumps(e) for e in evs)
    assert not summary.rejected
    f = fold(event_from_dict(e) for e in evs)
    broken = [(v.round, v.seq, v.rule) for v in f.state.violations]
    assert broken, "the simulator was asked for revokes"
    stored = [(r.round, seq, rule) for r in store.round_facts() for seq, rule, _ in r.verdicts]
    closed = {r.round for r in store.round_facts()}
    assert stored == [b for b in broken if b[0] in closed] and stored


def test_a_reindex_stops_and_resumes_and_leaves_the_log_alone(store: Store) -> None:
    games = club("rs")
    store.import_lines(json.dumps(e) for g in games.values() for e in g)
    whole = list(store.round_facts())
    heads = {g: store.head(g) for g in games}
    assert store.reindex(games=2) is False
    assert {r.game for r in store.round_facts()} == {"rs-0", "rs-1"}
    assert store.reindex(resume=True, games=2) is False
    assert store.reindex(resume=True) is True
    assert list(store.round_facts()) == whole
    assert {g: store.head(g) for g in games} == heads
    assert store.verify().ok


def test_a_store_of_schema_6_gets_its_round_facts_when_upgraded(tmp_path: Path) -> None:
    db = tmp_path / "six.sqlite"
    games = club("up")
    with open_store(str(db)) as store:
        store.import_lines(json.dumps(e) for g in games.values() for e in g)
        whole = list(store.round_facts())
    assert len(whole) > 20

    def back_to_six() -> None:
        con = sqlite3.connect(db)
        con.executescript("DROP TABLE round_facts; DROP TABLE round_par; "
                          "DELETE FROM jaslog_meta WHERE key = 'round_facts'; "
                          "UPDATE jaslog_meta SET value = '6' WHERE key = 'schema_version';")
        con.commit()
        con.close()

    back_to_six()
    with open_store(str(db)) as store:  # opened to write: upgraded at once
        assert store.schema_version() == SCHEMA_VERSION
        assert list(store.round_facts()) == whole
    back_to_six()
    r = jaslog("upgrade", "--db", str(db), text=True)
    assert r.returncode == 0 and f"from schema version 6 to {SCHEMA_VERSION}" in r.stdout, r
    with open_store(str(db), create=False) as store:
        assert list(store.round_facts()) == whole
    r = jaslog("reindex", "--db", str(db), "--json", text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"done": True, "games": len(games), "rounds": len(whole)}


@pytest.mark.parametrize("ruleset", ["amsterdam", "kloepper"])
def test_an_import_extending_a_stored_game_writes_only_its_new_rounds(store: Store,
                                                                      ruleset: str) -> None:
    evs = simulate_game("x-1", ruleset, seed=9)
    half = len(evs) // 2
    store.import_lines(json.dumps(e) for e in evs[:half])
    before = list(store.round_facts())
    store.import_lines(json.dumps(e) for e in evs)
    after = list(store.round_facts())
    assert after[:len(before)] == before and len(after) > len(before)
    want = facts_of(fold(event_from_dict(e) for e in evs))
    assert [(r.round, r.final) for r in after] == [(f.round, f.final) for f in want]
    with store.engine.connect() as conn:  # no round written twice
        n = conn.execute(text("SELECT count(*) FROM round_facts")).scalar_one()
    assert n == len(after)


def test_appends_during_a_reindex_leave_the_facts_a_build_alone_gives(store: Store) -> None:
    """Games appended to while a reindex is halfway (their rows written before the build
    reaches them); a store opened to write then finishes the build: no round twice, the
    facts a build alone gives."""
    games = club("co")
    store.import_lines(json.dumps(e) for g in games.values() for e in g[:len(g) // 2])
    assert store.reindex(games=1) is False
    for gid, evs in games.items():  # the games the build has not reached get their rows now
        store.append(gid, evs[len(evs) // 2:], expected_seq=len(evs) // 2)
    with open_store(store.url) as other, other.engine.connect() as conn:  # finishes it
        assert conn.execute(text("SELECT value FROM jaslog_meta WHERE key = 'round_facts'")
                            ).scalar_one() == "built"
    got = list(store.round_facts())
    assert store.reindex() is True
    assert list(store.round_facts()) == got and len(got) > 20


def test_verify_finds_a_round_fact_edited_behind_the_stores_back(store: Store) -> None:
    """The facts are checked against the folds by ``verify``; an edited row is a problem
    that names ``jaslog reindex``, which mends it; the log is whole all along."""
    games = club("vf")
    store.import_lines(json.dumps(e) for g in games.values() for e in g)
    assert store.verify().ok
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE round_facts SET result = 'pit' WHERE round = 2 AND game = "
                          "(SELECT pos FROM games WHERE id = 'vf-0')"))
    rep = store.verify()
    assert [(p.game, p.kind) for p in rep.problems] == [("vf-0", "derived")]
    assert "round_facts of round 2 says pit" in rep.problems[0].message
    assert "jaslog reindex" in rep.problems[0].message
    assert store.reindex() is True and store.verify().ok


def test_verify_finds_a_rounds_detail_edited_behind_the_stores_back(store: Store) -> None:
    """What the export reads of a round's fold (``detail``) is checked by ``verify`` with the
    rest of its facts; ``jaslog reindex`` mends it."""
    games = club("vd")
    store.import_lines(json.dumps(e) for g in games.values() for e in g)
    assert store.verify().ok
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE round_facts SET detail = '[0]' WHERE round = 3 AND game = "
                          "(SELECT pos FROM games WHERE id = 'vd-0')"))
    rep = store.verify()
    assert [(p.game, p.kind) for p in rep.problems] == [("vd-0", "derived")]
    assert "round_facts of round 3" in rep.problems[0].message
    assert store.reindex() is True and store.verify().ok


def test_facts_built_before_the_detail_are_built_again_when_opened_to_write(
        store_url: str) -> None:
    """A store whose round facts were built before they kept each round's ``detail`` (no
    such column): opened to read, it stays as it is; opened to write, the facts are built
    again, with it, and are what the folds say."""
    from jaslog.store.projection import BUILT, build_state, facts_detailed

    games = club("fd")
    with open_store(store_url) as store:
        store.import_lines(json.dumps(e) for g in games.values() for e in g)
        with store.engine.begin() as conn:
            conn.execute(text("ALTER TABLE round_facts DROP COLUMN detail"))
            assert not facts_detailed(conn)
    with open_store(store_url, create=False) as store, store.engine.connect() as conn:
        assert not facts_detailed(conn)
    with open_store(store_url) as store:
        with store.engine.connect() as conn:
            assert facts_detailed(conn) and build_state(conn) == BUILT
            details = conn.execute(text(
                "SELECT count(*) FROM round_facts WHERE detail IS NOT NULL")).scalar()
        assert store.verify().ok
    klaverjas = sum(len(facts_of(fold(event_from_dict(e) for e in g)))
                    for g in games.values() if g[0]["ruleset"] in ("amsterdam", "rotterdam"))
    assert details == klaverjas > 0
