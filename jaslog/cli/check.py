"""``jaslog check``: validate and score every game in log files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from jaslog.audit import game_report
from jaslog.cli.common import DB_OPTION, console, err_console, read_games, write_json_line
from jaslog.cli.whatif import AS_OPTION, WHAT_IF_OPTIONS, check_as
from jaslog.engine.fold import FoldError, GameFold
from jaslog.fold import FileGame
from jaslog.games import get_game
from jaslog.render import record_lines, unjudged


def _team_names(seats: list[str], team: int) -> str:
    return " & ".join(seats[team::2])


def standing(fold: GameFold, rep: dict[str, Any]) -> str:
    """``finished, ... wins a–b`` or ``not finished, a–b``: teams in Klaverjas, players in
    Klaberjass and Kloepper (their totals are per player)."""
    tot = rep["totals"]
    w = rep["winner"]
    if get_game(fold.game).scoring == "players":
        score = "–".join(str(t) for t in tot)
        if not rep["finished"]:
            return f"not finished, {score}"
        return f"finished, seat {w} ({fold.seats[int(w)]}) wins with {tot[int(w)]} ({score})"
    t0, t1 = tot
    if not rep["finished"]:
        return f"not finished, {t0}–{t1}"
    if w == "draw":
        return f"finished, a draw at {t0}–{t1}"
    return (f"finished, team {w} ({_team_names(fold.seats, int(w))}) wins "
            f"{max(t0, t1)}–{min(t0, t1)}")


def _print_game(g: FileGame) -> None:
    rep = game_report(g.game, g.fold, g.error)
    fold = g.fold
    head = f"[bold]{escape(str(rep['game']))}[/] ({rep['ruleset'] or '?'})"
    if g.error is not None:
        console.print(f"[red]✗[/] {head}: [red]invalid[/]: {escape(str(g.error))}", soft_wrap=True)
        return
    assert fold is not None
    rounds = len(rep["rounds"])
    what = escape(standing(fold, rep))
    mark = "[green]✓[/]" if rep["ok"] else "[yellow]![/]"
    n = len(rep["violations"])
    console.print(f"{mark} {head}: {what} after {rounds} round{'s' * (rounds != 1)}; "
                  f"{n} violation{'s' * (n != 1)}", soft_wrap=True)
    for v in rep["violations"]:
        where = g.lines[v["seq"]] if 0 <= v["seq"] < len(g.lines) else None
        loc = escape(f"{where[0]}:{where[1]}: ") if where else ""
        seat = f" seat {v['seat']} ({escape(fold.seats[v['seat']])})" if v["seat"] is not None else ""
        trick = f" trick {v['trick']}" if v["trick"] else ""
        game = escape(str(rep["game"]))
        console.print(f"    {loc}game {game} seq {v['seq']} round {v['round']}{trick}{seat}: "
                      f"[yellow]{v['rule']}[/]: {escape(v['message'])}", soft_wrap=True)
    for r in fold.state.rounds:
        # a round without hands is judged at its last card: none listed is not a clean round
        state = unjudged(r)
        if state is not None:
            why = ("was ruled before its last card: its plays were never judged"
                   if state == "ruled" else "is not over: its plays are judged when its last card is in")
            console.print(f"    round {r.number}: hands not recorded and the round {why}",
                          soft_wrap=True)
    for line in record_lines(fold, rep):
        console.print(line, soft_wrap=True)


def check(
    files: list[Path] = typer.Argument(..., help="jaslog/1 JSON Lines files ('-' for stdin); "
                                       "store:GAME for a stored game, store: for all"),
    json: bool = typer.Option(False, "--json", help="one JSON object per game, for scripts"),
    as_: str | None = AS_OPTION,
    option: list[str] = WHAT_IF_OPTIONS,
    db: str | None = DB_OPTION,
) -> None:
    """Validate and score every game: exit 0 clean, 1 rule violations, 2 invalid log.

    With --as (or -o), what-if: each game refolded under that preset of its game and those
    options, beside the game as recorded (the log is not touched): the verdicts and the
    rounds' scores that change; exit as the game would check under those rules (2 also when
    they refuse one of its events)."""
    worst, seen = 0, 0
    what_if = as_ is not None or bool(option)
    if what_if:
        worst, seen = check_as(files, db, as_, option, json)
    for g in () if what_if else read_games(files, db):
        seen += 1
        if isinstance(g, FoldError):
            worst = 2
            if json:
                write_json_line(game_report(None, None, g))
            else:
                console.print(f"[red]✗[/] {escape(str(g))}", soft_wrap=True)
            continue
        rep = game_report(g.game, g.fold, g.error)
        if rep["error"]:
            worst = 2
        elif not rep["ok"]:
            worst = max(worst, 1)
        if json:
            write_json_line(rep)
        else:
            _print_game(g)
    if not seen:
        err_console.print(f"no games in {', '.join(str(f) for f in files)}", style="dim",
                          soft_wrap=True, highlight=False)
    raise typer.Exit(worst)


def register(app: typer.Typer) -> None:
    app.command()(check)
