"""The registry of games: :data:`GAMES` by name, and what is looked up by a ruleset's name.

Adding a game is one package under ``jaslog/games/`` declaring its :class:`~jaslog.engine.game.Game`
and one line here. A game may also be registered at run time (:func:`register_game`, undone
by :func:`unregister_game`): the test suite's toy game lives in ``tests/games/toy/`` so.

>>> list(GAMES)
['klaverjas', 'klaberjass', 'kloepper']
>>> get_game("skat")
Traceback (most recent call last):
...
jaslog.games.UnknownGame: unknown game 'skat'; the games are klaverjas, klaberjass, kloepper
>>> game_of("rotterdam"), resolve("rotterdam", {"tie_is_failure": False})["play"]
('klaverjas', 'rotterdam')
>>> resolve("amsterdam", {"play": "paris"})
Traceback (most recent call last):
...
jaslog.engine.options.OptionError: option 'play' must be one of amsterdam, rotterdam, not 'paris'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jaslog.engine.game import Game
from jaslog.engine.options import Option, OptionError, parse_value
from jaslog.events import Event, register_events, unregister_events
from jaslog.games.klaberjass import GAME as KLABERJASS
from jaslog.games.klaverjas import GAME as KLAVERJAS
from jaslog.games.kloepper import GAME as KLOEPPER

#: Every game, by name, in the order they are listed everywhere.
GAMES: dict[str, Game] = {g.name: g for g in (KLAVERJAS, KLABERJASS, KLOEPPER)}

#: Every game's presets, by name (a preset's ``game`` option names its game).
PRESETS: dict[str, Mapping[str, Any]] = {name: p for g in GAMES.values() for name, p in g.presets.items()}

#: Every game's option catalogue, by game name.
CATALOGUES: dict[str, Mapping[str, Option]] = {name: g.options for name, g in GAMES.items()}


class UnknownGame(OptionError):
    """A game name that is not in :data:`GAMES`."""


def get_game(name: str) -> Game:
    """The game called ``name``, or :class:`UnknownGame`."""
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r}; the games are {', '.join(GAMES)}") from None


def game_of(ruleset: str) -> str:
    """The game a preset belongs to (``klaverjas``, ``klaberjass`` or ``kloepper``)."""
    try:
        return str(PRESETS[ruleset]["game"])
    except KeyError:
        raise OptionError(
            f"unknown ruleset {ruleset!r}; the presets are {', '.join(PRESETS)}") from None


def resolve(ruleset: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The full, checked options of a game: its preset with ``overrides`` applied."""
    return GAMES[game_of(ruleset)].resolve(ruleset, overrides)


def register_game(game: Game, events: tuple[type[Event], ...] = ()) -> None:
    """Add ``game`` to the registry at run time: to :data:`GAMES`, its presets to
    :data:`PRESETS`, its options to :data:`CATALOGUES`, and its own ``events`` and its
    presets' names to the event format (:func:`jaslog.events.register_events`). A game of
    that name, or a preset already known, is refused (``ValueError``)."""
    if game.name in GAMES:
        raise ValueError(f"game {game.name!r} is already registered")
    taken = sorted(set(game.presets) & set(PRESETS))
    if taken:
        raise ValueError(f"presets {', '.join(taken)} are already another game's")
    GAMES[game.name] = game
    PRESETS.update(game.presets)
    CATALOGUES[game.name] = game.options
    register_events(events, game.presets)


def unregister_game(game: Game, events: tuple[type[Event], ...] = ()) -> None:
    """Take a game added by :func:`register_game` out of the registry again."""
    if GAMES.get(game.name) is not game:
        raise ValueError(f"game {game.name!r} is not registered")
    del GAMES[game.name]
    for preset in game.presets:
        PRESETS.pop(preset, None)
    CATALOGUES.pop(game.name, None)
    unregister_events(events, game.presets)


def parse_option_text(ruleset: str, text: str) -> tuple[str, Any]:
    """Read ``KEY=VALUE`` as typed on a command line into a checked (key, value).

    >>> parse_option_text("amsterdam", "game_end=target:1500")
    ('game_end', {'type': 'target', 'points': 1500})
    >>> parse_option_text("amsterdam", "roem.four_kind_ranks=A,K,Q,T,9")
    ('roem.four_kind_ranks', ['A', 'K', 'Q', '10', '9'])
    """
    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key:
        raise OptionError(f"{text!r}: write an option as KEY=VALUE")
    return key, parse_value(GAMES[game_of(ruleset)].options.get(key), key, raw)


__all__ = ["CATALOGUES", "GAMES", "PRESETS", "UnknownGame", "game_of", "get_game",
           "parse_option_text", "register_game", "resolve", "unregister_game"]
