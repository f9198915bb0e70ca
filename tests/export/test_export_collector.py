"""The cycle collector during an export: paused throughout (no automatic collection walks
what the export holds), the young objects swept at the end of a chunk only once many more
are alive than after the last sweep (a chunk makes next to no cycles)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from jaslog.events import Event
from jaslog.export import dataset, export_games


@contextmanager
def collections() -> Iterator[list[int]]:
    """The generation of each collection run meanwhile (automatic or asked for)."""
    seen: list[int] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)


def test_an_export_sweeps_no_generation_but_the_youngest(corpus: list[list[Event]],
                                                         tmp_path: Path) -> None:
    """No collection runs while the export does: the youngest generation is swept once, as
    the collector resumes (the objects the export left alive, seen once)."""
    assert gc.isenabled()
    gc.collect()
    with collections() as seen:
        result = export_games(corpus, tmp_path / "ds", chunk_games=7)
    assert result.games_added == len(corpus)
    assert seen in ([], [0])
    assert gc.isenabled()


def test_a_chunk_sweeps_past_the_budget(corpus: list[list[Event]], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dataset, "COLLECT_AFTER", 0)
    with collections() as seen:
        export_games(corpus, tmp_path / "ds", chunk_games=7)
    chunks = -(-len(corpus) // 7)
    assert seen.count(1) >= chunks
    assert gc.isenabled()
