"""The tables of the export, read back by DuckDB and pyarrow, against the folded games."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest

from jaslog.events import Event, Play, canonical_json, event_from_dict
from jaslog.export import SCHEMAS, TABLES, arrow_schema_docs, export_games, load_manifest
from jaslog.play.audit import game_report
from jaslog.play.fold import fold
from jaslog.play.sim import simulate_game
from jaslog.schemas import ROOT, render


def read(dataset: Path, table: str, sql: str = "SELECT * FROM t") -> list[dict[str, Any]]:
    """Rows of a table through DuckDB's own Hive-partitioned glob over the current snapshot."""
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"CREATE VIEW t AS SELECT * FROM read_parquet('{dataset}/current/{table}/**/*.parquet',"
                " hive_partitioning = true)")
    cur = con.execute(sql)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def test_row_counts_match_the_logs(dataset: Path, corpus: list[list[Event]]) -> None:
    counts = {t: read(dataset, t, "SELECT count(*) AS n FROM t")[0]["n"] for t in TABLES}
    reports = [game_report(g[0].game, fold(g)) for g in corpus]
    assert counts["events"] == sum(len(g) for g in corpus)
    assert counts["plays"] == sum(1 for g in corpus for e in g if e.type == "play")
    assert counts["games"] == len(corpus)
    assert counts["players"] == 4 * len(corpus)
    assert counts["rounds"] == sum(len(r["rounds"]) for r in reports)
    assert counts["tricks"] == sum(len(rr["tricks"]) for r in reports for rr in r["rounds"])
    assert counts["violations"] == sum(len(r["violations"]) for r in reports)
    man = load_manifest(dataset)
    assert man is not None
    assert {t: man[1]["tables"][t]["rows"] for t in TABLES} == counts


def test_partitions_are_ruleset_and_year(dataset: Path, corpus: list[list[Event]]) -> None:
    rows = read(dataset, "games", "SELECT game, ruleset, year FROM t")
    got = {r["game"]: (r["ruleset"], r["year"]) for r in rows}
    for g in corpus:
        at = next((e.at for e in g if e.at), None)
        assert got[g[0].game] == (g[0].ruleset, int(at[:4]) if at else None)  # type: ignore[attr-defined]
    dirs = {p.relative_to(dataset / "current" / "games").parent.as_posix()
            for p in (dataset / "current" / "games").rglob("*.parquet")}
    assert "ruleset=amsterdam/year=2025" in dirs
    assert "ruleset=amsterdam/year=__HIVE_DEFAULT_PARTITION__" in dirs


def test_events_keep_the_log(dataset: Path, corpus: list[list[Event]]) -> None:
    rows = read(dataset, "events", "SELECT * FROM t ORDER BY game, seq")
    by_key = {(r["game"], r["seq"]): r for r in rows}
    for g in corpus:
        for e in g:
            r = by_key[(e.game, e.seq)]
            assert r["payload"] == canonical_json(e).decode()
            assert event_from_dict(json.loads(r["payload"])) == e
            assert r["type"] == e.type
            assert r["seat"] == getattr(e, "seat", None)
            if e.type == "play":
                assert r["card"] == e.card  # type: ignore[attr-defined]
            if e.at is not None:
                assert r["event_time"].isoformat().replace("+00:00", "Z") == e.at
            else:
                assert r["event_time"] is None


