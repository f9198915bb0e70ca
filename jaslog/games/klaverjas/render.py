"""Klaverjas on the terminal: the table (hands as the viewer may see them), the trick, the
scores and the violations."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from jaslog.cards import SUIT_NAMES, SUIT_SYMBOLS
from jaslog.engine.fold import GameFold
from jaslog.render import (
    SUIT_STYLE,
    card_markup,
    hand_markup,
    note_unjudged,
    who,
)


def render(fold: GameFold, viewer: int | None = None) -> Group:
    """The table now, as ``viewer`` may see it (None: everything)."""
    g = fold.state
    parts: list[Any] = []
    tot = g.totals()
    names = [" & ".join(fold.seats[t::2]) for t in (0, 1)]
    score = Text("score  ", style="dim")
    score.append(f"{names[0]} {tot[0]}  ·  {names[1]} {tot[1]}", style="bold")
    if g.finished:
        w = g.winner
        score.append("   game over: " + ("a draw" if w == "draw" else f"{names[int(w)]} win"),
                     style="bold green")
    if not g.rounds:
        parts.append(score)
        return Group(*parts)
    r = g.rounds[-1]
    head = Text(f"round {r.number}  dealer {who(fold, r.dealer)}  ", style="cyan")
    if r.trump is not None:
        head.append("trump ")
        head.append(f"{SUIT_SYMBOLS[r.trump]} {SUIT_NAMES[r.trump]}", style=SUIT_STYLE[r.trump])
        head.append(f" chosen by {who(fold, r.chooser)}")
    elif r.selection.proposed is not None:
        head.append(f"proposed {SUIT_NAMES[r.selection.proposed]}")
    parts.append(head)
    live = not r.closed
    tab = Table(box=None, pad_edge=False, show_header=False)
    tab.add_column("seat")
    tab.add_column("hand")
    tab.add_column("on the table")
    trick = r.tricks[-1] if r.tricks else None
    on_table = {}
    if trick is not None:
        for i, c in enumerate(trick.cards):
            on_table[trick.seat_of(i)] = c
    for seat in range(4):
        visible = viewer is None or viewer == seat or r.over  # every card played: no secret
        if not r.hands_known:
            hand = Text("(not recorded)", style="dim")
        elif visible:
            hand = hand_markup(r.hands[seat])
        else:
            hand = Text(f"{r.hands[seat].bit_count()} cards", style="dim")
        mark = "▶ " if (g.expected()[1] == seat and live) else "  "
        played = card_markup(on_table[seat]) if seat in on_table else Text("")
        if trick is not None and trick.complete and trick.winner == seat:
            played.append("  wins", style="green")
        tab.add_row(Text(mark + who(fold, seat), style="bold" if seat == viewer else ""),
                    hand, played)
    parts.append(tab)
    o = r.outcome(g.score_rules, g.claimed_mode)
    line = Text(f"round so far: points {o.points[0]}–{o.points[1]}, roem {o.roem[0]}–{o.roem[1]}",
                style="dim")
    if r.over:
        line.append(f"; {o.result}: {o.score[0]}–{o.score[1]}", style="bold")
    if r.ruling:
        line.append(f"; ruled {r.ruling.score[0]}–{r.ruling.score[1]}", style="bold magenta")
    parts.append(line)
    parts.append(score)
    for v in r.violations:
        # a live round (or one ruled with cards unplayed): a seat reads only its own, as in
        # the service's seat view and the other games' (another's names that player's cards)
        if viewer is None or r.over or v.seat == viewer:
            parts.append(Text(f"  ✗ {v.rule}: {v.message}", style="yellow"))
    note_unjudged(parts, fold)
    parts.append(Text(""))
    return Group(*parts)
