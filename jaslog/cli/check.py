"""``jaslog check``: validate and score every game in log files."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from jaslog.cli.common import DB_OPTION, err_console, fail
from jaslog.cli.games_out import CLUSTER_OPTION, Said, judged, judged_on_cluster
from jaslog.cli.whatif import AS_OPTION, WHAT_IF_OPTIONS, check_as
from jaslog.engine.fold import FoldError, GameFold
from jaslog.games import get_game
from jaslog.play.audit import game_report
from jaslog.play.fold import FileGame
from jaslog.play.render import record_lines, unjudged


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


def _game_lines(g: FileGame, rep: dict[str, Any]) -> list[Any]:
    """What ``check`` prints of one game read (its report ``rep``): its verdict, each
    violation where it stands, rounds not judged, and the record."""
    fold = g.fold
    head = f"[bold]{escape(str(rep['game']))}[/] ({rep['ruleset'] or '?'})"
    if g.error is not None:
        return [f"[red]✗[/] {head}: [red]invalid[/]: {escape(str(g.error))}"]
    assert fold is not None
    rounds = len(rep["rounds"])
    what = escape(standing(fold, rep))
    mark = "[green]✓[/]" if rep["ok"] else "[yellow]![/]"
    n = len(rep["violations"])
    out: list[Any] = [f"{mark} {head}: {what} after {rounds} round{'s' * (rounds != 1)}; "
                      f"{n} violation{'s' * (n != 1)}"]
    for v in rep["violations"]:
        where = g.lines[v["seq"]] if 0 <= v["seq"] < len(g.lines) else None
        loc = escape(f"{where[0]}:{where[1]}: ") if where else ""
        seat = f" seat {v['seat']} ({escape(fold.seats[v['seat']])})" if v["seat"] is not None else ""
        trick = f" trick {v['trick']}" if v["trick"] else ""
        game = escape(str(rep["game"]))
        out.append(f"    {loc}game {game} seq {v['seq']} round {v['round']}{trick}{seat}: "
                   f"[yellow]{v['rule']}[/]: {escape(v['message'])}")
    for r in fold.state.rounds:
        # a round without hands is judged at its last card: none listed is not a clean round
        state = unjudged(r)
        if state is not None:
            why = (f"was {state} before its last card: its plays were never judged"
                   if state in ("ruled", "claimed")
                   else "is not over: its plays are judged when its last card is in")
            out.append(f"    round {r.number}: hands not recorded and the round {why}")
    out.extend(record_lines(fold, rep))
    return out


def check_game(g: FileGame | FoldError, json: bool) -> Said:
    """What ``check`` says of one game read (a bare :class:`FoldError`: a line that names no
    game): exit 0 clean, 1 rule violations, 2 invalid."""
    if isinstance(g, FoldError):
        return Said(2, json=game_report(None, None, g)) if json else \
            Said(2, [f"[red]✗[/] {escape(str(g))}"])
    rep = game_report(g.game, g.fold, g.error)
    code = 2 if rep["error"] else 0 if rep["ok"] else 1
    return Said(code, json=rep) if json else Said(code, _game_lines(g, rep))


#: Games to a task of a cluster's worker (a task folds some 200 games a second).
CLUSTER_CHUNK = 200


def check(
    files: list[Path] = typer.Argument(..., help="jaslog/1 JSON Lines files ('-' for stdin); "
                                       "store:GAME for a stored game, store: for all"),
    json: bool = typer.Option(False, "--json", help="one JSON object per game, for scripts"),
    as_: str | None = AS_OPTION,
    option: list[str] = WHAT_IF_OPTIONS,
    db: str | None = DB_OPTION,
    cluster: str | None = CLUSTER_OPTION,
) -> None:
    """Validate and score every game: exit 0 clean, 1 rule violations, 2 invalid log.

    With --as (or -o), what-if: each game refolded under that preset of its game and those
    options, beside the game as recorded (the log is not touched): the verdicts and the
    rounds' scores that change; exit as the game would check under those rules (2 also when
    they refuse one of its events)."""
    worst, seen = 0, 0
    what_if = as_ is not None or bool(option)
    if what_if and cluster is not None:
        fail("--cluster checks games as recorded: run a what-if (--as, -o) without it")
    said: Iterable[Said] = ()
    if what_if:
        worst, seen = check_as(files, db, as_, option, json)
    elif cluster is None:
        said = judged(files, db, check_game, json, fast=True)
    else:
        said = judged_on_cluster(cluster, files, db, "checking", CLUSTER_CHUNK, check_game, json)
    for s in said:
        seen += s.counted
        worst = max(worst, s.exit)
        s.say()
    if not seen:
        err_console.print(f"no games in {', '.join(str(f) for f in files)}", style="dim",
                          soft_wrap=True, highlight=False)
    raise typer.Exit(worst)


def register(app: typer.Typer) -> None:
    app.command()(check)
