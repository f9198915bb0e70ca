"""Kloepper on the terminal: the table from its seat view and its events' lines."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text

from jaslog.engine.fold import GameFold
from jaslog.games.kloepper.view import seat_view
from jaslog.play.render import (
    note_unjudged,
    players_score,
    seat_table,
    violation_lines,
    who,
)

#: Each of the game's own events' line, after its seat's player: ``text(fold, event, viewer)``.
EVENT_TEXTS: dict[str, Any] = {
    "partner_call": lambda f, d, v: "goes alone" if d.call == "alone" else f"calls {d.call}",
    "knock": lambda f, d, v: "knocks",
    "knock_back": lambda f, d, v: "knocks back",
}


def render(fold: GameFold, viewer: int | None = None) -> Group:
    """Kloepper, from :func:`jaslog.games.kloepper.view.seat_view`: a seat never sees another hand
    or a partnership the cards have not revealed."""
    v = seat_view(fold, viewer)
    parts: list[Any] = []
    if not v["round"]:
        return Group(players_score(fold, v))
    head = Text(f"deal {v['round']}  dealer {who(fold, v['dealer'])}", style="cyan")
    if v["call"]:
        c = v["call"]
        head.append(f"  {who(fold, c['seat'])} " + ("goes alone" if c["call"] == "alone"
                                                      else f"called {c['call']}"))
    for k in v["knocks"]:
        head.append(f"  {who(fold, k['seat'])} knocked" + (" back" if k["back"] else ""),
                    style="bold")
    parts.append(head)
    sides = [Text({"queens": "black queens", "others": "others"}.get(x or "", "?"),
                  style="magenta" if x == "queens" else "dim" if x is None else "")
             for x in v["sides"]]
    parts.append(seat_table(fold, v, sides))
    line = Text("deal so far: points " + "–".join(map(str, v["points"])), style="dim")
    if v["side_points"]:
        line.append(f"; black queens {v['side_points']['queens']}, others {v['side_points']['others']}")
    if v["result"]:
        line.append(f"; {v['result']} ({v['row']}): " + "–".join(map(str, v["score"])), style="bold")
    if v["ruling"]:
        line.append("; ruled " + "–".join(map(str, v["ruling"]["score"])), style="bold magenta")
    parts.append(line)
    parts.append(players_score(fold, v))
    violation_lines(parts, v, fold)
    note_unjudged(parts, fold)
    parts.append(Text(""))
    return Group(*parts)
