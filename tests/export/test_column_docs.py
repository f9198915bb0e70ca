"""The documented meaning of the export's columns covers every game: ``rounds.result`` and
``rounds.made`` name the values of each game (Klaverjas's made, nat, pit, revoke; Klaberjass's
made, bete, tie, revoke, annulled; Kloepper's queens, others, none, revoke),
``games.rounds_complete`` (the overview's ``rounds``) says annulled Klaberjass deals count,
and the ``players`` role columns say what they count in Kloepper."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from jaslog.events import Event, event_from_dict
from jaslog.export import export_games
from jaslog.export.schema import COLUMNS
from jaslog.play.fold import fold
from jaslog.play.sim import Faults, simulate_game
from jaslog.stats.analytics import questions


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


def test_kloepper_roles_are_counted_and_documented(tmp_path: Path) -> None:
    """The ``players`` role columns say what they count in Kloepper, where nobody chooses
    trumps: ``rounds_declarer`` the deals a player was on the black-queen side (not as a
    called ace's holder), ``rounds_partner`` those it held the called ace,
    ``rounds_defending`` the others. The counts are checked against the fold, read back from
    Parquet by DuckDB."""
    games: list[list[Event]] = [[event_from_dict(d) for d in simulate_game(
        f"kr-{i}", "kloepper", None, seed=70 + i, faults=Faults(revoke_rate=0.02),
        at=datetime(2026, 5, 1 + i, 20, 0, tzinfo=UTC))] for i in range(3)]
    export_games(games, tmp_path / "ds")
    want: dict[tuple[str, int], list[int]] = {}
    for events in games:
        g = fold(events).state
        for seat in range(4):
            want[(events[0].game, seat)] = [0, 0, 0]
        for r, o in zip(g.rounds, g.outcomes(), strict=True):
            if o.result == "unfinished" or not o.queens:
                continue
            caller = r.call.seat if r.call is not None else None
            for seat in range(4):
                role = (1 if o.mode == "called" and seat in o.queens and seat != caller
                        else 0 if seat in o.queens else 2)
                want[(events[0].game, seat)][role] += 1
    files = f"'{tmp_path}/ds/current/players/**/*.parquet'"
    with duckdb.connect() as con:
        got = {(g, s): [d, p, f] for g, s, d, p, f in con.execute(
            "SELECT game, seat, rounds_declarer, rounds_partner, rounds_defending "
            f"FROM read_parquet({files}, hive_partitioning = true)").fetchall()}
    assert got == want
    assert any(v[1] for v in want.values())  # a called ace's holder is in the corpus
    for column in ("rounds_declarer", "rounds_partner", "rounds_defending"):
        assert "Kloepper" in _doc("players", column), column
    assert "Klaberjass" in _doc("players", "rounds") and "Kloepper" in _doc("players", "rounds")
