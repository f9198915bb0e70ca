"""What the commands share: reading games from files, failing without a traceback.

The commands' import convention: a command module imports at its top what ``jaslog --help``
loads anyway (typer, rich, the store, the games and their folds, the analysis); what one
command alone needs and is heavy (pyarrow and DuckDB for export and statistics, FastAPI and
uvicorn for the service, Dask, the sheet readers, the printout, the verifiers, the
simulator) is imported at the top of that command's function, so that ``jaslog --help`` and
every other command start without it. An import of another ``jaslog.cli`` module inside a
function breaks an import cycle between two command modules.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import orjson
import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from sqlalchemy.exc import SQLAlchemyError

from jaslog.engine.fold import FoldError, GameFold
from jaslog.errors import JaslogError
from jaslog.logs import Line, LogError, LogFiles, paths_problem
from jaslog.play.fold import FileGame, fold_lines
from jaslog.play.logfold import fold_log
from jaslog.store import StoreError, open_store
from jaslog.store.engine import database_error, is_driver_error
from jaslog.store.fold_read import fold_one

if TYPE_CHECKING:
    from jaslog.events import Event
    from jaslog.store import Store
    from jaslog.store.codec import UnreadableEvent

console = Console(highlight=False, emoji=False)  # user text (club:a:noor) is never an emoji code
err_console = Console(stderr=True, highlight=False, emoji=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``jaslog: message`` on stderr and exit with ``code`` (2: bad input)."""
    err_console.print(f"[bold red]jaslog:[/] {escape(message)}", soft_wrap=True)
    raise typer.Exit(code)


@contextlib.contextmanager
def reported_errors() -> Iterator[None]:
    """Around a whole command: whatever jaslog raises on purpose (a :class:`JaslogError`: a
    store refusal, a database that is full, read-only, locked or gone) and any error of the
    database's own that a command did not catch is said in a sentence on stderr, exit 2 —
    never a traceback. Other exceptions (bugs) go on as they are."""
    said: JaslogError | None = None
    try:
        yield
    except JaslogError as e:
        said = e
    except Exception as e:
        said = database_error(e) if is_driver_error(e) else None
        if said is None:
            raise
    if said is not None:
        err_console.print(f"[bold red]jaslog:[/] {escape(str(said))}", soft_wrap=True)
        sys.exit(2)


class GamesBar:
    """A progress bar of games: called with the games done so far; ``total`` once known."""

    def __init__(self, progress: Progress, label: str) -> None:
        self.progress = progress
        self.task = progress.add_task(label, total=None)

    def __call__(self, n: int) -> None:
        self.progress.update(self.task, completed=n)

    def total(self, n: int) -> None:
        self.progress.update(self.task, total=n)


@contextlib.contextmanager
def games_progress(label: str, *, beside_output: bool = False) -> Iterator[GamesBar]:
    """A passing progress bar of games on stderr, in a terminal only (no stray line in a
    pipe or a log). ``beside_output``: the command prints on stdout while the bar runs, so
    the bar is shown only when stdout is not that terminal too, and leaves stdout alone."""
    shown = err_console.is_terminal and not (beside_output and console.is_terminal)
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("games"), TimeElapsedColumn(), TimeRemainingColumn(),
                  console=err_console, transient=True, disable=not shown,
                  redirect_stdout=not beside_output, redirect_stderr=not beside_output) as p:
        yield GamesBar(p, label)


def check_readable(paths: list[Path]) -> None:
    """Stop with a sentence for the first path that cannot be read as a log (a missing file,
    a directory, a compressed file) or that is given twice; files, pipes and ``-`` pass."""
    problem = paths_problem(paths)
    if problem is not None:
        fail(problem)


#: A file argument ``store:GAME`` names a stored game, ``store:`` every stored game.
STORE_PREFIX = "store:"

#: The ``--db`` option of commands that read stored games.
DB_OPTION = typer.Option(None, "--db", envvar="JASLOG_DB", show_envvar=True,
                         help="the store for store:GAME arguments (path or URL)")


def is_stored(p: Path | str) -> bool:
    return str(p).startswith(STORE_PREFIX)


#: What a log file's name looks like, so that a missing file is not looked up as a game id.
FILE_LIKE = re.compile(r"[/\\]|\.(jsonl|json|log|txt|ndjson|jaslog|gz|zst)$", re.IGNORECASE)


