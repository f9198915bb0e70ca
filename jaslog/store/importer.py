"""Bulk import: stream ``jaslog/1`` lines, fold each game, write whole games in big batches.

Nothing goes row by row through the ORM: a batch of finished games is validated by the
fold as it is read, then written in one transaction with one ``executemany`` for all its
events. Crash-safe by construction: a batch commits whole or not at all, and re-running an
import compares what is already stored (byte for byte, in canonical form) and writes only
what is missing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import orjson

from jaslog.events import MAX_LINE, VERSION, Event, EventError, Line, parse_event
from jaslog.fold import FoldError, GameFold, start_fold
from jaslog.store import engine as eng
from jaslog.store.codec import canonical, current_canonical, link, norm_id
from jaslog.store.schema import EVENTS
from jaslog.store.types import GENESIS, Head, ImportSummary, Rejected, StoreError

_GAME_IN_TEXT = re.compile(rb'"game"\s*:\s*"([A-Za-z0-9._:-]{1,128})"')
_PROGRESS_EVERY = 2000


def _guess_game(raw: bytes) -> str | None:
    """The game a broken line names, if its text shows one."""
    m = _GAME_IN_TEXT.search(raw[:8192])
    return m.group(1).decode() if m else None


def parse_line(raw: bytes, source: str, number: int, *, last: bool = False) -> Line:
    """One line of a log, parsed; a bad line becomes a :class:`Line` with an error that
    names the game when the text shows one."""
    try:
        return Line(source, number, parse_event(raw))
    except EventError as e:
        error = str(e)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as u:
        error = (f"not UTF-8: byte {u.start + 1} of the line is 0x{raw[u.start]:02x} "
                 "(save the file as UTF-8)")
    game: str | None = None
    seq: int | None = None
    try:
        d = orjson.loads(raw)
        if isinstance(d, dict):
            g, s = d.get("game"), d.get("seq")
            game = g if isinstance(g, str) else None
            seq = s if isinstance(s, int) and not isinstance(s, bool) else None
    except orjson.JSONDecodeError:
        game = _guess_game(raw)
        if last and not raw.endswith(b"\n"):
            error = f"the file ends in the middle of a line (truncated?): {error}"
    return Line(source, number, None, error, game, seq)


def read_stream(stream: IO[bytes], source: str) -> Iterator[tuple[Line, int]]:
    """The non-blank lines of a stream with the bytes read so far; a line longer than
    :data:`MAX_LINE` is skipped without being held in memory and reported."""
    number = consumed = 0
    raw = stream.readline(MAX_LINE + 2)
    while raw:
        number += 1
        consumed += len(raw)
        nxt = b""
        if len(raw) > MAX_LINE + 1 or (len(raw) == MAX_LINE + 1 and not raw.endswith(b"\n")):
            head, size = raw[:8192], len(raw)
            while not raw.endswith(b"\n"):
                raw = stream.readline(1 << 20)
                if not raw:
                    break
                size += len(raw)
                consumed += len(raw)
            yield Line(source, number, None, f"line is {size} bytes long; the limit is {MAX_LINE}",
                       _guess_game(head)), consumed
        else:
            nxt = stream.readline(MAX_LINE + 2)
            if raw.strip():
                yield parse_line(raw, source, number, last=not nxt), consumed
            raw = nxt
            continue
        raw = stream.readline(MAX_LINE + 2)


@dataclass(slots=True)
class _Pending:
    """A game being imported: where the store stood, its fold, the events still to write."""

    game: str
    base: Head
    stored: list[bytes] = field(default_factory=list)  # canonical payloads in the store
    stored_len: int = 0
    expect: int | None = 0
    fold: GameFold | None = None
    events: list[tuple[Event, bytes]] = field(default_factory=list)
    ready: bool = False
    written: int = 0


class Importer:
    """One import run over a store (see :meth:`jaslog.store.Store.import_lines`)."""

    def __init__(self, store: object, *, batch_games: int = 500, batch_events: int = 250_000,
                 max_pending_events: int = 2_000_000) -> None:
        from jaslog.store.store import Store

        assert isinstance(store, Store)
        self.store = store
        self.batch_games = max(1, batch_games)
        self.batch_events = batch_events
        self.max_pending = max_pending_events
        self.summary = ImportSummary()
        self.pending: dict[str, _Pending] = {}
        self.ready_games = self.ready_events = self.pending_events = 0
        self.rejected: set[str] = set()
        self.new_games: set[str] = set()
        self.extended: set[str] = set()
        self.seen_existing: set[str] = set()
        self.last_game: str | None = None

    # ------------------------------------------------------------------ input

    @staticmethod
    def lines_of(lines: Iterable[Line | bytes | str], source: str) -> Iterator[Line]:
        for number, item in enumerate(lines, 1):
            if isinstance(item, Line):
                yield item
                continue
            raw = item.encode() if isinstance(item, str) else bytes(item)
            if raw.strip():
                yield parse_line(raw, source, number)

    def feed(self, lines: Iterable[Line], progress: Callable[[int], None] | None = None) -> None:
        n = 0
        for ln in lines:
            self.take(ln)
            n += 1
            if progress is not None and n % _PROGRESS_EVERY == 0:
                progress(n)
        if progress is not None:
            progress(n)

    def feed_file(self, path: str | Path, progress: Callable[[int], None] | None = None,
                  offset: int = 0) -> int:
        """Import one file (``-``: stdin); returns ``offset`` plus the bytes read."""
        if str(path) == "-":
            import sys

            return self._feed_stream(sys.stdin.buffer, "<stdin>", progress, offset)
        try:
            with open(path, "rb") as f:
                return self._feed_stream(f, str(path), progress, offset)
        except OSError as e:
            raise StoreError(f"{path}: {e.strerror or e}") from None

    def _feed_stream(self, stream: IO[bytes], source: str,
                     progress: Callable[[int], None] | None, offset: int) -> int:
        consumed = 0
        for n, (ln, consumed) in enumerate(read_stream(stream, source), 1):
            self.take(ln)
            if progress is not None and n % _PROGRESS_EVERY == 0:
                progress(offset + consumed)
        if progress is not None:
            progress(offset + consumed)
        return offset + consumed

    # ------------------------------------------------------------------ one line

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
            self.summary.rejected.append(Rejected(game, reason, source, line))

    def _forget(self, p: _Pending) -> None:
        self.pending_events -= len(p.events)
        if p.ready:
            self.ready_games -= 1
            self.ready_events -= len(p.events)

    def _open(self, game: str) -> _Pending:
        with eng.read_tx(self.store.engine) as conn:
            head = self.store._head(conn, game)
            if head.next_seq == 0:
                p = _Pending(game, head)
            else:
                rows = self.store._rows_of(conn, game)
                p = _Pending(game, head, [current_canonical(r.payload, r.version) for r in rows],
                             len(rows), expect=None)
                self.seen_existing.add(game)
        self.pending[game] = p
        return p

    def take(self, ln: Line) -> None:
        self.summary.lines += 1
        e = ln.event
        if e is None:
            where = f"{ln.source}:{ln.number}: "
            if ln.game is None:
                self.summary.rejected.append(Rejected(None, where + (ln.error or "unreadable"),
                                                      ln.source, ln.number))
            else:
                seq = f" seq {ln.seq}" if ln.seq is not None else ""
                self.reject(ln.game, f"{where}game {ln.game}{seq}: {ln.error}", ln.source,
                            ln.number)
            return
        gid = e.game
        if gid in self.rejected:
            return
        p = self.pending.get(gid) or self._open(gid)
        where = f"{ln.source}:{ln.number}: "
        if p.stored_len:  # the game is in the store: compare, then extend
            if (p.expect is None and e.seq > p.stored_len) or \
                    (p.expect is not None and e.seq != p.expect):
                want = p.stored_len if p.expect is None else p.expect
                self.reject(gid, f"{where}game {gid} seq {e.seq}: expected seq {want} "
                            f"[{'seq_gap' if e.seq > want else 'seq_duplicate'}]",
                            ln.source, ln.number)
                return
            if e.seq < p.stored_len:
                if canonical(e) != p.stored[e.seq]:
                    self.reject(gid, f"{where}game {gid} seq {e.seq}: the store already holds a "
                                "different event at this seq (the game was stored before with "
                                "other events) [conflict]", ln.source, ln.number)
                    return
                p.expect = e.seq + 1
                if p.expect == p.stored_len:  # all of it is stored: forget it until more comes
                    self.pending.pop(gid, None)
                return
        try:
            if p.fold is None:
                if not p.stored_len:
                    p.fold = start_fold(e)
                else:
                    p.stored = []
                    p.fold = self.store.fold(gid)
                    p.fold.apply(e)
            else:
                p.fold.apply(e)
        except FoldError as err:
            self.reject(gid, str(err.located(ln.source, ln.number)), ln.source, ln.number)
            return
        except StoreError as err:
            self.reject(gid, f"{where}{err}", ln.source, ln.number)
            return
        p.events.append((e, canonical(e)))
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
                self.ready_events += len(prev.events)
                if self.ready_games >= self.batch_games or self.ready_events >= self.batch_events:
                    self.flush([q for q in self.pending.values() if q.ready])
        if self.pending_events >= self.max_pending:
            self.flush(list(self.pending.values()))

    # ------------------------------------------------------------------ writing

    def flush(self, games: list[_Pending]) -> None:
        """Write ``games`` in one transaction; ready games leave the pending set."""
        if not games:
            return
        from jaslog.store.store import insert_games

        todo = [p for p in games if p.events]
        written: list[_Pending] = []
        heads_after: dict[str, str] = {}
        if todo:
            with eng.write_tx(self.store.engine) as conn:
                heads = self.store._heads(conn, [p.game for p in todo])
                for p in todo:
                    now = heads.get(p.game, Head(p.game, 0, GENESIS))
                    if (now.next_seq, now.hash) != (p.base.next_seq, p.base.hash):
                        self.reject(p.game, f"game {p.game}: another writer changed it in the store "
                                    f"during the import (it is at seq {now.next_seq}, the import "
                                    f"read seq {p.base.next_seq}) [conflict]; import it again")
                        continue
                    written.append(p)
                insert_games(conn, [p.events[0][0] for p in written  # type: ignore[misc]
                                    if p.base.next_seq == 0])
                from sqlalchemy import func, select

                pos = int(conn.execute(select(func.coalesce(func.max(EVENTS.c.pos), 0)))
                          .scalar_one())
                rows = []
                for p in written:
                    prev = bytes.fromhex(p.base.hash)
                    for e, payload in p.events:
                        h = link(prev, payload)
                        pos += 1
                        rows.append((e.game, e.seq, pos, e.type, VERSION,
                                     norm_id(e.id) if e.id is not None else None, e.at, payload,
                                     prev.hex(), h.hex()))
                        prev = h
                    heads_after[p.game] = prev.hex()
                self.store.insert_rows(conn, rows)
        for p in written:
            n = len(p.events)
            self.summary.events += n
            if p.base.next_seq == 0:
                if p.game not in self.new_games:
                    self.new_games.add(p.game)
                    self.summary.games += 1
            elif p.game not in self.new_games:
                self.extended.add(p.game)
            last = p.events[-1][0]
            p.base = Head(p.game, last.seq + 1, heads_after[p.game])
            p.written += n
        for p in games:
            if p.game in self.rejected:
                continue
            self._forget(p)
            p.events = []
            if p.ready:
                self.pending.pop(p.game, None)

    def finish(self) -> ImportSummary:
        """Write everything still pending and return the summary."""
        self.flush(list(self.pending.values()))
        for g in self.seen_existing:
            if g not in self.extended and g not in self.rejected and g not in self.new_games:
                self.summary.already_present.append(g)
        self.summary.extended = sorted(self.extended)
        self.summary.already_present.sort()
        return self.summary

