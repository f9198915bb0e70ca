"""The toy game is in the registry only while its tests run: registered for this folder's
tests (with its event and its preset) and taken out after, leaving the process as found."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jaslog.games import register_game, unregister_game
from tests.games.toy import GAME
from tests.games.toy.events import EVENTS


@pytest.fixture(scope="package", autouse=True)
def toy_registered() -> Iterator[None]:
    register_game(GAME, EVENTS)
    yield
    unregister_game(GAME, EVENTS)
