"""A game at a clock time: which event was the last in at, say, 21:40.

An event's time is the store's ``recorded_at`` (when the service took it in) when every event
of the game has one, else the event's own ``at`` (when the scorer says it happened); which of
the two was used is said with the answer (``by``). An event without the time used counts at
the time of the event before it (events are in seq order).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time
from typing import Any

from jaslog.errors import JaslogError


class AtError(JaslogError):
    """A clock time that names no moment of the game: the message says why."""

    code = "bad_time"


@dataclass(frozen=True)
class AtSeq:
    """The last event in at a clock time."""

    seq: int
    at: str     # the time asked, as understood (RFC 3339, UTC)
    by: str     # recorded_at or at: the events' times it was read by
    event_time: str | None  # that event's time (None: it has none, it counts as the one before)

    def to_json(self) -> dict[str, Any]:
        return {"at": self.at, "by": self.by, "seq": self.seq, "event_time": self.event_time}


def _parse(text: str) -> datetime:
    t = text.strip()
    when = datetime.fromisoformat(t.replace("Z", "+00:00").replace("z", "+00:00"))
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def clock_time(text: str, day: datetime | None) -> datetime:
    """``text`` as a moment: an RFC 3339 time (no zone: UTC), or a time of day (``21:40``,
    ``21:40:05``) on ``day``'s date (the game's first event's, UTC).

    >>> clock_time("21:40", datetime(2026, 3, 3, 19, 30, tzinfo=UTC)).isoformat()
    '2026-03-03T21:40:00+00:00'
    """
    t = text.strip()
    try:
        if len(t) in (5, 8) and t[2] == ":":
            if day is None:
                raise AtError(f"at {text!r}: a time of day needs the game's date, and its "
                              "events have no times; give a full time (2026-03-03T21:40:00Z)")
            return datetime.combine(day.astimezone(UTC).date(), time.fromisoformat(t), UTC)
        return _parse(t)
    except ValueError:
        raise AtError(f"at {text!r}: give an RFC 3339 time (2026-03-03T21:40:00Z) or a time of "
                      "day on the game's date (21:40)") from None


def seq_at(events: Sequence[Any], text: str) -> AtSeq:
    """The last of ``events`` (seq order, each with ``seq``, ``at`` and ``recorded_at``) in at
    the clock time ``text`` (see :func:`clock_time`). :class:`AtError` when the events have no
    times, or the game had not begun then."""
    if not events:
        raise AtError("the game has no events")
    recorded = [getattr(e, "recorded_at", None) for e in events]
    by = "recorded_at" if all(r is not None for r in recorded) else "at"
    times = recorded if by == "recorded_at" else [getattr(e, "at", None) for e in events]
    first = next((t for t in times if t is not None), None)
    if first is None:
        raise AtError(f"game {events[0].game}: its events have no times (neither recorded_at "
                      "nor at), so none can be found by the clock; ask by seq")
    when = clock_time(text, _parse(first))
    last: int | None = None
    last_time: str | None = None
    current: datetime | None = None
    for e, t in zip(events, times, strict=True):
        if t is not None:
            current = _parse(t)
        if current is not None and current <= when:
            last, last_time = e.seq, t
        elif current is not None and current > when:
            break
    said = when.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if last is None:
        raise AtError(f"game {events[0].game} had not begun at {said} (its first event is at "
                      f"{first}, by {by})")
    return AtSeq(last, said, by, last_time)
