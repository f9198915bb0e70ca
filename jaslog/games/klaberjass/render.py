"""Klaberjass on the terminal: the table from its seat view, its events' lines and its bids'
words."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text

from jaslog.cards import CARD_INDEX, CARD_TEXT, SUIT_NAMES, SUIT_SYMBOLS
from jaslog.engine.fold import GameFold
from jaslog.games.klaberjass.events import SequenceDeclared
from jaslog.games.klaberjass.view import seat_view
from jaslog.play.render import (
    SUIT_STYLE,
    card_markup,
    card_text,
    cards_text,
    note_unjudged,
    players_score,
    seat_table,
    seen_event,
    table_words,
    violation_lines,
    who,
)

#: What a bid's call says (a suit names the trumps; ``pass`` is every game's).
CALL_WORDS = {"take": "takes the turn-up's suit", "schmeiss": "schmeisses",
              "annul": "annuls the deal", "play": "plays on"}


def _sequence_text(fold: GameFold, d: SequenceDeclared, viewer: int | None) -> str:
    shown = "cards" in seen_event(fold, d, viewer)  # the game's one rule: redact_event
    return (f"declares the sequence {cards_text(d.cards)}" if shown
            else f"declares a sequence of {len(d.cards)} cards")


#: Each of the game's own events' line, after its seat's player: ``text(fold, event, viewer)``.
EVENT_TEXTS: dict[str, Any] = {
    "second_deal": lambda f, d, v: f"second deal; the stock's bottom card is {card_text(d.bottom)}",
    "dix": lambda f, d, v: "exchanges the dix for "
                           f"{card_text(CARD_TEXT[f.state.rounds[-1].turn_up])}",
    "sequence": _sequence_text,
    "bella": lambda f, d, v: "announces bella",
}


def carried(fold: GameFold, v: dict[str, Any]) -> str:
    """What a deal over passes on or takes from a tie (option ``tie_mode: carry_over``):
    the points held for the next deal's winner, or those received, and then what it counts.
    '' for a deal without either (or one a ruling scored)."""
    o = fold.state.outcomes()[v["round"] - 1]
    if o.ruled is not None:
        return ""
    if o.held:
        return f"; {o.held} held for the next deal's winner"
    if o.received:
        w = 0 if o.score[0] > o.score[1] else 1
        return (f"; + {o.received} received by {fold.seats[w]} (held from a tie): counts "
                f"{o.final[0]}–{o.final[1]}")
    return ""


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
        head.append("  bottom card ")
        head.append_text(card_markup(CARD_INDEX[v["bottom"]]))
    parts.append(head)
    parts.append(seat_table(fold, v))
    decl = [f"{fold.seats[d['seat']]} " + (table_words(fold.seats, d["sequence"])
                                           if d.get("sequence") else f"({d['length']} cards)")
            + ("" if d.get("valid", True) else " ✗") for d in v["declarations"]]
    if decl or v["bella_calls"]:
        parts.append(Text("declared: " + "; ".join(
            decl + [f"{fold.seats[b['seat']]} bella" for b in v["bella_calls"]]), style="dim"))
    line = Text(f"deal so far: points {v['points'][0]}–{v['points'][1]}, tricks "
                f"{v['tricks_won'][0]}–{v['tricks_won'][1]}", style="dim")
    if v["result"] in ("made", "tie", "bete", "revoke"):
        line.append(f"; sequences {v['sequences'][0]}–{v['sequences'][1]}, bella {v['bella'][0]}–"
                    f"{v['bella'][1]}; {v['result']}: {v['score'][0]}–{v['score'][1]}", style="bold")
        line.append(carried(fold, v), style="bold")
    if v["ruling"]:
        line.append(f"; ruled {v['ruling']['score'][0]}–{v['ruling']['score'][1]}", style="bold magenta")
    parts.append(line)
    parts.append(players_score(fold, v))
    violation_lines(parts, v, fold)
    note_unjudged(parts, fold)
    parts.append(Text(""))
    return Group(*parts)
