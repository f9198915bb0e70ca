"""The registry of games: one lookup, one error, and the lists derived from it."""

from __future__ import annotations

import pytest

from jaslog.engine.options import OptionError
from jaslog.errors import JaslogError
from jaslog.events import RULESETS
from jaslog.games import GAMES, PRESETS, UnknownGame, game_of, get_game


def test_the_event_format_names_every_preset_of_every_game() -> None:
    """A log's ``ruleset`` is one of the format's names; each is a preset of a registered game."""
    assert list(RULESETS) == list(PRESETS)
    assert {game_of(r) for r in RULESETS} == set(GAMES)


def test_an_unknown_game_is_one_plain_error() -> None:
    with pytest.raises(UnknownGame, match="unknown game 'skat'; the games are klaverjas, "
                       "klaberjass, kloepper") as e:
        get_game("skat")
    assert isinstance(e.value, JaslogError) and isinstance(e.value, OptionError)


def test_presets_belong_to_their_game_and_are_unique() -> None:
    seen: set[str] = set()
    for g in GAMES.values():
        assert GAMES[g.name] is get_game(g.name)
        for name, preset in g.presets.items():
            assert preset["game"] == g.name and name not in seen
            seen.add(name)
