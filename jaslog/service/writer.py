"""One writer for the workers of ``jaslog serve --workers N`` over an SQLite store.

SQLite takes one writer at a time, store-wide. Rather than every worker taking the file's
lock in turn (a group commit per process, the lock passed between them), the serving
process (uvicorn's supervisor) runs a :class:`WriterServer`: it takes the appends of every
worker over a local socket, writes them through its own
:class:`~jaslog.service.core.Service` (the fold once an append, the appends waiting
together in one transaction whichever worker sent them) and answers each. Every worker
holds a :class:`WriterLink` to it: its service's appends (:meth:`Service.append_soon
<jaslog.service.core.Service.append_soon>`, :meth:`~jaslog.service.core.Service.submit`,
:meth:`~jaslog.service.core.Service.append`) go there, checked as before on the worker (who
may append, the online room's checks), written and answered by the writer, with the same
codes and bodies as one process alone.

The writer tells each worker that holds a game of every move of it (a :data:`MOVED` frame),
so a live stream in any worker wakes at once, whichever worker took the append; no worker
reads the store's feed to find them. A worker holds a game once the writer has answered an
append of it from that worker (its service keeps the game's next seq as it last heard it:
:meth:`Service.moved <jaslog.service.core.Service.moved>`) or opened a stream on it (a
:data:`WATCH` frame, sent once a game when its :class:`~jaslog.service.core.Notifier` first
subscribes it; ``""``, the stream of every game, holds them all); it holds it until it goes.
The others are not told: a worker whose clients append to games of their own is not woken
for the other worker's appends. The writer answers a :data:`WATCH` with :data:`WATCHING`
once it holds the game for that worker, which wakes the game's streams there: what was
appended between the stream's first read and then, it reads again.

Frames go in batches, not one write each: a worker sends the appends its event loop took in
one turn in one write, and the writer, once a group is committed, sends each worker the
answers of its appends in the group and one :data:`MOVED` of the games the group moved that
the worker holds (each at its last next seq) in one write. The writer's one thread reads
the workers' sockets and writes what it read itself (:meth:`Service.write_now
<jaslog.service.core.Service.write_now>`): an append costs no wake of another thread there,
and what the workers send while a group is written is the next group. A second thread sends
the answers, a group's to every worker at once: a worker woken by its answers may take the
core from the thread that woke it, and the writer's thread goes on meanwhile.

A frame is its length (4 bytes, big-endian, of what follows the kind), its kind (one byte)
and an orjson array: :data:`APPEND` ``[id, game, events, expected_seq]`` and :data:`WATCH`
``[game]`` from a worker; :data:`DONE` ``[id, appended, already_stored, next_seq, hash,
violations]`` or :data:`FAILED` ``[id, error...]`` (:func:`error_fields`) back;
:data:`MOVED` ``[[game, next_seq], ...]`` and :data:`WATCHING` ``[game]`` to the workers
that hold the game. The socket is a file in a folder only the serving user may
enter.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import selectors
import socket
import struct
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import orjson

from jaslog.engine.fold import FoldError
from jaslog.service.core import EVERY_GAME
from jaslog.store import AppendResult, ConflictError, Head, StoreError
from jaslog.store.engine import DatabaseError
from jaslog.store.types import NoSuchGame, RejectedError

if TYPE_CHECKING:
    from jaslog.service.core import Service

#: A frame's header: the length of its body, its kind.
HEADER = struct.Struct(">IB")
#: The kinds of frames.
APPEND, DONE, FAILED, MOVED, WATCH, WATCHING = 1, 2, 3, 4, 5, 6
#: What an append is answered: the store's result, the violations its events brought.
Answer = tuple[AppendResult, list[dict[str, Any]]]


def frame(kind: int, body: Any) -> bytes:
    data = orjson.dumps(body)
    return HEADER.pack(len(data), kind) + data


def unframe(buf: bytes) -> tuple[list[tuple[int, Any]], bytes]:
    """The whole frames at the start of ``buf`` as (kind, body), and what is left of it (a
    frame not yet whole).

    >>> unframe(frame(APPEND, [1, "g"]) + frame(DONE, [2])[:3])
    ([(1, [1, 'g'])], b'\\x00\\x00\\x00')
    """
    out: list[tuple[int, Any]] = []
    n, at = len(buf), 0
    while n - at >= HEADER.size:
        size, kind = HEADER.unpack_from(buf, at)
        end = at + HEADER.size + size
        if n < end:
            break
        out.append((kind, orjson.loads(buf[at + HEADER.size:end])))
        at = end
    return out, buf[at:]


def error_fields(e: BaseException) -> list[Any]:
    """An append's refusal as a frame carries it (:func:`error_of` makes it again)."""
    if isinstance(e, ConflictError):
        return ["conflict", str(e), e.game, e.expected, e.actual]
    if isinstance(e, RejectedError):
        fe = e.fold_error
        fold = None if fe is None else [fe.message, fe.code, fe.game, fe.seq, fe.source,
                                        fe.line, fe.seat, fe.card]
        return ["rejected", str(e), e.game, e.seq, e.code, fold]
    if isinstance(e, NoSuchGame):
        return ["no_such_game", str(e), e.game]
    if isinstance(e, DatabaseError):
        return ["database", str(e), e.code, e.retry_after]
    if isinstance(e, StoreError):
        return ["store", str(e), getattr(e, "code", StoreError.code)]
    return ["error", f"{type(e).__name__}: {e}"]


