"""The short forms of a time in the notation: ``+9`` (seconds after the previous time),
``19:30:27`` (a clock time on the previous time's date, in its zone) and the full RFC 3339
text. Each short form stands for exactly one text: the writer uses a short form only when
reading it back gives the very same text (the fraction's digits, ``T`` or a space, ``Z`` or an
offset), so times round-trip byte for byte.

>>> after("2026-11-27T19:30:09Z", "+9")
'2026-11-27T19:30:18Z'
>>> shortest("2026-11-27T19:30:09Z", "2026-11-27T19:30:18Z")
'+9'
>>> shortest("2026-11-27T19:30:09Z", "2026-11-27T21:00:00Z")
'21:00:00'
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

_FULL = re.compile(r"(\d{4})-(\d{2})-(\d{2})([Tt ])(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?"
                   r"([Zz]|[+-]\d{2}:\d{2})")
_DELTA = re.compile(r"\+(\d{1,9})(?:\.(\d{1,9}))?")
_CLOCK = re.compile(r"(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?")

#: A gap the writer writes as ``+N``; a longer (or a backward) one is a clock time.
DELTA_MOST = 600

Parts = tuple[datetime, str, str, str]  # (whole seconds, separator, fraction digits, zone)

# The common case, read without datetime: whole seconds, a real date (known dates are kept).
_PLAIN = re.compile(r"(\d{4}-\d{2}-\d{2}[Tt ])([01]\d|2[0-3]):([0-5]\d):([0-5]\d)"
                    r"([Zz]|[+-]\d{2}:\d{2})")
_REAL_DAY: dict[str, bool] = {}


_PLAIN_SEEN: dict[str, tuple[str, int, str] | None] = {}


def _plain(text: str) -> tuple[str, int, str] | None:
    """(date and separator, seconds into the day, zone) of a time in whole seconds on a real
    date, else None."""
    got = _PLAIN_SEEN.get(text, False)
    if got is not False:
        return got  # type: ignore[return-value]
    if len(_PLAIN_SEEN) > 4096:
        _PLAIN_SEEN.clear()
    got = _PLAIN_SEEN[text] = _read_plain(text)
    return got


def _read_plain(text: str) -> tuple[str, int, str] | None:
    m = _PLAIN.fullmatch(text)
    if m is None:
        return None
    day, h, mi, s, zone = m.groups()
    real = _REAL_DAY.get(day)
    if real is None:
        try:
            datetime(int(day[:4]), int(day[5:7]), int(day[8:10]))
            real = True
        except ValueError:
            real = False
        if len(_REAL_DAY) < 4096:
            _REAL_DAY[day] = real
    return (day, int(h) * 3600 + int(mi) * 60 + int(s), zone) if real else None


class TimeFormError(ValueError):
    """A time token that cannot be read: the message says what was expected."""


def is_full(text: str) -> bool:
    """Does ``text`` look like a full RFC 3339 time (the model checks that it is a real one)?

    >>> is_full("2026-11-27T19:30:09Z"), is_full("19:30:09")
    (True, False)
    """
    return _FULL.fullmatch(text) is not None


def _parts(text: str) -> Parts | None:
    m = _FULL.fullmatch(text)
    if m is None:
        return None
    y, mo, d, sep, h, mi, s, frac, zone = m.groups()
    try:
        dt = datetime(int(y), int(mo), int(d), int(h), int(mi), int(s))
    except ValueError:  # not a real date or time: no arithmetic on it
        return None
    return dt, sep, frac or "", zone


def _text(dt: datetime, sep: str, frac: str, zone: str) -> str:
    return (f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}{sep}{dt.hour:02d}:{dt.minute:02d}:"
            f"{dt.second:02d}" + (f".{frac}" if frac else "") + zone)


def after(prev: str | None, token: str) -> str:
    """The time ``token`` stands for, after ``prev`` (the previous time), or
    :class:`TimeFormError`. ``+N[.f]``: ``prev`` plus that many seconds, with as many fraction
    digits as the longer of the two; ``HH:MM:SS[.f]``: that clock time on ``prev``'s date and
    zone; anything else must be a full time.

    >>> after("2026-11-27T23:59:58.500Z", "+2.25")
    '2026-11-28T00:00:00.750Z'
    >>> after(None, "+4")
    Traceback (most recent call last):
    ...
    jaslog.notation.times.TimeFormError: '+4' counts from the previous time, and there is none: \
