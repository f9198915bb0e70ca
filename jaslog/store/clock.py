"""The store's own clock: what ``recorded_at`` says (rule book 9.1, decision 14).

A live recorder and the service stamp every event they append with the time by *their*
clock, not the table's claim (``at``). The clock is a function that returns an aware UTC
``datetime``; tests pass a :class:`ManualClock` so that every stamp is known in advance.

>>> c = ManualClock("2026-12-01T20:00:00Z")
>>> stamp(c())
'2026-12-01T20:00:00.000Z'
>>> c.advance(31.5); stamp(c())
'2026-12-01T20:00:31.500Z'
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

#: A clock: the time now, as an aware UTC datetime.
Clock = Callable[[], datetime]

#: How far ahead of the store's clock a table's ``at`` may be (decision 14).
AT_TOLERANCE = timedelta(minutes=5)


def system_clock() -> datetime:
    """The machine's clock, in UTC."""
    return datetime.now(UTC)


def stamp(t: datetime) -> str:
    """A time as ``recorded_at`` writes it: RFC 3339, UTC, milliseconds.

    >>> stamp(datetime(2026, 12, 1, 20, 15, tzinfo=UTC))
    '2026-12-01T20:15:00.000Z'
    """
    return t.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_stamp(text: str) -> datetime:
    """An RFC 3339 time (``at`` or ``recorded_at``) as an aware datetime (naive: UTC).

    >>> parse_stamp("2026-12-01T21:15:00+01:00") == parse_stamp("2026-12-01T20:15:00Z")
    True
    """
    t = datetime.fromisoformat(text.replace("z", "Z").replace("Z", "+00:00"))
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


class ManualClock:
    """A clock that moves only when told (for tests and replays of a session)."""

    def __init__(self, start: str = "2026-12-01T20:00:00Z") -> None:
        self.now = parse_stamp(start)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


__all__ = ["AT_TOLERANCE", "Clock", "ManualClock", "parse_stamp", "stamp", "system_clock"]
