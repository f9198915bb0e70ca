"""What a real table records (rule book 9.1) in the export, read back from Parquet by DuckDB:
a round written by its score alone, a card retracted by a correction and recorded again, an
irregularity, and a round ruled twice; for every game, against the fold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest

from jaslog.engine.facts import event_rounds, round_facts
from jaslog.events import Event, canonical_json
from jaslog.events.fast import FastPlay, fast_play
from jaslog.export import TABLES, export_games, load_manifest
from jaslog.play.fold import fold
from tests.export.real_table import RealTable, real_table

#: (game id, ruleset, seed, what the sheet of the score-only round writes: None for all)
GAMES: list[tuple[str, str, int, tuple[str, ...] | None]] = [
    ("rt-klaverjas", "amsterdam", 5, None),
    ("rt-klaverjas-bare", "rotterdam", 6, ()),
    ("rt-klaberjass", "klaberjass-2p", 7, None),
    ("rt-kloepper", "kloepper", 8, None),
]


@pytest.fixture(scope="module")
def tables() -> dict[str, RealTable]:
    out = {gid: real_table(gid, ruleset, seed, fields=fields)
           for gid, ruleset, seed, fields in GAMES}
    for t in out.values():  # each folds whole: the rewriting made a game a table could record
        f = fold(t.events)
        assert f.retracted.keys() == {t.typo} and len(f.irregularities) == 1
    return out


@pytest.fixture(scope="module")
def dataset(tables: dict[str, RealTable], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("real") / "ds"
    export_games([t.events for t in tables.values()], out, chunk_games=2)
    return out


def read(dataset: Path, table: str, where: str = "true") -> list[dict[str, Any]]:
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    cur = con.execute(f"SELECT * FROM read_parquet('{dataset}/current/{table}/**/*.parquet', "
                      f"hive_partitioning = true) WHERE {where} ORDER BY ALL")
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def one(rows: list[dict[str, Any]]) -> dict[str, Any]:
    assert len(rows) == 1, rows
    return rows[0]


@pytest.mark.parametrize("gid", [g for g, *_ in GAMES])
def test_a_score_only_round_holds_what_the_sheet_says(dataset: Path, tables: dict[str, RealTable],
                                                      gid: str) -> None:
    t = tables[gid]
    f = fold(t.events)
    so = f.state.rounds[t.score_only - 1].score_only
    assert so is not None
    opener = t.events[so.seq]
    row = one(read(dataset, "rounds", f"game = '{gid}' AND round = {t.score_only}"))
    assert row["recorded"] == "score_only" and row["hands_recorded"] is False
    assert (row["first_seq"], row["last_seq"]) == (so.seq, so.seq)
    assert row["started_at"].isoformat().replace("+00:00", "Z") == opener.at
    assert row["score"] == row["final_score"] == so.score
    assert row["complete"] is True and row["violations"] == 0 and row["rulings"] == 0
    assert row["declarer"] == so.chooser
    assert row["points"] == so.points
    if f.game != "kloepper":  # (Kloepper has no roem: zeros, as in every deal)
        assert row["roem"] == so.roem
        assert row["roem_on_table"] is None and row["roem_kinds"] is None
    assert row["trump"] == ("CDHS"[so.trump] if so.trump is not None else None)
    for unsaid in ("first_leader", "tricks_played", "tricks_won", "trump_how",
                   "result_without_roem", "contract", "queens_split", "revoke_team"):
        assert row[unsaid] is None, unsaid
    want = so.result or (f.state.outcomes()[t.score_only - 1].result)
    assert row["result"] == want
    assert row["made"] is ({"made": True, "pit": True, "queens": True, "nat": False,
                            "bete": False, "tie": False, "others": False}.get(want))
    if so.chooser is None:
        assert row["playing_seats"] is None and row["score_playing"] is None
    elif f.game == "klaverjas":
        side = so.chooser & 1
        assert row["playing_seats"] == sorted((so.chooser, so.chooser ^ 2))
        assert row["score_playing"] == so.score[side]
        assert row["points_playing"] == (so.points[side] if so.points else None)
    # nothing of it was played: no plays, no tricks; every other round was
    assert not read(dataset, "plays", f"game = '{gid}' AND round = {t.score_only}")
    assert not read(dataset, "tricks", f"game = '{gid}' AND round = {t.score_only}")
    others = read(dataset, "rounds", f"game = '{gid}' AND round <> {t.score_only}")
    assert others and all(r["recorded"] == "played" and r["passes"] is not None
                          and r["points"] is not None for r in others)
    assert len(others) + 1 == len(f.state.rounds)
    events = one(read(dataset, "events", f"game = '{gid}' AND seq = {so.seq}"))
    assert events["type"] == "round_score" and events["round"] == t.score_only
    assert events["points"] is None  # the sheet's points per team are no roem claim


@pytest.mark.parametrize("gid", [g for g, *_ in GAMES])
def test_a_retracted_play_is_in_the_log_and_nowhere_else(dataset: Path,
                                                         tables: dict[str, RealTable],
                                                         gid: str) -> None:
    t = tables[gid]
    f = fold(t.events)
    events = {r["seq"]: r for r in read(dataset, "events", f"game = '{gid}'")}
    assert len(events) == len(t.events)
    assert {s for s, r in events.items() if r["retracted"]} == {t.typo}
    assert events[t.typo]["retracted_by"] == t.correction
    assert all(r["retracted_by"] is None for s, r in events.items() if s != t.typo)
    assert events[t.typo]["payload"] == canonical_json(t.events[t.typo]).decode()
    # every event in the round the fold's report gives it (a ruling its own)
    counted = event_rounds(f)
    for s, r in events.items():
        own = getattr(t.events[s], "round", None) if r["type"] in ("ruling", "note") else None
        assert r["round"] == (own if own is not None else counted[s] or None), s
    assert {events[s]["round"] for s in (t.typo, t.correction, t.irregularity, t.again)} == {
        t.irregular_round}
    # plays and tricks hold what the fold holds: the card recorded again, not the typo
    plays = read(dataset, "plays", f"game = '{gid}'")
    seqs = [p["seq"] for p in plays]
    assert t.typo not in seqs and t.again in seqs
    standing = [e.seq for e in t.events if e.type == "play" and e.seq not in f.retracted]
    assert sorted(seqs) == standing
    sql = duckdb.connect().execute(
        f"SELECT count(*) FROM read_parquet('{dataset}/current/events/**/*.parquet') "
        f"WHERE game = '{gid}' AND type = 'play' AND NOT retracted").fetchone()
    assert sql is not None and sql[0] == len(plays)
    tricks = {(r["round"], r["trick"]): r for r in read(dataset, "tricks", f"game = '{gid}'")}
    for r in f.state.rounds:
        for tr in r.tricks:
            assert tricks[(r.number, tr.number)]["first_seq"] == tr.seqs[0]
            assert tricks[(r.number, tr.number)]["last_seq"] == tr.seqs[-1]
    assert sum(len(r.tricks) for r in f.state.rounds) == len(tricks)
    players = read(dataset, "players", f"game = '{gid}'")
    assert sum(p["plays"] for p in players) == len(standing)


@pytest.mark.parametrize("gid", [g for g, *_ in GAMES])
def test_an_irregularity_is_listed_with_the_violations(dataset: Path,
                                                       tables: dict[str, RealTable],
                                                       gid: str) -> None:
    t = tables[gid]
    f = fold(t.events)
    e = t.events[t.irregularity]
    rows = read(dataset, "violations", f"game = '{gid}'")
    row = one([r for r in rows if r["category"] == "irregularity"])
    assert (row["seq"], row["round"], row["seat"], row["player"]) == (
        t.irregularity, t.irregular_round, e.seat, f.seats[e.seat])  # type: ignore[attr-defined]
    assert row["rule"] == "exposed_card" and row["trick"] is None
    assert row["cards"] == e.cards and row["card"] == e.cards[0]  # type: ignore[attr-defined]
    assert row["message"] == f"seat {e.seat}: exposed card ({e.cards[0]}): dropped face up"  # type: ignore[attr-defined]
    # the rules broken are the fold's (the typo's, if it broke one, went with it)
    broken = [r for r in rows if r["category"] != "irregularity"]
    assert sorted(r["seq"] for r in broken) == sorted(v.seq for v in f.state.violations)
    assert t.typo not in [r["seq"] for r in rows]
    assert all(r["cards"] == ([r["card"]] if r["card"] else None) for r in broken)
    game = one(read(dataset, "games", f"game = '{gid}'"))
    assert game["violations"] == len(broken)


def test_the_typo_that_broke_a_rule_takes_its_violation_with_it(
        tables: dict[str, RealTable]) -> None:
    """The check above means something: in one game the typo was a revoke."""
    t = tables["rt-kloepper"]
    before = fold(t.events[:t.correction])
    assert t.typo in [v.seq for v in before.state.violations]


@pytest.mark.parametrize("gid", [g for g, *_ in GAMES])
def test_every_ruling_is_counted_and_the_last_one_counts(dataset: Path,
                                                         tables: dict[str, RealTable],
                                                         gid: str) -> None:
    t = tables[gid]
    f = fold(t.events)
    rulings = round_facts(f, f.state.outcomes())[0]["rulings"]
    assert [r["seq"] for r in rulings] == t.rulings
    last = rulings[-1]
    row = one(read(dataset, "rounds", f"game = '{gid}' AND round = 1"))
    assert row["rulings"] == 2
    assert (row["ruling_seq"], row["ruling_reason"], row["ruled_score"]) == (
        last["seq"], last["reason"], last["score"])
    assert row["final_score"] == last["score"]
    assert row["ruled_after_end"] is last["after_end"]
    assert row["last_seq"] == t.rulings[-1]
    unruled = read(dataset, "rounds", f"game = '{gid}' AND round > 1")
    assert all(r["rulings"] == 0 and r["ruled_after_end"] is None for r in unruled)
    game = one(read(dataset, "games", f"game = '{gid}'"))
    assert game["rulings"] == 2 and game["totals"] == list(f.state.totals())


def test_a_ruling_after_the_end_is_marked(dataset: Path) -> None:
    row = one(read(dataset, "rounds", "game = 'rt-klaverjas' AND round = 1"))
    assert row["ruled_after_end"] is True


def as_read_from_the_store(events: list[Event]) -> list[Event]:
    """The events as the store hands them to the export: a play in canonical form comes as
    its bytes (:class:`FastPlay`), without a model."""
    out: list[Event] = []
    for e in events:
        fast = fast_play(canonical_json(e)) if e.type == "play" else None
        out.append(fast if fast is not None else e)  # type: ignore[arg-type]
    return out


def test_plays_read_without_models_fold_the_correction_the_same(
        tables: dict[str, RealTable], dataset: Path, tmp_path: Path) -> None:
    """The store's fast path hands plays over as their bytes; a correction folds the log
    again from what it holds, plays as bytes included, to the same state."""
    games = [as_read_from_the_store(t.events) for t in tables.values()]
    assert sum(isinstance(e, FastPlay) for g in games for e in g) > 100
    export_games(games, tmp_path / "fast", chunk_games=2)
    for table in TABLES:
        a, b = (_table(out, table) for out in (dataset, tmp_path / "fast"))
        assert a == b, table


def _table(out: Path, table: str) -> list[dict[str, Any]]:
    loaded = load_manifest(out)
    assert loaded is not None
    snap, man = loaded
    rows = [r for f in man["files"] if f["table"] == table
            for r in pq.read_table(snap / f["path"]).to_pylist()]
    return sorted(rows, key=lambda r: (r["game"], r.get("seq", 0), r.get("round", 0) or 0,
                                       r.get("trick", 0) or 0, r.get("seat", 0) or 0))


@pytest.mark.parametrize("gid", ["rt-klaverjas", "rt-klaverjas-bare", "rt-klaberjass"])
def test_a_score_only_round_counts_in_the_roles_when_its_sheet_names_the_chooser(
        dataset: Path, tables: dict[str, RealTable], gid: str) -> None:
    t = tables[gid]
    f = fold(t.events)
    so = f.state.rounds[t.score_only - 1].score_only
    assert so is not None
    rounds = read(dataset, "rounds", f"game = '{gid}'")
    complete = [r for r in rounds if r["made"] is not None or r["result"] == "revoke"]
    counted = [r for r in complete if r["declarer"] is not None]
    players = {p["seat"]: p for p in read(dataset, "players", f"game = '{gid}'")}
    assert all(p["rounds"] == len(counted) for p in players.values())
    assert sum(p["rounds_declarer"] for p in players.values()) == len(counted)
    assert (t.score_only in [r["round"] for r in counted]) is (so.chooser is not None)
    for seat, p in players.items():
        assert p["rounds_declarer"] == sum(r["declarer"] == seat for r in counted)
        assert p["made_declarer"] == sum(r["declarer"] == seat and r["made"] is True
                                         for r in counted)


def test_the_statistics_count_irregularities_apart_from_the_rules_broken(
        dataset: Path, tables: dict[str, RealTable]) -> None:
    """An irregularity breaks no rule of play: the violations question leaves it out and the
    irregularities question counts it, one per game of every kind."""
    from jaslog.stats.analytics import Dataset, questions

    with Dataset(dataset) as ds:
        broken = ds.ask(questions()["violations"], "all").records()
        irregular = ds.ask(questions()["irregularities"], "all").records()
    assert all(r["category"] != "irregularity" for r in broken)
    assert "exposed_card" not in {r["rule"] for r in broken}
    assert {(r["kind"], r["irregularity"], r["irregularities"], r["games"]) for r in irregular} == {
        ("klaverjas", "exposed_card", 2, 2), ("klaberjass", "exposed_card", 1, 1),
        ("kloepper", "exposed_card", 1, 1)}


def test_a_claim_not_guaranteed_is_a_claim_in_every_game() -> None:
    """The claim's rule is shared: its category is the same in every game, never the game's
    bidding or call."""
    from jaslog.export.rows import category_of
    from jaslog.games import GAMES

    for game in GAMES.values():
        own = game.adapter("export").violation_category
        assert category_of(own, "claim_not_guaranteed", None) == "claim", game.name
        assert own("must_follow_suit", 7) == "play"
