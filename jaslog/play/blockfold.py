"""Blocks of a log file's lines folded into their games, each canonical play read from its
bytes: the compiled heart of ``jaslog check``'s reading (:func:`jaslog.play.logfold.fold_log`).

Nine lines in ten are plays. A line that is exactly the canonical text of a play (what
:func:`jaslog.events.fast.fast_play` takes: keys in the model's order, no spaces, no escapes,
every field as the model checks it) is recognized here byte by byte, without a regex or a
JSON parse, and handed to its game's fold as its seat and card, its line kept in the
game's log until the log is read (its time written into the fold once, at the game's last
play, and where each line stands noted by runs of lines, not line by line). A canonical
deal, bid or roem claim is read from its bytes too; a bid or a roem claim in its place goes
to its game's fold as the stored row it would be, its line kept in the log until read.
Every other line, and any doubt, is read as
:func:`~jaslog.play.logfold.fold_log` reads it line by line (the fast path of the plays, the
models, then :func:`jaslog.logs.read_line`), so an error names the same file, line, game,
seq, seat, card and rule.

This module is on the compiled hot path (:data:`jaslog.native.HOT_PATH`); run as pure
Python it gives the same answers, more slowly.

>>> from jaslog.play.sim import simulate_game
>>> import orjson
>>> data = b"".join(orjson.dumps(e) + b"\\n" for e in simulate_game("g", seed=3))
>>> out: list[object] = []
>>> folder = BlockFolder("x.jsonl", {data.count(b"\\n"): "g"}, {})
>>> folder.fold(data, len(data), 0, out) == data.count(b"\\n")
True
>>> [(g.game, g.error, len(g.lines)) for g in out] == [("g", None, data.count(b"\\n"))]
True
"""

from __future__ import annotations

from typing import Any, Final

from jaslog.cards import CARD_TEXT
from jaslog.engine.base import IntegrityError
from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import MOST_POINTS, Bid, Dealt, EventError, Roem, parse_event
from jaslog.events.fast import FastPlay
from jaslog.events.limits import MAX_LINE
from jaslog.events.line_bytes import (
    AT,
    CARD,
    CR,
    ID,
    PLAY_TYPE,
    QUOTE,
    RANK,
    RANK_ORDER,
    RECORDED,
    SEAT,
    SUIT,
    ZERO,
    card_at,
    cards_at,
    digits,
    game_id,
    has,
    number_end,
    time_end,
    uuid_end,
)
from jaslog.logs import read_line
from jaslog.play.fold import FileGame, start_fold, take_line

_TYPE_OF: Final = b',"type":"'
_BID: Final = b'bid"'
_ROEM: Final = b'roem"'
_DEALT: Final = b'dealt"'
_CALL: Final = b',"call":"'
_POINTS: Final = b',"points":'
_HANDS: Final = b',"hands":['
_DEALER: Final = b',"dealer":'
_TURN_UP: Final = b',"turn_up":"'
_STOCK: Final = b',"stock":['
#: A bid's call by its text's bytes (the calls the model takes).
_CALLS: Final = {c.encode(): c for c in ("pass", "accept", "take", "schmeiss", "annul", "play",
                                         "C", "D", "H", "S")}
#: A bid's call as the stored row's ``rest`` a fold takes it by (``["pass"]``).
_BID_REST: Final = {c: b'["' + c.encode() + b'"]' for c in _CALLS.values()}
#: A roem claim's points as the stored row's ``rest`` (``[20]``), as they were met.
_ROEM_REST: dict[int, bytes] = {}
_NEW: Final = object.__new__
_SET: Final = object.__setattr__


