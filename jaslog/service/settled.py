"""An append's answer settled on the thread that wrote it: a future without a lock."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any


class SettledFuture(Future[Any]):
    """The answer of an append that :meth:`jaslog.service.core.Service.write_now` writes and
    answers on the calling thread before it returns: a :class:`~concurrent.futures.Future`
    that no other thread waits for, so without its lock, its condition and their wake-ups (one of each an
    append, for nothing). Settled once, read after; never cancelled.

    >>> f = SettledFuture()
    >>> f.set_running_or_notify_cancel(), f.done()
    (True, False)
    >>> f.set_result(7); f.done(), f.exception(), f.result()
    (True, None, 7)
    >>> g = SettledFuture(); g.set_exception(KeyError("k")); g.exception()
    KeyError('k')
    """

    def __init__(self) -> None:  # (no lock: see the class)
        self._state = "PENDING"
        self._result: Any = None
        self._exception: BaseException | None = None
        self._done_callbacks: list[Callable[[Future[Any]], object]] = []

    def __repr__(self) -> str:
        return f"<SettledFuture {self._state}>"

    def cancel(self) -> bool:
        return False

    def cancelled(self) -> bool:
        return False

    def running(self) -> bool:
        return self._state == "RUNNING"

    def done(self) -> bool:
        return self._state == "FINISHED"

    def add_done_callback(self, fn: Callable[[Future[Any]], object]) -> None:
        if self._state == "FINISHED":
            fn(self)
        else:
            self._done_callbacks.append(fn)

    def set_running_or_notify_cancel(self) -> bool:
        self._state = "RUNNING"
        return True

    def set_result(self, result: Any) -> None:
        self._result, self._state = result, "FINISHED"
        self._called()

    def set_exception(self, exception: BaseException | None) -> None:
        self._exception, self._state = exception, "FINISHED"
        self._called()

    def _called(self) -> None:
        callbacks, self._done_callbacks = self._done_callbacks, []
        for fn in callbacks:
            fn(self)

    def result(self, timeout: float | None = None) -> Any:
        if self._state != "FINISHED":
            raise RuntimeError("an append of write_now is answered before it returns")
        if self._exception is not None:
            raise self._exception
        return self._result

    def exception(self, timeout: float | None = None) -> BaseException | None:
        if self._state != "FINISHED":
            raise RuntimeError("an append of write_now is answered before it returns")
        return self._exception


__all__ = ["SettledFuture"]
