"""The toy game is in the registry only while its tests run: registered for this folder's
tests (with its event and its preset) and taken out after, leaving the process as found."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jaslog.games import register, unregister
from tests.games.toy import GAME


@pytest.fixture(scope="package", autouse=True)
def toy_registered() -> Iterator[None]:
    register(GAME)
    yield
    unregister(GAME)
