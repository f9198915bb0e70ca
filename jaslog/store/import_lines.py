"""The import's reading of its lines, a block at a time: each common play taken from its bytes
straight into the row the store writes (the compiled hot path of every import, in one process
or in its workers: :meth:`jaslog.store.importer.Validator.take_lines`).

Nine lines in ten are plays, most of them in one form: the canonical text of a play (what
:data:`jaslog.events.fast.PLAY_TEXT` takes: keys in the model's order, no spaces, no escapes),
with no ``id`` nor ``recorded_at``, and an ``at`` in whole seconds of UTC from 1970 on
(``2026-01-05T19:30:55Z``) or none. Such a line is recognized here byte by byte, without a
regex: its game id, seq, seat, card and time go from the bytes into the row
(:data:`jaslog.store.rows.ENCODED_COLUMNS`: the card and the time as the integers the store
keeps), the line itself is the event's canonical payload (its hash chained from it), and the
fold takes the play as its seat and card (:meth:`~jaslog.engine.fold.GameFold.apply_play`),
its log keeping the line's bytes until it is read.

Most other lines are deals, bids and roem claims in their canonical text: such a line is read
from its bytes as ``check`` reads it (:func:`jaslog.play.blockfold.canonical_model`: its
model made without pydantic's validation), the line is its canonical payload, and its row is
written from its fields without writing them again to compare
(:meth:`~jaslog.store.compact.Codec.row_of_canonical`).

When the event is the next of the game the lines are on, it is folded and chained here (else
by :meth:`~jaslog.store.importer.Validator.take_event`). Any other line, and any doubt, goes
to :meth:`~jaslog.store.importer.Validator.take_bytes` (the regex, the models,
:func:`jaslog.logs.read_line`) as before, so every error names the same file, line, game,
seq, seat, card and rule, and the rows are the same.

This module is on the compiled hot path (:data:`jaslog.native.HOT_PATH`); run as pure Python
it gives the same rows, more slowly.

>>> r = PlayLines(True)
>>> r.read(b'{"game":"g1","seq":4,"type":"play","at":"2026-01-05T19:30:55Z","seat":2,"card":"10H"}')
True
>>> r.gid, r.seq, r.seat, r.card, r.at, r.at_code, r.end
('g1', 4, 2, '10H', '2026-01-05T19:30:55Z', 1767641455, 85)
>>> r.read(b'{"game":"g1","seq":4,"type":"play","at":"2026-01-05T19:30:55.5Z","seat":2,"card":"10H"}')
False
"""

from __future__ import annotations

from hashlib import sha256
from typing import Any, Final, cast

from jaslog.engine.fold import FoldError
from jaslog.events import VERSION
from jaslog.events.fast import FastPlay
from jaslog.events.line_bytes import (
    AT,
    CARD,
    CR,
    DAYS,
    LF,
    PLAY_TYPE,
    QUOTE,
    RANK,
    SEAT,
    SUIT,
    ZERO,
    digits,
    game_id,
    number_end,
)
from jaslog.play.blockfold import canonical_model
from jaslog.store.compact import CARD_CODE

#: The code of ``play`` in the store's ``event_types`` (a store whose code 1 is another type
#: reads every line through :meth:`~jaslog.store.importer.Validator.take_bytes`).
_PLAY_KIND: Final = 1
#: A card's text and its code in the store (0-31), by rank (the byte after ``"card":"``:
#: 7 8 9 J Q K A, 1 for 10) and suit (C D H S): index ``rank * 4 + suit``.
_CARD_TEXT: Final = tuple(("10" if r == "1" else r) + s for r in "789JQKA1" for s in "CDHS")
_CARD_CODE: Final = tuple(CARD_CODE[t] for t in _CARD_TEXT)


#: Makes a FastPlay without running its ``__init__`` (its fields are then set as one dict).
_NEW: Final = object.__new__
#: A play's fields as the fold reads them, those of the common form filled in by a copy.
_PLAY_FIELDS: Final = {"game": "", "seq": 0, "type": "play", "seat": 0, "card": "", "at": None,
                       "id": None, "recorded_at": None, "payload": b""}


