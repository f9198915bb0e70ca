"""``jaslog replay``: the table after each event, as a player or referee would see it.

Heavy imports sit in the command functions (the import convention of :mod:`jaslog.cli.common`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.text import Text

from jaslog.analysis.rounds import analyze_fold
from jaslog.cli.analyze import cost_line, round_lines, round_lines_head
from jaslog.cli.common import (
    DB_OPTION,
    STORE_PREFIX,
    as_stored,
    check_readable,
    console,
    fail,
    is_stored,
    stored_lines,
)
from jaslog.cli.whatif import AS_OPTION, WHAT_IF_OPTIONS, ReplayWhatIf
from jaslog.engine.fold import FoldError, GameFold
from jaslog.engine.view import played_out
from jaslog.logs import Line, lines_of_game
from jaslog.play.fold import start_fold
from jaslog.play.render import describe_event, render_table
from jaslog.play.views import Sight, Timeline, card_kept, kept_card_text, timeline
from jaslog.play.whatif import seen_events


def replay(
    file: Path = typer.Argument(..., help="a jaslog/1 file ('-' for stdin), or store:GAME"),
    game: str | None = typer.Option(None, "--game", "-g", help="game id (default: the first)"),
    round: int | None = typer.Option(None, "--round", "-r", min=1, help="only this round"),
    to: int | None = typer.Option(None, "--to", min=0, help="stop after this seq"),
    at: str | None = typer.Option(None, "--at", help="stop at this clock time: an RFC 3339 "
                                  "time or a time of day on the game's date (21:40, UTC); by "
                                  "the store's recorded_at when every event has one, else by "
                                  "the events' at"),
    seat: int | None = typer.Option(None, "--seat", "-s", min=0, max=3,
                                    help="show only what this seat could see"),
    analyze: bool = typer.Option(False, "--analyze", "-a",
                                 help="also the par of each round and what each costly play cost "
                                      "(with --seat: once the round is played out)"),
    as_: str | None = AS_OPTION,
    option: list[str] = WHAT_IF_OPTIONS,
    db: str | None = DB_OPTION,
) -> None:
    """Show the table after each event: trick, hands, score so far, violations; with
    --analyze, the par of each round with known hands and every play that cost points.

    With --as (or -o), what-if: the game replayed under that preset of its game and those
    options (the log is not touched), each change of verdict under its event, and at the end
    the rounds whose score changed; it stops at the first event those rules refuse."""
    file = as_stored(file)
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
    if at is not None:
        if to is not None:
            fail("--to and --at both say where to stop: give one")
        from jaslog.play.attime import AtError, seq_at

        try:
            found = seq_at([ln.event for ln in events], at)
        except AtError as e:
            fail(str(e).replace("at '", "--at '", 1))
        to = found.seq
        console.print(f"at {found.at} (by {found.by}): the game up to seq {found.seq}",
                      style="dim", soft_wrap=True)
    try:
        fold = start_fold(events[0].event)  # type: ignore[arg-type]
    except FoldError as e:
        fail(str(e.located(events[0].source, events[0].number)))
    if seat is not None and seat >= fold.players:
        fail(f"--seat {seat}: a {fold.game} game has seats 0 to {fold.players - 1}")
    # what a seat may see is judged at the game's head, as the viewer does (jaslog.play.views)
    tl = timeline([ln.event for ln in events if ln.event is not None]) if seat is not None else None
    sight = Sight(seat=seat)
    if tl is not None and (as_ is not None or option):
        # a seat's what-if is computed on what it may see, as the service's is
        seen = seen_events(tl, sight, tl.applied())
        events = [Line(ln.source, ln.number, e) for ln, e in zip(events, seen, strict=False)] + \
            events[len(seen):]
    whatif = ReplayWhatIf(events, as_, option, seat) if as_ is not None or option else None
    if whatif is not None:  # the game replayed under the what-if rules from its start
        events[0] = Line(events[0].source, events[0].number, whatif.started)
        fold = start_fold(whatif.started)
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
    notes = Notes(events, seat, round) if analyze else None
    #: retracted events whose card the seat is kept from, applied and not yet taken back,
    #: and the table before the first of them (what the seat sees meanwhile)
    pending: set[int] = set()
    clean: Any = None
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
                if whatif is not None and whatif.refuses(err):
                    whatif.refuse(err, f"{ln.source}:{ln.number}")
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
        if notes is not None:
            notes.before(fold, ev, rounds)
        kept = tl is not None and card_kept(tl, i, sight)
        if kept:
            pending.add(ev.seq)
        elif ev.type == "correction":
            pending -= set(getattr(ev, "retracts", ()))
        console.print(_line(fold, ev, seat, tl, i, kept, struck.get(ev.seq),
                            superseded.get(ev.seq)))
        if whatif is not None:
            whatif.after(ev.seq)
        if notes is not None:
            notes.after(fold, ev, rounds)
        table = clean if pending and clean is not None else render_table(fold, seat)
        if not pending:
            clean = table
        console.print(table)
        shown += 1
    if whatif is not None:
        whatif.summary(round)
    if past:
        stopped = True  # a bad line after later rounds is not this round's business either
    if to is not None and events[-1].event is not None and events[-1].event.seq >= to:
        stopped = True  # the bad line comes after --to
    if bad is not None and not stopped:
        fail(f"{bad.source}:{bad.number}: game {game}: {bad.error}")
    if not shown:
        fail("nothing to show for that round / seq")


def _line(fold: GameFold, ev: Any, seat: int | None, tl: Timeline | None, i: int, kept: bool,
          struck: tuple[int, str] | None, superseded: int | None) -> Text:
    """The event's line as ``seat`` may know it: a card it is kept from (``kept``) and the
    reason of a correction of a round secret to it are left out."""
    if tl is not None and struck is not None and i < tl.applied() \
            and tl.round_of[i] in tl.hidden_rounds(Sight(seat=seat)):
        struck = (struck[0], "its reason is shown when the round is over")
    if not kept:
        return describe_event(fold, ev, seat, struck, superseded)
    t = Text(f"seq {ev.seq:>4} ", style="dim")
    t.append(kept_card_text(fold, ev))
    if struck is not None:
        t.stylize("strike")
        t.append(f"  retracted at seq {struck[0]}: {struck[1]}", style="bold red")
    return t


class Notes:
    """What ``--analyze`` adds to a replay: the game folded whole and analysed first, then
    the par before each round's first card and a line under each play that cost points
    (for a seat: each round's analysis once its last card is in, as the viewer shows it)."""

    def __init__(self, events: list[Any], seat: int | None, number: int | None) -> None:
        whole = start_fold(events[0].event)
        for ln in events[1:]:
            try:
                whole.apply(ln.event)
            except FoldError:
                break  # the replay stops there with its own message
        self.seat = seat
        self.rounds = {a.round: a for a in analyze_fold(whole, round=number)}
        self.plays = {p.seq: p for a in self.rounds.values() for p in a.plays}
        self.last = {a.round: a.plays[-1].seq for a in self.rounds.values() if a.plays}
        #: the rounds whose analysis a seat may read (it names every hand): those played out
        self.shown = {a.round for a in self.rounds.values()
                      if played_out(whole.state.rounds[a.round - 1])}
        self.opened: set[int] = set()

    def before(self, fold: GameFold, ev: Any, number: int) -> None:
        """The par (or why there is none) before a round's first card, for the referee."""
        a = self.rounds.get(number)
        if a is None or number in self.opened or self.seat is not None \
                or ev.type not in ("play", "round_score"):
            return
        self.opened.add(number)
        for line in round_lines_head(a):
            console.print(line, soft_wrap=True)

    def after(self, fold: GameFold, ev: Any, number: int) -> None:
        """The cost of a costly play under its line; a seat's whole round after its end."""
        a = self.rounds.get(number)
        if a is None:
            return
        if self.seat is not None:
            if self.last.get(number) == ev.seq and number in self.shown:
                for line in round_lines(fold, a):
                    console.print(line, soft_wrap=True)
            return
        p = self.plays.get(ev.seq)
        if p is not None and p.loss > 0:
            console.print(cost_line(p), soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command()(replay)
