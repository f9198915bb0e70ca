"""The solver behind the service: each ``solve`` of ``POST /api/oracle`` within a budget,
in a worker thread (never on the event loop; the compiled core searches without the GIL),
a few at a time, and so many a minute per token.

:class:`SolveLimits` holds the three (``app.state.solve_limits``; ``jaslog serve
--solve-nodes --solve-seconds --solves-per-minute``): a solve past its budget is 422
``too_hard``; a token past its rate is 429 ``too_many_solves`` with ``Retry-After``; a solve
beyond those running waits its turn without holding anything.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio
from fastapi import Request

from jaslog.analysis.core import Budget, TooHard
from jaslog.play.oracle import answer
from jaslog.service.auth import Principal
from jaslog.service.deps import ApiError, LoopLimiter

#: The budget of one solve: a random deal's par and the par after each first card take the
#: compiled core about 1.6 million positions (0.1 s), the slowest of many some 11 million
#: (under 1 s); a deal hill-climbed to be hard, 190 million. The seconds bound a solve on the
#: pure-Python core (some 50 times slower) and on a busy machine.
SOLVE_NODES = 12_000_000
SOLVE_SECONDS = 1.0
#: The budget of one round's analysis (GET /api/games/{id}/analysis): its par, the par after
#: each of its 32 plays, the best cards and par results of the costly ones, on one solver
#: whose tables serve them all (a random round: a few million positions).
ANALYSIS_NODES = 40_000_000
ANALYSIS_SECONDS = 4.0
#: How many solves a token may ask for in a minute.
SOLVES_PER_MINUTE = 30
#: How many solves run at once (the others wait their turn).
SOLVES_AT_ONCE = 2


class SolveRate:
    """The solves of each token within the last :attr:`window` seconds: at most
    :attr:`limit` (then :meth:`wait` says how long until the oldest is out of the window).
    At most :attr:`tokens` tokens are remembered (the longest quiet forgotten first).

    >>> t = [0.0]
    >>> r = SolveRate(limit=2, window=60, clock=lambda: t[0])
    >>> r.take("a"), r.take("a"), r.take("a"), r.take("b")
    (0, 0, 60, 0)
    >>> t[0] = 59.5; r.take("a")
    1
    >>> t[0] = 60.0; r.take("a")
    0
    """

    def __init__(self, limit: int = SOLVES_PER_MINUTE, window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic, tokens: int = 10_000) -> None:
        self.limit, self.window, self.clock, self.tokens = limit, window, clock, tokens
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, token: str) -> int:
        """Count a solve of ``token`` and answer 0, or, past its rate, count nothing and
        answer the seconds to wait."""
        with self._lock:
            now = self.clock()
            times = self._seen.pop(token, None) or deque()
            while times and times[0] <= now - self.window:
                times.popleft()
            if len(times) >= self.limit:
                self._seen[token] = times
                return max(1, int(-(-(times[0] + self.window - now) // 1)))
            times.append(now)
            self._seen[token] = times
            while len(self._seen) > self.tokens:
                self._seen.popitem(last=False)
            return 0


class SolveLimits:
    """What the service allows the solver: each solve's ``budget``, each token's ``rate``,
    how many solves run ``at_once``, and the budget of a round's ``analysis``."""

    def __init__(self, budget: Budget | None = None, rate: SolveRate | None = None,
                 at_once: int = SOLVES_AT_ONCE, analysis: Budget | None = None) -> None:
        self.budget = budget or Budget(nodes=SOLVE_NODES, seconds=SOLVE_SECONDS)
        #: the budget of one round's analysis
        self.analysis = analysis or Budget(nodes=ANALYSIS_NODES, seconds=ANALYSIS_SECONDS)
        self.rate = rate or SolveRate()
        self.at_once = at_once
        self._limiter = LoopLimiter(at_once)

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        """The worker threads' limiter (of the running event loop)."""
        return self._limiter.get()


_LOCK = threading.Lock()


def solve_limits(request: Request) -> SolveLimits:
    """The app's :class:`SolveLimits` (``app.state.solve_limits``, made on first use with the
    defaults)."""
    st = request.app.state
    with _LOCK:
        limits: SolveLimits | None = getattr(st, "solve_limits", None)
        if limits is None:
            limits = st.solve_limits = SolveLimits()
    return limits


def too_hard(e: TooHard, budget: Budget, **extra: Any) -> ApiError:
    """The 422 ``too_hard`` of a solve or an analysis past ``budget``."""
    return ApiError(422, e.code, str(e), budget={"nodes": budget.nodes, "seconds": budget.seconds},
                    nodes=e.nodes, **extra)


async def solve_query(request: Request, who: Principal, query: dict[str, Any]) -> dict[str, Any]:
    """The answer to a ``solve`` query of ``who``: within the token's rate (429
    ``too_many_solves``), in a worker thread, within the budget (422 ``too_hard``)."""
    limits = solve_limits(request)
    wait = limits.rate.take(who.token_id)
    if wait:
        raise ApiError(429, "too_many_solves", f"this token asked for {limits.rate.limit} solves "
                       f"within {limits.rate.window:g} s, as many as a token may: try again "
                       f"in {wait} s", headers={"Retry-After": str(wait)}, retry_after=wait)
    try:
        return await anyio.to_thread.run_sync(partial(answer, query, budget=limits.budget),
                                              limiter=limits.limiter)
    except TooHard as e:
        raise too_hard(e, limits.budget) from None
