"""Export fixtures: a corpus of simulated games covering the rulesets, trump methods, options
and faults real records have, exported once per session to a real Parquet dataset."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from jaslog.events import Event, event_from_dict
from jaslog.export import export_games
from jaslog.play.sim import Faults, simulate_game
from tests.store.conftest import pg_server, pg_url, store_url  # noqa: F401  (SQLite and PostgreSQL stores)

FAULTS = Faults(revoke_rate=0.02, false_roem_rate=0.06, no_hands_rate=0.15)

#: (ruleset, options, how many games, year of play or None for a log without times)
MIX: list[tuple[str, dict[str, Any] | None, int, int | None]] = [
    ("amsterdam", None, 8, 2025),
    ("amsterdam", None, 3, 2026),
    ("rotterdam", {"trump_selection": "random"}, 5, 2026),
    ("rotterdam", {"trump_selection": "random", "random.all_pass": "second_round_other_suits"},
     3, 2025),
    ("amsterdam-kbn", None, 4, 2026),
    ("klaverjas-online-501", None, 3, 2026),
    ("amsterdam", {"roem.stuk_in_hand": True, "roem.claim_mode": "auto"}, 3, 2026),
    ("amsterdam", {"trump_selection": "dealer_must_choose", "first_lead": "trump_chooser"}, 3,
     2025),
    ("amsterdam", {"revoke": "ignore", "tie_is_failure": False}, 2, None),
]


def to_events(dicts: Sequence[dict[str, Any]]) -> list[Event]:
    return [event_from_dict(d) for d in dicts]


def make_corpus() -> list[list[Event]]:
    games: list[list[Event]] = []
    i = 0
    for ruleset, options, n, year in MIX:
        for _ in range(n):
            at = datetime(year, 1 + i % 12, 1 + i % 27, 19, 30, tzinfo=UTC) if year else None
            games.append(to_events(simulate_game(f"t-{ruleset}-{i:03d}", ruleset, options,
                                                 seed=1000 + i, faults=FAULTS, at=at)))
            i += 1
    # four of a kind is rare: a seed where it falls (amsterdam-kbn scores it for every rank)
    games.append(to_events(simulate_game("t-kbn-four-of-a-kind", "amsterdam-kbn", seed=2018,
                                         faults=FAULTS, at=datetime(2026, 4, 4, 20, 0, tzinfo=UTC))))
    # a game still in progress: cut in the middle of round 3, dealt without hands (so the
    # legality of its plays is not known yet)
    full = simulate_game("t-unfinished", "amsterdam", seed=77, faults=FAULTS,
                         at=datetime(2026, 5, 5, 20, 0, tzinfo=UTC))
    deals = [k for k, e in enumerate(full) if e["type"] == "dealt"]
    full[deals[2]] = {k: v for k, v in full[deals[2]].items() if k != "hands"}
    games.append(to_events(full[:deals[2] + 20]))
    # a finished game with two referee rulings, one of them on a round as played
    ruled = simulate_game("t-ruled", "amsterdam", seed=78, faults=FAULTS,
                          at=datetime(2026, 6, 6, 20, 0, tzinfo=UTC))
    for rnd, score in ((2, [0, 182]), (5, [90, 72])):
        ruled.append({"game": "t-ruled", "seq": len(ruled), "type": "ruling", "round": rnd,
                      "score": score, "reason": f"referee decision on round {rnd}",
                      "at": "2026-06-06T23:59:00Z"})
    games.append(to_events(ruled))
    return games


@pytest.fixture(scope="session")
def corpus() -> list[list[Event]]:
    return make_corpus()


@pytest.fixture(scope="session")
def dataset(tmp_path_factory: pytest.TempPathFactory, corpus: list[list[Event]]) -> Path:
    """The corpus exported in small chunks (several row groups and files per partition)."""
    out = tmp_path_factory.mktemp("export") / "ds"
    export_games(corpus, out, chunk_games=7)
    return out


def iter_games(games: Sequence[list[Event]]) -> Iterator[list[Event]]:
    yield from games
