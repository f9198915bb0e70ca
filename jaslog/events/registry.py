"""The registry of event types: the shared events and every game's own, and the rulesets.

``jaslog/1`` has shared events (``jaslog.events``: ``game_started``, ``dealt``, ``bid``,
``play``...) and each game's own (``jaslog/games/<g>/events.py``: Klaberjass's ``dix``,
Kloepper's ``knock``...). The shared events register here when ``jaslog.events`` is
imported; a game registers its events and its presets' names (the rulesets a
``game_started`` may name) when the games registry (``jaslog.games``) registers the game.
The union of every event (``jaslog.events.AnyEvent``), ``EVENT_MODELS`` and the ruleset
check are built from what is registered, on first use.

``jaslog.events`` sits below ``jaslog.games`` and never imports it by name: the one hook
:func:`load_games` imports the games package (by its name, :data:`GAMES_PACKAGE`) the first
time the registry is read, so that the registry is complete before the first event is
parsed, whichever layer parses it. A game (or a test's toy game) registered later is taken
in too: registering drops what was built, and it is built again on next use.

>>> "dix" in models() and "amsterdam" in rulesets()
True
>>> words("knock_back").word, [a.field for a in words("sequence").args]
('Knock back', ['seat', 'cards'])
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:
    from jaslog.events import Event

#: The package whose import registers every game (``jaslog.games``), imported by
#: :func:`load_games`: named here, not imported, as ``jaslog.events`` sits below it.
GAMES_PACKAGE = "jaslog.games"

#: What an argument of a statement is, in the notation (``docs/notation.md``): a seat (a
#: number or a player's name), a whole number, a card (of the 32-card pack), a card of a full
#: pack (2 to A: a turned card of random trump), some cards (none or more), or one of the
#: values the model's field allows (a ``Literal``: cards read leniently, words in any case).
ArgKind = Literal["seat", "int", "card", "full_card", "cards", "choice"]


@dataclass(frozen=True)
class Arg:
    """One argument of an event's statement: the ``field`` it fills and its ``kind``.

    ``what`` is what the reader says it expected when the argument is missing or wrong (the
    default: the kind's own words), and ``example`` an example of the statement it adds when
    the argument is wrong; ``word``, a word that comes before the value (``bottom`` in
    ``Second deal bottom KD``): when it is missing, the reader says it expected ``what``.
    ``least``: the fewest values of ``cards``."""

    field: str
    kind: ArgKind
    what: str = ""
    word: str = ""
    least: int = 0
    example: str = ""


@dataclass(frozen=True)
class Words:
    """An event's words: its statement in the notation and its keyword(s).

    ``word`` is how the writer opens its statement (``Second deal``); ``keywords`` what the
    reader takes for it, each one word or several (compared in lower case, ``-`` and ``_``
    dropped: ``second deal``, ``seconddeal``), ``word`` among them. ``args`` are the
    statement's arguments in order; a field that is not among them is written as an
    annotation (``{...}``). ``hands``: the deal's hand lines (``0: 9C JC ...``) may follow
    its statement. ``trick``: the statement may also be written on a trick's line after its
    plays, ``"in"`` (more plays may follow: a bella) or ``"closes"`` (the line ends there: a
    roem). ``custom``: the notation reads and writes the event by its own code (the shared
    events with a form of their own: ``dealt``, ``bid``, ``note``...); its keywords still
    come from here."""

    word: str
    keywords: tuple[str, ...] = ()
    args: tuple[Arg, ...] = ()
    hands: bool = False
    trick: Literal["", "in", "closes"] = ""
    custom: bool = False

    def phrases(self) -> tuple[str, ...]:
        """Every keyword, the writer's word first, without repeats."""
        out = [self.word.lower()]
        out.extend(k for k in self.keywords if k not in out)
        return tuple(out)


@dataclass
class _Registry:
    models: dict[str, type[Event]] = field(default_factory=dict)
    rulesets: list[str] = field(default_factory=list)
    loaded: bool = False
    #: what is built from the registry, dropped when it changes
    listeners: list[Callable[[], None]] = field(default_factory=list)


_REG = _Registry()


def event_type(model: type[Event]) -> str:
    """The ``type`` an event model stands for (its ``type`` field's one literal)."""
    args = get_args(model.model_fields["type"].annotation)
    if len(args) != 1 or not isinstance(args[0], str):
        raise TypeError(f"{model.__name__}.type must be one Literal text, the event's type")
    return args[0]


def register(*models: type[Event], rulesets: tuple[str, ...] | list[str] = ()) -> None:
    """Add event models (each must carry its :class:`Words` as ``words``) and ruleset names.
    Registering the same model again changes nothing; another model for a type already
    registered is refused (``ValueError``)."""
    changed = False
    for m in models:
        t = event_type(m)
        known = _REG.models.get(t)
        if known is m:
            continue
        if known is not None:
            raise ValueError(f"event type {t!r} is registered twice ({known.__name__} and "
                             f"{m.__name__})")
        if not isinstance(getattr(m, "words", None), Words):
            raise TypeError(f"{m.__name__} declares no words (a ClassVar[Words])")
        _REG.models[t] = m
        changed = True
    for r in rulesets:
        if r not in _REG.rulesets:
            _REG.rulesets.append(r)
            changed = True
    if changed:
        for drop in _REG.listeners:
            drop()


def unregister(*models: type[Event], rulesets: tuple[str, ...] | list[str] = ()) -> None:
    """Take event models and ruleset names out again (a game registered for a while, as
    the test suite's toy game is); what is not registered is passed over."""
    changed = False
    for m in models:
        t = event_type(m)
        if _REG.models.get(t) is m:
            del _REG.models[t]
            changed = True
    for r in rulesets:
        if r in _REG.rulesets:
            _REG.rulesets.remove(r)
            changed = True
    if changed:
        for drop in _REG.listeners:
            drop()


def on_change(drop: Callable[[], None]) -> None:
    """Call ``drop`` whenever the registry changes (to drop what was built from it)."""
    _REG.listeners.append(drop)


def load_games() -> None:
    """The one hook that makes the registry complete: import the games package (which
    registers every game) the first time it is needed. Every reader of the registry calls it;
    a parse while the games are being imported sees what is registered so far (and the next
    registration drops what it built)."""
    if _REG.loaded:
        return
    _REG.loaded = True
    try:
        importlib.import_module(GAMES_PACKAGE)
    except BaseException:
        _REG.loaded = False
        raise


def models() -> dict[str, type[Event]]:
    """Every event model by its type, shared events first, then each game's in the order the
    games registered."""
    load_games()
    return _REG.models


def rulesets() -> tuple[str, ...]:
    """Every ruleset (a game's preset) a ``game_started`` may name, in registration order."""
    load_games()
    return tuple(_REG.rulesets)


def words(event_type: str) -> Words:
    """The words of an event type (``KeyError`` for a type not registered)."""
    return models()[event_type].words  # type: ignore[attr-defined, no-any-return]


class ModelsView(Mapping[str, "type[Event]"]):
    """Every event model by its type (:func:`models`), read live: the registry as a mapping
    that is complete whenever it is read."""

    def __getitem__(self, key: str) -> type[Event]:
        return models()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(models())

    def __len__(self) -> int:
        return len(models())

    def __contains__(self, key: object) -> bool:
        return key in models()

    def __repr__(self) -> str:
        return f"EVENT_MODELS({', '.join(models())})"


def literal_rulesets() -> Any:
    """The ``Literal`` of every ruleset (for a model or API field that names one)."""
    return Literal[rulesets()]  # type: ignore[valid-type]
