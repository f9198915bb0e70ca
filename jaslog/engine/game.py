"""The ``Game`` contract: everything that differs between games, declared in one place.

Each game's package (``jaslog.games.<name>``) declares one :class:`Game`; the registry
``jaslog.games.GAMES`` lists them. A layer never branches on a game's name: it reads what
the game declares here (how many players, team or player scoring, which results count as
won, which rules-oracle questions it answers), calls the game's pure parts (its fold, its
round report, its visibility rule (``seat_view`` for the table, ``redact_event`` for
an event), its simulator, its oracle), or loads
the game's adapter for that layer by name (:meth:`Game.adapter`: ``export``, ``render``,
``record``, ``solver``), which keeps the games below the layers that adapt them. A game
declares the adapters it has (:attr:`Game.adapters`); a layer asking for another is refused
with ``not_supported``.

>>> from jaslog.games import get_game
>>> g = get_game("klaberjass")
>>> g.players, g.scoring, g.round_word, "made" in g.won
(2, 'players', 'deal', True)
>>> g.adapter("render").__name__
'jaslog.games.klaberjass.render'
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal, Protocol

from jaslog.engine.fold import GameFold
from jaslog.engine.options import Option
from jaslog.engine.sim import Faults
from jaslog.engine.view import Frame, RedactEvent, SeatView
from jaslog.errors import JaslogError
from jaslog.events import Event

#: The layers that load a game's adapter by name (a module of the game's package each);
#: ``solver`` serves the analysis (``jaslog.analysis``).
ADAPTERS = ("export", "render", "record", "solver")


class NoAdapter(JaslogError, LookupError):
    """A layer that games do not adapt to (see :data:`ADAPTERS`)."""

    code = "no_adapter"


class NotSupported(JaslogError, LookupError):
    """A layer a game declares no adapter for (``Game.adapters``): "toy has no solver"."""

    code = "not_supported"


class Simulator(Protocol):
    """One game's events (dicts, in seq order, without ``at``) from its settings."""

    def __call__(self, game_id: str, ruleset: str, options: dict[str, Any] | None, *,
                 rng: random.Random, seats: list[str] | None, bot: str,
                 faults: Faults) -> Iterator[dict[str, Any]]: ...


