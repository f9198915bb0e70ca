"""What the reader and the writer share: the words of the notation, the order of each event's
fields, and cards, calls and suits read leniently.

Each event's words (its statement's word, its keywords and its arguments) are declared beside
its model (``words``, a :class:`jaslog.events.registry.Words`: the shared events' in
:mod:`jaslog.events`, a game's in ``jaslog/games/<g>/events.py``); the tables here are built
from the event registry on first use, and again when an event is registered.

>>> card("t♥"), card("10h"), card("♥J"), card("XX")
('10H', '10H', 'JH', None)
>>> call("Hearts"), call("PASS"), call("♠")
('H', 'pass', 'S')
>>> fields_of("sequence"), keyword(["knock", "back", "2"])
(('seat', 'cards'), ('knock_back', 2))
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, get_args

from jaslog.cards import CARD_TEXT, parse_card
from jaslog.events import IRREGULARITY_KINDS, Bid, Event, registry
from jaslog.events.registry import Words

#: The envelope's fields, in canonical order (``jaslog.events.Event``).
ENVELOPE: tuple[str, ...] = tuple(Event.model_fields)

#: The notation's own keyword (not an event's): ``Event {...}``, any event as its JSON.
EVENT_KEYWORD = "event"


def norm(word: str) -> str:
    """A keyword as compared: lower case, without ``-`` and ``_``.

    >>> norm("Knock-Back"), norm("second_deal")
    ('knockback', 'seconddeal')
    """
    return word.lower().replace("-", "").replace("_", "")


@dataclass(frozen=True)
class Table:
    """The notation's words, from the event registry: each type's ``fields`` after the
    envelope (in the model's order) and ``words``; ``phrases``: by a keyword's first word (as
    :func:`norm` gives it), the rest of each keyword that starts with it and its type,
    longest first."""

    fields: dict[str, tuple[str, ...]]
    words: dict[str, Words]
    phrases: dict[str, list[tuple[tuple[str, ...], str]]]


def _build() -> Table:
    fields: dict[str, tuple[str, ...]] = {}
    words: dict[str, Words] = {}
    phrases: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    owner: dict[tuple[str, ...], str] = {}
    for t, model in registry.models().items():
        fields[t] = tuple(f for f in model.model_fields if f not in ENVELOPE)
        w: Words = model.words  # type: ignore[attr-defined]
        words[t] = w
        for phrase in w.phrases():
            key = tuple(norm(x) for x in phrase.split())
            if not key:
                continue
            if key == (EVENT_KEYWORD,) or owner.get(key, t) != t:
                raise ValueError(f"the notation keyword {phrase!r} of {t!r} is "
                                 f"{owner.get(key, 'the notation')}'s already")
            owner[key] = t
            phrases.setdefault(key[0], []).append((key[1:], t))
    for found in phrases.values():
        found.sort(key=lambda p: -len(p[0]))
    return Table(fields, words, phrases)


_TABLE: list[Table] = []


def table() -> Table:
    """The notation's words (built from the registry on first use)."""
    if not _TABLE:
        _TABLE.append(_build())
    return _TABLE[0]


registry.on_change(_TABLE.clear)


def fields_of(event_type: object) -> tuple[str, ...]:
    """An event type's own fields after the envelope, in canonical order (() if unknown)."""
    return table().fields.get(event_type, ()) if isinstance(event_type, str) else ()


def words_of(event_type: object) -> Words | None:
    """An event type's words, or None for a type not registered."""
    return table().words.get(event_type) if isinstance(event_type, str) else None


def keyword(tokens: Sequence[str]) -> tuple[str, int] | None:
    """The event type the words ``tokens`` open (a statement's keyword, one word or more) and
    how many of them the keyword takes; None when the first is no keyword."""
    found = table().phrases.get(norm(tokens[0])) if tokens else None
    for rest, t in found or ():
        if tuple(norm(x) for x in tokens[1:1 + len(rest)]) == rest:
            return t, 1 + len(rest)
    return None


class _Fields(Mapping[str, tuple[str, ...]]):
    """Each event type's own fields after the envelope, in canonical order (the models')."""

    def __getitem__(self, key: str) -> tuple[str, ...]:
        return table().fields[key]

    def __iter__(self) -> Iterator[str]:
        return iter(table().fields)

    def __len__(self) -> int:
        return len(table().fields)


#: Each event type's own fields after the envelope, in canonical order (the models' order).
FIELDS: Mapping[str, tuple[str, ...]] = _Fields()

#: How the writer words a claim by what it gives (a claim read from ``Concede`` gives the
#: rest to the others).
CLAIM_WORDS = {"rest_to_claimer": "Claim", "rest_to_opponents": "Concede"}

#: The tags of a game's ``game_started`` and of the section, by their key as read (lower case,
#: ``-`` and ``_`` dropped); every other tag is a ``meta`` entry.
TAGS = {"game": "Game", "ruleset": "Ruleset", "options": "Options", "seats": "Seats",
        "dealer": "Dealer", "at": "At", "recordedat": "RecordedAt", "id": "Id", "seq": "Seq",
        "meta": "Meta"}

#: A bid's calls that are words (the others are suits), from the model's ``call``.
CALLS = tuple(c for c in get_args(Bid.model_fields["call"].annotation) if len(c) > 1)
SUITS = "CDHS"
_SUIT_WORDS = {"c": "C", "d": "D", "h": "H", "s": "S", "♣": "C", "♦": "D", "♥": "H", "♠": "S",
               "♧": "C", "♢": "D", "♡": "H", "♤": "S", "clubs": "C", "diamonds": "D",
               "hearts": "H", "spades": "S"}

#: A word the writer can leave bare (a ``result``): else it is written as a JSON string.
BARE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")

_CARDS: dict[str, str | None] = {t: t for t in CARD_TEXT}
_TURNED_RANKS = {"2", "3", "4", "5", "6"}


def card(text: str) -> str | None:
    """The canonical text of a card written leniently (``T`` or ``10``, any case, a suit
    letter or symbol, the suit first or last), or None."""
    got = _CARDS.get(text, "")
    if got != "":
        return got
    try:
        c: str | None = CARD_TEXT[parse_card(text, lenient=True)] if len(text) <= 4 else None
    except ValueError:
        c = None
    if len(_CARDS) < 10_000:  # a cache of what was read, bounded against odd input
        _CARDS[text] = c
    return c


def turned_card(text: str) -> str | None:
    """A card of the separate pack that proposes trumps (ranks 2 to A), or None.

    >>> turned_card("4h"), turned_card("jh"), turned_card("1H")
    ('4H', 'JH', None)
    """
    c = card(text)
    if c is not None:
        return c
    t = text.upper()
    if len(t) == 2 and t[0] in _TURNED_RANKS:
        s = _SUIT_WORDS.get(t[1].lower())
        if s is not None:
            return t[0] + s
    return None


def suit(text: str) -> str | None:
    """A suit letter from a letter, a symbol or an English name, any case, or None.

    >>> suit("h"), suit("♣"), suit("Spades"), suit("x")
    ('H', 'C', 'S', None)
    """
    return _SUIT_WORDS.get(text.lower())


def call(text: str) -> str | None:
    """A bid's call (``pass``, ``take``... or a suit letter), or None.

    >>> call("Schmeiss"), call("d"), call("double")
    ('schmeiss', 'D', None)
    """
    low = text.lower()
    if low in CALLS:
        return low
    return suit(text)


def irregularity_kind(text: str) -> str | None:
    """An irregularity's kind, with ``-`` or ``_`` between its words, any case, or None.

    >>> irregularity_kind("Exposed-Card"), irregularity_kind("dropped")
    ('exposed_card', None)
    """
    k = text.lower().replace("-", "_")
    return k if k in IRREGULARITY_KINDS else None


def choice(values: Sequence[str]) -> Any:
    """A reader of one of ``values`` (a model field's ``Literal``): a card among them written
    leniently, or a word among them in any case.

    >>> read = choice(("AC", "AD", "AH", "AS", "alone"))
    >>> read("a♠"), read("ALONE"), read("KS")
    ('AS', 'alone', None)
    """
    words = {v.lower(): v for v in values}

    def read(text: str) -> str | None:
        got = words.get(text.lower())
        if got is not None and card(got) is None:
            return got
        c = card(text)
        return c if c in values else None

    return read


def choice_values(event_type: str, field: str) -> tuple[str, ...]:
    """The values a field of an event type may take (its ``Literal``)."""
    return get_args(registry.models()[event_type].model_fields[field].annotation)


def choices(event_type: str, field: str) -> Any:
    """A reader of the values a field of an event type may take (:func:`choice`)."""
    return choice(choice_values(event_type, field))
