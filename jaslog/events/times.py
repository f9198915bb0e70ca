"""An event's time as the store keeps it, a time code (whole seconds since 1970, or
milliseconds when the text has them), written back as its text: the store's reader and the
fold's log (a play it keeps as ints until the log is read) write the same text of a code.

>>> time_text(1767641455), time_text(1767641455120)
('2026-01-05T19:30:55Z', '2026-01-05T19:30:55.120Z')
"""

from __future__ import annotations

import time

#: The latest time in whole seconds (9999-12-31T23:59:59Z): a stored time up to it is in
#: seconds, a larger one in milliseconds (every millisecond time after 1978-01-12 is larger).
SECONDS_MAX = 253_402_300_799
#: The latest time in milliseconds an event may hold (9999-12-31T23:59:59.999Z).
LAST_MS = SECONDS_MAX * 1000 + 999

#: The text of each minute met (``2026-01-05T19:30:``), by minutes since 1970, and of each
#: second in a minute (``55Z``): a time in seconds is the two joined (the events of a game
#: fall in a few hundred minutes; the store's reader writes a time per event).
MINUTES: dict[int, str] = {}
SECONDS: tuple[str, ...] = tuple(f"{s:02d}Z" for s in range(60))


def minute_text(minute: int) -> str:
    """The text of a minute (minutes since 1970) up to its seconds, kept in :data:`MINUTES`.

    >>> minute_text(1767641455 // 60)
    '2026-01-05T19:30:'
    """
    if len(MINUTES) > 100_000:
        MINUTES.clear()
    try:
        text = time.strftime("%Y-%m-%dT%H:%M:", time.gmtime(minute * 60))
    except (OverflowError, OSError, ValueError):
        raise ValueError(f"the time code {minute * 60} is no time this jaslog can write") from None
    MINUTES[minute] = text
    return text


def time_text(code: int) -> str:
    """The text of a time code (:func:`jaslog.store.compact.time_code` writes one); a
    :class:`ValueError` for a code no time has (a huge integer changed behind the store's
    back; a fraction gives a :class:`TypeError`), which every reader of the store reports as
    the row's ``unreadable_game``.

    >>> time_text(1767641455), time_text(1767641455120)
    ('2026-01-05T19:30:55Z', '2026-01-05T19:30:55.120Z')
    >>> time_text(10**30)
    Traceback (most recent call last):
    ValueError: the time code 1000000000000000000000000000000 is no time this jaslog can write
    """
    if code <= SECONDS_MAX:
        minute, second = divmod(code, 60)
        return (MINUTES.get(minute) or minute_text(minute)) + SECONDS[second]
    secs, ms = divmod(code, 1000)
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + f".{ms:03d}Z"
    except (OverflowError, OSError, ValueError):
        raise ValueError(f"the time code {code!r} is no time this jaslog can write") from None
