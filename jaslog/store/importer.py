"""Bulk import: stream ``jaslog/1`` lines, fold each game, write whole games in big batches.

Nothing goes row by row through the ORM: a batch of finished games is validated by the
fold as it is read, then written in one transaction with one bulk insert for all its
events. Crash-safe by construction: a batch commits whole or not at all, and re-running an
import compares what is already stored (byte for byte, in canonical form) and writes only
what is missing.

Two halves: a :class:`Validator` reads lines and turns finished games into :class:`Part`
objects (their rows chained, ready to insert); a :class:`Writer` writes parts in one
transaction after checking that nobody moved the games meanwhile. :class:`Importer` wires
them in one process; :mod:`jaslog.store.parallel` runs validators in worker processes.
"""

from __future__ import annotations

import gc
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from hashlib import sha256
from itertools import islice
from pathlib import Path
from typing import Any

from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import MAX_LINE, VERSION, Event, GameStarted, validate_event_json
from jaslog.events.fast import PLAY_TEXT, FastPlay
from jaslog.events.limits import too_long
from jaslog.logs import Line, read_line
from jaslog.play.fold import start_fold
from jaslog.store import engine as eng
from jaslog.store.codec import canonical, current_canonical
from jaslog.store.collector import collector_paused
from jaslog.store.compact import _MINUTE_CODES, _SECOND_CODES, CARD_CODE, time_code
from jaslog.store.import_input import (
    RawLine,
    open_input,
    raw_lines,
    source_name,
    to_line,
)
from jaslog.store.import_lines import PlayLines
from jaslog.store.import_writer import Part, Writer
from jaslog.store.projection import RoundFacts, facts_of
from jaslog.store.results import Standing, standing
from jaslog.store.rows import codec, read_rows
from jaslog.store.schema import GAMES
from jaslog.store.types import GENESIS, Head, ImportSummary, Rejected, StoreError

_GENESIS_BYTES = bytes.fromhex(GENESIS)
#: A line that is the canonical text of a play (:data:`jaslog.events.fast.PLAY_TEXT`), its
#: text decoded as Latin-1; and a seat's number by its digit.
_PLAY_MATCH = PLAY_TEXT.fullmatch
_SEATS = {"0": 0, "1": 1, "2": 2, "3": 3}
#: What every line :data:`_PLAY_MATCH` matches holds (a line without it is not matched).
_PLAY_TYPE = b',"type":"play"'
_PROGRESS_EVERY = 2000
#: The lines read into the validator at a time (:meth:`Validator.take_lines`).
_BLOCK = 1000
#: The fewest lines between two collections (of the young generations) while an import runs.
_COLLECT_EVERY = 100_000


# ---------------------------------------------------------------------- validating


@dataclass(slots=True)
class _Pending:
    """A game being imported: where the store stood, its fold, the events still to write."""

    game: str
    base: Head
    prev: bytes  # the hash the next event links to (raw digest)
    stored: list[bytes] = field(default_factory=list)  # canonical payloads in the store
    stored_len: int = 0
    expect: int | None = 0
    fold: GameFold | None = None
    #: chained rows still to write, encoded (:class:`Part`'s ``rows``)
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    #: whether a row of ``rows`` waits for its type's code
    late: bool = False
    started: GameStarted | None = None  # the game_started event, while it is still to write
    ready: bool = False
    written: int = 0
    source: str = ""  # where the game's lines were read: the file, its first and last line
    first: int = 0
    last: int = 0
    #: where the game stands, kept when its last line is read and its fold let go of (the
    #: fold holds every event as a model: a batch of games waiting for their write would
    #: hold them all)
    standing: Standing | None = None
    #: the facts of its closed rounds, kept with where it stands
    facts: list[RoundFacts] | None = None