def _model(cls: Any, fields: dict[str, Any], given: set[str]) -> Any:
    """An event model of class ``cls`` holding ``fields`` (every field of the model, in its
    order; ``given``: those the line gave), as its validation makes it from a line whose
    every field was checked as the model checks it: the same fields, the same fields given
    (``model_fields_set``), equal to it. (What pydantic's ``model_construct`` does, without
    its look-ups by name.)"""
    m = _NEW(cls)
    _SET(m, "__dict__", fields)
    _SET(m, "__pydantic_fields_set__", given)
    _SET(m, "__pydantic_extra__", None)
    _SET(m, "__pydantic_private__", None)
    return m


class BlockFolder:
    """The second pass over one file of a log (``name``): its lines, block by block, each
    folded into its game in ``games`` (shared by all the files of the log); a game is handed
    on at its last line (``ends``: line number -> the game whose last line it is, from the
    first pass), and a line that names no game where it stands, as a bare
    :class:`~jaslog.engine.fold.FoldError`."""

    def __init__(self, name: str, ends: dict[int, str], games: dict[str, FileGame]) -> None:
        self.name = name
        self.games = games
        self.ends = ends
        self.marks: list[int] = sorted(ends)
        self.mark = 0  # the next of ``marks``
        self.next_end: int = self.marks[0] if self.marks else -1
        #: the line start of the game read last (``{"game":"<id>","seq":``) and its id
        self.head = b"\0"
        self.gid = ""
        #: the game read last, its fold and its lines, while it folds (None: look it up)
        self.game: Any = None
        self.fold_now: GameFold | None = None
        self.lines: Any = None
        self.known: dict[bytes, str] = {}
        #: the play read last by :meth:`scan`: its line, seat, card (0-31), where its
        #: ``at`` stands in its line (``at_to`` -1: none; :meth:`when`), ``id`` and
        #: ``recorded_at``
        self.raw = b""
        self.seat = 0
        self.card = 0
        self.at_from = 0
        self.at_to = -1
        self.eid: str | None = None
        self.rec: str | None = None
        #: whether the line read last ended in a carriage return
        self.cr = False
        #: the run of consecutive lines folded into one game (its ``lines``) not yet added
        #: to them (:meth:`note`), from line ``run_first`` to before ``run_next``
        self.run_lines: Any = None
        self.run_first = 0
        self.run_next = -1
        #: the fold whose ``last_at`` is the time of a play folded since (in its line
        #: ``at_line``, from ``at_start`` to ``at_stop``): written in by :meth:`flush`
        self.at_fold: GameFold | None = None
        self.at_line = b""
        self.at_start = 0
        self.at_stop = 0
        #: the block being folded (:meth:`start`): its lines, how many to fold, the next
        #: to fold, and the number of the last folded
        self.block: list[bytes] = []
        self.last = 0
        self.at = 0
        self.number = 0

    def fold(self, data: bytes, stop: int, base: int, out: list[object]) -> int:
        """Fold the lines of ``data[:stop]`` (whole lines; the last line of the file may
        lack its line break; what follows ``stop`` has no line break), the first of them
        line ``base + 1``; append to ``out`` what is handed on, in order. Returns the
        number of the block's last line."""
        self.start(data, stop, base)
        while self.step(out):
            pass
        return self.number

    def start(self, data: bytes, stop: int, base: int) -> None:
        """Take the block of lines ``data[:stop]`` (as :meth:`fold` does) to be folded by
        :meth:`step`."""
        self.block = data.split(b"\n")
        # the text after the last line break: the start of the next block's first line,
        # or nothing; or the file's last line, without its line break
        self.last = len(self.block) - 1
        if stop == len(data) and not data.endswith(b"\n"):
            self.last += 1
        self.at = 0
        self.number = base

    def step(self, out: list[object]) -> bool:
        """Fold the block's lines up to the next that hands something on (a game at its
        last line, or a line that names no game: appended to ``out``); False once the
        block is folded (:attr:`number`: its last line's)."""
        lines = self.block
        last = self.last
        k = self.at
        number = self.number
        handed = len(out)
        while k < last:
            raw = lines[k]
            ended = k < len(lines) - 1
            k += 1
            number += 1
            seq = self.scan(raw, ended)
            if seq < 0:
                gid = self.other(raw, ended, number, out)
                if gid is None:  # a blank line, or one that names no game
                    if len(out) > handed:
                        break
                    continue
            else:
                self.take(seq, number, raw)
                gid = self.gid
            if number >= self.next_end >= 0:
                self.handed(number, gid, out)
                if len(out) > handed:
                    break
        self.at = k
        self.number = number
        self.flush()
        if k < last:
            return True
        self.block = []
        return False

    def flush(self) -> None:
        """Bring the games up to date with what was folded into them: the run of lines
        not yet added to a game's ``lines`` (:meth:`flush_run`), and the time of the play
        folded last into a fold (:meth:`flush_at`)."""
        self.flush_run()
        if self.at_fold is not None:
            self.flush_at()

    def note(self, lines: Any, number: int) -> None:
        """Line ``number`` was folded into the game whose lines are ``lines``: it goes on
        the run of lines under way, or starts one (:meth:`flush_run` adds them)."""
        if lines is not self.run_lines or number != self.run_next:
            self.flush_run()
            self.run_lines = lines
            self.run_first = number
        self.run_next = number + 1

    def flush_run(self) -> None:
        """Add the run of lines under way to its game's lines."""
        lines = self.run_lines
        if lines is not None:
            if self.run_next > self.run_first:
                lines.add_run(self.name, self.run_first, self.run_next - self.run_first)
            self.run_lines = None
            self.run_next = -1

    def flush_at(self) -> None:
        """Write the time of the play folded last into :attr:`at_fold` (a fold's
        ``last_at``, as :meth:`~jaslog.engine.fold.GameFold.apply_play` would have written
        it at that play) into it."""
        fold = self.at_fold
        if fold is not None:
            fold.last_at = self.at_line[self.at_start:self.at_stop].decode()
            self.at_fold = None
            self.at_line = b""

    def when(self) -> str | None:
        """The ``at`` of the play read last by :meth:`scan` (None: it has none)."""
        if self.at_to < 0:
            return None
        return self.raw[self.at_from:self.at_to].decode()

    def play(self, raw: bytes, ended: bool) -> FastPlay | None:
        """``raw`` (a line without its line break; ``ended``: it had one) as a
        :class:`FastPlay` when it is the canonical text of a play, else None."""
        seq = self.scan(raw, ended)
        if seq < 0:
            return None
        return FastPlay(self.gid, seq, self.seat, CARD_TEXT[self.card], self.when(), self.eid,
                        None, self.rec)

    def scan(self, raw: bytes, ended: bool) -> int:
        """The seq of ``raw`` (a line without its line break; ``ended``: it had one) when
        it is the canonical text of a play, its other fields left in :attr:`gid`,
        :attr:`seat`, :attr:`card` (0-31), :attr:`at_from` and :attr:`at_to` (where its
        ``at`` stands: :meth:`when`), :attr:`eid` and :attr:`rec`; else -1."""
        if not raw.startswith(self.head):
            gid = game_id(raw)
            if gid is None:
                return -1
            text = self.known.get(gid)
            if text is None:
                text = self.known[gid] = gid.decode()
            self.head = raw[:len(gid) + 17]
            self.gid = text
            self.game = None
        n = len(raw)
        self.cr = ended and n > 0 and raw[n - 1] == CR
        if self.cr:  # (fast_play takes the line with its line break then)
            n -= 1
        i = len(self.head)
        if i >= n:
            return -1
        k = number_end(raw, i, n)  # the seq: a canonical JSON integer
        if k < 0:
            return -1
        seq = digits(raw, i, k - i)
        i = k
        if raw[i:i + 14] != PLAY_TYPE:  # (a slice and a memcmp: cheaper than 14 compares)
            return -1
        i += 14
        at_from = 0
        at_to = -1
        eid: str | None = None
        rec: str | None = None
        # the optional keys, told apart by their third byte: "at", "id", "recorded_at"
        key = raw[i + 2] if i + 2 < n else 0
        if key == 97 and has(raw, i, n, AT):
            q = time_end(raw, i + 7, n)
            if q < 0:
                return -1
            at_from = i + 7
            at_to = q
            i = q + 1
            key = raw[i + 2] if i + 2 < n else 0
        if key == 105 and has(raw, i, n, ID):
            q = uuid_end(raw, i + 7, n)
            if q < 0:
                return -1
            eid = raw[i + 7:q].decode()
            i = q + 1
            key = raw[i + 2] if i + 2 < n else 0
        if key == 114 and has(raw, i, n, RECORDED):
            q = time_end(raw, i + 16, n)
            if q < 0:
                return -1
            rec = raw[i + 16:q].decode()
            i = q + 1
        # ,"seat":S,"card":"<rank><suit>"} and the line's end
        if (n - i != 22 and n - i != 23) or not has(raw, i, n, SEAT):
            return -1
        seat = raw[i + 8] - ZERO
        if seat < 0 or seat > 3 or not has(raw, i + 9, n, CARD):
            return -1
        rank = RANK[raw[i + 18]] - 1
        i += 19
        if rank == 7:  # 10
            if raw[i] != ZERO:
                return -1
            i += 1
        if rank < 0 or i + 3 != n:
            return -1
        suit = SUIT[raw[i]] - 1
        if suit < 0 or raw[i + 1] != QUOTE or raw[i + 2] != 125:  # }
            return -1
        self.raw = raw
        self.seat = seat
        self.card = suit * 8 + RANK_ORDER[rank]
        self.at_from = at_from
        self.at_to = at_to
        self.eid = eid
        self.rec = rec
        return seq

    def take(self, seq: int, number: int, raw: bytes) -> None:
        """Fold the play of line ``number`` (``raw``) read by :meth:`scan` (seq ``seq``)
        into its game (the game of the line read last: its fold kept at hand while it
        folds): its seat and card as ints, the line kept in the game's log in its place
        until the log is read (:meth:`~jaslog.engine.fold.GameFold.apply_play`), its time
        left in the line until the game's last (:meth:`flush`)."""
        fold = self.fold_now
        if self.game is None or fold is None:
            if self.at_fold is not None:  # (the time of another game's fold: written in)
                self.flush_at()
            g = self.games.get(self.gid)
            if g is None:
                g = self.games[self.gid] = FileGame(self.gid)
            self.game = g
            if g.error is not None:
                self.fold_now = None
                return
            if g.fold is None:  # (a play first: start_fold says what is wrong)
                self.note(g.lines, number)
                try:
                    g.fold = start_fold(self.fast(seq))  # type: ignore[arg-type]
                except FoldError as err:
                    g.error = err.located(self.name, number)
                self.game = None
                return
            self.fold_now = fold = g.fold
            self.lines = g.lines
            assert fold is not None
        if self.run_lines is self.lines and number == self.run_next:
            self.run_next = number + 1
        else:
            self.note(self.lines, number)
        try:
            if seq == fold.next_seq and self.eid is None and self.rec is None and not self.cr:
                fold.apply_play(self.seat, self.card, None, raw)
                if self.at_to >= 0:  # its time: the fold's last_at once it is read
                    self.at_fold = fold
                    self.at_line = raw
                    self.at_start = self.at_from
                    self.at_stop = self.at_to
                return
            if self.at_fold is not None:  # (written before this play's own)
                self.flush_at()
            if seq == fold.next_seq and self.eid is None and self.rec is None:
                fold.apply_play(self.seat, self.card, self.when(), None)
            else:  # (a play out of its place, or with more fields: its event)
                fold.apply(self.fast(seq))  # type: ignore[arg-type]  # a FastPlay: every field a fold reads
        except FoldError as err:
            self.game.error = err.located(self.name, number)
            self.fold_now = None

    def fast(self, seq: int) -> FastPlay:
        """The play read last by :meth:`scan`, of seq ``seq``, as a :class:`FastPlay`."""
        return FastPlay(self.gid, seq, self.seat, CARD_TEXT[self.card], self.when(), self.eid,
                        None, self.rec)

    def model(self, raw: bytes, ended: bool) -> Any:
        """``raw`` (a line without its line break; ``ended``: it had one; :meth:`scan` read
        it last) as its event model when it is the canonical text of a deal, a bid or a
        roem claim (:func:`canonical_model`); else None: the models read it."""
        return canonical_model(raw, ended, self.head, self.gid)

    def other(self, raw: bytes, ended: bool, number: int, out: list[object]) -> str | None:
        """Any line but a canonical play (``ended``: it had a line break), read as
        :func:`~jaslog.play.logfold.fold_log` reads it line by line: its game (None: a
        blank line, or one that names no game, handed on). A canonical deal, bid or roem
        claim is read from its bytes (:func:`canonical_parts`), a bid or roem claim in its
        place folded as its row (:meth:`row`), anything else as its model; any other line
        by the models."""
        self.game = None  # (the games may change under the game kept at hand)
        self.fold_now = None
        if self.at_fold is not None:  # (the event may have a time: the fold's last_at)
            self.flush_at()
        games = self.games
        # (scan took every canonical play: fast_play would take no other line)
        e: Any = None
        parts = canonical_parts(raw, ended, self.head, self.gid)
        if parts is not None:
            if parts[0] is not Dealt and self.row(parts, raw, ended, number):
                return self.gid
            e = _model(parts[0], parts[1], parts[2])
        if e is None:
            if ended:
                raw += b"\n"
            try:  # a valid line: its model (read_line says what is wrong with any other)
                e = parse_event(raw)
            except EventError:
                if not raw.strip():
                    return None
                e = None
        if e is None:
            self.flush()  # (the games' lines up to date for take_line)
            line_gid, bare = take_line(games, read_line(raw, self.name, number))
            if bare is not None:
                out.append(bare)
            return line_gid
        gid: str = e.game
        g = games.get(gid)
        if g is None:
            g = games[gid] = FileGame(gid)
        if g.error is None:
            self.note(g.lines, number)
            try:
                if g.fold is None:
                    g.fold = start_fold(e)
                else:
                    g.fold.apply(e)
            except FoldError as err:
                g.error = err.located(self.name, number)
        return gid

    def row(self, parts: tuple[Any, dict[str, Any], set[str]], raw: bytes, ended: bool,
            number: int) -> bool:
        """Fold line ``number`` (``raw``, a canonical bid or roem claim whose fields are
        ``parts``, as :func:`canonical_parts` read them) into its game as the stored row
        it would be (:meth:`~jaslog.engine.fold.GameFold.apply_row`: no model made), the
        line kept in the game's log until the log is read (:func:`line_events`): True when
        the game's fold took it so (or refused it by its rules: the game's error, located
        as its event's). False changes nothing: the line is then folded as its model."""
        cls, fields, given = parts
        if fields["id"] is not None or fields["recorded_at"] is not None or \
                (ended and raw[len(raw) - 1] == CR):
            return False
        g = self.games.get(self.gid)
        if g is None or g.error is not None or g.fold is None:
            return False
        fold = g.fold
        if fields["seq"] != fold.next_seq:
            return False
        if cls is Bid:
            name = "bid"
            rest = _BID_REST[fields["call"]]
        else:
            name = "roem"
            points: int = fields["points"]
            known = _ROEM_REST.get(points)
            if known is None:
                known = _ROEM_REST[points] = b"[" + str(points).encode() + b"]"
            rest = known
        try:
            took = fold.apply_row(name, fields["seat"], None, rest, (raw, self.gid))
        except IntegrityError as err:  # (the error the model's event gives: located so)
            self.note(g.lines, number)
            g.error = fold.located(err, _model(cls, fields, given)).located(self.name, number)
            return True
        if not took:
            return False
        self.note(g.lines, number)
        if fold.row_events is None:
            fold.row_events = line_events
        at = fields["at"]
        if at is not None:
            fold.last_at = at
        return True

    def handed(self, number: int, gid: str, out: list[object]) -> None:
        """Line ``number``, of game ``gid``, is at or past the next game's end: hand the
        game on if this is its last line (as :meth:`jaslog.logs.LogFiles.is_last` tells)."""
        marks = self.marks
        while self.mark < len(marks) and marks[self.mark] <= number:
            if marks[self.mark] == number and self.ends[number] == gid:
                self.flush()
                out.append(self.games.pop(gid))
                self.game = None
                self.fold_now = None
            self.mark += 1
        self.next_end = marks[self.mark] if self.mark < len(marks) else -1


