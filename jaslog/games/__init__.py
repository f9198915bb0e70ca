"""The registry of games: :data:`GAMES` by name, and what is looked up by a ruleset's name.

Adding a game is one package under ``jaslog/games/`` declaring its :class:`~jaslog.engine.game.Game`
(its own events in its ``events.py``) and one line here. :func:`register` puts a game in
every table here and its events and presets' names in the event registry
(:mod:`jaslog.events.registry`), which imports this package on first use: the registry is
complete before the first event is parsed.
A game may also be registered at run time and taken out again (:func:`register`,
:func:`unregister`): the test suite's toy game (``tests/games/toy/``) is registered so.

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
from typing import Any, Literal

from jaslog.engine.game import Game
from jaslog.engine.options import Option, OptionError, parse_value
from jaslog.events import registry
from jaslog.games.klaberjass import GAME as KLABERJASS
from jaslog.games.klaverjas import GAME as KLAVERJAS
from jaslog.games.kloepper import GAME as KLOEPPER

#: Every game, by name, in the order they are listed everywhere.
GAMES: dict[str, Game] = {}

#: Every game's presets, by name (a preset's ``game`` option names its game).
PRESETS: dict[str, Mapping[str, Any]] = {}

#: Every game's option catalogue, by game name.
CATALOGUES: dict[str, Mapping[str, Option]] = {}


def register(game: Game) -> None:
    """Add ``game`` to :data:`GAMES`, :data:`PRESETS` and :data:`CATALOGUES`, and its events
    and presets' names to the event registry (a game added again changes nothing; another
    game of the same name is refused, ``ValueError``)."""
    known = GAMES.get(game.name)
    if known is game:
        return
    if known is not None:
        raise ValueError(f"a game called {game.name!r} is registered already")
    clash = sorted(set(game.presets) & set(PRESETS))
    if clash:
        raise ValueError(f"game {game.name!r}: preset {clash[0]!r} is another game's already")
    registry.register(*game.events, rulesets=tuple(game.presets))
    GAMES[game.name] = game
    PRESETS.update(game.presets)
    CATALOGUES[game.name] = game.options


for _game in (KLAVERJAS, KLABERJASS, KLOEPPER):
    register(_game)

#: A field that names a ruleset (an API model's), checked against the presets of the games
#: registered when the module is imported.
Ruleset = Literal[tuple(PRESETS)]  # type: ignore[valid-type]


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


def unregister(game: Game) -> None:
    """Take ``game``, added by :func:`register`, out of every table here and its events and
    presets' names out of the event registry (a game not registered is ``ValueError``)."""
    if GAMES.get(game.name) is not game:
        raise ValueError(f"game {game.name!r} is not registered")
    del GAMES[game.name]
    for preset in game.presets:
        PRESETS.pop(preset, None)
    CATALOGUES.pop(game.name, None)
    registry.unregister(*game.events, rulesets=tuple(game.presets))


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


__all__ = ["CATALOGUES", "GAMES", "PRESETS", "Ruleset", "UnknownGame", "game_of", "get_game",
           "parse_option_text", "register", "resolve", "unregister"]
