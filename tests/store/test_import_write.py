"""The import's write side (:mod:`jaslog.store.import_writer`): the collector kept paused
until the last write."""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest

from jaslog.play.sim import simulate_game
from jaslog.store import Store

#: One game of each kind, and one cut short in its third round (an open round).
KINDS = (("amsterdam", 3), ("klaberjass-2p", 4), ("kloepper", 5), ("rotterdam", 6))


def club() -> list[list[dict[str, Any]]]:
    games = []
    for i, (ruleset, seed) in enumerate(KINDS):
        seats = ["ann", "bob"] if ruleset.startswith("klaberjass") else None
        games.append(simulate_game(f"w-{i}", ruleset, seed=seed, seats=seats))
    games.append(simulate_game("w-cut", "amsterdam", seed=7)[:90])
    return games


def test_an_import_keeps_the_collector_paused_until_its_last_write(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between reading the last line and writing the last batch the collector stays paused:
    let run there, it would walk every row and fold the batch still holds."""
    from jaslog.store import importer

    made: list[importer.Importer] = []
    init = importer.Importer.__init__

    def keep(self: importer.Importer, *a: Any, **kw: Any) -> None:
        init(self, *a, **kw)
        made.append(self)

    monkeypatch.setattr(importer.Importer, "__init__", keep)
    held: list[int] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and made and made[0].validator.pending_events:
            held.append(made[0].validator.pending_events)

    lines = [json.dumps(e) for g in club() for e in g]
    assert gc.isenabled()
    gc.callbacks.append(watch)
    try:
        s = store.import_lines(lines, batch_games=100)  # one batch, written at the end
    finally:
        gc.callbacks.remove(watch)
    assert (s.games, s.rejected) == (5, []) and gc.isenabled()
    assert held == []
