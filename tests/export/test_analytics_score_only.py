"""The questions over games with rounds recorded by their score alone (rule book 9.1,
decision 11): each counts a score-only round when its sheet records what the question needs,
leaves it out otherwise, and says how many it left out. Every question and dimension, by
DuckDB over the real Parquet export, against the reference computed by folding the games."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from jaslog.events import Event, event_from_dict
from jaslog.export import export_games, load_manifest
from jaslog.play.sim import Faults, simulate_game
from jaslog.stats.analytics import AnalyticsError, Dataset, questions
from tests.export import reference as ref
from tests.export.real_table import real_table
from tests.export.test_analytics import KEYS, assert_same, keyed
from tests.export.test_cli import run

#: Klaverjas games whose second (or so) round was written on the score sheet alone, each
#: sheet saying something else besides the score: (ruleset, seed, fields, time of play).
SHEETS: list[tuple[str, int, tuple[str, ...] | None, str | None]] = [
    ("amsterdam", 5, None, "2026-03-01T19:00:00Z"),
    ("rotterdam", 6, (), "2026-03-02T19:00:00Z"),
    ("amsterdam", 7, ("chooser",), "2025-04-01T19:00:00Z"),
    ("amsterdam", 8, ("result",), "2026-05-01T19:00:00Z"),
    ("rotterdam", 9, ("chooser", "points"), None),
    ("amsterdam", 10, ("chooser", "trump"), "2026-06-01T19:00:00Z"),
    ("amsterdam", 11, ("chooser", "roem"), None),
]


def make_games() -> list[list[Event]]:
    games = [real_table(f"so-{i}", ruleset, seed, fields=fields, at=at).events
             for i, (ruleset, seed, fields, at) in enumerate(SHEETS)]
    for i, ruleset in enumerate(("amsterdam", "rotterdam", "amsterdam")):
        games.append([event_from_dict(e) for e in simulate_game(
            f"so-plain-{i}", ruleset, seed=90 + i, faults=Faults(revoke_rate=0.03),
            at=datetime(2026, 2, 1 + i, 20, 0, tzinfo=UTC))])
    return games


@pytest.fixture(scope="module")
def games() -> list[list[Event]]:
    return make_games()


@pytest.fixture(scope="module")
def dataset(games: list[list[Event]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("score-only") / "ds"
    export_games(games, out)
    return out


@pytest.fixture(scope="module")
def ds(dataset: Path) -> Iterator[Dataset]:
    with Dataset(dataset) as d:
        yield d


@pytest.fixture(scope="module")
def folded(games: list[list[Event]]) -> list[ref.Game]:
    return ref.read_games(games)


def test_the_sheets_hold_what_the_questions_tell_apart(folded: list[ref.Game]) -> None:
    """A sheet with the result and none without; with the chooser, and without; with the
    trump suit, and without; a game without times."""
    so = [r for g in folded for r in g.rounds if r.recorded == "score_only"]
    assert len(so) == len(SHEETS)
    assert any(r.chooser is None and r.result in ref.JUDGED for r in so)
    assert any(r.result == "score_only" for r in so)
    assert any(r.chooser is not None and r.trump is None for r in so)
    assert any(r.chooser is not None and r.points is None for r in so)
    assert any(r.trump is not None for r in so) and any(r.year is None for r in so)


CASES = [(name, by) for name, q in sorted(questions().items()) if name in KEYS
         for by in q.dimensions]


@pytest.mark.parametrize(("name", "by"), CASES)
def test_each_question_counts_what_the_sheets_record(ds: Dataset, folded: list[ref.Game],
                                                     name: str, by: str) -> None:
    res = ds.ask(questions()[name], by)
    assert_same(keyed(res, name, by), getattr(ref, name)(folded, by))
    assert res.score_only_left_out == ref.left_out(name, folded, by)
    assert res.to_json()["score_only_left_out"] == res.score_only_left_out


def test_the_counting_rule_both_counts_and_leaves_out(ds: Dataset, folded: list[ref.Game]) -> None:
    """Totals and averages of scores count a score-only round, trump choice and roem leave
    it out: the checks above see both sides."""
    left: dict[tuple[str, str], int] = {}
    for name, by in CASES:
        n = ds.ask(questions()[name], by).score_only_left_out
        assert n is not None, name
        left[(name, by)] = n
    assert left[("overview", "all")] == 0 and left[("violations", "all")] == 0
    assert left[("roem_frequency", "all")] == len(SHEETS)
    assert left[("points_per_trick", "all")] == len(SHEETS)
    assert 0 < left[("declarer_success", "ruleset")] < left[("declarer_success", "trump")] \
        < len(SHEETS) == left[("declarer_success", "trump_how")]
    assert 0 < left[("round_averages", "ruleset")] < len(SHEETS)
    totals = ds.query("SELECT sum(totals[1] + totals[2]) FROM games").rows[0][0]
    assert totals == sum(sum(r.final) for g in folded for r in g.rounds)


def test_the_other_games_questions_say_what_they_leave_out(tmp_path: Path) -> None:
    """Klaberjass and Kloepper deals written by their score: counted by year when the sheet
    shows the result (and, for melds, the maker and melds), never by contract."""
    games = [real_table("so-kb", "klaberjass-2p", 7).events,
             real_table("so-kb-bare", "klaberjass-2p", 12, fields=()).events,
             real_table("so-kl", "kloepper", 8).events,
             real_table("so-kl-bare", "kloepper", 13, fields=()).events]
    export_games(games, tmp_path / "ds")
    with Dataset(tmp_path / "ds") as d:
        def left(name: str, by: str | None = None) -> int | None:
            return d.ask(questions()[name], by).score_only_left_out
        assert left("klaberjass_makers") == 2 and left("kloepper_queens") == 2
        assert left("klaberjass_melds", "year") == 1 and left("klaberjass_melds", "contract") == 2
        assert left("kloepper_knocks", "year") == 1
        assert left("kloepper_knocks", "contract") == left("kloepper_knocks", "sides") == 2
        assert left("declarer_success") == 0  # Klaverjas's questions leave no other game out
        assert left("revokes", "all") == 4 and left("overview", "all") == 0
        year = d.ask(questions()["kloepper_knocks"], "year").records()
        played = d.query("SELECT count(*) FROM rounds WHERE kind = 'kloepper' AND complete "
                         "AND recorded = 'played'").rows[0][0]
        assert sum(r["rounds"] for r in year) == played + 1


def test_stats_prints_and_writes_what_it_left_out(dataset: Path) -> None:
    res = run("stats", "roem_frequency", "--dataset", str(dataset), "--no-refresh")
    assert res.exit_code == 0, res.output
    assert f"{len(SHEETS)} score-only rounds left out: their score sheets do not record " \
           "what this question needs" in " ".join(res.stdout.split())
    res = run("stats", "roem_frequency", "--dataset", str(dataset), "--no-refresh", "--json")
    assert json.loads(res.stdout)["score_only_left_out"] == len(SHEETS)
    res = run("stats", "overview", "--dataset", str(dataset), "--no-refresh")
    assert "left out" not in res.stdout  # nothing left out: nothing said


def test_a_question_over_an_export_of_another_layout_says_to_export_again(
        dataset: Path, tmp_path: Path) -> None:
    """An export written before ``rounds.recorded`` existed cannot answer the questions that
    read it: the error says why, instead of naming a column alone."""
    old = tmp_path / "old"
    shutil.copytree(dataset, old, symlinks=True)
    loaded = load_manifest(old)
    assert loaded is not None
    snap, man = loaded
    with Dataset(old) as d:
        assert d.stale_note() == ""
    for f in man["files"]:
        if f["table"] == "rounds":
            path = snap / f["path"]
            pq.write_table(pq.read_table(path).drop_columns(["recorded"]), path)
    man["tables"]["rounds"]["fingerprint"] = "0" * 16
    (snap / "manifest.json").write_text(json.dumps(man))
    with Dataset(old) as d, pytest.raises(AnalyticsError) as e:
        d.ask(questions()["declarer_success"])
    assert "recorded" in str(e.value) and "export it again" in str(e.value)
