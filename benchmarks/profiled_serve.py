"""``jaslog serve`` with every thread of the served process under cProfile: the
benchmarks' way to see where the server's time goes under load
(``python -m benchmarks.load --runs online-room --profile OUT``).

``python -m benchmarks.profiled_serve OUT serve ARGS...`` runs ``jaslog serve ARGS`` and,
when the server stops (SIGTERM, as the load script stops it), writes the stats of all its
threads, merged, to ``OUT``: each thread's CPU time, not the wall clock's (read them with
``python -m pstats OUT``). A frame still open when the server stops (an idle pool thread's
wait on its queue) is closed on the stopping thread's clock: its time there means nothing.

With ``--workers N`` each worker process (spawned by uvicorn's supervisor, which imports this
module in it as ``__mp_main__``) is profiled too, every thread of it, its stats written to
``OUT.<pid>`` as it stops; ``OUT`` holds the supervisor's (and, over SQLite, the one
writer's)."""

from __future__ import annotations

import atexit
import cProfile
import os
import pstats
import sys
import threading
import time
from typing import Any

_profiles: list[cProfile.Profile] = []
_lock = threading.Lock()
_dumped = False


def _profiled_run(run: Any) -> Any:
    def run_profiled(self: threading.Thread) -> None:
        p = cProfile.Profile(time.thread_time)
        with _lock:
            _profiles.append(p)
        p.enable()
        try:
            run(self)
        finally:
            p.disable()
    return run_profiled


def _dump(out: str) -> None:
    global _dumped
    if _dumped:
        return
    _dumped = True
    merged: pstats.Stats | None = None
    with _lock:
        profiles = list(_profiles)
    for p in profiles:
        try:
            p.create_stats()
            s = pstats.Stats(p)
        except (TypeError, ValueError):  # a thread that profiled nothing
            continue
        if merged is None:
            merged = s
        else:
            merged.add(s)
    if merged is not None:
        merged.dump_stats(out)


#: Where a worker process writes its stats (``OUT``, set by :func:`main` for the workers).
OUT_ENV = "JASLOG_PROFILE_OUT"


def _profile_threads(out: str) -> cProfile.Profile:
    """Every thread started from now on, and the calling one (the profile returned, not
    enabled yet), profiled; their stats written to ``out`` when the server stops."""
    threading.Thread._bootstrap_inner = _profiled_run(  # type: ignore[attr-defined]
        threading.Thread._bootstrap_inner)  # type: ignore[attr-defined]
    main_profile = cProfile.Profile(time.thread_time)
    _profiles.append(main_profile)
    atexit.register(_dump, out)
    import uvicorn

    serve = uvicorn.Server._serve

    async def serve_then_dump(self: uvicorn.Server, *a: Any, **kw: Any) -> None:
        try:
            await serve(self, *a, **kw)
        finally:  # uvicorn re-raises the SIGTERM it caught after this: atexit would not run
            main_profile.disable()
            _dump(out)

    uvicorn.Server._serve = serve_then_dump  # type: ignore[method-assign]
    return main_profile


def _profile_worker() -> None:
    """In a worker process of ``--workers N``: its main thread's profile enabled as its
    server starts, every thread's dumped to ``OUT.<pid>`` as it stops."""
    main_profile = _profile_threads(f"{os.environ[OUT_ENV]}.{os.getpid()}")
    main_profile.enable()


def main() -> None:
    out, args = sys.argv[1], sys.argv[2:]
    os.environ[OUT_ENV] = out
    main_profile = _profile_threads(out)
    from jaslog.cli import app
    main_profile.enable()
    try:
        app(args, prog_name="jaslog")
    finally:
        main_profile.disable()


if __name__ == "__main__":
    main()
elif __name__ == "__mp_main__" and OUT_ENV in os.environ:
    _profile_worker()
