"""Audit (session 7): the documented meaning of the export's result columns covers every
game. ``rounds.result`` and ``rounds.made`` were documented with Klaverjas's values only
(made, nat, pit, revoke), while Klaberjass deals end made, bete, tie, revoke or annulled and
Kloepper deals queens, others, none or revoke; ``games.rounds_complete`` (the overview's
``rounds``) said "played out or ruled" but also counts annulled Klaberjass deals."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from jaslog.analytics import questions
from jaslog.events import Event, event_from_dict
from jaslog.export import export_games
from jaslog.export.schema import COLUMNS
from jaslog.sim import Faults, simulate_game


def _doc(table: str, column: str) -> str:
    return next(c.doc for c in COLUMNS[table] if c.name == column)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    games: list[list[Event]] = []
    for i, ruleset in enumerate(["amsterdam", "klaberjass-2p", "klaberjass-2p", "kloepper"]):
        games.append([event_from_dict(d) for d in simulate_game(
            f"d-{i}", ruleset, None, seed=40 + i, faults=Faults(revoke_rate=0.03),
            at=datetime(2026, 2, 1 + i, 20, 0, tzinfo=UTC))])
    out = tmp_path_factory.mktemp("docs") / "ds"
    export_games(games, out)
    return out


def _sql(out: Path, sql: str) -> list[tuple[object, ...]]:
    files = f"'{out}/current/rounds/**/*.parquet'"
    with duckdb.connect() as con:
        return con.execute(sql.replace("ROUNDS", f"read_parquet({files}, hive_partitioning = true)")
                           ).fetchall()


def test_every_result_in_the_export_is_documented(dataset: Path) -> None:
    found = _sql(dataset, "SELECT DISTINCT kind, result FROM ROUNDS ORDER BY ALL")
    kinds = {k for k, _ in found}
    assert kinds == {"klaverjas", "klaberjass", "kloepper"}
    doc = _doc("rounds", "result")
    missing = [(k, r) for k, r in found if str(r) not in doc]
    assert not missing, f"rounds.result's doc does not name {missing}: {doc!r}"


def test_made_is_documented_for_every_game(dataset: Path) -> None:
    made = _sql(dataset, "SELECT DISTINCT kind, result FROM ROUNDS WHERE made ORDER BY ALL")
    doc = _doc("rounds", "made")
    assert {r for _, r in made} <= {"made", "pit", "queens"}
    for _, r in made:
        assert str(r) in doc, f"rounds.made's doc does not say {r!r} counts as made: {doc!r}"


def test_rounds_complete_says_annulled_deals_count(dataset: Path) -> None:
    annulled = _sql(dataset, "SELECT count(*) FROM ROUNDS WHERE result = 'annulled'")[0][0]
    assert isinstance(annulled, int) and annulled > 0  # they are counted in rounds_complete
    assert "annulled" in _doc("games", "rounds_complete")
    assert any("annulled" in n for n in questions()["overview"].notes)
