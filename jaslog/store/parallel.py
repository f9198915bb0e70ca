"""Import with the work spread over worker processes.

The main process reads the files and sends each line to a worker chosen by its game (so a
game's lines stay in order in one worker). Each worker does what the one-process
:class:`~jaslog.store.importer.Importer` does for its games: it parses, folds and chains
them, and writes them, one batch per transaction, through its own connection. The workers
take turns at writing (a lock shared between them, besides the database's own), and each
transaction hands out positions after the last one stored, so positions stay contiguous and
in commit order. The main process adds up what the workers report.

Writing in the workers keeps the rows where they were made: sending them back to one
writing process cost that process more than the insert itself.

Workers are forked where that is safe (see :func:`start_method`), else spawned; either way
each opens its own store. On Linux a worker is killed with its parent (a killed import
leaves whole batches and nothing more: a transaction cut short is rolled back), elsewhere
it stops when it sees its parent gone.

With one worker the lines go to it in whole slices, untouched; with several, each line goes
to the worker of its game.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import multiprocessing as mp
import os
import queue
import signal
import sys
import threading
import zlib
from collections.abc import Callable, Iterable
from itertools import islice
from pathlib import Path
from typing import Any

from jaslog.logs import canonical_game_end, guess_game, line_game
from jaslog.store.import_input import open_input, raw_lines, source_name
from jaslog.store.import_writer import Part, Writer
from jaslog.store.importer import Validator
from jaslog.store.types import ImportSummary, Rejected, StoreError

CHUNK = 1000
#: Chunks of lines a worker may have waiting: enough that a worker never starves while the
#: other one writes.
IN_FLIGHT = 64
#: Games (and events) per transaction of a worker: small, so that one worker's writing and
#: the other's validating overlap (with 200 games, a worker waited about a second at the start
#: while the other wrote its first batch; with 50, a fifth of that).
WORKER_BATCH_GAMES, WORKER_BATCH_EVENTS = 50, 30_000


def worker_of(raw: bytes, n: int) -> int:
    """Which of ``n`` workers takes a line: the one of its game (the same for every line of a
    game; :func:`jaslog.logs.line_game`, or for a line that is not JSON the game its text
    shows), 0 when the line names none."""
    game = line_game(raw) or guess_game(raw)
    return zlib.crc32(game.encode()) % n if game else 0


class Router:
    """:func:`worker_of` for a stream of lines, quicker when lines of a game come together (as
    they do in files): a line that starts with the previous canonical line's ``{"game":"<id>"``
    and names ``"game"`` once goes where that line went, without reading its id again.

    >>> route = Router(3)
    >>> a = b'{"game":"g-7","seq":3,"type":"play","seat":1,"card":"AS"}'
    >>> route(a) == worker_of(a, 3) == route(a.replace(b'"seq":3', b'"seq":4'))
    True
    """

    __slots__ = ("k", "n", "prefix")

    def __init__(self, n: int) -> None:
        self.n = n
        self.prefix = b"\0"  # matches no line
        self.k = 0

    def __call__(self, raw: bytes) -> int:
        if raw.startswith(self.prefix) and raw.count(b'"game"') == 1:
            return self.k
        k = worker_of(raw, self.n)
        end = canonical_game_end(raw)
        if end > 0:
            self.prefix, self.k = raw[:end + 1], k  # with the closing quote
        return k


def die_with_parent(parent: int) -> None:
    """On Linux, have the kernel kill this worker when its parent dies (PR_SET_PDEATHSIG), so
    that a killed import leaves no worker writing on behind it."""
    if sys.platform == "linux":
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the call above took effect
        os._exit(1)


def failure(e: BaseException) -> tuple[str, str, int | None, str]:
    """What stopped a worker, to send to the importer: (kind, code, retry_after, sentence),
    kind ``database`` (the database's own trouble: :class:`DatabaseError`) or ``store``.

    >>> failure(ValueError("a bug"))
    ('store', 'import_failed', None, 'ValueError: a bug')
    """
    from jaslog.errors import JaslogError
    from jaslog.store.engine import DatabaseError, database_error, db_message, is_driver_error

    mapped = database_error(e) if is_driver_error(e) else None
    if isinstance(e, DatabaseError) or mapped is not None:
        err = mapped or e
        assert isinstance(err, DatabaseError)
        return "database", err.code, err.retry_after, str(err)
    if isinstance(e, JaslogError):
        return "store", e.code, None, str(e)
    if is_driver_error(e):
        return "store", "database_error", None, f"the database refused the rows: {db_message(e)}"
    return "store", "import_failed", None, f"{type(e).__name__}: {e}"


def batch_said(parts: list[Part]) -> str:
    """The games of a batch being written, and where they were read, for a sentence.

    >>> batch_said([Part("g1", 0, "", [], None, "", ("a.jsonl", 1, 40)),
    ...             Part("g2", 0, "", [], None, "", ("a.jsonl", 3, 90))])
    'writing games g1, g2 (a.jsonl:1-90)'
    """
    games = [p.game for p in parts]
    shown = ", ".join(games[:5]) + (f" and {len(games) - 5} more" if len(games) > 5 else "")
    where = [p.lines for p in parts if p.lines is not None and p.lines[0]]
    lines = ""
    if where and all(w[0] == where[0][0] for w in where):
        lines = f" ({where[0][0]}:{min(w[1] for w in where)}-{max(w[2] for w in where)})"
    elif where:
        lines = " (" + ", ".join(f"{w[0]}:{w[1]}-{w[2]}" for w in where[:5]) + ")"
    return f"writing game{'s' * (len(games) > 1)} {shown}{lines}"


def _worker(url: str, batch_games: int, q_in: Any, q_out: Any, parent: int, lock: Any) -> None:
    die_with_parent(parent)
    from jaslog.store.store import open_store

    source: str | None = None  # where the worker is, for the sentence if it stops
    number: int | None = None
    raw: bytes | None = None
    writing: list[Part] = []
    reader: Any = None  # the validator's reader of blocks of lines, once there is one
    try:
        store = open_store(url)
        summary = ImportSummary()
        writer = Writer(store, summary, lambda g, r: v.dropped(g))

        def sink(parts: list[Part]) -> set[str]:
            writing[:] = parts
            batch = writer.prepare(parts)  # (what needs no turn is done before it)
            with lock:
                if os.getppid() != parent:
                    os._exit(1)  # the import was killed: write nothing more
                done = writer.commit(batch)
            writing.clear()
            return done

        def reject(game: str, reason: str, source: str | None, line: int | None) -> None:
            if game not in writer.rejected:
                writer.rejected.add(game)
                summary.rejected.append(Rejected(game, reason, source, line))

        v = Validator(store, sink, reject, summary.rejected.append,
                      batch_games=min(batch_games, WORKER_BATCH_GAMES),
                      batch_events=WORKER_BATCH_EVENTS)
        reader = v.reader
        gc.disable()  # as in one process (see collector.collector_paused)
        while True:
            try:
                chunk = q_in.get(timeout=1.0)
            except queue.Empty:
                if os.getppid() != parent:
                    return  # the importer was killed: nothing to finish
                continue
            if chunk is None:
                break
            if chunk[0] == "ends":  # the lines of the next file at which a game ends
                v.ends = chunk[1]
                continue
            if chunk[0] == "lines":  # (kind, source, line numbers, their bytes joined, lengths)
                _, source, numbers, blob, lengths = chunk
                raws = []
                start = 0
                for size in lengths:
                    end = start + size
                    raws.append(blob[start:end])
                    start = end
                v.take_lines(raws, source, 0, numbers)
            elif chunk[0] == "bytes":  # plain lines: (kind, source, first line number, lines)
                _, source, first, items = chunk
                v.take_lines(items, source, first, None, True)
            else:  # lines as raw_lines reads them: (kind, source, lines)
                _, source, items = chunk
                take_raw = v.take_raw
                for r in items:
                    number, raw = r[0], r[1]
                    take_raw(r, source)
        source = number = raw = None  # the lines are all read: what is left is writing
        v.flush_all()
        v.close()
        q_out.put(("done", v.lines, summary, writer.new_games, writer.extended, writer.rejected,
                   v.seen_existing))
        store.close()
    except BaseException as e:  # a worker process: whatever stops it is reported to the parent
        kind, code, retry, said = failure(e)
        if reader is not None and reader.line is not None:  # it stopped in a block of lines
            number, raw = reader.number, reader.line
        if writing:
            said = f"{batch_said(writing)}: {said}"
        elif source is not None:
            game = (line_game(raw) or guess_game(raw)) if raw is not None else None
            said = f"{source}:{number}: " + (f"game {game}: " if game else "") + said
        q_out.put(("error", kind, code, retry, said))


def start_method() -> str:
    """``fork`` where it is safe and cheap (Linux, and no other thread in this process that
    could hold a lock across the fork), else ``spawn``. A forked worker starts at once instead
    of importing jaslog again (about a second); it opens its own store and never touches the
    parent's connections, and it leaves with ``os._exit``, so nothing of the parent's is
    closed or flushed twice."""
    if sys.platform == "linux" and threading.active_count() == 1:
        return "fork"
    return "spawn"


class ParallelImporter:
    """An import run with ``workers`` validating processes (see :class:`Importer`)."""

    def __init__(self, store: Any, workers: int, *, batch_games: int = 500) -> None:
        self.store = store
        self.summary = ImportSummary()
        # the workers write; this writer only adds up what they did (see finish)
        self.writer = Writer(store, self.summary, lambda g, r: None)
        ctx: Any = mp.get_context(start_method())
        self.q_out: Any = ctx.Queue(maxsize=8 * workers)
        self.q_in: list[Any] = [ctx.Queue(maxsize=IN_FLIGHT) for _ in range(workers)]
        # kept for the workers' life: a started Process drops its args, and a spawned worker
        # opens the lock's semaphore by name only once it has imported jaslog; were the
        # lock collected before that, its name would be gone (FileNotFoundError in the worker)
        self.lock = ctx.Lock()
        self.procs = [ctx.Process(target=_worker, args=(store.url, batch_games, q, self.q_out,
                                                         os.getpid(), self.lock), daemon=True)
                      for q in self.q_in]
        for p in self.procs:
            p.start()
        # the lines held here make no cycles: the collector would only walk them again and
        # again (see collector.collector_paused)
        self._collector_was_on = gc.isenabled()
        gc.disable()
        #: by worker: the numbers and bytes of the lines not sent yet
        self.buffers: list[tuple[list[int], list[bytes]]] = [([], []) for _ in range(workers)]
        self.done = 0
        self.lines = 0
        self.seen_existing: set[str] = set()
        self.aborted = False

    def _handle(self, msg: Any) -> None:
        if msg[0] == "error":
            _, kind, code, retry, said = msg
            self.abort()
            said = (f"the import stopped: {said}; nothing of that batch was written (the games "
                    "of the batches written before it stay stored: importing the files again "
                    "skips them)")
            if kind == "database":
                from jaslog.store.engine import DatabaseError

                raise DatabaseError(said, code, retry)
            error = StoreError(said)
            error.code = code
            raise error
        _, lines, summary, new_games, extended, rejected, seen = msg
        self.done += 1
        self.lines += lines
        self.summary.games += summary.games
        self.summary.events += summary.events
        self.summary.rejected += summary.rejected
        self.writer.new_games |= new_games
        self.writer.extended |= extended
        self.writer.rejected |= rejected
        self.seen_existing |= seen

    def _drain(self, block: bool = False) -> None:
        while True:
            try:
                msg = self.q_out.get(timeout=0.5) if block else self.q_out.get_nowait()
            except queue.Empty:
                if block:
                    self._check_alive()
                    continue
                return
            self._handle(msg)
            if block:
                return

    def _check_alive(self) -> None:
        for p in self.procs:
            if p.exitcode not in (None, 0):
                self.abort()
                raise StoreError(f"the import stopped: an import worker died (exit code "
                                 f"{p.exitcode}); the games of the batches written before stay "
                                 "stored: importing the files again skips them")

    def _send(self, k: int, item: Any) -> None:
        while True:
            try:
                self.q_in[k].put(item, timeout=0.05)
                return
            except queue.Full:
                self._drain()
                self._check_alive()

    def _flush_buffer(self, k: int, source: str) -> None:
        """Send worker ``k`` its lines so far as one message: their numbers, and their bytes
        joined into one (a list of tuples cost more to pickle and unpickle than the rest)."""
        numbers, raws = self.buffers[k]
        if numbers:
            self._send(k, ("lines", source, numbers, b"".join(raws), [len(r) for r in raws]))
            self.buffers[k] = ([], [])

    def feed_file(self, path: str | Path, progress: Callable[[int], None] | None = None,
                  offset: int = 0, *, source: str | None = None,
                  ends: set[int] | None = None) -> int:
        """Import one file (see :meth:`jaslog.store.importer.Importer.feed_file`)."""
        stream = open_input(path)
        source = source or source_name(path)
        n = len(self.procs)
        for k in range(n):  # each worker is told where the games of this file end
            self._send(k, ("ends", ends if ends is not None else frozenset()))
        route = Router(n)
        consumed = 0
        try:
            for i, r in enumerate(raw_lines(stream), 1):
                raw = r[1]
                if n == 1:
                    k = 0
                elif raw is None:  # a line too long to hold: its game as guessed from the text
                    k = zlib.crc32(r[3].encode()) % n if r[3] else 0
                else:
                    k = route(raw)
                if raw is None or r[4]:  # an error already known, or the file's last line
                    self._flush_buffer(k, source)
                    self._send(k, ("raw", source, [r]))
                else:
                    numbers, raws = self.buffers[k]
                    numbers.append(r[0])
                    raws.append(raw)
                    if len(numbers) >= CHUNK:
                        self._flush_buffer(k, source)
                consumed = r[5]
                if i % CHUNK == 0:
                    self._drain()
                    if progress is not None:
                        progress(offset + consumed)
        finally:
            if str(path) != "-":
                stream.close()
        for k in range(n):
            self._flush_buffer(k, source)
        if progress is not None:
            progress(offset + consumed)
        return offset + consumed

    def feed(self, lines: Iterable[bytes | str], source: str) -> None:
        """Lines given in memory (bytes or text; blank lines are skipped)."""
        n = len(self.procs)
        if n == 1:  # nothing to route: whole slices of lines go as they are
            it = iter(lines)
            first = 1
            while chunk := list(islice(it, CHUNK)):
                self._send(0, ("bytes", source, first, chunk))
                first += len(chunk)
                self._drain()
            return
        route = Router(n)
        buffers = self.buffers
        for i, item in enumerate(lines, 1):
            raw = item.encode() if isinstance(item, str) else item
            if not raw.strip():
                continue
            k = route(raw)
            numbers, raws = buffers[k]
            numbers.append(i)
            raws.append(raw)
            if len(numbers) >= CHUNK:
                self._flush_buffer(k, source)
                self._drain()
        for k in range(n):
            self._flush_buffer(k, source)

    def finish(self) -> ImportSummary:
        for k in range(len(self.procs)):
            self._send(k, None)
        while self.done < len(self.procs):
            self._drain(block=True)
        self.close()
        self.summary.lines = self.lines
        return self.writer.finish(self.seen_existing)

    def abort(self) -> None:
        """Stop the workers without waiting for their work (an error here or in a worker): a
        transaction a worker had under way is rolled back. Lines still queued for a worker
        are dropped, so that this process can exit (a queue's feeder thread would otherwise
        wait for ever to hand them to a worker that is gone)."""
        if self.aborted:
            return
        self.aborted = True
        for p in self.procs:
            if p.is_alive():
                p.terminate()
        self.close()
        for q in [*self.q_in, self.q_out]:
            q.cancel_join_thread()
            q.close()

    def close(self) -> None:
        if self._collector_was_on:
            gc.enable()
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
                p.join(timeout=5)


def auto_workers(size: int | None) -> int:
    """How many workers an import of ``size`` bytes deserves (0: validate in-process).

    Above 16 MB, one per CPU but one (at most 8), and two on a machine with two or three CPUs:
    validating costs about twice what writing does, so two workers and the writing process
    share two CPUs better than one worker does (``python -m benchmarks.store_perf GAMES WORKERS``
    compares them).
    """
    cpus = os.cpu_count() or 1
    if cpus < 2 or size is None or size < (16 << 20):
        return 0
    return max(2, min(cpus - 1, 8))
