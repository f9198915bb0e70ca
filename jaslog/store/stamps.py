"""The times the store stamps an appended event with: its ``recorded_at`` from the store's
clock (never the client's), and the check that an ``at`` is not too far ahead of it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

from jaslog.events import Event
from jaslog.store.clock import AT_TOLERANCE, parse_stamp, stamp
from jaslog.store.types import RejectedError


def stamped(evs: list[Event], now: datetime) -> list[Event]:
    """The events with ``recorded_at`` set to ``now`` (they carry none: see
    :func:`refuse_recorded_at`): each a copy, as ``model_copy(update=...)`` makes it (the
    same fields, ``recorded_at`` among those given), built without its look-ups and copies
    of the model's parts (an event model takes no extra fields).

    >>> from jaslog.events import parse_event
    >>> from jaslog.store.clock import parse_stamp
    >>> e = parse_event(b'{"game":"g","seq":3,"type":"note","text":"tea"}')
    >>> [s] = stamped([e], parse_stamp("2026-12-01T20:00:00Z"))
    >>> s.recorded_at, "recorded_at" in s.model_fields_set, e.recorded_at
    ('2026-12-01T20:00:00.000Z', True, None)
    """
    at = _stamp_text(now)
    out: list[Event] = []
    for e in evs:
        if e.__pydantic_extra__ is not None or e.__pydantic_private__ is not None:
            out.append(e.model_copy(update={"recorded_at": at}))
            continue
        c = _NEW(type(e))
        d = e.__dict__.copy()
        d["recorded_at"] = at
        _SET(c, "__dict__", d)
        _SET(c, "__pydantic_fields_set__", e.__pydantic_fields_set__ | _RECORDED_AT)
        _SET(c, "__pydantic_extra__", None)
        _SET(c, "__pydantic_private__", None)
        out.append(c)
    return out


def _stamp_text(now: datetime) -> str:
    """:func:`~jaslog.store.clock.stamp` of ``now``, kept for the next call with the same
    reading (a group's appends are stamped with one; the pair is replaced whole, so a
    reader on another thread sees a reading with its own text)."""
    global _LAST_STAMP
    last = _LAST_STAMP
    if last[0] is now:
        return last[1]
    text = stamp(now)
    _LAST_STAMP = (now, text)
    return text


def _not_after(at: str, now_text: str) -> bool:
    """Whether ``at`` is, by its text alone, no later than ``now_text`` (a
    :func:`~jaslog.store.clock.stamp`): written in UTC as the stamp is, in milliseconds (the
    service's own stamps of arrival) or whole seconds (a table's, mostly), whose order is
    then their texts'. False: not known so (another form of time, or later), to be read in
    full.

    >>> _not_after("2026-12-01T20:00:00.000Z", "2026-12-01T20:00:00.001Z")
    True
    >>> _not_after("2026-12-01T20:00:00.002Z", "2026-12-01T20:00:00.001Z")
    False
    >>> _not_after("2026-12-01T20:00:00Z", "2026-12-01T20:00:00.001Z")
    True
    >>> _not_after("2026-12-01T20:00:01Z", "2026-12-01T20:00:00.999Z")
    False
    >>> _not_after("2026-12-01 19:00:00.000Z", "2026-12-01T20:00:00.001Z")
    False
    """
    n = len(at)
    if n < 20 or at[10] != "T" or at[-1] != "Z":
        return False
    if n == 24:
        return at[19] == "." and at <= now_text
    return n == 20 and at[:19] <= now_text[:19]


_NEW: Final = object.__new__
_SET: Final = object.__setattr__
_RECORDED_AT: Final = frozenset({"recorded_at"})
#: The last clock reading :func:`stamped` wrote out, and its text.
_LAST_STAMP: tuple[datetime | None, str] = (None, "")


def refuse_recorded_at(game: str, items: Sequence[Any]) -> None:
    """Refuse a live batch in which an event carries ``recorded_at`` (``recorded_at_given``)."""
    for i, e in enumerate(items):
        given = e.get("recorded_at") if isinstance(e, dict) else getattr(e, "recorded_at", None)
        if given is not None:
            seq = e.get("seq") if isinstance(e, dict) else e.seq
            where = f" (seq {seq})" if isinstance(seq, int) else ""
            raise RejectedError(f"game {game}: event {i + 1} of the batch{where} carries "
                                f"recorded_at {given!r}: recorded_at is set by the store's own "
                                "clock; leave it out; nothing was written", game=game,
                                seq=seq if isinstance(seq, int) else None,
                                code="recorded_at_given")


def refuse_future_at(game: str, evs: list[Event], now: datetime) -> None:
    """Refuse a batch with an ``at`` more than :data:`AT_TOLERANCE` ahead of ``now``
    (``at_in_future``)."""
    now_text = _stamp_text(now)
    for e in evs:
        at = e.at
        if at is None or _not_after(at, now_text):
            continue
        if parse_stamp(at) - now > AT_TOLERANCE:
            minutes = int(AT_TOLERANCE.total_seconds() // 60)
            raise RejectedError(f"game {game} seq {e.seq}: at {e.at} is more than {minutes} "
                                f"minutes ahead of the store's clock ({stamp(now)}): a table's "
                                "time may be ahead of the store's by at most "
                                f"{minutes} minutes (is the device's clock right?); nothing was "
                                "written", game=game, seq=e.seq, code="at_in_future")


__all__ = ["refuse_future_at", "refuse_recorded_at", "stamped"]