def line_events(rows: list[Any]) -> list[Any]:
    """The events of the canonical lines a fold kept in its log as rows
    (:meth:`BlockFolder.row`: ``(line, game)``), when the log is read
    (:attr:`~jaslog.engine.fold.GameFold.row_events`).

    >>> e, = line_events([(b'{"game":"g","seq":2,"type":"bid","seat":1,"call":"pass"}', "g")])
    >>> type(e).__name__, e.seq, e.call
    ('Bid', 2, 'pass')
    """
    out: list[Any] = []
    for raw, gid in rows:
        e = canonical_model(raw, False, b'{"game":"' + gid.encode() + b'","seq":', gid)
        assert e is not None, "a line kept as a row is the canonical line of its event"
        out.append(e)
    return out


def canonical_model(raw: bytes, ended: bool, head: bytes, gid: str) -> Any:
    """``raw`` (a line without its line break; ``ended``: it had one) as its event model
    when it is the canonical text of a deal, a bid or a roem claim of game ``gid`` (keys in
    the model's order, no spaces, no escapes, every field as the model checks it), its line
    starting with ``head`` (``{"game":"<gid>","seq":``), made without the model's
    validation; else None: the models read it. (Its bytes are then the event's canonical
    bytes: the import takes them as they are.)

    >>> e = canonical_model(b'{"game":"g","seq":2,"type":"bid","seat":1,"call":"pass"}', False,
    ...                     b'{"game":"g","seq":', "g")
    >>> type(e).__name__, e.seq, e.seat, e.call, e.model_fields_set == {"game", "seq", "type", "seat", "call"}
    ('Bid', 2, 1, 'pass', True)
    >>> canonical_model(b'{"game":"g","seq":2,"type":"bid","seat":1,"call":"pas"}', False,
    ...                 b'{"game":"g","seq":', "g") is None
    True
    """
    parts = canonical_parts(raw, ended, head, gid)
    if parts is None:
        return None
    return _model(parts[0], parts[1], parts[2])