def error_of(fields: list[Any]) -> Exception:
    """The refusal :func:`error_fields` carried, as the writer raised it (its class, its
    sentence, its fields)."""
    kind, message = fields[0], fields[1]
    e: Exception
    if kind == "conflict":
        e = ConflictError(fields[2], fields[3], fields[4])
    elif kind == "rejected":
        fold = fields[5]
        fe = None if fold is None else FoldError(
            fold[0], code=fold[1], game=fold[2], seq=fold[3], source=fold[4], line=fold[5],
            seat=fold[6], card=fold[7])
        e = RejectedError(message, game=fields[2], seq=fields[3], code=fields[4],
                          fold_error=fe)
    elif kind == "no_such_game":
        e = NoSuchGame(fields[2])
    elif kind == "database":
        e = DatabaseError(message, fields[2], fields[3])
    elif kind == "store":
        e = StoreError(message)
        e.code = fields[2]
    else:
        e = RuntimeError(message)
    e.args = (message,)
    return e


def answer_of(game: str, fields: list[Any]) -> Answer:
    """A :data:`DONE` frame's append result and violations."""
    _, appended, already, next_seq, head_hash, violations = fields
    return AppendResult(game, appended, already, Head(game, next_seq, head_hash)), violations


def writer_socket() -> str:
    """A new socket path in a folder of its own that only this user may enter."""
    folder = tempfile.mkdtemp(prefix="jaslog-writer-")
    os.chmod(folder, 0o700)
    return str(Path(folder) / "writer.sock")


