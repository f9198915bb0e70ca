"""``jaslog tail``: every event of every game in store order, as the store holds them.

Heavy imports sit in the command functions (the import convention of :mod:`jaslog.cli.common`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import orjson
import typer
from rich.markup import escape

from jaslog.cli.common import DB_OPTION, console, fail, write_json_line
from jaslog.store import open_store, resolve_url


def _line(pos: int, e: dict[str, Any]) -> str:
    rest = {k: v for k, v in e.items() if k not in ("game", "seq", "type", "at", "recorded_at")}
    when = e.get("recorded_at") or e.get("at") or ""
    return (f"{pos:>8}  {when:<24}  {e['game']}  #{e['seq']:<4} {e['type']:<14} "
            + escape(orjson.dumps(rest).decode() if rest else ""))


def tail(
    after: int | None = typer.Option(None, "--after", min=0, help="go on after this pos (0: "
                                     "from the first event); default: the last --lines events"),
    lines: int = typer.Option(10, "--lines", "-n", min=0, help="without --after: how many of "
                              "the newest events to show first"),
    follow: bool = typer.Option(False, "--follow", "-f", help="keep printing new events as they "
                                "are stored (Ctrl-C stops)"),
    every: float = typer.Option(0.5, "--every", min=0.05, max=60, help="with --follow: seconds "
                                "between looks at the store"),
    json: bool = typer.Option(False, "--json", help="one JSON object a line: the event with "
                              "its pos"),
    db: str | None = DB_OPTION,
) -> None:
    """Print every event of every game in store order, each with its pos (its place in the
    store): the newest few, everything after --after POS, and with --follow whatever comes
    next. Nothing is missed or shown twice, also while others append."""
    from jaslog.store.feed import MOST_PER_PAGE, events_after

    url = resolve_url(db)
    if url.startswith("sqlite:///") and not Path(url[len("sqlite:///"):]).exists():
        fail(f"no store at {url[len('sqlite:///'):]}; import games first (`jaslog import FILE`)")
    with open_store(url, create=False) as store:
        nxt = after if after is not None else max(store.cursor() - lines, 0)
        try:
            while True:
                rows = events_after(store, nxt, MOST_PER_PAGE)
                for r in rows:
                    e = r.event().model_dump(exclude_none=True)
                    if json:
                        write_json_line({"pos": r.pos, **e})
                    else:
                        console.print(_line(r.pos, e), soft_wrap=True, highlight=False)
                    nxt = r.pos
                if len(rows) == MOST_PER_PAGE:
                    continue
                if not follow:
                    return
                time.sleep(every)
        except KeyboardInterrupt:
            raise typer.Exit(130) from None


def register(app: typer.Typer) -> None:
    app.command()(tail)
