"""The toy game on the terminal: the table from its seat view."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text

from jaslog.engine.fold import GameFold
from jaslog.play.render import note_unjudged, players_score, seat_table, violation_lines, who
from tests.games.toy.view import seat_view


def render(fold: GameFold, viewer: int | None = None) -> Group:
    """The table as ``viewer`` may see it (from :func:`seat_view`: never another's hand)."""
    v = seat_view(fold, viewer)
    if not v["round"]:
        return Group(players_score(fold, v))
    head = Text(f"round {v['round']}  dealer {who(fold, v['dealer'])}", style="cyan")
    for d in v["bids"]:
        head.append(f"  {who(fold, d['seat'])} doubled", style="bold")
    parts: list[Any] = [head, seat_table(fold, v)]
    line = Text("round so far: tricks " + "–".join(map(str, v["tricks_won"])), style="dim")
    if v["result"]:
        line.append(f"; {v['result']}: " + "–".join(map(str, v["score"])), style="bold")
    if v["ruling"]:
        line.append("; ruled " + "–".join(map(str, v["ruling"]["score"])), style="bold magenta")
    parts += [line, players_score(fold, v)]
    violation_lines(parts, v, fold)
    note_unjudged(parts, fold)
    parts.append(Text(""))
    return Group(*parts)
