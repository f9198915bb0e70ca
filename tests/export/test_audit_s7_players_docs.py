"""Audit (session 7): the ``players`` role columns say what they count in every game. In
Kloepper nobody chooses trumps: ``rounds_declarer`` counts the deals a player was on the
black-queen side (not as a called ace's holder), ``rounds_partner`` those it held the called
ace, ``rounds_defending`` the others; the docs spoke of choosing trumps only. The counts
are checked against the fold, read back from Parquet by DuckDB."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import duckdb

from jaslog.events import Event, event_from_dict
from jaslog.export import export_games
from jaslog.export.schema import COLUMNS
from jaslog.fold import fold
from jaslog.sim import Faults, simulate_game


def _doc(column: str) -> str:
    return next(c.doc for c in COLUMNS["players"] if c.name == column)


def test_kloepper_roles_are_counted_and_documented(tmp_path: Path) -> None:
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
        assert "Kloepper" in _doc(column), column
    assert "Klaberjass" in _doc("rounds") and "Kloepper" in _doc("rounds")