class WriterServer:
    """The one writer: takes the appends of every :class:`WriterLink` on the socket
    ``path`` and writes them through ``svc`` (its group commit), all on one thread of its
    own: it waits for any worker's frames, writes the appends it read (in one group, or as
    many as :meth:`Service.write_now <jaslog.service.core.Service.write_now>` makes of
    them), then hands the sending thread each worker's answers and word of the games it
    holds that the other workers' appends moved (:meth:`_send_all`), and waits again.
    Whatever came meanwhile is the next group. No append passes from a thread to another
    in this process; a group's answers pass once."""

    def __init__(self, svc: Service, path: str) -> None:
        self.svc, self.path = svc, path
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        #: What wakes the writer's thread to stop.
        self._wake_r, self._wake_w = socket.socketpair()
        #: Each worker's socket and what it sent that is not a whole frame yet.
        self._links: dict[socket.socket, bytes] = {}
        #: The workers that hold each game (:data:`EVERY_GAME`: those that hold them all),
        #: told of its moves; the writer's thread's alone.
        self._holders: dict[str, set[socket.socket]] = {}
        self._stopping = False
        self._thread: threading.Thread | None = None
        #: What the sending thread is to send (each worker's socket and its bytes; None
        #: for bytes: the socket to close), in order; None: stop.
        self._out: queue.SimpleQueue[list[tuple[socket.socket, bytes | None]] | None] = \
            queue.SimpleQueue()
        self._sender: threading.Thread | None = None

    def start(self) -> WriterServer:
        self._sock.bind(self.path)
        self._sock.listen(64)
        self._thread = threading.Thread(target=self._run, name="jaslog-writer-server",
                                        daemon=True)
        self._sender = threading.Thread(target=self._send, name="jaslog-writer-send",
                                        daemon=True)
        self._thread.start()
        self._sender.start()
        return self

    def stop(self) -> None:
        self._stopping = True
        with contextlib.suppress(OSError):
            self._wake_w.send(b"\0")
        for c in list(self._links):  # (a write to a worker that reads nothing ends too)
            with contextlib.suppress(OSError):
                c.shutdown(socket.SHUT_RDWR)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        self._out.put(None)
        if self._sender is not None and self._sender is not threading.current_thread():
            self._sender.join(timeout=10)
        for c in (self._sock, self._wake_r, self._wake_w):
            c.close()
        with contextlib.suppress(OSError):
            os.unlink(self.path)
            os.rmdir(os.path.dirname(self.path))

    def _run(self) -> None:
        """The writer's thread: wait for frames (or a new worker), write the appends they
        hold, answer them; until :meth:`stop`."""
        with selectors.DefaultSelector() as sel:
            sel.register(self._sock, selectors.EVENT_READ)
            sel.register(self._wake_r, selectors.EVENT_READ)
            try:
                while not self._stopping:
                    taken: list[tuple[socket.socket, list[Any]]] = []
                    for key, _ in sel.select():
                        conn = key.fileobj
                        assert isinstance(conn, socket.socket)
                        if conn is self._wake_r:
                            continue
                        if conn is self._sock:
                            self._accept(sel)
                        else:
                            self._read(sel, conn, taken)
                    if taken and not self._stopping:
                        self._write(taken)
            finally:
                for c in list(self._links):
                    self._drop(sel, c)

    def _accept(self, sel: selectors.BaseSelector) -> None:
        try:
            conn, _ = self._sock.accept()
        except OSError:
            return
        self._links[conn] = b""
        sel.register(conn, selectors.EVENT_READ)

    def _drop(self, sel: selectors.BaseSelector, conn: socket.socket) -> None:
        """A worker gone (or the writer stopping): its socket shut, and closed by the
        sending thread once what was to be sent on it is past (its number is not reused
        while a send may still use it)."""
        self._links.pop(conn, None)
        for holders in self._holders.values():
            holders.discard(conn)
        with contextlib.suppress(KeyError, ValueError):
            sel.unregister(conn)
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_RDWR)
        self._out.put([(conn, None)])

    def _read(self, sel: selectors.BaseSelector, conn: socket.socket,
              taken: list[tuple[socket.socket, list[Any]]]) -> None:
        """What ``conn`` sent: each whole :data:`APPEND` frame's fields into ``taken``; each
        :data:`WATCH` answered :data:`WATCHING` once the worker holds the game."""
        try:
            data = conn.recv(1 << 16)
        except OSError:
            data = b""
        if not data:
            self._drop(sel, conn)
            return
        buf = self._links[conn]
        frames, self._links[conn] = unframe(buf + data if buf else data)
        watched: list[bytes] = []
        for kind, body in frames:
            if kind == APPEND:
                taken.append((conn, body))
            elif kind == WATCH:
                self._hold(body[0], conn)
                watched.append(frame(WATCHING, body))
        if watched:  # every group from here on tells it
            self._out.put([(conn, b"".join(watched))])

    def _hold(self, game: str, conn: socket.socket) -> None:
        """The worker on ``conn`` holds ``game``: it is told of its moves from now on."""
        held = self._holders.get(game)
        if held is None:
            self._holders[game] = {conn}
        else:
            held.add(conn)

    def _write(self, taken: list[tuple[socket.socket, list[Any]]]) -> None:
        """Write the appends taken, answer each to its worker and tell each other worker
        that holds a game they moved of it (once, at the game's last next seq), one write a
        worker. A worker holds the game of each append of it the writer answered (its
        service keeps the next seq it was answered: :meth:`Service.moved
        <jaslog.service.core.Service.moved>`)."""
        try:
            done = self.svc.write_now([(game, events, expected_seq)
                                       for _, (_, game, events, expected_seq) in taken])
        except Exception as e:  # the service closing: every append refused so
            why = error_fields(e)
            out: dict[socket.socket, list[bytes]] = {}
            for conn, (ident, *_) in taken:
                out.setdefault(conn, []).append(frame(FAILED, [ident, *why]))
            self._send_all(out, {})
            return
        answers: dict[socket.socket, list[bytes]] = {}
        moved: dict[str, tuple[socket.socket | None, int]] = {}
        for (conn, (ident, game, _, _)), fut in zip(taken, done, strict=True):
            refused = fut.exception()
            if refused is not None:
                answer = frame(FAILED, [ident, *error_fields(refused)])
            else:
                res, new = fut.result()
                head = res.head
                self._hold(game, conn)
                answer = frame(DONE, [ident, res.appended, res.already_stored, head.next_seq,
                                      head.hash, new])
                if res.appended:
                    was = moved.get(game)
                    # the worker to leave out: the one that moved it, if only that one did
                    by = conn if was is None or was[0] is conn else None
                    moved[game] = (by, max(head.next_seq, was[1] if was else 0))
            answers.setdefault(conn, []).append(answer)
        self._send_all(answers, moved)

    def _send_all(self, answers: dict[socket.socket, list[bytes]],
                  moved: dict[str, tuple[socket.socket | None, int]]) -> None:
        """Send each worker, in one write, its answers and then one :data:`MOVED` of the
        games it holds that another worker's appends moved: handed to the sending thread,
        so that the writer's thread, should the worker it wakes take the core from it, goes
        on reading and writing meanwhile. A worker with neither is not written to (nor
        woken)."""
        told: dict[socket.socket, list[list[Any]]] = {}
        every = self._holders.get(EVERY_GAME)
        for game, (by, next_seq) in moved.items():
            held = self._holders.get(game)
            if every:
                held = every if held is None else held | every
            for conn in held or ():
                if conn is not by:
                    told.setdefault(conn, []).append([game, next_seq])
        out: list[tuple[socket.socket, bytes | None]] = []
        for conn in list(self._links):
            frames = answers.get(conn, [])
            games = told.get(conn)
            if games:
                frames.append(frame(MOVED, games))
            if frames:
                out.append((conn, b"".join(frames)))
        if out:
            self._out.put(out)

    def _send(self) -> None:
        """The sending thread: each worker's bytes sent in the order the writer's thread
        handed them (a socket dropped closed after them); until :meth:`stop`."""
        while (out := self._out.get()) is not None:
            for conn, data in out:
                if data is None:
                    conn.close()
                    continue
                with contextlib.suppress(OSError):
                    conn.sendall(data)


