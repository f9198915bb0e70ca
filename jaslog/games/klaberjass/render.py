"""Klaberjass on the terminal: the table from its seat view."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text

from jaslog.cards import CARD_INDEX, SUIT_NAMES, SUIT_SYMBOLS
from jaslog.engine.fold import GameFold
from jaslog.games.klaberjass.view import seat_view
from jaslog.render import (
    SUIT_STYLE,
    card_markup,
    note_unjudged,
    players_score,
    seat_table,
    violation_lines,
    who,
)


def render(fold: GameFold, viewer: int | None = None) -> Group:
    """Klaberjass, from :func:`jaslog.games.klaberjass.view.seat_view` (never more than it shows)."""
    v = seat_view(fold, viewer)
    parts: list[Any] = []
    if not v["round"]:
        return Group(players_score(fold, v))
    head = Text(f"deal {v['round']}  dealer {who(fold, v['dealer'])}  turn-up ", style="cyan")
    head.append_text(card_markup(CARD_INDEX[v["turn_up"]]))
    if v["dix"] is not None:
        head.append(f" (taken with the dix by {who(fold, v['dix'])})")
    if v["trump"] is not None:
        s = "CDHS".index(v["trump"])
        head.append("  trump ")
        head.append(f"{SUIT_SYMBOLS[s]} {SUIT_NAMES[s]}", style=SUIT_STYLE[s])
        head.append(f" made by {who(fold, v['maker'])}")
    if v["annulled"]:
        head.append(f"  annulled ({'both passed twice' if v['annulled'] == 'all_pass' else 'schmeiss'})",
                    style="bold")
    if v["bottom"]:
        head.append(f"  bottom card {v['bottom']}")
    parts.append(head)
    parts.append(seat_table(fold, v))
    decl = [f"{fold.seats[d['seat']]} " + (d.get("sequence") or f"({d['length']} cards)")
            + ("" if d.get("valid", True) else " ✗") for d in v["declarations"]]
    if decl or v["bella_calls"]:
        parts.append(Text("declared: " + "; ".join(
            decl + [f"{fold.seats[b['seat']]} bella" for b in v["bella_calls"]]), style="dim"))
    line = Text(f"deal so far: points {v['points'][0]}–{v['points'][1]}, tricks "
                f"{v['tricks_won'][0]}–{v['tricks_won'][1]}", style="dim")
    if v["result"] in ("made", "tie", "bete", "revoke"):
        line.append(f"; sequences {v['sequences'][0]}–{v['sequences'][1]}, bella {v['bella'][0]}–"
                    f"{v['bella'][1]}; {v['result']}: {v['score'][0]}–{v['score'][1]}", style="bold")
    if v["ruling"]:
        line.append(f"; ruled {v['ruling']['score'][0]}–{v['ruling']['score'][1]}", style="bold magenta")
    parts.append(line)
    parts.append(players_score(fold, v))
    violation_lines(parts, v)
    note_unjudged(parts, fold)
    parts.append(Text(""))
    return Group(*parts)