def as_stored(p: Path) -> Path:
    """A log argument as the commands read it: a bare game id (no such file, and no file's
    look: no folder, no log extension) names the stored game, as ``store:GAME`` does.

    >>> as_stored(Path("club-7-2026")), as_stored(Path("missing.jsonl")), as_stored(Path("-"))
    (PosixPath('store:club-7-2026'), PosixPath('missing.jsonl'), PosixPath('-'))
    """
    text = str(p)
    if is_stored(text) or text == "-" or p.exists() or FILE_LIKE.search(text):
        return p
    return Path(f"{STORE_PREFIX}{text}")


def stored_games(refs: list[str], db: str | None) -> Iterator[FileGame]:
    """Stored games folded like games read from files (``store:`` alone: every game)."""
    try:
        store = open_store(db, create=False)
    except StoreError as e:
        fail(str(e))
    try:
        for ref in refs:
            gid = ref[len(STORE_PREFIX):]
            yield from folded_stored(store.fold_games) if not gid else \
                fold_stored(one_game(store, gid))
    except StoreError as e:
        fail(str(e))
    except SQLAlchemyError as e:
        fail(f"database error: {e}")
    finally:
        store.close()


def one_game(store: Store, gid: str) -> Callable[..., Iterator[tuple[str, list[Event]]]]:
    """A reader of the stored game ``gid`` for :func:`fold_stored`; the store's
    :class:`~jaslog.store.NoSuchGame` when it has no events."""
    return lambda unreadable: iter([(gid, store.events(gid))])


def fold_stored(read: Callable[..., Iterator[tuple[str, list[Event]]]]) -> Iterator[FileGame]:
    """Stored games folded like games read from files: ``read(unreadable=...)`` gives each
    game's ``(id, events)`` and calls ``unreadable`` for a game no reader can read, which
    comes as that game's error, by its id, before the next game."""
    return folded_stored(lambda unreadable: ((game, fold_one(game, events)) for game, events
                                             in read(unreadable=unreadable)))


def folded_stored(read: Callable[..., Iterator[tuple[str, GameFold | FoldError]]]
                  ) -> Iterator[FileGame]:
    """Stored games the store folded (:meth:`jaslog.store.Store.fold_games`) as games read
    from files: ``read(unreadable=...)`` gives each game's ``(id, fold or its error)`` and
    calls ``unreadable`` for a game no reader can read, which comes as that game's error, by
    its id, before the next game; an error names ``store:GAME`` and the seq as its line."""
    unreadable: list[FileGame] = []

    def unreadable_game(e: UnreadableEvent) -> None:
        err = FoldError(e.reason, code=e.code, game=e.game, seq=e.seq,
                        source=f"{STORE_PREFIX}{e.game}", line=e.seq)
        unreadable.append(FileGame(e.game, error=err))

    for game, folded in read(unreadable=unreadable_game):
        yield from unreadable
        unreadable.clear()
        g = FileGame(game)
        if isinstance(folded, FoldError):
            g.error = folded.located(f"{STORE_PREFIX}{game}", folded.seq or 0)
        else:
            g.fold = folded
        yield g
    yield from unreadable


def stored_lines(ref: str, db: str | None) -> list[Line]:
    """A stored game's events as lines: source ``store:GAME``, line number = seq."""
    gid = ref[len(STORE_PREFIX):]
    if not gid:
        fail("name one stored game: store:GAME (see `jaslog games`)")
    try:
        with open_store(db, create=False) as store:
            return [Line(ref, e.seq, e) for e in store.events(gid)]
    except StoreError as e:
        fail(str(e))


def read_games(paths: list[Path], db: str | None = None,
               fast: bool = False) -> Iterator[FileGame | FoldError]:
    """Every game in the files, folded (games may span lines anywhere in a file; each comes
    at its last line), then the stored games named ``store:GAME`` (``store:``: all of them)
    in the store ``db``. With ``fast``, a file's lines go straight into their games' folds,
    its canonical plays without their models (:func:`jaslog.play.logfold.fold_log`): for a
    reader that folds and reports, not one that shows events."""
    paths = [as_stored(p) for p in paths]
    refs = [str(p) for p in paths if is_stored(p)]
    paths = [p for p in paths if not is_stored(p)]
    check_readable(paths)

    if paths:  # read twice (see jaslog.logs.files): each game is reported at its last line
        with contextlib.ExitStack() as stack:
            try:
                log = LogFiles(paths, stack)
                yield from fold_log(log) if fast else fold_lines(log.lines(), log.is_last)
            except LogError as e:
                fail(str(e))
            except OSError as e:
                fail(f"{e.filename or 'input'}: {e.strerror}")
    if refs:
        yield from stored_games(refs, db)


def write_json_line(obj: object) -> None:
    sys.stdout.buffer.write(orjson.dumps(obj) + b"\n")
    sys.stdout.flush()
