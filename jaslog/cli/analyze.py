"""``jaslog analyze``: the referee's analysis of recorded rounds: the par (perfect play with
every hand known) beside what was played, and every play that cost its side points.

What the numbers mean is in docs/analyze.md (rule book 9.2, decisions 16 and 17).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.text import Text

from jaslog.analysis import core_name
from jaslog.analysis.rounds import PlayNote, RoundAnalysis, analyze_fold
from jaslog.cli.common import DB_OPTION, STORE_PREFIX, fail, is_stored
from jaslog.cli.games_out import CLUSTER_OPTION, Said, judged, judged_on_cluster
from jaslog.cli.whatif import AS_OPTION, WHAT_IF_OPTIONS, what_if_fold, what_if_head
from jaslog.engine.fold import FoldError, GameFold
from jaslog.play.fold import FileGame
from jaslog.play.render import card_markup, who


def signed(v: int) -> str:
    """A par or score difference with its sign: ``+52``, ``-182``, ``0``.

    >>> signed(52), signed(-182), signed(0)
    ('+52', '-182', '0')
    """
    return f"+{v}" if v > 0 else str(v)


def score_text(score: tuple[int, ...] | list[int] | None) -> str:
    """A score per team or per player, as the terminal shows it.

    >>> score_text((34, 128)), score_text(None)
    ('34–128', '?')
    """
    return "–".join(map(str, score)) if score else "?"


def play_line(fold: GameFold, p: PlayNote) -> Text:
    """One costly play: trick, player, card, what it cost, the best cards, the verdict."""
    t = Text(f"  trick {p.trick}  {who(fold, p.seat):<14} ")
    card = card_markup(p.card)
    t.append_text(card)
    t.append(" " * (3 - len(card.plain)) + f"  cost {p.loss:<4}")
    return _best_and_verdict(t, p, " best ")


def cost_line(p: PlayNote) -> Text:
    """What a costly play cost, under the play's own line (``replay --analyze``)."""
    t = Text(f"  ↳ cost {p.loss} (par {signed(p.before)} → {signed(p.after)})")
    return _best_and_verdict(t, p, ", best ")


def _best_and_verdict(t: Text, p: PlayNote, best: str) -> Text:
    """``t`` with the best cards of a costly play (after ``best``) and its verdict: revoke,
    blunder (the round's result turned) or mistake."""
    if p.best:
        t.append(best)
        for i, c in enumerate(p.best):
            if i:
                t.append(" ")
            t.append_text(card_markup(c))
    if not p.legal:
        t.append("  revoke", style="bold red")
    if p.blunder:
        t.append(f"  blunder: {p.result_before} → {p.result_after}", style="bold red")
    elif p.mistake:
        t.append("  mistake", style="yellow")
    return t


def round_lines_head(a: RoundAnalysis) -> list[Text]:
    """A round's par beside what was played (or why it has no par), and its notes."""
    head = Text(f"round {a.round}", style="bold")
    if a.reason is not None:
        head.append(f"  no par: {a.reason}", style="dim")
        return [head]
    assert a.par is not None and a.sides is not None
    head.append(f"  par {a.par_result} {signed(a.par)}")
    played = f"{a.result} {signed(a.difference)}" if a.difference is not None else str(a.result)
    head.append(f"  played {played} ({score_text(a.score)})")
    head.append(f"  for {a.sides[0]}", style="dim")
    out = [head]
    if a.note:
        out.append(Text(f"  note: {a.note}", style="dim"))
    return out


def round_lines(fold: GameFold, a: RoundAnalysis) -> list[Text]:
    """A round: its par beside what was played, its notes and its costly plays."""
    out = round_lines_head(a)
    if a.reason is not None:
        return out
    costly = a.costly
    if not costly:
        out.append(Text("  every card kept the par", style="green"))
    out.extend(play_line(fold, p) for p in costly)
    if a.claim is not None:
        out.append(claim_line(fold, a.claim))
    return out