def test_plays_tricks_rounds_games_read_the_fold(dataset: Path, corpus: list[list[Event]]) -> None:
    plays = read(dataset, "plays", "SELECT * FROM t")
    rounds = {(r["game"], r["round"]): r for r in read(dataset, "rounds")}
    tricks = {(r["game"], r["round"], r["trick"]): r for r in read(dataset, "tricks")}
    games = {r["game"]: r for r in read(dataset, "games")}
    players = read(dataset, "players")
    illegal = {(p["game"], p["seq"]): p["rule"] for p in plays if p["legal"] is False}
    unknown = {(p["game"], p["round"]) for p in plays if p["legal"] is None}
    assert unknown == {("t-unfinished", 3)}  # dealt without hands, not all 32 cards in yet
    for g in corpus:
        f = fold(g)
        rep = game_report(g[0].game, f)
        gid = rep["game"]
        want = {(gid, v["seq"]): v["rule"] for v in rep["violations"] if v["card"] is not None}
        assert {k: v for k, v in illegal.items() if k[0] == gid} == want
        for r in rep["rounds"]:
            row = rounds[(gid, r["round"])]
            assert row["result"] == r["result"]
            assert row["points"] == r["points"] and row["roem"] == r["roem"]
            assert row["roem_on_table"] == r["roem_on_table"]
            assert row["score"] == r["score"]
            assert row["final_score"] == (r["ruling"]["score"] if r["ruling"] else r["score"])
            assert row["ruled_score"] == (r["ruling"]["score"] if r["ruling"] else None)
            assert row["trump"] == r["trump"] and row["declarer"] == r["chooser"]
            assert row["dealer"] == r["dealer"]
            for n, t in enumerate(r["tricks"], 1):
                tr = tricks[(gid, r["round"], n)]
                assert tr["cards"] == t["cards"] and tr["leader"] == t["leader"]
                assert tr["winner"] == t["winner"] and tr["points"] == (
                    t["points"] if t["winner"] is not None else None)
                assert tr["roem_credited"] == (t["roem"] if t["winner"] is not None else None)
        gr = games[gid]
        assert gr["totals"] == rep["totals"] and gr["finished"] == rep["finished"]
        assert gr["winner_team"] == (rep["winner"] if isinstance(rep["winner"], int) else None)
        assert gr["players"] == list(f.seats) and gr["last_seq"] == g[-1].seq
        assert gr["violations"] == len(rep["violations"]) and gr["ok"] == rep["ok"]
        mine = [p for p in players if p["game"] == gid]
        assert sorted(p["seat"] for p in mine) == [0, 1, 2, 3]
        for p in mine:
            assert p["score"] == rep["totals"][p["seat"] & 1]
            assert p["plays"] == len([e for e in g if isinstance(e, Play) and e.seat == p["seat"]])
            assert p["won"] == (rep["winner"] == p["seat"] & 1 if rep["finished"] else None)
    ruled = games["t-ruled"]
    assert ruled["rulings"] == 2 and ruled["totals"] != ruled["totals_played"]
    assert games["t-unfinished"]["finished"] is False


def test_every_play_is_in_its_trick_in_order(dataset: Path) -> None:
    rows = read(dataset, "plays", """
        SELECT p.game, p.round, p.trick, list(p.card ORDER BY p.position) AS cards,
               any_value(t.cards) AS trick_cards,
               count(*) FILTER (WHERE p.won_trick) AS winners, any_value(t.complete) AS complete,
               sum(p.card_points) AS points, any_value(t.points) AS trick_points,
               any_value(p.trick_points) AS p_points
        FROM t p JOIN read_parquet('""" + str(dataset) + """/current/tricks/**/*.parquet',
             hive_partitioning = true) t USING (game, round, trick)
        GROUP BY ALL""")
    assert rows
    for r in rows:
        assert r["cards"] == r["trick_cards"]
        if r["complete"]:
            assert r["winners"] == 1 and r["p_points"] == r["trick_points"]
            assert r["trick_points"] - r["points"] in (0, 10)  # the last-trick bonus


def test_parquet_files_are_zstd_dictionary_encoded_and_typed(dataset: Path) -> None:
    man = load_manifest(dataset)
    assert man is not None
    snap, manifest = man
    seen = set()
    for f in manifest["files"]:
        pf = pq.ParquetFile(snap / f["path"])
        assert pf.schema_arrow.equals(SCHEMAS[f["table"]], check_metadata=False)
        md = pf.metadata
        for g in range(md.num_row_groups):
            for c in range(md.num_columns):
                col = md.row_group(g).column(c)
                assert col.compression == "ZSTD"
                if f["table"] == "plays" and col.path_in_schema in ("card", "player", "suit"):
                    assert any("DICTIONARY" in e for e in col.encodings)
                    seen.add(col.path_in_schema)
    assert seen == {"card", "player", "suit"}


def test_arrow_schemas_are_documented_in_schemas_folder() -> None:
    docs = arrow_schema_docs()
    assert set(docs) == {f"arrow/{t}.json" for t in TABLES}
    for rel, doc in docs.items():
        assert (ROOT / rel).read_text() == render(doc), f"{rel} drifted: run python -m jaslog.schemas"
        names = [f["name"] for f in doc["fields"]]
        assert names == SCHEMAS[doc["table"]].names
        assert all(f["description"] for f in doc["fields"])
        assert [p["name"] for p in doc["partitioning"]] == ["ruleset", "year"]


