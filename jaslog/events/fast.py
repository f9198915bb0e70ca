"""The hot path of bulk reading: a line already in canonical form, read without its model.

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

:func:`fast_event` reads the canonical line of *any* event so (every game's, and events a
game registers): one regex checks the envelope (``game``, ``seq``, ``type``, ``at``, ``id``,
``recorded_at``, as the patterns above), and the rest of the line, its *body*
(``,"seat":1,"call":"pass"}``), is looked up among the bodies of its type already read: the
first line with a body is parsed by its model (:func:`jaslog.events.parse_event`) and, when
it is canonical, its body's fields are kept, so every later line with the same body (most
bids, roem, a game's own events) is the same event but for its envelope. The fields of an
event do not depend on each other (no model has a validator across fields), so a body valid
once is valid under every valid envelope. A deal's body (its hands: new every round) is
checked by a regex of its own and read by orjson. A play is a :class:`FastPlay`; any other
event is its model's own class, built without validation (the fields the model would
hold), so a fold dispatches it, and a report dumps it, as the parsed model.

>>> line = b'{"game":"g1","seq":2,"type":"bid","seat":1,"call":"pass"}'
>>> b = fast_event(line)
>>> type(b).__name__, b.seat, b.call, b == parse_event(line)
('Bid', 1, 'pass', True)
>>> fast_event(b'{"game":"g1","seq":2,"type":"bid","seat":1,"call":"nope"}') is None
True
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from jaslog.events import (
    AT_PATTERN,
    EVENT_MODELS,
    Dealt,
    Event,
    EventError,
    Play,
    canonical_json,
    parse_event,
    registry,
)

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


class FastPlay:
    """A ``play`` event read by :func:`fast_play`: the fields the fold and the store read, and
    ``payload``, its canonical bytes. Its ``__dict__`` holds the fields as a model's does
    (plus ``payload``), for readers that take an event's fields as a dict (the export)."""

    type: str

    def __init__(self, game: str, seq: int, seat: int, card: str, at: str | None,
                 id: str | None, payload: bytes, recorded_at: str | None = None) -> None:
        self.game, self.seq, self.type, self.seat, self.card = game, seq, "play", seat, card
        self.at, self.id, self.recorded_at, self.payload = at, id, recorded_at, payload

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


def fast_play(line: bytes) -> FastPlay | None:
    """``line`` as a :class:`FastPlay` if it is the canonical text of a play, else None."""
    m = _PLAY.fullmatch(line)
    if m is None:
        return None
    payload, game, seq, at, eid, rec, seat, card = m.groups()
    return FastPlay(game.decode(), int(seq), int(seat), card.decode(),
                    None if at is None else at.decode(), None if eid is None else eid.decode(),
                    payload, None if rec is None else rec.decode())


# ------------------------------------------------------------------ any event

#: The envelope of a canonical line, then its body: the rest of the object (``}`` alone when
#: the event has no field but the envelope's). A canonical body holds no raw line break.
_EVENT = re.compile(
    rb'(\{"game":"(' + _GAME + rb')","seq":(' + _SEQ + rb'),"type":"([a-z0-9_]{1,64})"'
    rb'(?:,"at":"(' + _AT + rb')")?(?:,"id":"(' + _ID + rb')")?'
    rb'(?:,"recorded_at":"(' + _AT + rb')")?'
    rb'(,[^\r\n]*|\}))(?:\r?\n)?')

_CARDS = rb'(?:"' + _CARD + rb'"(?:,"' + _CARD + rb'")*)?'
#: The body of a canonical ``dealt`` event, every field checked as the model checks it.
_DEALT_BODY = re.compile(
    rb'(?:,"hands":\[(?:\[' + _CARDS + rb'\](?:,\[' + _CARDS + rb'\])*)?\])?'
    rb'(?:,"dealer":[0-3])?(?:,"turn_up":"' + _CARD + rb'")?(?:,"stock":\[' + _CARDS + rb'\])?\}')

#: Bodies read so far: type -> body bytes -> what the event is but for its envelope: a
#: play's (seat, card), else (model class, its fields' dict, fields set by envelope).
_BODIES: dict[bytes, dict[bytes, Any]] = {}
#: How many bodies are kept at most (a log of notes, each its own text, does not fill memory).
MOST_BODIES = 50_000
_held = [0]

