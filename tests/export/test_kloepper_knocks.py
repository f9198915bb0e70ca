"""kloepper_knocks counts a deal decided by a revoke for the side that scored it. The note says
a revoke counts, scored as if the other side took every trick (rule book 5.6 with section
9.4): when a player of the non-queen side revoked, the black-queen side scored, and
queens_rate counts it so (not as the queens side failing, though ``rounds.made`` is NULL for
a revoke)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from jaslog.events import Event, event_from_dict
from jaslog.export import export_games
from jaslog.play.fold import fold
from jaslog.play.sim import Faults, simulate_game
from jaslog.stats.analytics import run_question

FAULTS = Faults(revoke_rate=0.05)


def _games() -> list[list[Event]]:
    return [[event_from_dict(d) for d in simulate_game(
        f"kl-{i}", "kloepper", None, seed=500 + i, faults=FAULTS,
        at=datetime(2026, 3, 1 + i, 20, 0, tzinfo=UTC))] for i in range(6)]


@pytest.fixture(scope="module")
def games_and_dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[list[Event]], Path]:
    games = _games()
    out = tmp_path_factory.mktemp("kl") / "ds"
    export_games(games, out)
    return games, out


def _expected(games: list[list[Event]]) -> tuple[int, int, int]:
    """(deals played out, deals the queens side scored, revoke deals it scored), by folding:
    the queens side scored when a queen holder's score for the deal is above 0."""
    rounds = scored = revoke_scored = 0
    for events in games:
        g = fold(events).state
        for r, o in zip(g.rounds, g.outcomes(), strict=True):
            if not r.over:
                continue
            rounds += 1
            assert o.queens
            if o.score[o.queens[0]] > 0:
                scored += 1
                revoke_scored += o.result == "revoke"
    return rounds, scored, revoke_scored


def test_the_corpus_has_revokes_the_queens_side_scored(
        games_and_dataset: tuple[list[list[Event]], Path]) -> None:
    _, _, revoke_scored = _expected(games_and_dataset[0])
    assert revoke_scored > 0  # else the next test could not fail


@pytest.mark.parametrize("by", ["all", "sides", "knock", "contract", "year"])
def test_queens_rate_counts_a_revoke_for_the_side_that_scored(
        games_and_dataset: tuple[list[list[Event]], Path], by: str) -> None:
    games, out = games_and_dataset
    rounds, scored, _ = _expected(games)
    res = run_question(out, "kloepper_knocks", by=by)
    rows = res.records()
    assert sum(r["rounds"] for r in rows) == rounds
    assert sum(round(r["queens_rate"] * r["rounds"]) for r in rows) == scored
