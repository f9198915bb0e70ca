"""``jaslog replay``: the table after each event, as a player or referee would see it."""

from __future__ import annotations

from pathlib import Path

import typer

from jaslog.cli.common import (
    DB_OPTION,
    STORE_PREFIX,
    console,
    fail,
    is_stored,
    read_games,
    stored_lines,
)
from jaslog.events import read_file
from jaslog.fold import FoldError, start_fold
from jaslog.render import describe_event, render_table


def replay(
    file: Path = typer.Argument(..., help="a jaslog/1 file ('-' for stdin), or store:GAME"),
    game: str | None = typer.Option(None, "--game", "-g", help="game id (default: the first)"),
    round: int | None = typer.Option(None, "--round", "-r", min=1, help="only this round"),
    to: int | None = typer.Option(None, "--to", min=0, help="stop after this seq"),
    seat: int | None = typer.Option(None, "--seat", "-s", min=0, max=3,
                                    help="show only what this seat could see"),
    db: str | None = DB_OPTION,
) -> None:
    """Show the table after each event: trick, hands, score so far, violations."""
    if is_stored(file):
        game = str(file)[len(STORE_PREFIX):] or game
        file = Path(f"{STORE_PREFIX}{game or ''}")
    if game is None:
        for g in read_games([file]):
            if not isinstance(g, FoldError):
                game = g.game
                break
        if game is None:
            fail(f"{file}: no game found")
    events = []
    for ln in (stored_lines(str(file), db) if is_stored(file) else read_file(file)):
        gid = ln.event.game if ln.event else ln.game
        if gid != game:
            continue
        if ln.event is None:
            fail(f"{ln.source}:{ln.number}: game {game}: {ln.error}")
        events.append(ln)
    if not events:
        fail(f"{file}: no game {game!r} (use `jaslog check {file}` to list the games)")
    try:
        fold = start_fold(events[0].event)  # type: ignore[arg-type]
    except FoldError as e:
        fail(str(e.located(events[0].source, events[0].number)))
    shown = 0
    for i, ln in enumerate(events):
        ev = ln.event
        assert ev is not None
        if i:
            try:
                fold.apply(ev)
            except FoldError as err:
                console.print(f"[red]✗ {err.located(ln.source, ln.number)}[/]", soft_wrap=True)
                raise typer.Exit(2) from None
        if to is not None and ev.seq > to:
            break
        rounds = len(fold.state.rounds)
        if round is not None and rounds != round:
            if rounds > round:
                break
            continue
        console.print(describe_event(fold, ev, seat))
        console.print(render_table(fold, seat))
        shown += 1
    if not shown:
        fail("nothing to show for that round / seq")


def register(app: typer.Typer) -> None:
    app.command()(replay)
