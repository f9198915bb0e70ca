"""Events to rows and back: canonical bytes, hash links, format versions, times."""

from __future__ import annotations

import hashlib
import re
import uuid
from datetime import UTC, datetime
from typing import Any

import orjson

from jaslog.events import VERSION, Event, EventError, canonical_json, event_from_dict, parse_event, upcast
from jaslog.store.types import StoreError

#: Event types with free text (or free JSON) in them: their bytes come from orjson, which
#: writes strings exactly as ``canonical_json`` does. Every other type holds only ids, cards,
#: times, calls and small ints, for which pydantic's own serializer writes the same bytes,
#: several times faster.
_FREE_TEXT = frozenset({"game_started", "ruling", "note"})


def canonical(e: Event) -> bytes:
    """:func:`jaslog.events.canonical_json`, faster: the model's fields in order, None left out.

    (Equal to ``canonical_json`` by construction; the store's tests check it on every type.)
    """
    if e.type not in _FREE_TEXT:
        return e.__pydantic_serializer__.to_json(e, exclude_none=True)
    # orjson hands back its bytes in a buffer of 4 KiB whatever their length: copied to their
    # own size, the payloads an import holds for its games under way take a few dozen bytes
    # each, not 4 KiB
    return bytes(memoryview(orjson.dumps({k: v for k, v in e.__dict__.items() if v is not None})))


def link(prev: bytes, payload: bytes) -> bytes:
    """The hash of an event: ``sha256(prev_hash + canonical_json(event))`` (raw digests)."""
    return hashlib.sha256(prev + payload).digest()


def norm_id(event_id: str | None) -> str | None:
    """An event UUID in its canonical text (lower case, dashed)."""
    return None if event_id is None else str(uuid.UUID(event_id))


def as_bytes(value: Any) -> bytes:
    """A payload column as bytes (a tampered row may hold text instead of a blob)."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    return bytes(value)


class UnreadableEvent(StoreError):
    """A stored event no reader can read (stored by an older jaslog, before a limit held at
    the door): the game it belongs to is unreadable, the others are not."""

    code = "unreadable_game"

    def __init__(self, reason: str, game: str, seq: object) -> None:
        # a seq stored behind the store's back may be no integer: the sentence names it as
        # stored, ``seq`` keeps it only when it is one (None else)
        self.game, self.reason = game, reason
        self.seq: int | None = seq if type(seq) is int else None
        super().__init__(f"game {game} seq {seq}: {reason}")


def decode(payload: bytes, version: int, game: str = "?", seq: int = -1) -> Event:
    """A stored payload as an event of the current format (upcast when older); an
    :class:`UnreadableEvent` when it cannot be read."""
    payload = as_bytes(payload)
    try:
        if version == VERSION:
            return parse_event(payload)
        if type(version) is not int:  # (changed behind the store's back: text, a fraction)
            raise EventError(f"{version!r} is no format version")
        return event_from_dict(upcast(orjson.loads(payload), version))
    except (EventError, orjson.JSONDecodeError, KeyError) as e:
        raise UnreadableEvent(f"the stored event (format version {version!r}) cannot be read: "
                              f"{e}", game, seq) from None


def current_canonical(payload: bytes, version: int) -> bytes:
    """The canonical ``jaslog/1`` bytes of a stored payload (itself when already current)."""
    if version == VERSION:
        return as_bytes(payload)
    return canonical_json(decode(payload, version))


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def utc_text(dt: datetime) -> str:
    """A fixed-width, sortable UTC time: ``2026-01-31T20:15:00.000000Z``."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def now_text() -> str:
    return utc_text(datetime.now(UTC))


def now_rfc3339() -> str:
    """Now, as an event's ``at`` (RFC 3339, UTC, milliseconds)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(text: str) -> str:
    """A date (``2026-01-31``) or an RFC 3339 / ISO time as sortable UTC text."""
    t = text.strip()
    try:
        if _DATE.match(t):
            return utc_text(datetime.fromisoformat(t + "T00:00:00+00:00"))
        return utc_text(datetime.fromisoformat(t.replace("z", "Z").replace("Z", "+00:00")))
    except ValueError:
        raise StoreError(f"{text!r} is not a date (2026-01-31) or a time "
                         "(2026-01-31T20:15:00Z)") from None


def event_dict(obj: Any) -> Any:
    """JSON text or bytes to a Python object (for events given as text)."""
    if isinstance(obj, (bytes, bytearray, memoryview, str)):
        try:
            return orjson.loads(obj)
        except orjson.JSONDecodeError as e:
            raise EventError(f"not valid JSON: {e}") from None
    return obj
