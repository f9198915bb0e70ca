"""The terminal sink: a game state drawn for people, in colour, optionally for one seat.

A seat's view shows its own hand, the cards on the table and the public record; never
another hand during a live round. Nothing here computes a rule: it reads the state.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from jaslog.cards import CARD_INDEX, CARD_TEXT, RANK_TEXT, SUIT_MASK, SUIT_NAMES, SUIT_SYMBOLS, cards_of
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
        if d.turn_up is not None:
            t.append(f"; turn-up {d.turn_up}")
    elif e.type == "trump_turned":
        t.append(f"turned {d.card}")
    elif e.type == "bid":
        call = {"pass": "passes", "accept": "accepts", "take": "takes the turn-up's suit",
                "schmeiss": "schmeisses", "annul": "annuls the deal", "play": "plays on"}.get(d.call)
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
        t.append(f"referee: round {d.round} scores {'–'.join(map(str, d.score))}: {d.reason}",
                 style="bold magenta")
    elif e.type == "note":
        rounds = fold.state.rounds
        if viewer is not None and rounds and not rounds[-1].over:
            # the scorer's free text may name cards: a seat reads it once the round is played
            # out (a round ruled with cards unplayed keeps its secrets)
            t.append("note (shown when the round is over)", style="italic")
        else:
            t.append(f"note: {d.text}", style="italic")
    elif e.type in _GAME_EVENTS:
        t.append(f"{_who(fold, getattr(d, 'seat', None))} " if hasattr(d, "seat") else "")
        t.append(_GAME_EVENTS[e.type](fold, d, viewer))
    else:
        t.append(e.type)
    return t


def _sequence_text(fold: GameFold, d: Any, viewer: int | None) -> str:
    r = fold.state.rounds[-1]
    shown = viewer is None or viewer == d.seat or r.closed or len(r.tricks) >= 2 or (
        bool(r.tricks) and r.tricks[0].complete)
    # at the table the cards of a sequence are shown after the first trick
    return (f"declares the sequence {' '.join(d.cards)}" if shown
            else f"declares a sequence of {len(d.cards)} cards")


_GAME_EVENTS: dict[str, Any] = {
    "second_deal": lambda f, d, v: f"second deal; the stock's bottom card is {d.bottom}",
    "dix": lambda f, d, v: f"exchanges the dix for {CARD_TEXT[f.state.rounds[-1].turn_up]}",
    "sequence": _sequence_text,
    "bella": lambda f, d, v: "announces bella",
    "partner_call": lambda f, d, v: "goes alone" if d.call == "alone" else f"calls {d.call}",
    "knock": lambda f, d, v: "knocks",
    "knock_back": lambda f, d, v: "knocks back",
}


def render_table(fold: GameFold, viewer: int | None = None) -> Group:
    """The table: round, trump, the trick in progress, hands (as ``viewer`` may see them),
    scores so far and the violations of the round."""
    return RENDERERS[fold.game](fold, viewer)


def unjudged(r: Any) -> str | None:
    """Whether round ``r``'s plays are unjudged: a round recorded without hands has them
    judged only when its last card is in (the hands are rebuilt from the cards played), so
    until then (``"open"``), or for good when a ruling ended it with cards unplayed
    (``"ruled"``), no violation listed does not mean a clean round. None: judged, or nothing
    played."""
    if r.hands_known or r.over or not any(t.cards for t in r.tricks):
        return None
    return "ruled" if r.ruling is not None else "open"


def unjudged_note(fold: GameFold) -> Text | None:
    """The table's line for a last round whose plays are :func:`unjudged`."""
    rounds = fold.state.rounds
    state = unjudged(rounds[-1]) if rounds else None
    if state is None:
        return None
    if state == "ruled":
        return Text("  hands not recorded, ruled before the last card: legality never judged",
                    style="dim italic")
    return Text("  hands not recorded: legality is judged when the round's last card is in",
                style="dim italic")


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
    for v in r.violations:
        # a live round (or one ruled with cards unplayed): a seat reads only its own, as in
        # the service's seat view and the other games' (another's names that player's cards)
        if viewer is None or r.over or v.seat == viewer:
            parts.append(Text(f"  ✗ {v.rule}: {v.message}", style="yellow"))
    _note_unjudged(parts, fold)
    parts.append(Text(""))
    return Group(*parts)


def _text_hand(cards: list[str] | None, count: int) -> Text:
    if cards is None:
        return Text(f"{count} cards", style="dim")
    return hand_markup(sum(1 << CARD_INDEX[c] for c in cards))


def _players_score(fold: GameFold, v: dict[str, Any]) -> Text:
    score = Text("score  ", style="dim")
    score.append("  ·  ".join(f"{p} {t}" for p, t in zip(fold.seats, v["totals"], strict=True)),
                 style="bold")
    if v["finished"]:
        score.append(f"   game over: {fold.seats[v['winner']]} wins", style="bold green")
    return score


