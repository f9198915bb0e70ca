"""Every question in jaslog/stats/questions/*.sql, run by DuckDB over the real Parquet export, checked
against the same numbers computed in Python by folding the same games (tests/export/reference)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jaslog.events import Event
from jaslog.stats.analytics import AnalyticsError, Dataset, Result, parse_question, questions
from tests.export import reference as ref

#: For each question: the columns that identify a row besides the dimension, and where the
#: dimension sits among them ("by").
KEYS: dict[str, list[str]] = {
    "declarer_success": ["by"],
    "nat_pit_rates": ["by"],
    "round_averages": ["by"],
    "roem_saves": ["by"],
    "overview": ["by"],
    "roem_frequency": ["by", "kind"],
    "points_per_trick": ["by", "trick"],
    "player_roles": ["player", "by"],
    "revokes": ["by", "rule"],
    "violations": ["by", "category", "rule"],
}


@pytest.fixture(scope="module")
def ds(dataset: Path) -> Iterator[Dataset]:
    with Dataset(dataset) as d:
        yield d


@pytest.fixture(scope="module")
def games(corpus: list[list[Event]]) -> list[ref.Game]:
    return ref.read_games(corpus)


#: Questions over every game that keep each game (kind) on rows of its own; the corpus here is
#: Klaverjas only (tests/export/test_analytics_kinds.py has all three games).
PER_KIND = ("revokes", "violations")


def keyed(res: Result, name: str, by: str) -> dict[Any, dict[str, Any]]:
    out = {}
    for rec in res.records():
        if name in PER_KIND:
            assert rec.pop("kind") == "klaverjas", rec
        key = tuple("all" if k == "by" and by == "all" else rec.pop(by if k == "by" else k)
                    for k in KEYS[name])
        out[key[0] if len(key) == 1 else key] = rec
    return out


def assert_same(got: dict[Any, dict[str, Any]], want: dict[Any, dict[str, Any]]) -> None:
    assert set(got) == set(want), f"groups differ: {sorted(map(str, set(got) ^ set(want)))}"
    for k, w in want.items():
        g = got[k]
        assert set(g) == set(w), f"{k}: columns {sorted(g)} != {sorted(w)}"
        for col, value in w.items():
            if isinstance(value, str) or value is None:
                assert g[col] == value, f"{k} {col}"
            else:
                assert g[col] == pytest.approx(value, rel=1e-9, abs=1e-9), f"{k} {col}"


CASES = [(name, by) for name, q in sorted(questions().items()) if name in KEYS
         for by in q.dimensions]


def test_every_question_is_checked() -> None:
    qs = questions()
    # the Klaberjass and Kloepper questions are checked in tests/rules_kloepper/test_export.py,
    # those over the rounds with a par in tests/export/test_par.py, the irregularities (which
    # only a real table's record holds) in tests/export/test_real_table.py
    assert set(qs) == set(KEYS) | {"kloepper_queens", "klaberjass_makers", "klaberjass_melds",
                                   "kloepper_knocks", "misplay_loss", "par_upsets",
                                   "nat_by_play", "irregularities"}
    for q in qs.values():
        assert q.path is not None and q.path.read_text().startswith("-- question: ")


@pytest.mark.parametrize(("name", "by"), CASES)
def test_question_matches_the_folded_games(ds: Dataset, games: list[ref.Game], name: str,
                                           by: str) -> None:
    q = questions()[name]
    res = ds.ask(q, by)
    assert res.rows, f"{name} by {by}: no rows"
    want = getattr(ref, name)(games, by)
    assert_same(keyed(res, name, by), want)


def test_the_corpus_exercises_what_the_questions_ask(games: list[ref.Game]) -> None:
    """The checks above mean something only if the games hold the cases they count."""
    rounds = [r for g in games for r in g.rounds]
    results = {r.result for r in rounds}
    assert {"made", "nat", "pit", "revoke", "unfinished"} <= results
    assert {r.how for r in rounds} >= {"chosen", "forced", "accepted", "turned"}
    kinds = {k for r in rounds for k in r.kinds}
    assert {"run3", "run4", "stuk", "four_of_a_kind", "stuk_in_hand"} <= kinds
    assert any(r.made and r.without_roem == "nat" for r in rounds)
    assert any(not r.made and r.without_roem in ("made", "pit") for r in rounds if r.result != "revoke"
               and r.result in ref.JUDGED)
    assert len({g.year for g in games}) == 3  # 2025, 2026 and a log without times


def test_where_keeps_only_matching_games(dataset: Path, games: list[ref.Game]) -> None:
    q = questions()["declarer_success"]
    for cond, keep in (("ruleset = 'rotterdam'", lambda g: g.ruleset == "rotterdam"),
                       ("year = 2025", lambda g: g.year == 2025),
                       ("list_contains(players, 'ann')", lambda g: "ann" in g.seats)):
        with Dataset(dataset, where=cond) as d:
            res = d.ask(q, "trump")
        chosen = [g for g in games if keep(g)]
        assert chosen and len(chosen) < len(games)
        assert_same(keyed(res, "declarer_success", "trump"), ref.declarer_success(chosen, "trump"))


def test_a_bad_where_or_dimension_says_why(dataset: Path) -> None:
    with pytest.raises(AnalyticsError, match="--where 'nonsense_column = 1'"):
        Dataset(dataset, where="nonsense_column = 1")
    with Dataset(dataset) as d, pytest.raises(AnalyticsError, match="cannot be grouped by 'colour'"):
        d.ask(questions()["declarer_success"], "colour")


@pytest.mark.parametrize(("name", "text"), [("kloepper_queens", "no Kloepper data yet"),
                                            ("kloepper_knocks", "no Kloepper data yet"),
                                            ("klaberjass_makers", "no Klaberjass data yet"),
                                            ("klaberjass_melds", "no Klaberjass data yet")])
def test_placeholders_run_and_say_there_is_no_data(ds: Dataset, name: str, text: str) -> None:
    """Over an export without the game's deals the answer has no rows (a script reading the
    rows gets none, not a row that is a message) and says why, in JSON too."""
    res = ds.ask(questions()[name])
    assert res.rows == [] and res.empty is not None and res.empty.startswith(text)
    assert res.to_json()["empty"] == res.empty and res.to_json()["rows"] == []


def test_a_year_stays_a_number_in_every_question(tmp_path: Path, dataset: Path) -> None:
    """``--by year`` gives the year as a number in the game-specific questions too (a text
    placeholder row used to turn the whole column into text)."""
    with Dataset(dataset) as d:
        d.con.execute("CREATE OR REPLACE VIEW rounds AS SELECT * REPLACE ('kloepper' AS kind, "
                      "(round % 2 = 0) AS queens_split) FROM _all_rounds")
        res = d.ask(questions()["kloepper_knocks"], "year")
    years = [r[0] for r in res.rows]  # None: games without a time
    assert any(isinstance(y, int) for y in years), years
    assert all(y is None or isinstance(y, int) for y in years), years
    assert all(r["year"] is None or isinstance(r["year"], int) for r in res.records())


def test_placeholders_count_rounds_once_there_are_some(tmp_path: Path, dataset: Path) -> None:
    """The Kloepper query really reads rounds: over a view with Kloepper rows it counts them."""
    with Dataset(dataset) as d:
        d.con.execute("CREATE OR REPLACE VIEW rounds AS SELECT * REPLACE ('kloepper' AS kind, "
                      "(round % 2 = 0) AS queens_split) FROM _all_rounds")
        res = d.ask(questions()["kloepper_queens"])
        judged = d.query("SELECT count(*) FILTER (WHERE made IS NOT NULL) FROM _all_rounds").rows[0][0]
    assert {r[0] for r in res.rows} == {"split queens", "one player holds both"}
    assert sum(r[1] for r in res.rows) == judged


def test_question_header_is_parsed(tmp_path: Path) -> None:
    p = tmp_path / "q.sql"
    p.write_text("-- question: What?\n-- by: a\n-- by: b = upper(b)\n-- plot: x=a y=n\n"
                 "-- note: one\nSELECT {by}, count(*) AS n FROM t GROUP BY ALL\n")
    q = parse_question(p)
    assert (q.question, q.dimensions, q.plot, q.notes) == ("What?", ["a", "b", "all"],
                                                           {"x": "a", "y": "n"}, ("one",))
    assert q.render("b").startswith('-- question') and 'upper(b) AS "b"' in q.render("b")
    p.write_text("SELECT 1\n")
    with pytest.raises(AnalyticsError, match="question"):
        parse_question(p)