#: A round report: every round of a folded game for ``check --json`` (the referee's view):
#: ``report(fold, outcomes)``, ``outcomes`` being ``fold.state.outcomes()``, which the audit
#: works out once for the report, the round facts, the totals and the winner.
RoundReport = Callable[[GameFold, Sequence[Any]], list[dict[str, Any]]]
#: The fields of a round's dealing events that a deck gives: ``deal_from_deck(deck, dealer)``.
DealFromDeck = Callable[[Sequence[str], int], dict[str, dict[str, Any]]]
#: A rules-oracle answer: ``answer(op, query, options)``.
Answer = Callable[[str, dict[str, Any], dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Game:
    """One game of the family, as every layer sees it."""

    #: the name in logs, options and the registry (``klaverjas``)
    name: str
    #: the name for people (``Klaverjas``)
    title: str
    players: int
    #: ``teams`` (two partnerships, scores per team) or ``players`` (scores per seat)
    scoring: Literal["teams", "players"]
    #: what one round is called in messages (``round``, ``deal``)
    round_word: str
    fold: type[GameFold]
    #: the option catalogue and the named presets (rule book section 7)
    options: Mapping[str, Option]
    presets: Mapping[str, Mapping[str, Any]]
    resolve: Callable[[str, Mapping[str, Any] | None], dict[str, Any]]
    report: RoundReport
    #: the game's one visibility rule for the table: ``seat_view(fold, viewer, secret=...)``
    #: as a seat, the referee (None) or the public (:data:`jaslog.engine.view.PUBLIC`) may
    #: see it (:class:`jaslog.engine.view.SeatView`); every secret of the game (a hand, an
    #: awaited call, a verdict on a declaration, the sides) is decided there
    seat_view: SeatView
    #: the viewer's frame of the table: ``frame(fold, seat, hidden, head)``, composed from
    #: ``seat_view`` (:func:`jaslog.engine.view.secret_view`; ``hidden``: the round is
    #: secret to the sight, ``seat`` None then the public)
    frame: Callable[[GameFold, int | None, bool, GameFold], Frame]
    #: the report's entry of a secret round as a seat (None: the public) may see it:
    #: ``report_round(entry, head, seat, live)``, the game's keys over what every game's
    #: entry keeps (:func:`jaslog.engine.view.live_round`, :func:`~jaslog.engine.view.ended_round`)
    report_round: Callable[[dict[str, Any], GameFold, int | None, bool], dict[str, Any]]
    #: the game's one rule of what a sight sees of an event: ``redact_event(event, sight,
    #: seen)`` (:class:`jaslog.engine.view.Seen`); every route that shows events (the views,
    #: the API, ``replay --seat``, a shared log) composes what it returns
    redact_event: RedactEvent
    #: a reported round's roem: (scored, held on the table or None); None: the game has none
    roem_of: Callable[[dict[str, Any]], tuple[int, int | None]] | None
    simulate: Simulator
    #: the rules oracle's questions (``rules --batch`` ops) and their answers; a game may
    #: answer none (its rulesets are then refused every op but ``solve``)
    oracle_ops: tuple[str, ...]
    answer: Answer
    #: a round's results that count as won, lost and tied by the playing side
    won: frozenset[str]
    lost: frozenset[str]
    tied: frozenset[str]
    #: the pack's cards (canonical text), and the cards a deck gives each event of a round
    #: dealt from it in the game's documented order (rule book 9.3, decision 20):
    #: ``deal_from_deck(deck, dealer)`` -> ``{event type: {field: value}}``
    pack: tuple[str, ...]
    deal_from_deck: DealFromDeck
    #: how a score query of the oracle looks, for a command that cannot score this game
    score_example: str = ""
    #: a round recorded by its score alone (rule book 9.1, decision 11) in the report: the
    #: keys that take the roem the sheet gives, and the keys it cannot know (null)
    score_only_roem: tuple[str, ...] = ()
    score_only_unknown: tuple[str, ...] = ()
    #: the game's own event models (``games/<g>/events.py``), which it registers beside the
    #: shared events (:mod:`jaslog.events.registry`) with its presets' names
    events: tuple[type[Event], ...] = ()
    #: a round's roem per side (team or seat) from its outcome (``state.outcomes()``), for
    #: the round facts the store keeps beside the events (:mod:`jaslog.store.projection`);
    #: None: the game has no roem
    outcome_roem: Callable[[Any], list[int]] | None = None
    #: what the export's ``rounds`` row of each round reads of the fold (its game's own
    #: list of plain values, None for a round it has none of), from the state and its
    #: ``outcomes()``, kept beside the round facts (``round_facts.detail``) so a stored game
    #: is exported without folding it again; None: the game keeps none (its games are
    #: folded to be exported)
    round_details: Callable[[Any, Any], list[list[Any] | None]] | None = None
    #: the package its adapters are imported from (default ``jaslog.games.<name>``; a game
    #: registered at run time, such as the test suite's toy, names its own)
    package: str = field(default="")
    #: the layers the game adapts to (a module of its package each): every one of
    #: :data:`ADAPTERS` unless it declares fewer (a game with no recorder words or no
    #: solver); a layer asked for an adapter the game lacks refuses with ``not_supported``
    adapters: frozenset[str] = frozenset(ADAPTERS)

    def __post_init__(self) -> None:
        if not self.package:
            object.__setattr__(self, "package", f"jaslog.games.{self.name}")

    def supports(self, layer: str) -> bool:
        """Whether the game declares an adapter for ``layer`` (see :attr:`adapters`)."""
        return layer in self.adapters

    def adapter(self, layer: str) -> ModuleType:
        """The game's module for ``layer`` (one of :data:`ADAPTERS`), imported on first use;
        :class:`NotSupported` when the game declares none for it."""
        if layer not in ADAPTERS:
            raise NoAdapter(f"{layer!r} is not an adapter layer ({', '.join(ADAPTERS)})")
        if layer not in self.adapters:
            raise NotSupported(f"{self.name} has no {layer} (it declares "
                               f"{', '.join(a for a in ADAPTERS if a in self.adapters) or 'none'})")
        return importlib.import_module(f"{self.package}.{layer}")
