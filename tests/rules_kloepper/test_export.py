"""Klaberjass and Kloepper in the Parquet export, read back by DuckDB: rows per player, the
sides of each Kloepper deal, and the analytics questions of both games checked against the
numbers folded straight from the same logs (``check --json`` reports)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jaslog.events import Event, event_from_dict
from jaslog.export import export_games
from jaslog.play.audit import game_report
from jaslog.play.fold import fold
from jaslog.play.sim import Faults, simulate_game
from jaslog.stats.analytics import Dataset, questions

RULESETS = [("klaberjass-2p", None), ("klaberjass-2p", {"tie_mode": "carry_over"}),
            ("kloepper", None)]


@pytest.fixture(scope="module")
def corpus() -> list[list[Event]]:
    games = []
    for i in range(12):
        ruleset, options = RULESETS[i % 3]
        faults = Faults(revoke_rate=0.02, false_roem_rate=0.1, no_hands_rate=0.2 * (i % 2))
        evs = simulate_game(f"x{i}", ruleset, options, seed=100 + i, faults=faults,
                            at="2026-03-01T18:00:00Z")
        games.append([event_from_dict(e) for e in evs])
    return games


@pytest.fixture(scope="module")
def reports(corpus: list[list[Event]]) -> dict[str, dict[str, Any]]:
    return {g[0].game: game_report(g[0].game, fold(g)) for g in corpus}


@pytest.fixture(scope="module")
def ds(corpus: list[list[Event]], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dataset]:
    out: Path = tmp_path_factory.mktemp("export")
    export_games(corpus, out)
    with Dataset(out) as d:
        yield d


def test_games_and_players_per_player(ds: Dataset, reports: dict[str, dict[str, Any]]) -> None:
    rows = ds.query("SELECT game, kind, totals, finished, winner_team, winners, violations "
                    "FROM games ORDER BY game").records()
    assert len(rows) == len(reports)
    for r in rows:
        rep = reports[r["game"]]
        assert list(r["totals"]) == rep["totals"]
        assert len(r["totals"]) == (2 if r["kind"] == "klaberjass" else 4)
        assert r["finished"] == rep["finished"] and r["winner_team"] == rep["winner"]
        assert r["violations"] == len(rep["violations"])
    players = ds.query("SELECT game, seat, team, score, won FROM players").records()
    for p in players:
        rep = reports[p["game"]]
        assert p["team"] == p["seat"] and p["score"] == rep["totals"][p["seat"]]
        assert p["won"] == (rep["winner"] == p["seat"])


def test_rounds_match_the_reports(ds: Dataset, reports: dict[str, dict[str, Any]]) -> None:
    rows = ds.query("SELECT * FROM rounds ORDER BY game, round").records()
    assert len(rows) == sum(len(r["rounds"]) for r in reports.values())
    for row in rows:
        rr = reports[row["game"]]["rounds"][row["round"] - 1]
        assert list(row["score"]) == rr["score"] and row["result"] == rr["result"]
        assert list(row["points"]) == rr["points"]
        if row["kind"] == "kloepper":
            assert list(row["playing_seats"]) == (rr["queens"] or [])
            assert row["queens_split"] == (rr["mode"] == "pair" if rr["mode"] else None)
            assert row["contract"].startswith(rr["mode"])
            assert row["made"] == {"queens": True, "others": False, "none": False}.get(rr["result"])
        else:
            assert row["declarer"] == rr["chooser"] and row["trump"] == rr["trump"]
            assert list(row["roem"]) == [rr["sequences"][s] + rr["bella"][s] for s in (0, 1)]


def test_plays_and_tricks(ds: Dataset, reports: dict[str, dict[str, Any]]) -> None:
    plays = ds.query("SELECT game, count(*) AS n, count(*) FILTER (WHERE NOT legal) AS bad "
                     "FROM plays GROUP BY game").records()
    for p in plays:
        rep = reports[p["game"]]
        assert p["n"] == sum(len(t["cards"]) for r in rep["rounds"] for t in r["tricks"])
        assert p["bad"] == sum(1 for v in rep["violations"] if v["rule"].startswith("must_"))
    # Kloepper trumps are the permanent ones: no trump suit, is_trump from the card
    rows = ds.query("SELECT DISTINCT card, is_trump FROM plays JOIN games USING (game) "
                    "WHERE games.kind = 'kloepper' AND is_trump ORDER BY card").rows
    assert {c for c, _ in rows} <= {"QC", "QS", "JC", "JS", "JH", "JD", "AD", "10D", "KD", "QD", "9D"}


def _expected_makers(reports: dict[str, dict[str, Any]]) -> dict[str, tuple[int, float]]:
    by: dict[str, list[bool]] = defaultdict(list)
    for rep in reports.values():
        for r in rep["rounds"]:
            if rep["ruleset"] == "klaberjass-2p" and r["result"] in ("made", "tie", "bete"):
                calls = [b["call"] for b in r["bids"]]
                contract = "schmeiss" if "play" in calls else ("take" if calls[-1] == "take"
                                                               else "named")
                by[contract].append(r["result"] == "made")
    return {k: (len(v), sum(v) / len(v)) for k, v in by.items()}


def test_klaberjass_questions(ds: Dataset, reports: dict[str, dict[str, Any]]) -> None:
    got = {r["contract"]: (r["rounds"], r["made_rate"])
           for r in ds.ask(questions()["klaberjass_makers"]).records()}
    want = _expected_makers(reports)
    assert set(got) == set(want)
    for k, (n, rate) in want.items():
        assert got[k][0] == n and got[k][1] == pytest.approx(rate)
    melds = ds.ask(questions()["klaberjass_melds"], "melds").records()
    assert sum(r["rounds"] for r in melds) == sum(n for n, _ in want.values())


def test_kloepper_questions(ds: Dataset, reports: dict[str, dict[str, Any]]) -> None:
    by: dict[str, list[bool]] = defaultdict(list)
    for rep in reports.values():
        for r in rep["rounds"]:
            if rep["ruleset"] == "kloepper" and r["result"] != "unfinished":
                c = r["mode"] + ("+knock" if r["knock"] else "") + ("+knock_back" if r["knock_back"] else "")
                # a revoke counts for the side it was scored for (the queens side when the
                # other side revoked): the question's note
                by[c].append(r["result"] == "queens" or (
                    r["result"] == "revoke" and r["score"][r["queens"][0]] > 0))
    got = {r["contract"]: (r["rounds"], r["queens_rate"])
           for r in ds.ask(questions()["kloepper_knocks"], "contract").records()}
    assert set(got) == set(by)
    for k, v in by.items():
        assert got[k][0] == len(v) and got[k][1] == pytest.approx(sum(v) / len(v))
    split = {r["queens"]: r["rounds"] for r in ds.ask(questions()["kloepper_queens"]).records()}
    assert sum(split.values()) == sum(
        1 for rep in reports.values() if rep["ruleset"] == "kloepper"
        for r in rep["rounds"] if r["result"] in ("queens", "others", "none"))