def canonical_parts(raw: bytes, ended: bool, head: bytes, gid: str,
                    ) -> tuple[Any, dict[str, Any], set[str]] | None:
    """What :func:`canonical_model` makes its model of: the model's class, its fields and
    those the line gave; None when it makes none."""
    n = len(raw)
    if not raw.startswith(head) or n + ended > MAX_LINE:  # (the line break counts)
        return None
    if ended and n > 0 and raw[n - 1] == CR:
        n -= 1
    i = len(head)
    k = number_end(raw, i, n)
    if k < 0 or not has(raw, k, n, _TYPE_OF):
        return None
    seq = digits(raw, i, k - i)
    i = k + 9
    if has(raw, i, n, _BID):
        kind = "bid"
        i += 4
    elif has(raw, i, n, _ROEM):
        kind = "roem"
        i += 5
    elif has(raw, i, n, _DEALT):
        kind = "dealt"
        i += 6
    else:
        return None
    at: str | None = None
    eid: str | None = None
    rec: str | None = None
    given = {"game", "seq", "type"}
    if has(raw, i, n, AT):
        q = time_end(raw, i + 7, n)
        if q < 0:
            return None
        at = raw[i + 7:q].decode()
        given.add("at")
        i = q + 1
    if has(raw, i, n, ID):
        q = uuid_end(raw, i + 7, n)
        if q < 0:
            return None
        eid = raw[i + 7:q].decode()
        given.add("id")
        i = q + 1
    if has(raw, i, n, RECORDED):
        q = time_end(raw, i + 16, n)
        if q < 0:
            return None
        rec = raw[i + 16:q].decode()
        given.add("recorded_at")
        i = q + 1
    fields: dict[str, Any] = {"game": gid, "seq": seq, "type": kind, "at": at,
                              "id": eid, "recorded_at": rec}
    if kind == "dealt":
        return _dealt(raw, i, n, fields, given)
    # ,"seat":S then the call or the points, and the line's end
    if not has(raw, i, n, SEAT):
        return None
    seat = raw[i + 8] - ZERO if i + 8 < n else -1
    if seat < 0 or seat > 3:
        return None
    i += 9
    fields["seat"] = seat
    given.add("seat")
    if kind == "bid":
        if not has(raw, i, n, _CALL):
            return None
        i += 9
        q = i
        while q < n and raw[q] != QUOTE:
            q += 1
        if q + 2 != n or raw[q + 1] != 125:  # }
            return None
        call = _CALLS.get(raw[i:q])
        if call is None:
            return None
        fields["call"] = call
        given.add("call")
        return Bid, fields, given
    if not has(raw, i, n, _POINTS):
        return None
    i += 10
    k = number_end(raw, i, n)
    if k < 0 or k + 1 != n or raw[k] != 125:  # }
        return None
    points = digits(raw, i, k - i)
    if points > MOST_POINTS:
        return None
    fields["points"] = points
    given.add("points")
    return Roem, fields, given