write the first time in full (e.g. 2026-11-27T19:30:09Z)
    """
    if prev is not None and token[:1] == "+" and token[1:].isdigit() and len(token) < 7 \
            and token.isascii():
        p = _plain(prev)
        if p is not None:
            s = p[1] + int(token[1:])
            if s < 86_400:
                text = f"{p[0]}{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}{p[2]}"
                _PLAIN_SEEN[text] = (p[0], s, p[2])  # the next time counts from it
                return text
    delta = _DELTA.fullmatch(token)
    clock = None if delta else _CLOCK.fullmatch(token)
    if delta is None and clock is None:
        if is_full(token):
            return token
        raise TimeFormError(f"expected a time (+9, 19:30:27 or 2026-11-27T19:30:27Z), "
                            f"got {token!r}")
    if prev is None:
        raise TimeFormError(f"{token!r} counts from the previous time, and there is none: write "
                            "the first time in full (e.g. 2026-11-27T19:30:09Z)")
    parts = _parts(prev)
    if parts is None:
        raise TimeFormError(f"{token!r} counts from the previous time, {prev!r}, which is not "
                            "a real time")
    dt, sep, pfrac, zone = parts
    try:
        if delta is not None:
            whole, dfrac = int(delta.group(1)), delta.group(2) or ""
            w = max(len(pfrac), len(dfrac))
            scale = 10 ** w
            ticks = int(pfrac.ljust(w, "0") or 0) + whole * scale + int(dfrac.ljust(w, "0") or 0)
            secs, rest = divmod(ticks, scale)
            return _text(dt + timedelta(seconds=secs), sep, f"{rest:0{w}d}" if w else "", zone)
        assert clock is not None
        h, mi, sec, frac = clock.groups()
        day = dt.replace(hour=int(h), minute=int(mi), second=int(sec))
    except (ValueError, OverflowError):
        raise TimeFormError(f"{token!r} after {prev!r} is not a real time") from None
    return _text(day, sep, frac or "", zone)


def shortest(prev: str | None, at: str) -> str:
    """The form the writer gives ``at`` after ``prev``: ``+N`` for a gap of up to
    :data:`DELTA_MOST` seconds, else a clock time on the same date, else the full time (quoted
    when it holds a space). Reading it back (:func:`after`) gives ``at`` exactly.

    >>> shortest("2026-11-27T19:30:09Z", "2026-11-27T19:30:13.250Z")
    '+4.250'
    >>> shortest("2026-11-27T19:30:09Z", "2026-11-28T00:00:00Z")
    '2026-11-28T00:00:00Z'
    """
    if prev is not None:
        p, a = _plain(prev), _plain(at)
        if p is not None and a is not None and p[0] == a[0] and p[2] == a[2]:
            gap = a[1] - p[1]
            return f"+{gap}" if 0 <= gap <= DELTA_MOST else at[len(a[0]):len(a[0]) + 8]
        for form in _candidates(prev, at):
            try:
                if after(prev, form) == at:
                    return form
            except TimeFormError:
                pass
    return full(at)


def full(at: str) -> str:
    """``at`` as a full time token: quoted (JSON) when it holds a space.

    >>> full("2026-11-27T19:30:09Z"), full("2026-11-27 19:30:09Z")
    ('2026-11-27T19:30:09Z', '"2026-11-27 19:30:09Z"')
    """
    return f'"{at}"' if " " in at else at


def _candidates(prev: str, at: str) -> list[str]:
    p, a = _parts(prev), _parts(at)
    if p is None or a is None or p[1] != a[1] or p[3] != a[3]:
        return []
    out = []
    pfrac, afrac = p[2], a[2]
    w = len(afrac)
    if w >= len(pfrac):
        scale = 10 ** w
        gap = int((a[0] - p[0]).total_seconds()) * scale + int(afrac or 0) \
            - int(pfrac.ljust(w, "0") or 0)
        if 0 <= gap <= DELTA_MOST * scale:
            whole, rest = divmod(gap, scale)
            if not w:
                out.append(f"+{whole}")
            elif w > len(pfrac):  # the fraction's width comes from the gap: keep every digit
                out.append(f"+{whole}.{rest:0{w}d}")
            else:
                f = f"{rest:0{w}d}".rstrip("0")
                out.append(f"+{whole}.{f}" if f else f"+{whole}")
    clock = f"{a[0].hour:02d}:{a[0].minute:02d}:{a[0].second:02d}" + (f".{afrac}" if afrac else "")
    if a[0].date() == p[0].date():
        out.append(clock)
    return out
