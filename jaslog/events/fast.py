"""The hot path of bulk reading: a ``play`` line already in canonical form, read by one regex.

Nine events in ten are plays. When a line is exactly the canonical ``jaslog/1`` text of a
play (the bytes :func:`jaslog.events.canonical_json` writes: keys in model order, no spaces,
no escapes), one anchored regular expression checks every field as the model does (the game
id, seq, ``at``, ``id`` and ``recorded_at`` patterns, a seat 0-3, a card), and the line itself is the event's
canonical payload: no model to build, no JSON to write again. Any other line, or any doubt,
returns None and goes through :func:`jaslog.events.parse_event` as before, so this path can
only be faster, never more lenient (``tests/test_events_fast.py`` checks that it accepts
nothing the model refuses and gives the same fields and bytes).

>>> p = fast_play(b'{"game":"g1","seq":4,"type":"play","seat":2,"card":"10H"}\\n')
>>> p.game, p.seq, p.type, p.seat, p.card, p.at, p.id
('g1', 4, 'play', 2, '10H', None, None)
>>> p.payload
b'{"game":"g1","seq":4,"type":"play","seat":2,"card":"10H"}'
>>> fast_play(b'{"game": "g1", "seq": 4, "type": "play", "seat": 2, "card": "10H"}') is None
True
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any

from jaslog.events import AT_PATTERN

_GAME = rb'(?!\.\.?")[A-Za-z0-9._:-]{1,128}'  # not . nor .. (jaslog.events.limits.NOT_IDS)
_SEQ = rb"0|[1-9][0-9]{0,17}"
_AT = AT_PATTERN.removeprefix("^").removesuffix("$").encode()
_ID = rb"[0-9a-fA-F]{8}-?(?:[0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}"
_CARD = rb"(?:7|8|9|10|J|Q|K|A)[CDHS]"

_PLAY = re.compile(
    rb'(\{"game":"(' + _GAME + rb')","seq":(' + _SEQ + rb'),"type":"play"'
    rb'(?:,"at":"(' + _AT + rb')")?(?:,"id":"(' + _ID + rb')")?'
    rb'(?:,"recorded_at":"(' + _AT + rb')")?'
    rb',"seat":([0-3]),"card":"(' + _CARD + rb')"\})(?:\r?\n)?')

#: :data:`_PLAY` as a text pattern: the text of a line decoded as Latin-1 (each byte one
#: character, so a match's offsets are the bytes' own) matches it exactly when the line's
#: bytes match :data:`_PLAY` (the pattern names ASCII characters only), and the groups come
#: as text, none decoded one by one (the import's reader: :mod:`jaslog.store.importer`).
PLAY_TEXT = re.compile(_PLAY.pattern.decode("ascii"))


class FastPlay:
    """A ``play`` event read by :func:`fast_play` (or by the store from its columns): the
    fields the fold and the store read, and ``payload``, its canonical bytes (a play the store
    read writes them only when asked: a fold never asks). Its ``__dict__`` holds the fields as
    a model's does (plus ``payload`` once it is there), for readers that take an event's
    fields as a dict (the export)."""

    type: str

    def __init__(self, game: str, seq: int, seat: int, card: str, at: str | None,
                 id: str | None, payload: bytes | None, recorded_at: str | None = None) -> None:
        self.game, self.seq, self.type, self.seat, self.card = game, seq, "play", seat, card
        self.at, self.id, self.recorded_at = at, id, recorded_at
        if payload is not None:
            self.payload = payload

    @cached_property
    def payload(self) -> bytes:
        """The canonical bytes of a play made from its fields alone (``payload`` None: a play
        the store read from its columns), written when first asked for and kept in its
        ``__dict__`` (a value there is read before this is asked: a cached property, not
        ``__getattr__``, which would slow the reading of every other field).

        >>> p = FastPlay("g1", 4, 2, "10H", None, None, None)
        >>> "payload" in p.__dict__, p.payload, "payload" in p.__dict__
        (False, b'{"game":"g1","seq":4,"type":"play","seat":2,"card":"10H"}', True)
        >>> p.bogus
        Traceback (most recent call last):
        AttributeError: 'FastPlay' object has no attribute 'bogus'
        """
        d = self.__dict__
        return play_payload(d["game"], d["seq"], d["at"], d["id"], d["recorded_at"], d["seat"],
                            d["card"])

    def __repr__(self) -> str:
        return f"FastPlay({self.payload.decode()})"

    def model_dump(self, exclude_none: bool = False) -> dict[str, Any]:
        """The fields in the play model's order, as its ``model_dump`` gives them (so a
        reader that writes an event's canonical bytes, or shows it, takes this one too).

        >>> fast_play(b'{"game":"g1","seq":4,"type":"play","seat":2,"card":"10H"}').model_dump(
        ...     exclude_none=True)
        {'game': 'g1', 'seq': 4, 'type': 'play', 'seat': 2, 'card': '10H'}
        """
        d = {"game": self.game, "seq": self.seq, "type": self.type, "at": self.at,
             "id": self.id, "recorded_at": self.recorded_at, "seat": self.seat,
             "card": self.card}
        return {k: v for k, v in d.items() if v is not None} if exclude_none else d


def play_payload(game: str, seq: int, at: str | None, id: str | None, recorded_at: str | None,
                 seat: int, card: str) -> bytes:
    """The canonical bytes of a play whose fields are in their canonical text (a game id, a
    time, an id and a card need no escapes).

    >>> play_payload("g1", 4, "2026-01-05T19:30:55Z", None, None, 2, "10H")
    b'{"game":"g1","seq":4,"type":"play","at":"2026-01-05T19:30:55Z","seat":2,"card":"10H"}'
    """
    return (f'{{"game":"{game}","seq":{seq},"type":"play"'
            + ("" if at is None else f',"at":"{at}"')
            + ("" if id is None else f',"id":"{id}"')
            + ("" if recorded_at is None else f',"recorded_at":"{recorded_at}"')
            + f',"seat":{seat},"card":"{card}"}}').encode()


def fast_play(line: bytes) -> FastPlay | None:
    """``line`` as a :class:`FastPlay` if it is the canonical text of a play, else None."""
    m = _PLAY.fullmatch(line)
    if m is None:
        return None
    payload, game, seq, at, eid, rec, seat, card = m.groups()
    return FastPlay(game.decode(), int(seq), int(seat), card.decode(),
                    None if at is None else at.decode(), None if eid is None else eid.decode(),
                    payload, None if rec is None else rec.decode())