class WriterLink(asyncio.Protocol):
    """A worker's link to the :class:`WriterServer` at ``path``, on the worker's event
    loop: an append awaits its answer there (no thread between the request and the
    socket); from another thread, :meth:`submit` gives a future. ``moved(game,
    next_seq)`` is called on the loop for each game another worker's append moved that
    this worker holds (it sent an append of it, or asked for it: :meth:`watch`);
    ``woken(game)`` once the writer holds a game watched for this worker."""

    def __init__(self, path: str, moved: Callable[[str, int], None],
                 woken: Callable[[str], None] = lambda game: None) -> None:
        self.path, self.moved, self.woken = path, moved, woken
        #: The games :meth:`watch` asked the writer to tell of.
        self._watched: set[str] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self._transport: asyncio.Transport | None = None
        self._buf = b""
        self._next = 0
        self._waiting: dict[int, tuple[str, asyncio.Future[Answer]]] = {}
        #: The appends taken in this turn of the event loop, written together after it.
        self._out: list[bytes] = []

    async def connect(self) -> None:
        self.loop = asyncio.get_running_loop()
        await self.loop.create_unix_connection(lambda: self, self.path)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports do not derive from asyncio's classes: no isinstance here
        self._transport = cast(asyncio.Transport, transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None
        gone = DatabaseError("the service's writer process is gone: the append was not "
                             "answered (the service is stopping, or it failed)",
                             "store_unreachable", 5)
        waiting, self._waiting = self._waiting, {}
        for _, fut in waiting.values():
            if not fut.done():
                fut.set_exception(gone)

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def data_received(self, data: bytes) -> None:
        frames, self._buf = unframe(self._buf + data if self._buf else data)
        for kind, fields in frames:
            if kind == MOVED:
                for game, next_seq in fields:
                    self.moved(game, next_seq)
                continue
            if kind == WATCHING:
                self.woken(fields[0])
                continue
            game, fut = self._waiting.pop(fields[0], (None, None))
            if fut is None or fut.done() or game is None:
                continue
            if kind == DONE:
                fut.set_result(answer_of(game, fields))
            else:
                fut.set_exception(error_of(fields[1:]))

    def append(self, game: str, events: list[dict[str, Any]], expected_seq: int | None
               ) -> asyncio.Future[Answer]:
        """Send an append (on the loop's thread); its answer's future."""
        assert self.loop is not None
        fut: asyncio.Future[Answer] = self.loop.create_future()
        if self._transport is None:
            self.connection_lost(None)
            fut.set_exception(DatabaseError("the service's writer process is gone: the "
                                            "append was not sent", "store_unreachable", 5))
            return fut
        self._next += 1
        self._waiting[self._next] = (game, fut)
        self._send(frame(APPEND, [self._next, game, events, expected_seq]))
        return fut

    def watch(self, game: str) -> None:
        """Ask the writer (on the loop's thread) to tell this worker of every move of
        ``game`` (:data:`EVERY_GAME`: of every game) from now on, though it appends none:
        a stream of it opened here. Once a game; :attr:`woken` is called for it when the
        writer holds it."""
        if game in self._watched or self._transport is None:
            return
        self._watched.add(game)
        self._send(frame(WATCH, [game]))

    def _send(self, data: bytes) -> None:
        """``data`` written with the others of this turn of the loop."""
        assert self.loop is not None
        if not self._out:
            self.loop.call_soon(self._write)
        self._out.append(data)

    def _write(self) -> None:
        """Write the appends taken since the last write, in one write (their futures were
        failed already when the connection is gone)."""
        out, self._out = self._out, []
        if self._transport is not None and out:
            self._transport.write(b"".join(out))

    def on_loop(self) -> bool:
        """Whether this thread runs the link's loop."""
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    def submit(self, game: str, events: list[dict[str, Any]], expected_seq: int | None
               ) -> Future[Answer]:
        """:meth:`append` from any thread but the loop's: a future of its answer."""
        assert self.loop is not None

        async def sent() -> Answer:
            return await self.append(game, events, expected_seq)

        return asyncio.run_coroutine_threadsafe(sent(), self.loop)
