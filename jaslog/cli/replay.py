"""``jaslog replay``: the table after each event, as a player or referee would see it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from jaslog.cli.common import (
    DB_OPTION,
    STORE_PREFIX,
    check_readable,
    console,
    fail,
    is_stored,
    stored_lines,
)
from jaslog.engine.fold import FoldError
from jaslog.events.logs import lines_of_game
from jaslog.fold import start_fold
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
        named = str(file)[len(STORE_PREFIX):]
        if named and game is not None and game != named:
            fail(f"{file} names game {named}, --game {game}: name the stored game once "
                 f"(store:{game}, or store: with --game {game})")
        game = named or game
        file = Path(f"{STORE_PREFIX}{game or ''}")
    # One pass over the input (it may be stdin): the game's lines up to the first bad one.
    if not is_stored(file):
        check_readable([file])
    events = []
    bad = None
    try:
        for ln in (stored_lines(str(file), db) if is_stored(file) else lines_of_game(file, game)):
            gid = ln.event.game if ln.event else ln.game
            if game is None:  # default: the first game in the file
                game = gid
            if gid != game:
                continue
            if ln.event is None:
                bad = ln
                break
            events.append(ln)
    except OSError as e:
        fail(f"{file}: {e.strerror}")
    if game is None:
        fail(f"{file}: no game found")
    if not events and bad is not None:
        fail(f"{bad.source}:{bad.number}: game {game}: {bad.error}")
    if not events:
        fail(f"{file}: no game {game!r} (use `jaslog check {file}` to list the games)")
    try:
        fold = start_fold(events[0].event)  # type: ignore[arg-type]
    except FoldError as e:
        fail(str(e.located(events[0].source, events[0].number)))
    if seat is not None and seat >= fold.players:
        fail(f"--seat {seat}: a {fold.game} game has seats 0 to {fold.players - 1}")
    # the events a later correction retracts are shown struck through, with its reason
    struck: dict[int, tuple[int, str]] = {}
    for ln in events:
        c: Any = ln.event
        if c is not None and c.type == "correction":
            struck.update({s: (c.seq, c.reason) for s in c.retracts})
    # a ruling a later ruling on its round replaces is shown as superseded
    superseded: dict[int, int] = {}
    last_ruling: dict[int, int] = {}
    for ln in events:
        c = ln.event
        if c is not None and c.type == "ruling" and c.seq not in struck:
            if c.round in last_ruling:
                superseded[last_ruling[c.round]] = c.seq
            last_ruling[c.round] = c.seq
    shown = 0
    stopped = False  # by --to or --round, before the end of the game's lines
    past = False  # --round: the game has gone on to later rounds
    for i, ln in enumerate(events):
        ev = ln.event
        assert ev is not None
        if to is not None and ev.seq > to:
            stopped = True
            break
        if i:
            try:
                fold.apply(ev)
            except FoldError as err:
                if past:  # a later round's fault is not this round's business
                    stopped = True
                    break
                fail(str(err.located(ln.source, ln.number)))
        rounds = len(fold.state.rounds)
        if round is not None and rounds != round:
            past = rounds > round
            # a referee's ruling on this round (or a note about it) may come much later
            if past and ev.type in ("ruling", "note") and getattr(ev, "round", None) == round:
                console.print(describe_event(fold, ev, seat, struck.get(ev.seq),
                                             superseded.get(ev.seq)))
                shown += 1
            continue
        console.print(describe_event(fold, ev, seat, struck.get(ev.seq),
                                             superseded.get(ev.seq)))
        console.print(render_table(fold, seat))
        shown += 1
    if past:
        stopped = True  # a bad line after later rounds is not this round's business either
    if to is not None and events[-1].event is not None and events[-1].event.seq >= to:
        stopped = True  # the bad line comes after --to
    if bad is not None and not stopped:
        fail(f"{bad.source}:{bad.number}: game {game}: {bad.error}")
    if not shown:
        fail("nothing to show for that round / seq")


def register(app: typer.Typer) -> None:
    app.command()(replay)
