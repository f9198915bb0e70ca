"""The bytes of a canonical event line, as the compiled readers take them apart: the texts of
its keys, the classes a reader tells its bytes by, and readers of the fields many types share
(digits, a card, a list of cards, a number, a time, a UUID, the game id a line starts with).

A canonical line has its keys in the model's order, no spaces and no escapes
(:func:`jaslog.events.fast.fast_play`); each reader here says where a field ends, or -1 (None)
when the bytes are not that field in its canonical text, so that the line is then read the
general way, which says what is wrong with it, if anything.

>>> line = b'{"game":"g1","seq":4,"type":"play","at":"2026-01-05T19:30:55Z","seat":2,"card":"10H"}'
>>> game_id(line), time_end(line, 41, len(line)), card_at(line, 80, len(line))
(b'g1', 61, 19)
"""

from __future__ import annotations

from typing import Final

from jaslog.cards import CARD_TEXT

LF: Final = 10
CR: Final = 13
QUOTE: Final = 34
ZERO: Final = 48
NINE: Final = 57
START: Final = b'{"game":"'
SEQ: Final = b'","seq":'
PLAY_TYPE: Final = b',"type":"play"'
AT: Final = b',"at":"'
ID: Final = b',"id":"'
RECORDED: Final = b',"recorded_at":"'
SEAT: Final = b',"seat":'
CARD: Final = b',"card":"'


def byte_classes(*groups: bytes) -> bytes:
    """A byte's class by its value: 1 + the index of the group holding it, 0 for none."""
    return bytes(next((k + 1 for k, g in enumerate(groups) if c in g), 0) for c in range(256))