def seconds_at(raw: bytes, i: int) -> int:
    """The seconds since 1970 of the time in whole seconds of UTC at ``raw[i:i + 20]``
    (``2026-01-05T19:30:55Z``, a real date of 1970-9999, hours 00-23), when a quote follows it;
    else -1 (another form of time, a time before 1970, or no time: the line is then read the
    general way, which says what is wrong with it, if anything).

    >>> t = b'"2028-02-29T23:59:59Z"'
    >>> seconds_at(t, 1), seconds_at(t.replace(b"2028", b"2026"), 1)
    (1835481599, -1)
    """
    if i + 21 > len(raw) or raw[i + 20] != QUOTE or raw[i + 19] != 90:  # Z
        return -1
    if raw[i + 4] != 45 or raw[i + 7] != 45 or raw[i + 10] != 84 or raw[i + 13] != 58 or \
            raw[i + 16] != 58:  # - - T : :
        return -1
    year = digits(raw, i, 4)
    month = digits(raw, i + 5, 2)
    day = digits(raw, i + 8, 2)
    if year < 1970 or month < 1 or month > 12 or day < 1:
        return -1
    if day > DAYS[month]:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        if not (month == 2 and day == 29 and leap):
            return -1
    hour = digits(raw, i + 11, 2)
    minute = digits(raw, i + 14, 2)
    second = digits(raw, i + 17, 2)
    if hour < 0 or hour > 23 or minute < 0 or minute > 59 or second < 0 or second > 59:
        return -1
    # days since 1970-01-01 of a date of the proleptic Gregorian calendar (years from March)
    y = year - 1 if month <= 2 else year
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return ((days * 24 + hour) * 60 + minute) * 60 + second


def placed(out: list[Any], key: int, pos: int, rows: list[tuple[Any, ...]]) -> int:
    """Append ``rows`` (a :class:`~jaslog.store.import_writer.Part`'s, from ``seq`` on) to ``out``
    flat, each row's values one after the other, with the game's key and its position before
    them (the first at ``pos + 1``), as the import's insert binds them
    (:meth:`~jaslog.store.appending.Appending.insert_encoded`); returns the last position given.

    >>> out: list[Any] = []
    >>> placed(out, 7, 40, [(0, b"h0"), (1, b"h1")]), out
    (42, [7, 41, 0, b'h0', 7, 42, 1, b'h1'])
    """
    for r in rows:
        pos += 1
        out.append(key)
        out.append(pos)
        out.extend(r)
    return pos


