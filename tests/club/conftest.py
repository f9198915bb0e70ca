"""The club's season (tests/club/season.py), stored and exported once per module; the
service on the same store, answering from the export."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from jaslog.export import export_store
from jaslog.store import open_store
from tests.club.season import ClubGame, make_club
from tests.service.conftest import browser  # noqa: F401 (the headless Chromium fixture)
from tests.service.inprocess import Live, live_service


@dataclass
class Season:
    db: Path
    dataset: Path
    games: list[ClubGame]


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Season:
    tmp = tmp_path_factory.mktemp("club")
    db = tmp / "service.sqlite"
    games = make_club(db)
    with open_store(str(db), create=False) as store:
        export_store(store, tmp / "parquet")
    return Season(db, tmp / "parquet", games)


@pytest.fixture(scope="module")
def live(season: Season) -> Iterator[Live]:
    """The service on the season's store, its statistics from the season's export."""
    with live_service(season.db.parent, players=["ann"]) as lv:
        lv.app.state.dataset = season.dataset
        yield lv