def _seat_table(fold: GameFold, v: dict[str, Any], extra: list[Text] | None = None) -> Table:
    tab = Table(box=None, pad_edge=False, show_header=False)
    for col in ("seat", "hand", "on the table", *(["side"] if extra else [])):
        tab.add_column(col)
    trick = v["tricks"][-1] if v["tricks"] else None
    on_table = {x["seat"]: x["card"] for x in trick["cards"]} if trick else {}
    for seat in range(len(fold.seats)):
        mark = "▶ " if v["live"] and v["turn"] == seat and v["expects"] != "deal" else "  "
        hand = (Text("(not recorded)", style="dim") if v["hands"][seat] is None and (
            v["viewer"] is None or v["viewer"] == seat) else _text_hand(v["hands"][seat], v["counts"][seat]))
        played = card_markup(CARD_INDEX[on_table[seat]]) if seat in on_table else Text("")
        if trick is not None and trick["winner"] == seat:
            played.append("  wins", style="green")
        row = [Text(mark + _who(fold, seat), style="bold" if seat == v["viewer"] else ""), hand, played]
        tab.add_row(*row, *([extra[seat]] if extra else []))
    return tab


def _note_unjudged(parts: list[Any], fold: GameFold) -> None:
    note = unjudged_note(fold)
    if note is not None:
        parts.append(note)


def _violations(parts: list[Any], v: dict[str, Any]) -> None:
    for x in v["violations"]:
        parts.append(Text(f"  ✗ {x['rule']}: {x['message']}", style="yellow"))


def render_klaberjass(fold: GameFold, viewer: int | None = None) -> Group:
    """Klaberjass, from :func:`jaslog.fold.klaberjass.seat_view` (never more than it shows)."""
    from jaslog.fold.klaberjass import seat_view

    v = seat_view(fold, viewer)
    parts: list[Any] = []
    if not v["round"]:
        return Group(_players_score(fold, v))
    head = Text(f"deal {v['round']}  dealer {_who(fold, v['dealer'])}  turn-up ", style="cyan")
    head.append_text(card_markup(CARD_INDEX[v["turn_up"]]))
    if v["dix"] is not None:
        head.append(f" (taken with the dix by {_who(fold, v['dix'])})")
    if v["trump"] is not None:
        s = "CDHS".index(v["trump"])
        head.append("  trump ")
        head.append(f"{SUIT_SYMBOLS[s]} {SUIT_NAMES[s]}", style=SUIT_STYLE[s])
        head.append(f" made by {_who(fold, v['maker'])}")
    if v["annulled"]:
        head.append(f"  annulled ({'both passed twice' if v['annulled'] == 'all_pass' else 'schmeiss'})",
                    style="bold")
    if v["bottom"]:
        head.append(f"  bottom card {v['bottom']}")
    parts.append(head)
    parts.append(_seat_table(fold, v))
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
    parts.append(_players_score(fold, v))
    _violations(parts, v)
    _note_unjudged(parts, fold)
    parts.append(Text(""))
    return Group(*parts)


def render_kloepper(fold: GameFold, viewer: int | None = None) -> Group:
    """Kloepper, from :func:`jaslog.fold.kloepper.seat_view`: a seat never sees another hand
    or a partnership the cards have not revealed."""
    from jaslog.fold.kloepper import seat_view

    v = seat_view(fold, viewer)
    parts: list[Any] = []
    if not v["round"]:
        return Group(_players_score(fold, v))
    head = Text(f"deal {v['round']}  dealer {_who(fold, v['dealer'])}", style="cyan")
    if v["call"]:
        c = v["call"]
        head.append(f"  {_who(fold, c['seat'])} " + ("goes alone" if c["call"] == "alone"
                                                      else f"called {c['call']}"))
    for k in v["knocks"]:
        head.append(f"  {_who(fold, k['seat'])} knocked" + (" back" if k["back"] else ""),
                    style="bold")
    parts.append(head)
    sides = [Text({"queens": "black queens", "others": "others"}.get(x or "", "?"),
                  style="magenta" if x == "queens" else "dim" if x is None else "")
             for x in v["sides"]]
    parts.append(_seat_table(fold, v, sides))
    line = Text("deal so far: points " + "–".join(map(str, v["points"])), style="dim")
    if v["side_points"]:
        line.append(f"; black queens {v['side_points']['queens']}, others {v['side_points']['others']}")
    if v["result"]:
        line.append(f"; {v['result']} ({v['row']}): " + "–".join(map(str, v["score"])), style="bold")
    if v["ruling"]:
        line.append("; ruled " + "–".join(map(str, v["ruling"]["score"])), style="bold magenta")
    parts.append(line)
    parts.append(_players_score(fold, v))
    _violations(parts, v)
    _note_unjudged(parts, fold)
    parts.append(Text(""))
    return Group(*parts)


RENDERERS = {"klaverjas": render_klaverjas, "klaberjass": render_klaberjass,
             "kloepper": render_kloepper}


def score_table(rows: list[tuple[str, ...]], headers: tuple[str, ...]) -> Table:
    tab = Table(*headers, box=None, pad_edge=False)
    for row in rows:
        tab.add_row(*row)
    return tab