#: 1: a byte a game id may hold (``[A-Za-z0-9._:-]``).
ID_BYTE: Final = byte_classes(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-")
#: 1: a hex digit.
HEX: Final = byte_classes(b"0123456789abcdefABCDEF")
#: A card's rank (1 + its index in 7 8 9 J Q K A 1) and suit (1 + its index in C D H S).
RANK: Final = byte_classes(*(bytes([c]) for c in b"789JQKA1"))
SUIT: Final = byte_classes(*(bytes([c]) for c in b"CDHS"))
#: Days of each month of a year not leap, by month (1-12).
DAYS: Final = bytes((0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31))
#: A card's rank in :mod:`jaslog.cards` (7 8 9 10 J Q K A: 0-7) by its index in ``RANK``.
#: (Bytes, not a tuple: compiled, a ``Final`` tuple is built anew wherever it is indexed.)
RANK_ORDER: Final = bytes((0, 1, 2, 4, 5, 6, 7, 3))


def has(raw: bytes, i: int, end: int, text: bytes) -> bool:
    """Whether ``text`` stands at ``raw[i:]``, before ``end`` (a compare in place, no slice).

    >>> has(b'ab"cd"', 2, 6, b'"cd"'), has(b'ab"cd"', 2, 5, b'"cd"')
    (True, False)
    """
    n = len(text)
    if i + n > end:
        return False
    for k in range(n):  # noqa: SIM110  (compiled: a loop, not a generator)
        if raw[i + k] != text[k]:
            return False
    return True


def card_at(raw: bytes, i: int, end: int) -> int:
    """The card (0-31) whose canonical text (``7C``, ``10H``) stands at ``raw[i:]``, a quote
    after it before ``end``; else -1. (The text is 3 bytes long for a ten, card & 7 == 3.)

    >>> card_at(b'10H"', 0, 4), card_at(b'JC"', 0, 3), card_at(b'1C"', 0, 3), card_at(b'AC', 0, 2)
    (19, 4, -1, -1)
    """
    if i + 3 > end:
        return -1
    rank = RANK[raw[i]] - 1
    if rank < 0:
        return -1
    i += 1
    if rank == 7:  # 10
        if raw[i] != ZERO or i + 3 > end:
            return -1
        i += 1
    suit = SUIT[raw[i]] - 1
    if suit < 0 or raw[i + 1] != QUOTE:
        return -1
    return suit * 8 + RANK_ORDER[rank]


def cards_at(raw: bytes, i: int, end: int, out: list[str]) -> int:
    """The canonical texts of cards, ``"7C","10H"]``, at ``raw[i:]`` (after the list's
    opening bracket), each appended to ``out``: the offset after the closing bracket; -1
    when they are not that (``]``: none).

    >>> out: list[str] = []
    >>> cards_at(b'"7C","10H"]}', 0, 12, out), out, cards_at(b']', 0, 1, out), cards_at(b'"7C",]', 0, 6, [])
    (11, ['7C', '10H'], 1, -1)
    """
    if i < end and raw[i] == 93:  # ]
        return i + 1
    while True:
        if i >= end or raw[i] != QUOTE:
            return -1
        c = card_at(raw, i + 1, end)
        if c < 0:
            return -1
        out.append(CARD_TEXT[c])
        i += 5 if c & 7 == 3 else 4
        if i >= end:
            return -1
        b = raw[i]
        i += 1
        if b == 93:  # ]
            return i
        if b != 44:  # ,
            return -1


def number_end(raw: bytes, i: int, end: int) -> int:
    """The offset after the canonical JSON integer at ``raw[i:]`` (``0``, or a digit 1-9 and
    at most 17 more digits, no sign), or -1."""
    if i >= end:
        return -1
    c = raw[i]
    if c == ZERO:
        return i + 1
    if c < ZERO or c > NINE:
        return -1
    k = i + 1
    while k < end and k < i + 18 and ZERO <= raw[k] <= NINE:
        k += 1
    return k


def digits(raw: bytes, i: int, n: int) -> int:
    """The value of the ``n`` ASCII digits at ``raw[i:]``, or -1 if one is not a digit (the
    caller made sure they are there)."""
    v = 0
    for j in range(i, i + n):
        c = raw[j]
        if c < ZERO or c > NINE:
            return -1
        v = v * 10 + c - ZERO
    return v


def time_end(raw: bytes, i: int, end: int) -> int:
    """Where the time at ``raw[i:]`` ends (the offset after it), when it matches the model's
    ``at`` pattern (:data:`jaslog.events.AT_PATTERN`: a real date of the years 0001-9999,
    ``T``, ``t`` or a space, a time of day with optional fractions of a second, ``Z``, ``z``
    or an offset under 24 hours) and is followed by a quote before ``end``; else -1.

    >>> t = b'"2028-02-29T23:59:59.5+23:59"'
    >>> time_end(t, 1, len(t)), time_end(t.replace(b"2028", b"2026"), 1, len(t))
    (28, -1)
    """
    if i + 20 > end:
        return -1
    year = digits(raw, i, 4)
    month = digits(raw, i + 5, 2)
    day = digits(raw, i + 8, 2)
    if year < 1 or month < 1 or month > 12 or day < 1 or raw[i + 4] != 45 or raw[i + 7] != 45:
        return -1
    if day > DAYS[month]:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        if not (month == 2 and day == 29 and leap):
            return -1
    sep = raw[i + 10]
    if sep != 84 and sep != 116 and sep != 32:  # T t space
        return -1
    hour = digits(raw, i + 11, 2)
    minute = digits(raw, i + 14, 2)
    second = digits(raw, i + 17, 2)
    if hour < 0 or hour > 23 or minute < 0 or minute > 59 or second < 0 or second > 59 or \
            raw[i + 13] != 58 or raw[i + 16] != 58:
        return -1
    k = i + 19
    if raw[k] == 46:  # fractions of a second: one digit or more
        k += 1
        start = k
        while k < end and ZERO <= raw[k] <= NINE:
            k += 1
        if k == start:
            return -1
    if k >= end:
        return -1
    z = raw[k]
    if z == 90 or z == 122:  # Z z
        k += 1
    elif z == 43 or z == 45:  # + -: hours 00-22 with any two digits, or 23:00-23:59
        if k + 6 > end or raw[k + 3] != 58:
            return -1
        oh = digits(raw, k + 1, 2)
        om = digits(raw, k + 4, 2)
        if oh < 0 or om < 0 or oh > 23 or (oh == 23 and om > 59):
            return -1
        k += 6
    else:
        return -1
    if k >= end or raw[k] != QUOTE:
        return -1
    return k


def uuid_end(raw: bytes, i: int, end: int) -> int:
    """Where the UUID at ``raw[i:]`` ends, when it matches the model's ``id`` pattern (32 hex
    digits, 8-4-4-4-12, each dash optional) and a quote follows before ``end``; else -1.

    >>> u = b'"0123456789ABCDEF0123-456789abcdef"'
    >>> uuid_end(u, 1, len(u)), uuid_end(u.replace(b"-", b"--"), 1, len(u) + 1)
    (34, -1)
    """
    k = i
    for group in (8, 4, 4, 4, 12):
        if k + group > end:
            return -1
        for j in range(k, k + group):
            if not HEX[raw[j]]:
                return -1
        k += group
        if group != 12 and k < end and raw[k] == 45:
            k += 1
    if k >= end or raw[k] != QUOTE:
        return -1
    return k


def game_id(raw: bytes) -> bytes | None:
    """The game id a line starts with, ``{"game":"<id>","seq":``, when it is one the play's
    pattern takes (1-128 of ``[A-Za-z0-9._:-]``, not ``.`` nor ``..``); else None.

    >>> game_id(b'{"game":"g-1","seq":3}'), game_id(b'{"game":"..","seq":3}')
    (b'g-1', None)
    """
    if not raw.startswith(START):
        return None
    n = len(raw)
    k = 9
    while k < n and k < 138 and ID_BYTE[raw[k]]:
        k += 1
    if k == 9 or k == 138 or k + 8 > n or raw[k:k + 8] != SEQ:
        return None
    gid = raw[9:k]
    if gid == b"." or gid == b"..":
        return None
    return gid
