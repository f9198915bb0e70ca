"""What ``check`` and ``analyze`` say of each game, worked out apart from saying it: here, or
on the workers of a Dask distributed cluster (``--cluster ADDRESS``).

A command gives a *judge*: a module-level function ``judge(game, *args)`` that turns one game
as :func:`~jaslog.cli.common.read_games` gives it (a :class:`~jaslog.play.fold.FileGame`, or a bare
:class:`~jaslog.engine.fold.FoldError` for a line that names no game) into a :class:`Said`.
:func:`judged` runs it on every game of the sources in this process; :func:`judged_on_cluster`
sends the games, partitioned by game, to the cluster's workers, which read, fold and judge
them, and gives the answers back in the order a local run gives them. Printing each
:class:`Said` in turn prints, byte for byte, what a local run prints.

From log files this process reads the lines and groups them by game (as the export does);
from a store, a worker opens the store by its URL and reads its share of the game ids up to
the store position this process saw first (:mod:`jaslog.batch.cluster`).

Heavy imports sit in the command functions (the import convention of :mod:`jaslog.cli.common`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import typer
from sqlalchemy.exc import SQLAlchemyError

from jaslog.cli.common import (
    STORE_PREFIX,
    check_readable,
    console,
    fail,
    fold_stored,
    games_progress,
    is_stored,
    one_game,
    read_games,
    write_json_line,
)
from jaslog.engine.fold import FoldError
from jaslog.logs import LogError, LogFiles, RawLine, read_line
from jaslog.play.fold import FileGame, fold_lines
from jaslog.store import StoreError, open_store

#: The ``--cluster`` option of the commands that judge games on a cluster.
CLUSTER_OPTION = typer.Option(None, "--cluster", metavar="ADDRESS",
                              help="fold the games on the workers of this Dask scheduler "
                              "(tcp://host:8786) instead; the output is the same")

#: A command's judge of one game: ``judge(game, *args)``.
Judge = Callable[..., "Said"]


@dataclass
class Said:
    """What a command says of one game: the lines it prints (or its JSON line), the exit code
    the game asks for, and whether it counts as a game read.

    >>> Said(1, ["! a game"]).exit, Said(counted=False).counted
    (1, False)
    """

    exit: int = 0
    #: renderables (markup strings, rich Text), one console line each
    lines: list[Any] = field(default_factory=list)
    #: one JSON line instead (None: none)
    json: Any = None
    #: a game the command reports on (one left out by a filter is not)
    counted: bool = True
    #: stop the command here with this sentence (exit 2), as a local run stops
    fail: str | None = None

    def say(self) -> None:
        """Print it as the command does."""
        if self.fail is not None:
            fail(self.fail)
        if self.json is not None:
            write_json_line(self.json)
        for line in self.lines:
            console.print(line, soft_wrap=True)


def judged(paths: list[Path], db: str | None, judge: Judge, *args: Any,
           fast: bool = False) -> Iterator[Said]:
    """``judge(game, *args)`` of every game :func:`read_games` gives, in this process
    (``fast``: canonical plays read without their models, for a judge that only folds and
    reports; see :func:`jaslog.logs.read_line_fast`)."""
    return (judge(g, *args) for g in read_games(paths, db, fast=fast))


def judged_on_cluster(address: str, paths: list[Path], db: str | None, label: str,
                      chunk_games: int, judge: Judge, *args: Any) -> Iterator[Said]:
    """:func:`judged`, each game folded and judged on a worker of the Dask scheduler at
    ``address``, ``chunk_games`` games to a task, in the same order; a progress bar
    (``label``) on stderr when stderr is a terminal and stdout is not."""
    from jaslog.batch import cluster

    refs = [str(p) for p in paths if is_stored(p)]
    files = [p for p in paths if not is_stored(p)]
    check_readable(files)
    with contextlib.ExitStack() as stack:
        try:
            log = LogFiles(files, stack) if files else None
        except LogError as e:
            fail(str(e))
        except OSError as e:
            fail(f"{e.filename or 'input'}: {e.strerror}")
        stored = _stored_shares(refs, db, chunk_games, stack)
        bar = stack.enter_context(games_progress(label, beside_output=True))
        bar.total((log.games if log is not None else 0) + sum(len(s[2]) for s in stored))

        def tasks() -> Iterator[tuple[Any, ...]]:
            if log is not None:
                for share in cluster.batches(log.game_lines(strays=True), chunk_games):
                    yield judge, args, share, None
            for s in stored:
                yield judge, args, None, s

        done = 0
        try:
            for answers in cluster.run_in_order(address, judge_share, tasks()):
                for said in answers:
                    yield said
                    done += said.counted
                bar(done)
        except LogError as e:
            fail(str(e))
        except OSError as e:
            fail(f"{e.filename or 'input'}: {e.strerror}")


#: A share of stored games: (store URL, store position, game ids, one named game?).
StoredShare = tuple[str, int, list[str], bool]


def _stored_shares(refs: list[str], db: str | None, chunk_games: int,
                   stack: contextlib.ExitStack) -> list[StoredShare]:
    """The stored games named by ``refs`` (``store:GAME``, ``store:`` for all), cut into
    shares for the workers, all read at the store position of now."""
    if not refs:
        return []

    try:
        store = stack.enter_context(open_store(db, create=False))
        until = store.cursor()
        shares: list[StoredShare] = []
        for ref in refs:
            gid = ref[len(STORE_PREFIX):]
            if gid:
                shares.append((store.url, until, [gid], True))
            else:
                shares.extend((store.url, until, ids, False)
                              for ids in store.game_id_batches(until=until, batch=chunk_games))
        return shares
    except StoreError as e:
        fail(str(e))
    except SQLAlchemyError as e:
        fail(f"database error: {e}")


def judge_share(judge: Judge, args: tuple[Any, ...], lines: list[list[RawLine]] | None,
                stored: StoredShare | None) -> list[Said]:
    """On a worker: the games of one share folded and judged, in order: ``lines``, each game's
    lines of a log file (or one line that names no game), or ``stored``, games of a store. A
    store that refuses is the share's last :class:`Said`: the sentence a local run stops with.
    """
    if lines is not None:
        return [judge(g, *args) for group in lines for g in _fold_group(group)]
    assert stored is not None

    from jaslog.batch import cluster

    url, until, ids, one = stored
    out: list[Said] = []
    try:
        store = cluster.worker_store(url)
        read = one_game(store, ids[0]) if one else partial(store.games_by_id, ids, until=until)
        out.extend(judge(g, *args) for g in fold_stored(read))
    except StoreError as e:
        out.append(Said(fail=str(e)))
    except SQLAlchemyError as e:
        out.append(Said(fail=f"database error: {e}"))
    return out


def _fold_group(group: list[RawLine]) -> Iterator[FileGame | FoldError]:
    return fold_lines(read_line(raw, name, number) for name, number, raw in group)