class Validator:
    """Reads lines, folds each game, and hands finished games to ``sink`` as parts.

    ``sink(parts)`` returns the games it accepted. ``reject(game, reason, source, line)``
    reports a refused game; ``unattributed(Rejected)`` a line that names no game.
    """

    def __init__(self, store: Any, sink: Callable[[list[Part]], set[str]],
                 reject: Callable[[str, str, str | None, int | None], None],
                 unattributed: Callable[[Rejected], None], *, batch_games: int = 500,
                 batch_events: int = 250_000, max_pending_events: int = 2_000_000) -> None:
        self.store = store
        self.sink = sink
        self._reject_cb = reject
        self.unattributed = unattributed
        self.batch_games = max(1, batch_games)
        self.batch_events = batch_events
        self.max_pending = max_pending_events
        self.pending: dict[str, _Pending] = {}
        self.ready_games = self.ready_events = self.pending_events = 0
        self.rejected: set[str] = set()
        self.seen_existing: set[str] = set()
        self.last_game: str | None = None
        #: the line numbers of the source being read at which a game has its last line
        #: (:func:`game_ends`): the game is then ready to write, finished or not
        self.ends: set[int] | frozenset[int] = frozenset()
        #: games whose last line was read, their folds let go of once the lines move past it
        #: (a line of the notation holds several events: a trick's plays)
        self.closing: list[_Pending] = []
        self.lines = 0
        #: the lines read when the young generations were last collected
        self.collected = 0
        # SQLite: a plain connection to look whether a game is stored yet (see _open)
        url = str(getattr(store, "url", ""))
        self._probe_path = url.split(":///", 1)[1] if url.startswith("sqlite:///") and \
            url != "sqlite:///:memory:" else None
        self._probe: sqlite3.Connection | None = None
        with eng.read_tx(store.engine) as conn:
            #: the store's event type codes (those it gets during the import are learnt too)
            self.codec = codec(conn)
        #: whether code 1 is ``play`` (a store's codes are only ever added to: it stays so)
        self.plays_first = self.codec.names.get(1) == "play"
        #: reads blocks of lines, the common plays from their bytes (compiled: see take_lines)
        self.reader = PlayLines(self.plays_first)

    def close(self) -> None:
        """Release the connection :meth:`_open` looks through (the import is over)."""
        if self._probe is not None:
            self._probe.close()
            self._probe = None

    def reject(self, game: str, reason: str, source: str | None = None,
               line: int | None = None) -> None:
        p = self.pending.pop(game, None)
        if p is not None:
            self._forget(p)
            if p.written:
                reason += (f" (seq {p.base.next_seq - p.written} to {p.base.next_seq - 1} were "
                           "stored by an earlier batch of this import)")
        if game not in self.rejected:
            self.rejected.add(game)
            self._reject_cb(game, reason, source, line)

    def dropped(self, game: str) -> None:
        """The writer refused ``game``: forget it here too."""
        p = self.pending.pop(game, None)
        if p is not None:
            self._forget(p)
        self.rejected.add(game)

    def _forget(self, p: _Pending) -> None:
        self.pending_events -= len(p.rows)
        if p.ready:
            self.ready_games -= 1
            self.ready_events -= len(p.rows)

    def _open(self, game: str) -> _Pending:
        if self._probe is None and self._probe_path is not None:
            self._probe = sqlite3.connect(self._probe_path, isolation_level=None,
                                          check_same_thread=False)
        if self._probe is not None and self._probe.execute(
                "SELECT 1 FROM games WHERE id = ?", (game,)).fetchone() is None:
            # not in the store (the common case of an import): the quick look, one SELECT in
            # autocommit, is a hundred times cheaper than a read transaction through the
            # engine; a writer that stores the game meanwhile is caught when the batch is
            # written (its head moved: a conflict)
            p = _Pending(game, Head(game, 0, GENESIS), _GENESIS_BYTES)
            self.pending[game] = p
            return p
        with eng.read_tx(self.store.engine) as conn:
            head = self.store._head(conn, game)
            prev = bytes.fromhex(head.hash)
            if head.next_seq == 0:
                p = _Pending(game, head, prev)
            else:
                rows = read_rows(conn, GAMES.c.id == game)
                p = _Pending(game, head, prev,
                             [current_canonical(r.payload, r.version) for r in rows], len(rows),
                             expect=None)
                self.seen_existing.add(game)
        self.pending[game] = p
        return p

    def take(self, ln: Line) -> None:
        """One line, parsed or not (a bad line rejects its game when it names one)."""
        e = ln.event
        if e is not None:
            self.take_event(e, ln.source, ln.number)
            return
        self.lines += 1
        where = f"{ln.source}:{ln.number}: "
        if ln.game is None:
            self.unattributed(Rejected(None, where + (ln.error or "unreadable"), ln.source,
                                       ln.number))
        else:
            seq = f" seq {ln.seq}" if ln.seq is not None else ""
            self.reject(ln.game, f"{where}game {ln.game}{seq}: {ln.error}", ln.source, ln.number)

    def take_raw(self, r: RawLine, source: str) -> None:
        """A line as :func:`raw_lines` reads it (see :meth:`take_bytes`)."""
        raw = r[1]
        if raw is None:  # too long to hold: its error is already known
            self.take(to_line(r, source))
        else:
            self.take_bytes(raw, source, r[0])

    def take_lines(self, lines: list[Any], source: str, first: int = 1,
                   numbers: list[int] | None = None, items: bool = False) -> int:
        """A block of lines' bytes, line ``first + k`` each (or ``numbers[k]``), as
        :meth:`take_bytes` takes them one by one (``items``: as :meth:`take_item` does); the
        plays of the common form that follow one another in a game go from their bytes into
        its rows without leaving compiled code (:mod:`jaslog.store.import_lines`). Returns
        the lines taken (not the blank)."""
        return self.reader.take(self, lines, source, first, numbers, items)

    def take_item(self, item: Line | bytes | str, source: str, number: int) -> bool:
        """A line given in memory (:meth:`Importer.feed`): a :class:`Line`, or JSON text as
        bytes or str (a blank line is not taken: False)."""
        if type(item) is bytes:
            return self.take_bytes(item, source, number)
        if isinstance(item, Line):
            self.take(item)
            return True
        return self.take_bytes(item.encode() if isinstance(item, str) else bytes(item), source,
                               number)

    def take_bytes(self, raw: bytes, source: str, number: int) -> bool:
        """One line's bytes: a canonical play by :func:`jaslog.events.fast.fast_play`, any
        other valid event by the models, a bad line with its error (a line cut short is told
        by :func:`jaslog.logs.read_line`). False for a blank line (nothing taken)."""
        if type(raw) is not bytes:  # an event read from the notation: its own line and column
            self.take(read_line(raw, source, number))
            return True
        m = _PLAY_MATCH(raw.decode("latin-1")) if _PLAY_TYPE in raw else None
        if m is not None:  # jaslog.events.fast.fast_play, inlined: the hot path
            _, gid, seq_text, at, eid, rec, seat_text, card = m.groups()
            end = m.end(1)
            payload = raw if end == len(raw) else raw[:end]
            seat, seq = _SEATS[seat_text], int(seq_text)
            fp = FastPlay(gid, seq, seat, card, at, eid, payload, rec)
            tail: tuple[Any, ...] | None = None  # its row, when a play in the columns alone
            if eid is None and rec is None and self.plays_first:
                if at is None:
                    tail = (1, VERSION, None, None, None, seat, CARD_CODE[card], None)
                else:
                    # compact.time_code's common case inlined: a time in whole seconds by its
                    # minute, kept, and its seconds
                    minute = _MINUTE_CODES.get(at[:17], -1) if len(at) == 20 else None
                    second = _SECOND_CODES.get(at[17:])
                    a = minute * 60 + second if minute is not None and minute >= 0 and \
                        second is not None else time_code(at)
                    if a is not None:
                        tail = (1, VERSION, None, a, None, seat, CARD_CODE[card], None)
            p = self.pending.get(gid)
            if p is None or p.fold is None or tail is None or p.stored_len or \
                    gid != self.last_game:
                self.take_event(fp, source, number, payload, tail)
                return True
            # the next play of the game the lines are on: take_event's common case, inlined
            self.lines += 1
            try:
                p.fold.apply(fp)  # type: ignore[arg-type]  # a FastPlay has every field it reads
            except FoldError as err:
                self.reject(gid, str(err.located(source, number)), source, number)
                return True
            h = sha256(p.prev + payload).digest()
            p.rows.append((seq, h) + tail)  # noqa: RUF005 (a concatenation is quicker)
            p.prev, p.last = h, number
            self.pending_events += 1
            if p.ready:
                self.ready_events += 1
            if self.closing or number in self.ends or self.pending_events >= self.max_pending:
                self._moved_on(p, number)  # (else it has nothing to do)
            return True
        if len(raw) <= MAX_LINE:
            try:
                e = validate_event_json(raw)
            except ValueError:
                pass
            else:
                self.take_event(e, source, number, line=raw)
                return True
        if not raw.strip():
            return False
        self.take(read_line(raw, source, number))
        return True

    def take_event(self, e: Event | FastPlay, source: str, number: int,
                   payload: bytes | None = None, tail: tuple[Any, ...] | None = None,
                   line: bytes | None = None) -> None:
        """An event read from ``source`` line ``number`` (``payload``: its canonical bytes,
        when known; ``tail``: its row after ``seq`` and ``hash``, when known; ``line``: the
        line it was read from, whose bytes are its canonical bytes when its row proves them:
        :meth:`~jaslog.store.compact.Codec.row_if_written`): fold it, chain it, hold it until
        its game is written. (The hot path of every import.)"""
        self.lines += 1
        gid = e.game
        p = self.pending.get(gid)
        if p is None:
            if gid in self.rejected:
                return
            p = self._open(gid)
            p.source, p.first = source, number
        if payload is None and line is not None:
            # the line as it was written: the event's canonical bytes when they are what its
            # fields write (the row proves it), so the model need not write them again
            text = line[:-1] if line[-1:] == b"\n" else line
            if text[-1:] == b"\r":
                text = text[:-1]
            kind = self.codec.codes.get(e.type)
            row = None if kind is None else \
                self.codec.row_if_written(text, kind, e.__dict__)
            if row is not None:
                payload = text
                tail = (row[0], VERSION, *row[1:])
        if payload is None:
            payload = canonical(e)  # type: ignore[arg-type]
            if len(payload) > MAX_LINE:  # longer than the line it came from (its escapes)
                self.reject(gid, f"{source}:{number}: game {gid} seq {e.seq}: "
                            f"{too_long(len(payload))}", source, number)
                return
        if p.stored_len and not self._past_store(p, e, payload, source, number):
            return
        f = p.fold
        ev: Event = e  # type: ignore[assignment]  # a FastPlay has every field a fold reads
        try:
            if f is not None:
                f.apply(ev)
            elif not p.stored_len:
                p.fold = start_fold(ev)
            else:
                p.stored = []
                p.fold = self.store.fold(gid)
                p.fold.apply(ev)
        except FoldError as err:
            self.reject(gid, str(err.located(source, number)), source, number)
            return
        except StoreError as err:
            self.reject(gid, f"{source}:{number}: {err}", source, number)
            return
        h = sha256(p.prev + payload).digest()  # the chain, raw: in hex only at a part's head
        rows = p.rows
        if not rows and p.base.next_seq == 0 and isinstance(e, GameStarted):
            p.started = e
        if tail is None:
            tail = self._encoded(e, payload)
            if type(tail[0]) is str:
                p.late = True
        rows.append((e.seq, h) + tail)  # noqa: RUF005 (a concatenation is quicker)
        p.prev = h
        p.last = number
        if p.stored_len:
            p.expect = e.seq + 1
        self.pending_events += 1
        if p.ready:
            self.ready_events += 1
        if gid != self.last_game:
            # Is the game the lines moved away from over? (Asked once per switch: a game's
            # end is costly to compute after every event.)
            prev = self.pending.get(self.last_game) if self.last_game is not None else None
            self.last_game = gid
            if prev is not None and not prev.ready and prev.fold is not None \
                    and getattr(prev.fold.state, "finished", False):
                prev.ready = True
                self.ready_games += 1
                self.ready_events += len(prev.rows)
                if self.ready_games >= self.batch_games or self.ready_events >= self.batch_events:
                    self.flush([q for q in self.pending.values() if q.ready])
        self._moved_on(p, number)

    def _moved_on(self, p: _Pending, number: int) -> None:
        """After an event of ``p`` read at line ``number``: let go of the folds of the games
        whose last line is behind, and write what is due."""
        if self.closing and self.closing[0].last < number:
            self.let_go(number)
        if number in self.ends:  # no more of the game comes: write it, forget its fold
            if p.fold is not None and p not in self.closing:
                self.closing.append(p)
            if not p.ready:
                p.ready = True
                self.ready_games += 1
                self.ready_events += len(p.rows)
                if self.ready_games >= self.batch_games or \
                        self.ready_events >= self.batch_events:
                    self.flush([q for q in self.pending.values() if q.ready])
        if self.pending_events >= self.max_pending:
            self.flush(list(self.pending.values()))

    def _encoded(self, e: Event | FastPlay, payload: bytes) -> tuple[Any, ...]:
        """The row of event ``e`` (canonical bytes ``payload``) after its seq and hash (see
        :class:`Part`): encoded by the store's codec, or, for a type the store has no code
        for yet, what encodes it when its batch is written."""
        c = self.codec
        kind = c.codes.get(e.type)
        if kind is None:
            return (e.type, VERSION, payload, e.__dict__)
        k, eid, at, rec, seat, card, rest = c.encode(payload, kind, e.__dict__, VERSION)
        return (k, VERSION, eid, at, rec, seat, card, rest)

    def let_go(self, before: int | None = None) -> None:
        """Let go of the folds of the games whose last line was read (those that ended before
        line ``before``; None: all): each keeps its rows and where it stands."""
        keep = []
        for q in self.closing:
            if before is not None and q.last >= before:
                keep.append(q)
            elif q.fold is not None:
                q.standing, q.facts, q.fold = standing(q.fold), facts_of(q.fold), None
        self.closing = keep

    def _past_store(self, p: _Pending, e: Event | FastPlay, payload: bytes, source: str,
                    number: int) -> bool:
        """A game already in the store: compare ``e`` with the stored event at its seq.
        True when ``e`` comes after what is stored (to fold and write), False when it was
        stored already or the game was rejected."""
        gid = e.game
        if (p.expect is None and e.seq > p.stored_len) or \
                (p.expect is not None and e.seq != p.expect):
            want = p.stored_len if p.expect is None else p.expect
            self.reject(gid, f"{source}:{number}: game {gid} seq {e.seq}: expected seq "
                        f"{want} [{'seq_gap' if e.seq > want else 'seq_duplicate'}]",
                        source, number)
            return False
        if e.seq < p.stored_len:
            if payload != p.stored[e.seq]:
                self.reject(gid, f"{source}:{number}: game {gid} seq {e.seq}: the store "
                            "already holds a different event at this seq (the game was stored "
                            "before with other events) [conflict]", source, number)
                return False
            p.expect = e.seq + 1
            if p.expect == p.stored_len:  # all of it is stored: forget it until more comes
                self.pending.pop(gid, None)
            return False
        return True

    def flush(self, games: list[_Pending]) -> None:
        """Hand ``games`` to the sink as one batch; ready games leave the pending set."""
        todo = [p for p in games if p.rows and p.game not in self.rejected]
        parts = {p.game: Part(p.game, p.base.next_seq, p.base.hash, p.rows, p.started, p.prev.hex(),
                              (p.source, p.first, p.last),
                              standing(p.fold) if p.fold is not None else p.standing,
                              facts_of(p.fold) if p.fold is not None else p.facts, p.late)
                 for p in todo}
        accepted = self.sink(list(parts.values())) if parts else set()
        for p in todo:
            if p.game in accepted:
                part = parts[p.game]
                p.base = Head(p.game, part.next_seq, part.head)
                p.written += len(part.rows)
        for p in games:
            if p.game in self.rejected:
                continue
            self._forget(p)
            p.rows = []
            p.late = False
            p.started = None
            if p.ready:
                self.pending.pop(p.game, None)
        if self.lines - self.collected >= _COLLECT_EVERY:  # (see collector_paused)
            del parts, todo, games
            gc.collect(1)
            self.collected = self.lines

    def flush_all(self) -> None:
        self.flush(list(self.pending.values()))