def _dealt(raw: bytes, i: int, n: int, fields: dict[str, Any], given: set[str],
           ) -> tuple[Any, dict[str, Any], set[str]] | None:
    """The body of a deal at ``raw[i:n]``, its hands, dealer, turn-up card and stock as
    the model takes them, each optional, and the line's end: the deal's model's parts
    (:func:`canonical_parts`), or None."""
    hands: list[list[str]] | None = None
    dealer: int | None = None
    turn_up: str | None = None
    stock: list[str] | None = None
    if has(raw, i, n, _HANDS):
        i += 10
        hands = []
        if i < n and raw[i] == 93:  # ]
            i += 1
        else:
            while True:
                if i >= n or raw[i] != 91:  # [
                    return None
                hand: list[str] = []
                i = cards_at(raw, i + 1, n, hand)
                if i < 0 or i >= n:
                    return None
                hands.append(hand)
                b = raw[i]
                i += 1
                if b == 93:  # ]
                    break
                if b != 44:  # ,
                    return None
        given.add("hands")
    if has(raw, i, n, _DEALER):
        dealer = raw[i + 10] - ZERO if i + 10 < n else -1
        if dealer < 0 or dealer > 3:
            return None
        i += 11
        given.add("dealer")
    if has(raw, i, n, _TURN_UP):
        c = card_at(raw, i + 12, n)
        if c < 0:
            return None
        turn_up = CARD_TEXT[c]
        i += 16 if c & 7 == 3 else 15
        given.add("turn_up")
    if has(raw, i, n, _STOCK):
        stock = []
        i = cards_at(raw, i + 10, n, stock)
        if i < 0:
            return None
        given.add("stock")
    if i + 1 != n or raw[i] != 125:  # }
        return None
    fields["hands"] = hands
    fields["dealer"] = dealer
    fields["turn_up"] = turn_up
    fields["stock"] = stock
    return Dealt, fields, given
