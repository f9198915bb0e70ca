"""The folds a store keeps between appends are bounded by the memory they hold, not by a
count of games: a service with many live games keeps every one folded (no refold from the
database on each append), and a small budget keeps only the games appended to last."""

from __future__ import annotations

import pytest

from jaslog.store import Store
from jaslog.store.foldcache import EVENT_BYTES, cache_events
from tests.store.conftest import game_events

LIVE = 40  # more than the 32 games a count-bounded cache held


def _round_robin(store: Store, games: int, first: int, events: int) -> None:
    """``games`` games begun with ``first`` events each, then one event at a time to each
    game in turn up to ``events``."""
    logs = {f"live-{i}": game_events(f"live-{i}", seed=i) for i in range(games)}
    for gid, evs in logs.items():
        store.append(gid, evs[:first])
    for seq in range(first, events):
        for gid, evs in logs.items():
            store.append(gid, evs[seq:seq + 1], expected_seq=seq)


def test_every_live_game_stays_folded(store: Store) -> None:
    _round_robin(store, LIVE, 2, 4)
    assert len(store._folds) == LIVE
    assert all(n == 4 for n, *_ in store._folds.values())


def test_a_small_budget_keeps_the_games_appended_to_last(store: Store,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JASLOG_CACHE_MB", "1")
    assert cache_events() == 2**20 // EVENT_BYTES
    _round_robin(store, LIVE, 25, 27)
    kept = list(store._folds)
    assert sum(n for n, *_ in store._folds.values()) <= cache_events()
    assert 0 < len(kept) < LIVE and kept == [f"live-{i}" for i in range(LIVE - len(kept), LIVE)]
    # a game whose fold went is folded again from the database: the append is the same
    store.append("live-0", game_events("live-0", seed=0)[27:28], expected_seq=27)
    assert store.head("live-0").next_seq == 28 and list(store._folds)[-1] == "live-0"
