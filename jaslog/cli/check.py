"""``jaslog check``: validate and score every game in log files."""

from __future__ import annotations

from pathlib import Path

import typer

from jaslog.audit import game_report
from jaslog.cli.common import DB_OPTION, console, read_games, write_json_line
from jaslog.fold import FileGame, FoldError


def _team_names(seats: list[str], team: int) -> str:
    return " & ".join(seats[team::2])


def _print_game(g: FileGame) -> None:
    rep = game_report(g.game, g.fold, g.error)
    fold = g.fold
    head = f"[bold]{rep['game']}[/] ({rep['ruleset'] or '?'})"
    if g.error is not None:
        console.print(f"[red]✗[/] {head}: [red]invalid[/]: {g.error}", soft_wrap=True)
        return
    assert fold is not None
    t0, t1 = rep["totals"]
    rounds = len(rep["rounds"])
    if rep["finished"]:
        w = rep["winner"]
        if w == "draw":
            what = f"finished, a draw at {t0}–{t1}"
        else:
            what = (f"finished, team {w} ({_team_names(fold.seats, int(w))}) wins "
                    f"{max(t0, t1)}–{min(t0, t1)}")
    else:
        what = f"not finished, {t0}–{t1}"
    mark = "[green]✓[/]" if rep["ok"] else "[yellow]![/]"
    n = len(rep["violations"])
    console.print(f"{mark} {head}: {what} after {rounds} round{'s' * (rounds != 1)}; "
                  f"{n} violation{'s' * (n != 1)}", soft_wrap=True)
    for v in rep["violations"]:
        where = g.lines[v["seq"]] if 0 <= v["seq"] < len(g.lines) else None
        loc = f"{where[0]}:{where[1]}: " if where else ""
        seat = f" seat {v['seat']} ({fold.seats[v['seat']]})" if v["seat"] is not None else ""
        trick = f" trick {v['trick']}" if v["trick"] else ""
        console.print(f"    {loc}seq {v['seq']} round {v['round']}{trick}{seat}: "
                      f"[yellow]{v['rule']}[/]: {v['message']}", soft_wrap=True)
    for r in rep["rounds"]:
        if r["ruling"]:
            console.print(f"    round {r['round']}: played {r['score'][0]}–{r['score'][1]} "
                          f"({r['result']}), ruled {r['ruling']['score'][0]}–"
                          f"{r['ruling']['score'][1]}: {r['ruling']['reason']}", soft_wrap=True)


def check(
    files: list[Path] = typer.Argument(..., help="jaslog/1 JSON Lines files ('-' for stdin); "
                                       "store:GAME for a stored game, store: for all"),
    json: bool = typer.Option(False, "--json", help="one JSON object per game, for scripts"),
    db: str | None = DB_OPTION,
) -> None:
    """Validate and score every game: exit 0 clean, 1 rule violations, 2 invalid log."""
    worst = 0
    for g in read_games(files, db):
        if isinstance(g, FoldError):
            worst = 2
            if json:
                write_json_line(game_report(None, None, g))
            else:
                console.print(f"[red]✗[/] {g}", soft_wrap=True)
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
    raise typer.Exit(worst)


def register(app: typer.Typer) -> None:
    app.command()(check)
