"""Running work on a Dask distributed cluster (``--cluster tcp://host:8786``): what ``export``,
``check`` and ``analyze`` share to send their games to the workers of a scheduler.

The work is cut by game into tasks; each task is a call of a module-level function that a
worker runs, and the answers come back here in the order of the tasks, a few tasks per
worker thread in flight at a time (memory stays bounded). The same tasks in the same order
give the same answers as a run in one process, so each command prints or writes the same.

A worker that reads a store opens it itself by its URL, once per worker process
(:func:`worker_store`): the store must be reachable from every worker (a PostgreSQL URL, or
an SQLite file on a path every worker sees). Every worker needs jaslog installed, at the
version of this process (Dask checks its own versions, not ours). The cluster itself is
Dask's: ``dask scheduler`` and ``dask worker``, or any deployment Dask supports.
``dask[distributed]`` is jaslog's ``cluster`` extra.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import islice
from typing import TYPE_CHECKING, Any, TypeVar

from jaslog.errors import JaslogError

if TYPE_CHECKING:
    from jaslog.store import Store

T = TypeVar("T")

#: How long to wait for the scheduler before saying it cannot be reached.
CONNECT_SECONDS = 10

#: The stores opened in a worker process, by URL (a worker runs many tasks).
_stores: dict[str, Any] = {}


class ClusterError(JaslogError):
    """The cluster cannot be used: Dask is not installed, or no scheduler answers."""

    code = "cluster_unreachable"


def _handshake(address: str) -> None:
    """Open a connection to ``address`` and exchange Dask's handshake, then close it, all
    within :data:`CONNECT_SECONDS`: Dask's own client waits for a handshake without a time
    limit (a server that accepts and never answers holds it for ever), and reads whatever
    answers as Dask's frames (an HTTP server's answer is read as a frame of exabytes)."""
    import asyncio  # deferred with Dask, which it drives

    from distributed.comm import connect  # deferred: Dask, the optional cluster extra

    async def hello() -> None:
        comm = await connect(address, timeout=CONNECT_SECONDS)
        await comm.close()

    asyncio.run(asyncio.wait_for(hello(), CONNECT_SECONDS))


@contextmanager
def cluster_client(address: str, error: type[JaslogError] = ClusterError) -> Iterator[Any]:
    """A client of the Dask scheduler at ``address`` (``tcp://host:8786``), closed after use;
    ``error`` (a :class:`ClusterError` by default) when Dask is not installed, nothing
    answers within :data:`CONNECT_SECONDS`, or what answers is not a Dask scheduler."""
    try:
        from distributed import Client  # deferred: Dask, the optional cluster extra
    except ImportError:
        raise error("--cluster needs Dask: pip install 'jaslog[cluster]' (or "
                    "'dask[distributed]')") from None
    unreachable = f"no Dask scheduler answers at {address} within {CONNECT_SECONDS} s"
    try:
        _handshake(address)
    except TimeoutError as e:
        raise error(f"{unreachable} ({str(e) or 'it took the connection and said nothing'})"
                    ) from None
    except (OSError, ValueError) as e:
        raise error(f"{unreachable} ({e})") from None
    except Exception as e:  # what answered does not speak Dask's protocol
        raise error(f"what answers at {address} is not a Dask scheduler: its answer is not "
                    f"Dask's handshake ({type(e).__name__})") from None
    try:
        client = Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise error(f"{unreachable} ({e})") from None
    try:
        yield client
    finally:
        client.close()


def in_order(client: Any, work: Callable[..., T], tasks: Iterable[tuple[Any, ...]]
             ) -> Iterator[T]:
    """The answers of ``work(*task)`` for each of ``tasks``, run on the cluster of
    ``client``, in the order of the tasks, with at most two tasks per worker thread in
    flight. An exception raised by ``work`` on a worker is raised here, as it was raised."""
    threads = sum(client.nthreads().values()) or 1
    ahead: deque[Any] = deque()
    try:
        for task in tasks:
            ahead.append(client.submit(work, *task, pure=False))
            if len(ahead) >= 2 * threads:
                yield ahead.popleft().result()
        while ahead:
            yield ahead.popleft().result()
    finally:
        for f in ahead:
            f.cancel()


def run_in_order(address: str, work: Callable[..., T], tasks: Iterable[tuple[Any, ...]], *,
                 error: type[JaslogError] = ClusterError) -> Iterator[T]:
    """:func:`in_order` on the scheduler at ``address`` (:func:`cluster_client`)."""
    with cluster_client(address, error) as client:
        yield from in_order(client, work, tasks)


def batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` cut into lists of ``size`` (the last may be shorter): the tasks' shares.

    >>> list(batches("abcde", 2))
    [['a', 'b'], ['c', 'd'], ['e']]
    """
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch


def worker_store(url: str) -> Store:
    """On a worker: the store at ``url``, opened once per worker process and kept open for
    the tasks that follow."""
    from jaslog.store import open_store  # deferred: the store (SQLAlchemy), on a worker only

    store = _stores.get(url)
    if store is None:
        store = _stores[url] = open_store(url, create=False)
    return store