class Importer:
    """One import run in this process (see :meth:`jaslog.store.Store.import_lines`)."""

    def __init__(self, store: Any, *, batch_games: int = 500, batch_events: int = 250_000,
                 max_pending_events: int = 2_000_000) -> None:
        self.summary = ImportSummary()
        self.writer = Writer(store, self.summary, lambda g, r: self.validator.dropped(g))
        self.validator = Validator(store, self.writer.write, self._rejected,
                                   self.summary.rejected.append, batch_games=batch_games,
                                   batch_events=batch_events,
                                   max_pending_events=max_pending_events)

    def _rejected(self, game: str, reason: str, source: str | None, line: int | None) -> None:
        if game not in self.writer.rejected:
            self.writer.rejected.add(game)
            self.summary.rejected.append(Rejected(game, reason, source, line))

    def feed(self, lines: Iterable[Line | bytes | str], progress: Callable[[int], None] | None = None,
             source: str = "<lines>") -> None:
        """Take every line (``Line`` objects, or JSON text as bytes or str; blank lines are
        skipped); ``progress`` gets the number of lines taken so far."""
        n = told = 0
        v = self.validator
        it = iter(lines)
        start = 1  # the number of the block's first line
        with collector_paused():
            while block := list(islice(it, _BLOCK)):
                n += v.take_lines(block, source, start, None, True)
                start += len(block)
                if progress is not None and n - told >= _PROGRESS_EVERY:
                    progress(n)
                    told = n
        if progress is not None:
            progress(n)

    def feed_file(self, path: str | Path, progress: Callable[[int], None] | None = None,
                  offset: int = 0, *, source: str | None = None,
                  ends: set[int] | None = None) -> int:
        """Import one file (``-``: stdin); returns ``offset`` plus the bytes read. ``source``
        names it in messages (default: its path); ``ends``: the lines at which a game has its
        last line (:func:`game_ends`)."""
        stream = open_input(path)
        source = source or source_name(path)
        consumed = 0
        self.validator.ends = ends if ends is not None else frozenset()
        v = self.validator
        block: list[bytes] = []
        numbers: list[int] = []
        try:
            with collector_paused():
                for r in raw_lines(stream):
                    if r[1] is None:  # too long to hold: its error is already known
                        if block:
                            v.take_lines(block, source, 0, numbers)
                            block, numbers = [], []
                        v.take_raw(r, source)
                    else:
                        block.append(r[1])
                        numbers.append(r[0])
                        if len(block) >= _BLOCK:
                            v.take_lines(block, source, 0, numbers)
                            block, numbers = [], []
                            if progress is not None:
                                progress(offset + r[5])
                    consumed = r[5]
                if block:
                    v.take_lines(block, source, 0, numbers)
        finally:
            if str(path) != "-":
                stream.close()
        self.validator.let_go()  # the file is read: no line of a game that ended in it follows
        if progress is not None:
            progress(offset + consumed)
        return offset + consumed

    def finish(self) -> ImportSummary:
        """Write everything still pending and return the summary."""
        with collector_paused():
            self.validator.flush_all()
        self.validator.close()
        self.summary.lines = self.validator.lines
        return self.writer.finish(self.validator.seen_existing)