_new = object.__new__
_set = object.__setattr__
#: The envelope's optional fields, by which of them a line has (bit 1: at, 2: id, 4: recorded_at).
_PRESENT = [frozenset(k for bit, k in ((1, "at"), (2, "id"), (4, "recorded_at")) if mask & bit)
            for mask in range(8)]


def _forget_bodies() -> None:
    """The registry changed (a game registered): a body valid before may not be now."""
    _BODIES.clear()
    _held[0] = 0


registry.on_change(_forget_bodies)


def _built(cls: type[Event], fields: dict[str, Any], given: set[str]) -> Event:
    """An instance of the model ``cls`` holding ``fields`` (already valid), as validation
    would build it, without validating."""
    e = _new(cls)
    _set(e, "__dict__", fields)
    _set(e, "__pydantic_fields_set__", given)
    _set(e, "__pydantic_extra__", None)
    _set(e, "__pydantic_private__", None)
    return e


def _first_of_body(line: bytes, payload: bytes, kind: bytes,
                   body: bytes) -> Event | FastPlay | None:
    """A line whose body was not read before: its model's parse (None: the models refuse
    it, and the reader's own parse says why); its body kept when the line is canonical (a
    canonical play is a :class:`FastPlay`, as every later one)."""
    try:
        e = parse_event(line)
    except EventError:
        return None
    if canonical_json(e) == payload:
        known = _BODIES.setdefault(kind, {})
        if _held[0] >= MOST_BODIES:
            _forget_bodies()
            known = _BODIES.setdefault(kind, {})
        _held[0] += 1
        if type(e) is Play:
            p: Any = e
            known[body] = (p.seat, p.card)
            return FastPlay(p.game, p.seq, p.seat, p.card, p.at, p.id, payload, p.recorded_at)
        else:
            given = set(e.__pydantic_fields_set__) - {"at", "id", "recorded_at"}
            known[body] = (type(e), e.__dict__, [frozenset(given | p) for p in _PRESENT])
    return e


def fast_event(line: bytes) -> Event | FastPlay | None:
    """``line`` as its event if it is the canonical text of a valid event of any registered
    type, read without validating it again (a play: a :class:`FastPlay`; another event:
    its model's class, built from fields already checked); None for any other line or any
    doubt, which :func:`jaslog.events.parse_event` then reads (and refuses, saying why).
    It accepts only what the models accept, and gives what they give."""
    m = _EVENT.fullmatch(line)
    if m is None:
        return None
    payload, game, seq, kind, at, eid, rec, body = m.groups()
    known = _BODIES.get(kind)
    got = None if known is None else known.get(body)
    if got is None:
        if kind == b"dealt" and _DEALT_BODY.fullmatch(body) is not None and \
                EVENT_MODELS.get("dealt") is Dealt:
            fields: dict[str, Any] = {
                "game": game.decode(), "seq": int(seq), "type": "dealt",
                "at": None if at is None else at.decode(),
                "id": None if eid is None else eid.decode(),
                "recorded_at": None if rec is None else rec.decode(),
                "hands": None, "dealer": None, "turn_up": None, "stock": None}
            if len(body) > 1:
                read = orjson.loads(b"{" + body[1:])
                fields.update(read)
                given = {"game", "seq", "type", *read}
            else:
                given = {"game", "seq", "type"}
            given.update(_PRESENT[(at is not None) | (eid is not None) << 1 | (rec is not None) << 2])
            return _built(Dealt, fields, given)
        return _first_of_body(line, payload, kind, body)
    if len(got) == 2:
        return FastPlay(game.decode(), int(seq), got[0], got[1],
                        None if at is None else at.decode(),
                        None if eid is None else eid.decode(), payload,
                        None if rec is None else rec.decode())
    cls, template, sets = got
    fields = template.copy()
    fields["game"] = game.decode()
    fields["seq"] = int(seq)
    fields["at"] = None if at is None else at.decode()
    fields["id"] = None if eid is None else eid.decode()
    fields["recorded_at"] = None if rec is None else rec.decode()
    return _built(cls, fields,
                  set(sets[(at is not None) | (eid is not None) << 1 | (rec is not None) << 2]))