def test_an_invalid_log_is_exported_as_far_as_it_folds(tmp_path: Path) -> None:
    """A game whose log breaks an integrity rule keeps its events and what folded before."""
    evs = simulate_game("bad", "amsterdam", seed=3)
    plays = [i for i, e in enumerate(evs) if e["type"] == "play"]
    evs[plays[40]] = {**evs[plays[40]], "card": evs[plays[0]]["card"]}  # a card played twice
    export_games([[event_from_dict(e) for e in evs]], tmp_path)
    g = read(tmp_path, "games")[0]
    assert "card_played_twice" in g["error"] or "card_not_held" in g["error"]
    assert g["ok"] is False and g["events"] == len(evs)
    assert len(read(tmp_path, "events")) == len(evs)
    assert Counter(r["round"] for r in read(tmp_path, "plays")) == {1: 32, 2: 8}


@pytest.mark.parametrize("table", TABLES)
def test_views_exist_even_for_empty_tables(tmp_path: Path, table: str) -> None:
    from jaslog.stats.analytics import Dataset

    export_games([[event_from_dict(e) for e in simulate_game("clean", seed=5)]], tmp_path)
    with Dataset(tmp_path) as d:
        res = d.query(f"SELECT * FROM {table} LIMIT 0")
    assert res.columns[: len(SCHEMAS[table].names)] == SCHEMAS[table].names
    assert res.columns[-2:] == ["ruleset", "year"]


def test_times_with_offsets_are_utc_and_the_year_is_local(tmp_path: Path) -> None:
    evs = simulate_game("tz", seed=6, at="2025-12-31T23:30:00-02:00")
    evs[0]["at"] = "2025-12-31 23:30:00-02:00"
    evs[1]["at"] = "2026-01-01t01:31:00z"
    export_games([[event_from_dict(e) for e in evs]], tmp_path)
    g = read(tmp_path, "games")[0]
    assert g["year"] == 2025  # the year the table played in
    assert g["first_at"].isoformat() == "2026-01-01T01:30:00+00:00"
    ev = read(tmp_path, "events", "SELECT event_time FROM t WHERE seq = 1")[0]
    assert ev["event_time"].isoformat() == "2026-01-01T01:31:00+00:00"


def test_events_from_the_store_keep_the_log(tmp_path: Path, corpus: list[list[Event]]) -> None:
    """Exported from a store, where most plays are read from their typed columns alone and
    their bytes written for a whole chunk at once: every payload is the event's canonical
    text (plays with and without times, with milliseconds, with ids), and the dataset is the
    one an export of the same games from memory writes."""
    import orjson

    from jaslog.export import export_store
    from jaslog.store import open_store

    games = [list(g) for g in corpus[:6]]
    for i, e in enumerate(games[0]):  # times with milliseconds, and ids, on some plays
        if e.type == "play" and e.at is not None and i % 3 == 0:
            games[0][i] = e.model_copy(update={"at": e.at[:19] + ".120Z"})
        elif e.type == "play" and i % 7 == 0:
            games[0][i] = e.model_copy(update={"id": f"00000000-0000-4000-8000-{i:012d}"})
    with open_store(str(tmp_path / "s.sqlite")) as store:
        for g in games:
            summary = store.import_lines([orjson.dumps(e.model_dump(exclude_none=True)) + b"\n"
                                          for e in g], source="archive")
            assert summary.ok, summary.rejected[:3]
        export_store(store, tmp_path / "store", workers=0, chunk_games=4)
    export_games(games, tmp_path / "memory", chunk_games=4)
    rows = read(tmp_path / "store", "events", "SELECT game, seq, payload FROM t")
    want = {(e.game, e.seq): canonical_json(e).decode() for g in games for e in g}
    assert {(r["game"], r["seq"]): r["payload"] for r in rows} == want
    assert sum(1 for g in games for e in g if e.type == "play") > len(want) // 2
    for table in TABLES:
        sql = "SELECT * EXCLUDE (ruleset, year) FROM t ORDER BY ALL"
        assert read(tmp_path / "store", table, sql) == read(tmp_path / "memory", table, sql), table
