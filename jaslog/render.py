"""The terminal sink: a game state drawn for people, in colour, optionally for one seat.

A seat's view shows its own hand, the cards on the table and the public record; never
another hand during a live round. Nothing here computes a rule: it reads the state.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from jaslog.cards import RANK_TEXT, SUIT_MASK, SUIT_NAMES, SUIT_SYMBOLS, cards_of
from jaslog.events import Event
from jaslog.fold import GameFold

SUIT_STYLE = ("bold", "bold red", "bold red", "bold")


def card_markup(c: int) -> Text:
    s = c >> 3
    return Text(f"{RANK_TEXT[c & 7]}{SUIT_SYMBOLS[s]}", style=SUIT_STYLE[s])


def hand_markup(mask: int) -> Text:
    out = Text()
    for s in range(4):
        cards = [c for c in cards_of(mask & SUIT_MASK[s])]
        if not cards:
            continue
        if out:
            out.append("  ")
        out.append(SUIT_SYMBOLS[s], style=SUIT_STYLE[s])
        out.append(" " + " ".join(RANK_TEXT[c & 7] for c in reversed(cards)))
    return out or Text("—", style="dim")


def _who(fold: GameFold, seat: int | None) -> str:
    return f"{fold.seats[seat]} ({seat})" if seat is not None else "?"


def describe_event(fold: GameFold, e: Event, viewer: int | None = None) -> Text:
    """One line saying what the event was, as the viewer may know it."""
    d: Any = e
    t = Text(f"seq {e.seq:>4} ", style="dim")
    if e.type == "game_started":
        t.append(f"{fold.ruleset}: " + ", ".join(
            f"{p} ({i})" for i, p in enumerate(fold.seats)) + f"; first dealer {d.dealer}")
    elif e.type == "dealt":
        r = fold.state.rounds[-1]
        seen = "hands seen" if d.hands is not None else "hands not recorded"
        t.append(f"round {r.number} dealt by {_who(fold, r.dealer)} ({seen})", style="bold")
    elif e.type == "trump_turned":
        t.append(f"turned {d.card}")
    elif e.type == "bid":
        call = {"pass": "passes", "accept": "accepts"}.get(d.call)
        if call is None:
            call = f"plays in {SUIT_NAMES['CDHS'.index(d.call)]}"
        t.append(f"{_who(fold, d.seat)} {call}")
    elif e.type == "play":
        t.append(f"{_who(fold, d.seat)} plays ")
        from jaslog.cards import CARD_INDEX

        t.append_text(card_markup(CARD_INDEX[d.card]))
    elif e.type == "roem":
        t.append(f"{_who(fold, d.seat)} claims {d.points} roem")
    elif e.type == "ruling":
        t.append(f"referee: round {d.round} scores {d.score[0]}–{d.score[1]}: {d.reason}",
                 style="bold magenta")
    elif e.type == "note":
        t.append(f"note: {d.text}", style="italic")
    else:
        t.append(e.type)
    return t


def render_table(fold: GameFold, viewer: int | None = None) -> Group:
    """The table: round, trump, the trick in progress, hands (as ``viewer`` may see them),
    scores so far and the violations of the round."""
    return RENDERERS[fold.game](fold, viewer)


def render_klaverjas(fold: GameFold, viewer: int | None = None) -> Group:
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
    head = Text(f"round {r.number}  dealer {_who(fold, r.dealer)}  ", style="cyan")
    if r.trump is not None:
        head.append("trump ")
        head.append(f"{SUIT_SYMBOLS[r.trump]} {SUIT_NAMES[r.trump]}", style=SUIT_STYLE[r.trump])
        head.append(f" chosen by {_who(fold, r.chooser)}")
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
        visible = viewer is None or viewer == seat or not live
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
        tab.add_row(Text(mark + _who(fold, seat), style="bold" if seat == viewer else ""),
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
    if viewer is None or not live:
        for v in r.violations:
            parts.append(Text(f"  ✗ {v.rule}: {v.message}", style="yellow"))
    parts.append(Text(""))
    return Group(*parts)


RENDERERS = {"klaverjas": render_klaverjas}


def score_table(rows: list[tuple[str, ...]], headers: tuple[str, ...]) -> Table:
    tab = Table(*headers, box=None, pad_edge=False)
    for row in rows:
        tab.add_row(*row)
    return tab
