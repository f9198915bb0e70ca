"""The HTTP floor of ``make load``: a bare ASGI app with the append route's path and nothing
behind it, served as ``jaslog serve`` serves the service (one uvicorn process, the same
settings; ``--workers N``: N processes on the one port, as ``jaslog serve --workers N``).
``python -m benchmarks.http_floor --port N`` runs it.

Its one POST route reads the JSON body and answers a small JSON, as the service's append
answers; no token is checked, nothing is validated or stored. What clients get from it is the
most a Python HTTP front end on the machine gives them: the service can only be slower.

>>> import asyncio, httpx
>>> async def ask() -> dict:
...     async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
...         r = await c.post("/api/games/g1/events", json={"events": [{}], "expected_seq": 3})
...         return r.json()
>>> asyncio.run(ask())
{'game': 'g1', 'appended': 1, 'already_stored': 0, 'next_seq': 4, 'violations': []}
"""

from __future__ import annotations

import argparse
from typing import Any

from fastapi import FastAPI, Request

app = FastAPI(title="HTTP floor")


@app.post("/api/games/{game}/events")
async def append_events(game: str, request: Request) -> dict[str, Any]:
    """Read the body; answer as an append of its events would be answered."""
    body = await request.json()
    events = body.get("events") or []
    seq = int(body.get("expected_seq") or 0)
    return {"game": game, "appended": len(events), "already_stored": 0,
            "next_seq": seq + len(events), "violations": []}


@app.get("/api/whoami")
async def whoami() -> dict[str, Any]:
    """Answer at once: the load script asks it until the server is up."""
    return {"role": "none"}


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    from jaslog.cli.serve_cmds import uvicorn_logging

    p = argparse.ArgumentParser(prog="python -m benchmarks.http_floor",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--log-level", default="info")
    p.add_argument("--workers", type=int, default=1,
                   help="processes answering on the one port (uvicorn's supervisor, as "
                        "jaslog serve --workers N runs them)")
    args = p.parse_args(argv)
    # as jaslog serve configures uvicorn (jaslog/cli/serve_cmds.py)
    if args.workers > 1:
        uvicorn.run("benchmarks.http_floor:app", host=args.host, port=args.port,
                    workers=args.workers, **uvicorn_logging(args.log_level))
        return
    config = uvicorn.Config(app, host=args.host, port=args.port, **uvicorn_logging(args.log_level))
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
