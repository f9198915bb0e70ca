"""What the commands share: reading games from files, failing without a traceback."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import typer
from rich.console import Console

from jaslog.events import read_file
from jaslog.fold import FileGame, FoldError, fold_lines

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``jaslog: message`` on stderr and exit with ``code`` (2: bad input)."""
    err_console.print(f"[bold red]jaslog:[/] {message}", soft_wrap=True)
    raise typer.Exit(code)


def check_readable(paths: list[Path]) -> None:
    for p in paths:
        if str(p) != "-" and not p.is_file():
            fail(f"{p}: no such file")


def read_games(paths: list[Path]) -> Iterator[FileGame | FoldError]:
    """Every game in the files, folded (games may span lines anywhere in a file)."""
    check_readable(paths)

    def lines():  # type: ignore[no-untyped-def]
        for p in paths:
            try:
                yield from read_file(p)
            except OSError as e:
                fail(f"{p}: {e.strerror}")

    yield from fold_lines(lines())


def write_json_line(obj: object) -> None:
    import orjson

    sys.stdout.buffer.write(orjson.dumps(obj) + b"\n")
    sys.stdout.flush()
