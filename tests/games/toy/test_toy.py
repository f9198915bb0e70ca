"""The toy game through the contract and the product: registered at run time (``conftest``),
it passes the contract test and is checked, replayed, dumped as text, exported to Parquet
and served by the API like every game, though no file outside this folder names it."""

from __future__ import annotations

import pytest

from jaslog.games import GAMES, PRESETS
from tests.games.test_contract import GameContract
from tests.games.toy import GAME


@pytest.mark.parametrize("game", [GAME], ids=["toy"])
class TestToyContract(GameContract):
    """The contract test's class, over the toy."""


def test_the_toy_is_registered_while_its_tests_run() -> None:
    assert GAMES["toy"] is GAME and PRESETS["toy"]["game"] == "toy"
