"""The terminal sink: a game state drawn for people, in colour, optionally for one seat.

Each game's table (its ``render`` adapter, through :func:`render_table`) is drawn from the
game's ``seat_view``, its one visibility rule, which the viewer's frames read too: a seat
sees its own hand, the cards on the table and the public record; never another hand during
a live round. Nothing here computes a rule. An event's line (:func:`describe_event`) leaves
out, for a seat, what the game's ``redact_event`` leaves out (a note's text until the round
is played out, another's sequence until the first trick is over). The lines of the shared
events are here; a game's own events and its bids' words are its render adapter's
(``EVENT_TEXTS``, ``CALL_WORDS``), which read what a viewer may know of an event through
:func:`seen_event`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol, cast

from rich.console import Group
from rich.table import Table
from rich.text import Text

from jaslog.cards import (
    CARD_INDEX,
    RANK_TEXT,
    SUIT_LETTERS,
    SUIT_MASK,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    cards_of,
)
from jaslog.engine.fold import GameFold
from jaslog.engine.view import Seen, Sight, played_out
from jaslog.events import Claim, Event
from jaslog.games import get_game

SUIT_STYLE = ("bold", "bold red", "bold red", "bold")


def card_markup(c: int) -> Text:
    s = c >> 3
    return Text(f"{RANK_TEXT[c & 7]}{SUIT_SYMBOLS[s]}", style=SUIT_STYLE[s])


def any_card_markup(text: str) -> Text:
    """A card of any pack (a turned card of random trump comes from a full pack: ``4H``) with
    its suit's symbol.

    >>> any_card_markup("4H").plain, any_card_markup("10S").plain
    ('4♥', '10♠')
    """
    c = CARD_INDEX.get(text)
    if c is not None:
        return card_markup(c)
    s = SUIT_LETTERS.index(text[-1])
    return Text(f"{text[:-1]}{SUIT_SYMBOLS[s]}", style=SUIT_STYLE[s])


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


def who(fold: GameFold, seat: int | None) -> str:
    return f"{fold.seats[seat]} ({seat})" if seat is not None else "?"


def card_text(card: str) -> str:
    """A card as the table shows it: its rank and suit symbol.

    >>> card_text("10H"), card_text("QS")
    ('10♥', 'Q♠')
    """
    return f"{card[:-1]}{SUIT_SYMBOLS['CDHS'.index(card[-1])]}" if card[-1:] in ("C", "D", "H", "S") \
        else card


def cards_text(cards: list[str]) -> str:
    return " ".join(card_text(c) for c in cards)


_SEAT_WORD = re.compile(r"\bseat (\d)\b")
_CARD_WORD = re.compile(r"\b(10|[2-9JQKA])([CDHS])\b")


def table_words(seats: list[str] | tuple[str, ...], text: str) -> str:
    """A rule's sentence (which names seats by number and cards by letters, as logs do) in
    the words of the table everywhere else: each seat by its player's name and number, each
    card with its suit symbol.

    >>> table_words(["ilse", "joop"], "seat 0 played 7C to a diamonds lead while holding "
    ...             "diamonds (AD, 10D): must follow suit")
    'ilse (0) played 7♣ to a diamonds lead while holding diamonds (A♦, 10♦): must follow suit'
    """
    text = _SEAT_WORD.sub(lambda m: f"{seats[int(m[1])]} ({m[1]})" if int(m[1]) < len(seats)
                          else m[0], text)
    return _CARD_WORD.sub(lambda m: card_text(m[0]), text)


def describe_event(fold: GameFold, e: Event, viewer: int | None = None,
                   struck: tuple[int, str] | None = None,
                   superseded: int | None = None) -> Text:
    """One line saying what the event was, as the viewer may know it; ``struck``: the seq
    and reason of the correction that retracts it (the line is struck through);
    ``superseded``: the seq of the later ruling that replaces this one."""
    t = _describe(fold, e, viewer)
    if superseded is not None:
        t.append(f"  superseded by the ruling at seq {superseded}", style="dim")
    if struck is not None:
        t.stylize("strike")
        t.append(f"  retracted at seq {struck[0]}: {struck[1]}", style="bold red")
    return t


def _describe(fold: GameFold, e: Event, viewer: int | None) -> Text:
    d: Any = e
    t = Text(f"seq {e.seq:>4} ", style="dim")
    if e.type == "game_started":
        t.append(f"{fold.ruleset}: " + ", ".join(
            f"{p} ({i})" for i, p in enumerate(fold.seats)) + f"; first dealer {who(fold, d.dealer)}")
    elif e.type == "dealt":
        r = fold.state.rounds[-1]
        seen = "hands seen" if d.hands is not None else "hands not recorded"
        t.append(f"round {r.number} dealt by {who(fold, r.dealer)} ({seen})", style="bold")
        if d.turn_up is not None:
            t.append("; turn-up ")
            t.append_text(card_markup(CARD_INDEX[d.turn_up]))
    elif e.type == "bid":
        call = {"pass": "passes", **getattr(_adapter(fold), "CALL_WORDS", {})}.get(d.call)
        if call is None:
            call = f"names {SUIT_NAMES['CDHS'.index(d.call)]} trumps"
        t.append(f"{who(fold, d.seat)} {call}")
    elif e.type == "play":
        t.append(f"{who(fold, d.seat)} plays ")
        t.append_text(card_markup(CARD_INDEX[d.card]))
    elif e.type == "roem":
        t.append(f"{who(fold, d.seat)} claims {d.points} roem")
    elif e.type == "claim":
        t.append_text(_claim_text(fold, d, viewer))
    elif e.type == "ruling":
        t.append(f"referee: round {d.round} scores {'–'.join(map(str, d.score))}: {d.reason}",
                 style="bold magenta")
        r = fold.state.rounds[d.round - 1] if d.round <= len(fold.state.rounds) else None
        if r is not None and r.ruling is not None and r.ruling.after_end:
            t.append(" (after the game ended)", style="magenta")
    elif e.type == "round_score":
        t.append(f"round {d.round} recorded by its score alone: {'–'.join(map(str, d.score))}",
                 style="bold")
        known = [f"{k} {v if not isinstance(v, list) else '–'.join(map(str, v))}"
                 for k in ("chooser", "trump", "points", "roem", "result")
                 if (v := getattr(d, k)) is not None]
        if known:
            t.append(" (" + ", ".join(known) + ")")
    elif e.type == "correction":
        reason = d.reason if "reason" in seen_event(fold, e, viewer) \
            else "(its reason is shown when the round is over)"
        t.append(f"correction: retracts seq {', '.join(map(str, d.retracts))}: {reason}",
                 style="bold red")
    elif e.type == "irregularity":
        cards = f" {cards_text(d.cards)}" if d.cards else ""  # shown at the table: public
        t.append(f"irregularity: {d.kind.replace('_', ' ')} by {who(fold, d.seat)}{cards}",
                 style="bold yellow")
        if d.text and "text" in seen_event(fold, e, viewer):
            t.append(f": {d.text}", style="yellow")
    elif e.type == "timeout":
        t.append(f"timeout: {who(fold, d.seat)} had not acted after {d.seconds} s",
                 style="yellow")
    elif e.type == "note":
        if "text" not in seen_event(fold, e, viewer):
            # the scorer's free text may name cards: a seat reads it once the round is played
            # out (a round ruled with cards unplayed keeps its secrets)
            t.append("note (shown when the round is over)", style="italic")
        else:
            t.append(f"note: {d.text}", style="italic")
    else:
        said = getattr(_adapter(fold), "EVENT_TEXTS", {}).get(e.type)
        if said is None:
            t.append(e.type)
            return t
        t.append(f"{who(fold, getattr(d, 'seat', None))} " if hasattr(d, "seat") else "")
        text = said(fold, d, viewer)
        if isinstance(text, Text):
            t.append_text(text)
        else:
            t.append(text)
    return t


class RenderAdapter(Protocol):
    """A game's ``render`` adapter (``jaslog/games/<g>/render.py``): its table drawn from its
    ``seat_view`` (:meth:`render`); it may declare ``EVENT_TEXTS`` (its own events' lines:
    ``{type: text(fold, event, viewer)}``) and ``CALL_WORDS`` (its bids' words), read here
    when it does."""

    def render(self, fold: GameFold, viewer: int | None = None) -> Group: ...


def _adapter(fold: GameFold) -> RenderAdapter:
    """The game's render adapter (its table, its events' lines and its bids' words)."""
    return cast(RenderAdapter, get_game(fold.game).adapter("render"))


def _claim_text(fold: GameFold, d: Claim, viewer: int | None) -> Text:
    """A claim of the rest (or a concession): what it gave, and the solver's verdict (which
    weighs every hand: the referee's only)."""
    verb = "claims" if d.gives == "rest_to_claimer" else "concedes"
    t = Text(f"{who(fold, d.seat)} {verb} the rest", style="bold")
    rounds = fold.state.rounds
    c = next((r.claim for r in reversed(rounds) if r.claim is not None and r.claim.seq == d.seq),
             None) if rounds else None
    if c is None:  # retracted, or the log read past it
        return t
    side = who(fold, c.taker) if fold.players == 2 else f"{who(fold, c.taker)}'s side"
    t.append(f": {c.tricks} trick{'' if c.tricks == 1 else 's'} from trick {c.trick}, "
             f"{c.points} card points to {side}")
    if c.guaranteed is False and viewer is None:
        t.append(" (not guaranteed against every defence)", style="bold red")
    return t


def seen_event(fold: GameFold, e: Event, viewer: int | None) -> dict[str, Any]:
    """Event ``e`` (of the last round of ``fold``) as ``viewer`` may know it now (None: the
    referee; a negative seat: the public), as the game's ``redact_event`` gives it: a line
    leaves out what it leaves out (the scorer's free text until the round is played out,
    another's sequence until the first trick is over)."""
    d = e.model_dump(exclude_none=True)
    if viewer is None:
        return d
    rounds = fold.state.rounds
    sight = Sight(public=True) if viewer < 0 else Sight(seat=viewer)
    seen = Seen(fold, len(rounds), bool(rounds) and not played_out(rounds[-1]))
    return get_game(fold.game).redact_event(d, sight, seen)


def _dash(xs: list[int] | None) -> str:
    return "–".join(map(str, xs)) if xs is not None else "?"


def record_lines(fold: GameFold, rep: dict[str, Any]) -> list[Text]:
    """What ``check`` and ``show`` print below a game's line: the score sheet (each round as
    played or recorded, every ruling, what counts and the running totals), the events a
    correction retracted, and the irregularities and timeouts."""
    out = [Text("    score sheet:", style="dim")]
    word = get_game(fold.game).round_word
    for r in rep["rounds"]:
        how = "score only" if r["recorded"] == "score_only" else r["result"]
        line = Text(f"      {word} {r['round']:>2}  {how:<10} ")
        line.append(_dash(r["score"]))
        for ruling in r["rulings"]:
            style = "dim strike" if ruling["superseded"] else "bold magenta"
            line.append(f"  ruled {_dash(ruling['score'])}", style=style)
            line.append(f" ({ruling['reason']}" + ("; after the game ended" if ruling["after_end"]
                                                    else "") + ")", style=style)
        line.append(f"  →  {_dash(r['totals'])}", style="bold")
        out.append(line)
        for x in r["irregularities"]:
            cards = f" {cards_text(x['cards'])}" if x["cards"] else ""
            out.append(Text(f"        seq {x['seq']}: irregularity {x['kind']} by "
                            f"{who(fold, x['seat'])}{cards}" + (f": {x['text']}" if x["text"] else ""),
                            style="yellow"))
    for x in rep["retracted"]:
        t = Text(f"    seq {x['seq']} ({x['what']})", style="strike")
        t.append(f" retracted at seq {x['by']}: {x['reason']}", style="red")
        out.append(t)
    for x in rep["timeouts"]:
        out.append(Text(f"    seq {x['seq']}: {who(fold, x['seat'])} timed out after "
                        f"{x['seconds']} s", style="yellow"))
    return out


def render_table(fold: GameFold, viewer: int | None = None) -> Group:
    """The table: round, trump, the trick in progress, hands (as ``viewer`` may see them),
    scores so far and the violations of the round."""
    return _adapter(fold).render(fold, viewer)


class TrickCards(Protocol):
    @property
    def cards(self) -> Sequence[int]: ...


class JudgedRound(Protocol):
    """What :func:`unjudged` reads of a round, every game's."""

    @property
    def hands_known(self) -> bool: ...
    @property
    def over(self) -> bool: ...
    @property
    def ruling(self) -> object | None: ...
    @property
    def tricks(self) -> Sequence[TrickCards]: ...


def unjudged(r: JudgedRound) -> str | None:
    """Whether round ``r``'s plays are unjudged: a round recorded without hands has them
    judged only when its last card is in (the hands are rebuilt from the cards played), so
    until then (``"open"``), or for good when a ruling ended it with cards unplayed
    (``"ruled"``) or a claim ended its play (``"claimed"``), no violation listed does not mean
    a clean round. None: judged, or nothing played."""
    if r.hands_known or not any(t.cards for t in r.tricks):
        return None
    claimed = getattr(r, "claim", None) is not None
    if r.over and not claimed:
        return None
    return "ruled" if r.ruling is not None else "claimed" if claimed else "open"


def unjudged_note(fold: GameFold) -> Text | None:
    """The table's line for a last round whose plays are :func:`unjudged`."""
    rounds = fold.state.rounds
    state = unjudged(rounds[-1]) if rounds else None
    if state is None:
        return None
    if state in ("ruled", "claimed"):
        return Text(f"  hands not recorded, {state} before the last card: legality never judged",
                    style="dim italic")
    return Text("  hands not recorded: legality is judged when the round's last card is in",
                style="dim italic")


def text_hand(cards: list[str] | None, count: int) -> Text:
    if cards is None:
        return Text(f"{count} cards", style="dim")
    return hand_markup(sum(1 << CARD_INDEX[c] for c in cards))


def players_score(fold: GameFold, v: dict[str, Any]) -> Text:
    score = Text("score  ", style="dim")
    score.append("  ·  ".join(f"{p} {t}" for p, t in zip(fold.seats, v["totals"], strict=True)),
                 style="bold")
    if v["finished"]:
        score.append(f"   game over: {fold.seats[v['winner']]} wins", style="bold green")
    return score


def seat_table(fold: GameFold, v: dict[str, Any], extra: list[Text] | None = None) -> Table:
    tab = Table(box=None, pad_edge=False, show_header=False)
    for col in ("seat", "hand", "on the table", *(["side"] if extra else [])):
        tab.add_column(col)
    trick = v["tricks"][-1] if v["tricks"] else None
    on_table = {x["seat"]: x["card"] for x in trick["cards"]} if trick else {}
    for seat in range(len(fold.seats)):
        mark = "▶ " if v["live"] and v["turn"] == seat and v["expects"] != "deal" else "  "
        hand = (Text("(not recorded)", style="dim") if v["hands"][seat] is None and (
            v["viewer"] is None or v["viewer"] == seat) else text_hand(v["hands"][seat], v["counts"][seat]))
        played = card_markup(CARD_INDEX[on_table[seat]]) if seat in on_table else Text("")
        if trick is not None and trick["winner"] == seat:
            played.append("  wins", style="green")
        row = [Text(mark + who(fold, seat), style="bold" if seat == v["viewer"] else ""), hand, played]
        tab.add_row(*row, *([extra[seat]] if extra else []))
    return tab


def note_unjudged(parts: list[Any], fold: GameFold) -> None:
    note = unjudged_note(fold)
    if note is not None:
        parts.append(note)


def violation_lines(parts: list[Any], v: dict[str, Any], fold: GameFold | None = None) -> None:
    """The round's violations under the table, each rule's sentence in the table's words
    (:func:`table_words`: the players' names, the suit symbols) when ``fold`` is given."""
    for x in v["violations"]:
        said = table_words(fold.seats, x["message"]) if fold is not None else x["message"]
        parts.append(Text(f"  ✗ {x['rule']}: {said}", style="yellow"))
