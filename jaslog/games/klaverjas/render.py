"""Klaverjas on the terminal: the table from its seat view, its events' lines and its bids'
words."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from jaslog.cards import CARD_INDEX, SUIT_LETTERS, SUIT_NAMES, SUIT_SYMBOLS
from jaslog.engine.fold import GameFold
from jaslog.games.klaverjas.events import TrumpTurned
from jaslog.games.klaverjas.view import seat_view
from jaslog.play.render import (
    SUIT_STYLE,
    any_card_markup,
    card_markup,
    note_unjudged,
    text_hand,
    violation_lines,
    who,
)

#: What a bid's call says (a suit names the trumps; ``pass`` is every game's).
CALL_WORDS = {"accept": "accepts"}


def _turned(fold: GameFold, d: TrumpTurned, viewer: int | None) -> Text:
    return Text("turned ").append_text(any_card_markup(d.card))


#: Each of the game's own events' line: ``text(fold, event, viewer)``.
EVENT_TEXTS: dict[str, Any] = {"trump_turned": _turned}


def render(fold: GameFold, viewer: int | None = None) -> Group:
    """Klaverjas, from :func:`jaslog.games.klaverjas.view.seat_view` (never more than it
    shows): during a live round a seat sees its own hand and the others' by their count."""
    v = seat_view(fold, viewer)
    parts: list[Any] = []
    names = [" & ".join(fold.seats[t::2]) for t in (0, 1)]
    tot = v["totals"]
    score = Text("score  ", style="dim")
    score.append(f"{names[0]} {tot[0]}  ·  {names[1]} {tot[1]}", style="bold")
    if v["finished"]:
        w = v["winner"]
        score.append("   game over: " + ("a draw" if w == "draw" else f"{names[int(w)]} win"),
                     style="bold green")
    if not v["round"]:
        parts.append(score)
        return Group(*parts)
    head = Text(f"round {v['round']}  dealer {who(fold, v['dealer'])}  ", style="cyan")
    if v["trump"] is not None:
        s = SUIT_LETTERS.index(v["trump"])
        head.append("trump ")
        head.append(f"{SUIT_SYMBOLS[s]} {SUIT_NAMES[s]}", style=SUIT_STYLE[s])
        head.append(f" chosen by {who(fold, v['chooser'])}")
    elif v["proposed"] is not None:
        head.append(f"proposed {SUIT_NAMES[SUIT_LETTERS.index(v['proposed'])]}")
    parts.append(head)
    tab = Table(box=None, pad_edge=False, show_header=False)
    tab.add_column("seat")
    tab.add_column("hand")
    tab.add_column("on the table")
    on_table = {x["seat"]: x["card"] for x in v["table"]}
    for seat in range(4):
        hand = (text_hand(v["hands"][seat], v["counts"][seat]) if v["hands_known"]
                else Text("(not recorded)", style="dim"))
        mark = "▶ " if v["turn"] == seat and not v["round_over"] else "  "
        played = card_markup(CARD_INDEX[on_table[seat]]) if seat in on_table else Text("")
        if v["trick_complete"] and v["trick_winner"] == seat:
            played.append("  wins", style="green")
        tab.add_row(Text(mark + who(fold, seat), style="bold" if seat == viewer else ""),
                    hand, played)
    parts.append(tab)
    line = Text(f"round so far: points {v['points'][0]}–{v['points'][1]}, roem {v['roem'][0]}–"
                f"{v['roem'][1]}", style="dim")
    if v["result"] is not None:
        line.append(f"; {v['result']}: {v['score'][0]}–{v['score'][1]}", style="bold")
    if v["ruling"]:
        line.append(f"; ruled {v['ruling']['score'][0]}–{v['ruling']['score'][1]}",
                    style="bold magenta")
    parts.append(line)
    parts.append(score)
    violation_lines(parts, v, fold)
    note_unjudged(parts, fold)
    parts.append(Text(""))
    return Group(*parts)