def claim_line(fold: GameFold, c: dict[str, Any]) -> Text:
    """The claim of the rest that ended a round's play, the par of the position it was made
    from (what perfect play would have made of the rest), and the solver's verdict."""
    verb = "claims" if c["gives"] == "rest_to_claimer" else "concedes"
    t = Text(f"  claim: {who(fold, c['seat'])} {verb} the rest from trick {c['trick']}; "
             f"par there {signed(c['par'])}")
    if c["guaranteed"] is True:
        t.append("  sound", style="green")
    elif c["guaranteed"] is False:
        t.append("  not guaranteed against every defence", style="bold red")
    return t


def analysis_json(fold: GameFold, rounds: list[RoundAnalysis]) -> dict[str, Any]:
    return {"game": fold.game_id, "ruleset": fold.ruleset, "seats": fold.seats,
            "solver": core_name(), "rounds": [a.to_json() for a in rounds]}


def analyze(
    source: str = typer.Argument(..., metavar="GAME|FILE",
                                 help="a jaslog/1 file ('-' for stdin), store:GAME, or the id of a "
                                      "stored game"),
    game: str | None = typer.Option(None, "--game", "-g", help="only this game of the file"),
    round: int | None = typer.Option(None, "--round", "-r", min=1, help="only this round"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object per game, for scripts"),
    as_: str | None = AS_OPTION,
    option: list[str] = WHAT_IF_OPTIONS,
    db: str | None = DB_OPTION,
    cluster: str | None = CLUSTER_OPTION,
) -> None:
    """The par of each round with known hands beside what was played, and every play that
    cost its side points: the loss, the best cards, mistakes (20 points or more) and
    blunders (the round's result turned).

    With --as (or -o), what-if: the game analysed under that preset of its game and those
    options (the log is not touched), up to the first event those rules refuse."""
    path = Path(source)
    if not (source == "-" or is_stored(source) or path.exists()):
        path = Path(f"{STORE_PREFIX}{source}")  # a stored game's id
    args = (game, round, as_json, as_, option)
    said = judged([path], db, analyze_game, *args) if cluster is None else \
        judged_on_cluster(cluster, [path], db, "analyzing", CLUSTER_CHUNK, analyze_game, *args)
    seen = 0
    worst = 0
    for s in said:
        seen += s.counted
        worst = max(worst, s.exit)
        s.say()
    if not seen:
        what = f"no game {game!r} in {source}" if game is not None else f"no games in {source}"
        fail(what)
    raise typer.Exit(worst)


#: Games to a task of a cluster's worker (a Klaverjas round takes some 0.1 s to solve).
CLUSTER_CHUNK = 2


def analyze_game(g: FileGame | FoldError, game: str | None, round: int | None, as_json: bool,
                 as_: str | None, option: list[str]) -> Said:
    """What ``analyze`` says of one game read (a bare :class:`FoldError`, a line that names
    no game, stops it): nothing for a game other than ``game``, the invalid, or each round
    (only ``round``) with its par and its costly plays, as text or one JSON object."""
    if isinstance(g, FoldError):
        return Said(fail=str(g))
    if game is not None and g.game != game:
        return Said(counted=False)
    if g.error is not None or g.fold is None:
        return Said(2, [f"[red]✗[/] {escape(g.game)}: [red]invalid[/]: {escape(str(g.error))}"])
    fold = g.fold
    w = what_if_fold(fold, as_, option) if as_ is not None or option else None
    if isinstance(w, str):
        return Said(fail=w)
    if w is not None:
        fold = w.as_if
    if round is not None and round > len(fold.state.rounds):
        return Said(fail=f"game {g.game} has {len(fold.state.rounds)} rounds: there is no round "
                    f"{round}")
    rounds = analyze_fold(fold, round=round)
    if as_json:
        return Said(json=analysis_json(fold, rounds) | (
            {"what_if": w.to_dict()} if w is not None else {}))
    solved = sum(a.reason is None for a in rounds)
    out: list[Any] = [f"[bold]{escape(g.game)}[/] ({escape(fold.ruleset)}): {len(rounds)} round"
                      f"{'s' * (len(rounds) != 1)}, {solved} with par"]
    if w is not None:
        out.extend(what_if_head(w))
    for a in rounds:
        out.extend(round_lines(fold, a))
    return Said(lines=out)


def register(app: typer.Typer) -> None:
    app.command()(analyze)