class PlayLines:
    """Reads blocks of an import's lines into a :class:`~jaslog.store.importer.Validator`
    (see the module's text). ``plays_first``: whether code 1 is ``play`` in the store."""

    def __init__(self, plays_first: bool) -> None:
        self.plays_first = plays_first
        #: the line start of the play read last (``{"game":"<id>","seq":``) and its game id
        self.head = b"\0"
        self.gid = ""
        self.known: dict[bytes, str] = {}
        #: the fields of the play :meth:`read` read last: its seq, seat, card (text and
        #: code), ``at`` (text and seconds; None and -1 when it has none) and where its
        #: canonical text ends (the line break is not part of it)
        self.seq = 0
        self.seat = 0
        self.card = ""
        self.card_code = 0
        self.at: str | None = None
        self.at_code = -1
        self.end = 0
        #: the line :meth:`take` is on and its number (None: none), for a sentence if what
        #: takes it stops
        self.line: Any = None
        self.number = 0
        #: the canonical bytes and the row (after ``seq`` and ``hash``) of the deal, bid or
        #: roem claim :meth:`model` read last
        self.payload = b""
        self.tail: tuple[Any, ...] = ()

    def read(self, raw: bytes) -> bool:
        """Whether ``raw`` is a play of the common form (see the module's text): then its
        fields are in :attr:`gid`, :attr:`seq`, :attr:`seat`, :attr:`card`, :attr:`at`..."""
        if not raw.startswith(self.head):
            gid = game_id(raw)
            if gid is None:
                return False
            k = 9 + len(gid)
            text = self.known.get(gid)
            if text is None:
                if len(self.known) > 100_000:
                    self.known.clear()
                text = self.known[gid] = gid.decode()
            self.head = raw[:k + 8]
            self.gid = text
        n = len(raw)
        if n > 0 and raw[n - 1] == LF:
            n -= 1
            if n > 0 and raw[n - 1] == CR:
                n -= 1
        i = len(self.head)
        if i >= n:
            return False
        k = number_end(raw, i, n)  # the seq: a canonical JSON integer
        if k < 0:
            return False
        seq = digits(raw, i, k - i)
        i = k
        if raw[i:i + 14] != PLAY_TYPE:
            return False
        i += 14
        if raw[i:i + 7] == AT:
            secs = seconds_at(raw, i + 7)
            if secs < 0:
                return False
            self.at = raw[i + 7:i + 27].decode()
            self.at_code = secs
            i += 28
        else:
            self.at = None
            self.at_code = -1
        # ,"seat":S,"card":"<rank><suit>"} and the line's end (an id or a recorded_at, which
        # would come here, is for the general way)
        if n - i not in (22, 23) or raw[i:i + 8] != SEAT:
            return False
        seat = raw[i + 8] - ZERO
        if seat < 0 or seat > 3 or raw[i + 9:i + 18] != CARD:
            return False
        rank = RANK[raw[i + 18]] - 1
        i += 19
        if rank == 7:  # 10
            if raw[i] != ZERO:
                return False
            i += 1
        if rank < 0 or i + 3 != n:
            return False
        suit = SUIT[raw[i]] - 1
        if suit < 0 or raw[i + 1] != QUOTE or raw[i + 2] != 125:  # }
            return False
        self.seq = seq
        self.seat = seat
        self.card = _CARD_TEXT[rank * 4 + suit]
        self.card_code = _CARD_CODE[rank * 4 + suit]
        self.end = n
        return True

    def model(self, raw: bytes, codec: Any) -> Any:
        """``raw`` as its event model when it is the canonical text of a deal, a bid or a
        roem claim (:func:`~jaslog.play.blockfold.canonical_model`, as ``check`` reads it)
        whose row the store's ``codec`` writes from its fields
        (:meth:`~jaslog.store.compact.Codec.row_of_canonical`): then its canonical bytes
        (the line, without its line break) are in :attr:`payload` and its row after ``seq``
        and ``hash`` in :attr:`tail`; else None (the general way reads it and says what is
        wrong with it, if anything). :meth:`read` read the line first (its game's head)."""
        n = len(raw)
        ended = n > 0 and raw[n - 1] == LF
        text = raw[:n - 1] if ended else raw
        e = canonical_model(text, ended, self.head, self.gid)
        if e is None:
            return None
        kind = codec.codes.get(e.type)
        row = None if kind is None else codec.row_of_canonical(kind, e.__dict__)
        if row is None:
            return None
        n = len(text)
        self.payload = text[:n - 1] if n > 0 and text[n - 1] == CR else text
        self.tail = (row[0], VERSION, row[1], row[2], row[3], row[4], row[5], row[6])
        return e

    def play(self, payload: bytes) -> FastPlay:
        """The play :meth:`read` read last, as the fold takes it (its fields set as
        :class:`~jaslog.events.fast.FastPlay`'s constructor sets them, in one dict)."""
        fp: Any = _NEW(FastPlay)
        d = _PLAY_FIELDS.copy()  # (quicker than a dict made from nothing)
        d["game"] = self.gid
        d["seq"] = self.seq
        d["seat"] = self.seat
        d["card"] = self.card
        d["at"] = self.at
        d["payload"] = payload
        fp.__dict__ = d
        return cast(FastPlay, fp)

    def take(self, v: Any, lines: list[Any], source: str, first: int,
             numbers: list[int] | None, items: bool = False) -> int:
        """Take ``lines`` (bytes, or what :meth:`~jaslog.store.importer.Validator.take_bytes`
        takes; ``items``: or what :meth:`~jaslog.store.importer.Validator.take_item` takes)
        from ``source`` into the validator ``v``: line ``first + k`` each, or ``numbers[k]``.
        Returns how many were taken (a blank line is not)."""
        taken = 0
        other: Any = v.take_item if items else v.take_bytes
        pending: dict[str, Any] = v.pending
        ends: Any = v.ends
        most: int = v.max_pending
        common = self.plays_first
        # The game the lines are on, while only its plays, deals, bids and roem claims come:
        # its pending game, fold, rows and chain kept here, and the validator's counters
        # (written back before any other of its methods runs: ``p`` None then, until the
        # next look-up).
        p: Any = None
        gid = ""
        fold: Any = None
        rows: list[Any] = []
        prev = b""
        last = 0
        ready = False
        closing = False
        count = events = ready_events = 0
        for k in range(len(lines)):
            raw = lines[k]
            number = first + k if numbers is None else numbers[k]
            self.line = raw
            self.number = number
            readable = common and type(raw) is bytes
            play = readable and self.read(raw)
            # not a common play: a canonical deal, bid or roem claim (its model and row), or
            # the general way
            e: Any = None if play or not readable else self.model(raw, v.codec)
            if not play and e is None:
                if p is not None:
                    p.prev, p.last = prev, last
                    v.lines, v.pending_events, v.ready_events = count, events, ready_events
                    p = None
                if other(raw, source, number):
                    taken += 1
                continue
            taken += 1
            if play:
                end = self.end
                payload = raw if end == len(raw) else raw[:end]
            else:
                payload = self.payload
            if p is None or self.gid != gid:
                if p is not None:
                    p.prev, p.last = prev, last
                    v.lines, v.pending_events, v.ready_events = count, events, ready_events
                    p = None
                gid = self.gid
                q = pending.get(gid)
                if q is None or q.fold is None or q.stored_len or gid != v.last_game:
                    if play:
                        at = self.at_code
                        v.take_event(self.play(payload), source, number, payload,
                                     (_PLAY_KIND, VERSION, None, None if at < 0 else at, None,
                                      self.seat, self.card_code, None))
                    else:
                        v.take_event(e, source, number, payload, self.tail)
                    continue
                p = q
                fold, rows, prev, ready = q.fold, q.rows, q.prev, q.ready
                closing = len(v.closing) > 0
                count, events, ready_events = v.lines, v.pending_events, v.ready_events
            # the next event of the game the lines are on
            count += 1
            try:
                if not play:
                    fold.apply(e)
                elif self.seq == fold.next_seq:  # (its bytes kept in the log until read)
                    fold.apply_play(self.seat, self.card_code, self.at, payload)
                else:  # a seq out of its place: the play's event says so
                    fold.apply(self.play(payload))
            except FoldError as err:
                p.prev, p.last = prev, last
                v.lines, v.pending_events, v.ready_events = count, events, ready_events
                p = None
                v.reject(gid, str(err.located(source, number)), source, number)
                continue
            h = sha256(prev + payload).digest()
            if play:
                at = self.at_code
                rows.append((self.seq, h, _PLAY_KIND, VERSION, None, None if at < 0 else at,
                             None, self.seat, self.card_code, None))
            else:
                rows.append((e.seq, h) + self.tail)  # noqa: RUF005 (one concatenation)
            prev = h
            last = number
            events += 1
            if ready:
                ready_events += 1
            if closing or events >= most or number in ends:
                p.prev, p.last = prev, last
                v.lines, v.pending_events, v.ready_events = count, events, ready_events
                q = p
                p = None
                v._moved_on(q, number)
        if p is not None:
            p.prev, p.last = prev, last
            v.lines, v.pending_events, v.ready_events = count, events, ready_events
        self.line = None
        return taken
