"""A whole game on paper: the score sheet, then every round (its deal, its tricks with their
points and roem, its rulings, claim, violations, irregularities and whatever else happened
in it), one HTML document, each round on a page of its own, readable in black and white.

What it shows is what a sight may see and nothing else: it reads the game only through the
views the round page and the API read (:func:`jaslog.play.views.report` and
:func:`jaslog.play.views.frames`, each game's ``redact_event`` behind them), so a seat's or
the public's print leaves out what their round page leaves out. ``jaslog print`` writes it
(as HTML, or as a PDF through Chromium); ``GET /api/games/{id}/print`` serves it and
``static/print.html`` shows it in the browser.

>>> from jaslog.play.sim import simulate_game
>>> from jaslog.events import event_from_dict
>>> from jaslog.play.views import timeline
>>> from jaslog.engine.view import Sight
>>> tl = timeline(event_from_dict(e) for e in simulate_game("p", seed=3)[:80])
>>> page = game_print(tl, Sight(), printed="2026-12-06 04:00 UTC")
>>> page.count('class="print-round"') == tl.fold.rounds_dealt(), "Score sheet" in page
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from jaslog.cards import SUIT_NAMES, SUIT_SYMBOLS
from jaslog.engine.view import Sight
from jaslog.games import get_game
from jaslog.play.fold import start_fold
from jaslog.play.render import card_text, table_words
from jaslog.play.views import Timeline, frames, report
from jaslog.sheet.rows import dash, score_sheet

#: a seat's name as the print shows it ("–" for none)
SeatName = Callable[[int | None], str]

#: the events shown in their own parts of a round (the deal, the bids, the tricks, the rulings)
OWN_PARTS = frozenset({"game_started", "dealt", "bid", "play", "ruling"})

#: The print's style: on screen a readable column; on paper black on white, a page per round.
CSS = """
body { font: 11pt/1.35 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #000;
       background: #fff; margin: 0; }
.game-print { max-width: 60rem; margin: 0 auto; padding: 1rem; }
.game-print h1 { font-size: 1.5em; margin: 0 0 .2em; }
.game-print h2 { font-size: 1.2em; margin: 0 0 .4em; border-bottom: 2px solid #000; }
.game-print h3 { font-size: 1em; margin: .8em 0 .3em; }
.game-print .meta { margin: .1em 0; }
.game-print table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
.game-print th, .game-print td { border-bottom: 1px solid #888; padding: .2em .4em;
       text-align: left; vertical-align: top; }
.game-print td.num, .game-print th.num { text-align: right; }
.game-print dl { display: grid; grid-template-columns: max-content 1fr; gap: .1em .8em;
       margin: 0; }
.game-print dt { font-weight: 600; }
.game-print dd { margin: 0; }
.game-print ul.items { margin: 0; padding-left: 1.2em; list-style: square; }
.game-print p.none { margin: 0; font-style: italic; }
.game-print .pcard { white-space: nowrap; font-weight: 600; }
.game-print table.deal { width: auto; }
.game-print .won { text-decoration: underline; }
.game-print .wrong { border: 1.5px solid #000; padding: 0 .15em; }
.game-print s { color: #555; }
.game-print .print-round { margin-top: 1.5rem; }
.game-print .printed { margin-top: 1rem; font-size: .85em; text-align: right; }
.game-print .table-scroll { overflow-x: auto; }
@media (max-width: 640px) { .game-print { padding: .5rem; } }
@page { margin: 12mm; }
@media print {
  body { font-size: 10pt; }
  .game-print { max-width: none; padding: 0; }
  .game-print .print-round { break-before: page; margin-top: 0; }
  .game-print tr, .game-print li, .game-print dl { break-inside: avoid; }
  .game-print h2, .game-print h3 { break-after: avoid; }
  .game-print .table-scroll { overflow: visible; }
  a { color: inherit; text-decoration: none; }
}
"""


def _e(x: Any) -> str:
    return escape(str(x), quote=True)


def _card(c: str | None, cls: str = "") -> str:
    if not c:
        return '<span class="pcard">?</span>'
    return f'<span class="pcard{" " + cls if cls else ""}" data-card="{_e(c)}">{_e(card_text(c))}</span>'


def _suit(s: str) -> str:
    """A suit as the print names it: its symbol and name (``♥ hearts``)."""
    if len(s) == 1 and s in "CDHS":
        i = "CDHS".index(s)
        return f"{SUIT_SYMBOLS[i]} {SUIT_NAMES[i]}"
    return s


def view_words(tl: Timeline, sight: Sight) -> str:
    """What the print shows, in words (the round page's line)."""
    if sight.full:
        return "Referee view: every hand."
    if sight.seat is not None:
        assert tl.fold is not None
        return (f"Seat view of {tl.fold.seats[sight.seat]} ({sight.seat}): what this seat "
                "may see.")
    return "Public view: finished rounds only."


def game_print(tl: Timeline, sight: Sight, *, printed: str, meta: dict[str, Any] | None = None,
               body_only: bool = False) -> str:
    """The game of ``tl`` as ``sight`` may see it, as one HTML document (``body_only``: the
    ``<main>`` alone, for a page that shows it); ``printed`` says when, ``meta`` what the
    store knows of the game (event, place, tournament, table)."""
    if tl.fold is None:
        why = str(tl.error) if tl.error is not None else "it has no events"
        main = (f'<main class="game-print" id="game-print"><h1>Game {_e(tl.game)}</h1>'
                f'<p class="none">nothing to print: {_e(why)}</p></main>')
        return main if body_only else _document(tl.game, main)
    rep = report(tl, sight)
    fold = tl.fold
    seats = list(fold.seats)
    game = get_game(fold.game)
    names = [f"{p} ({i})" for i, p in enumerate(seats)]

    def seat(s: int | None) -> str:
        return names[s] if s is not None and 0 <= s < len(names) else "–"

    frs = frames(tl, sight)
    by_round: dict[int, list[dict[str, Any]]] = {}
    for f in frs:
        by_round.setdefault(int(f.get("round") or 0), []).append(f)
    parts = [f'<main class="game-print" id="game-print" data-game="{_e(tl.game)}">',
             '<header class="print-head">', f"<h1>Game {_e(tl.game)}</h1>"]
    bits = [fold.ruleset, ", ".join(names)]
    for k in ("event", "place"):
        if meta and meta.get(k):
            bits.append(str(meta[k]))
    if meta and meta.get("tournament"):
        bits.append(f"tournament {meta['tournament']}"
                    + (f", round {meta['round']}" if meta.get("round") else ""))
    if meta and meta.get("table"):
        bits.append(f"table {meta['table']}")
    parts.append(f'<p class="meta">{_e(" · ".join(bits))}</p>')
    parts.append(f'<p class="meta view-note">{_e(view_words(tl, sight))}</p>')
    if rep.get("error"):
        parts.append(f'<p class="meta stops"><strong>The record stops here:</strong> '
                     f'{_e(table_words(seats, str(rep["error"])))} (what follows is left '
                     "out)</p>")
    parts.append("</header>")
    parts.append(_sheet_html(tl, sight, rep, seat))
    violations = rep.get("violations") or []
    for r in rep["rounds"]:
        n = r["round"]
        parts.append(_round_html(r, by_round.get(n, []),
                                 [v for v in violations if v.get("round") == n],
                                 seats, seat, game.scoring))
    parts.append(f'<footer class="printed">jaslog · game {_e(tl.game)} · '
                 f'{_e(view_words(tl, sight).split(":")[0].lower())} · printed {_e(printed)}'
                 "</footer></main>")
    main = "".join(parts)
    return main if body_only else _document(tl.game, main)


def _document(gid: str, main: str) -> str:
    return ('<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>jaslog · game {_e(gid)} · the whole game</title>"
            f"<style>{CSS}</style></head><body>{main}</body></html>\n")


def _sheet_html(tl: Timeline, sight: Sight, rep: dict[str, Any], seat: SeatName) -> str:
    """The score sheet of the rounds the report holds (:func:`jaslog.sheet.score_sheet` of a
    fold of as many rounds: the public's stops before the round in play)."""
    assert tl.fold is not None
    fold = tl.fold
    if len(rep["rounds"]) != len(fold.state.rounds):
        fold = start_fold(tl.events[0])
        for e in tl.events[1:tl.horizon() + 1]:
            fold.apply(e)
    sheet = score_sheet(fold, rep)
    sides = sheet["sides"]
    word = "team" if sheet["scoring"] == "teams" else "seat"
    out = ['<section class="print-sheet" id="sheet"><h2>Score sheet</h2>',
           f'<p class="meta">{_e(" · ".join(f"{word} {i}: {s}" for i, s in enumerate(sides)))}</p>']
    if not sheet["rows"]:
        out.append('<p class="none">no round yet</p></section>')
        return "".join(out)
    head = ["Round", "Dealer", "Playing", "Result", "Score", "Roem", "Total", "Marks"]
    out.append('<div class="table-scroll"><table class="sheet-table"><thead><tr>'
               + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>")
    for row in sheet["rows"]:
        playing = ", ".join(f"{word} {p}" for p in row["playing"]) or "–"
        out.append(f'<tr data-round="{row["round"]}"><td class="num">{row["round"]}</td>'
                   f"<td>{_e(seat(row['dealer']))}</td><td>{_e(playing)}</td>"
                   f"<td>{_e(row['result'] or '–')}</td><td>{_e(dash(row['final']))}</td>"
                   f"<td>{_e(dash(row['roem']) if row['roem'] is not None else '–')}</td>"
                   f"<td>{_e(dash(row['totals']))}</td>"
                   f"<td>{_e('; '.join(row['marks']))}</td></tr>")
    out.append("</tbody></table></div>")
    end = f"Total {dash(sheet['totals'])}"
    if sheet["finished"]:
        w = sheet["winner"]
        end += (" · the game is over" + (f", won by {sides[w]}" if isinstance(w, int)
                                          and 0 <= w < len(sides) else ""))
    else:
        end += " · the game is not over"
    out.append(f'<p class="meta totals">{_e(end)}</p></section>')
    return "".join(out)


def _items(cls: str, lines: list[str], none: str) -> str:
    """A list of ``lines`` (HTML), or ``none`` said plainly, unnumbered."""
    if not lines:
        return f'<p class="none {cls}">{_e(none)}</p>'
    return f'<ul class="items {cls}">' + "".join(f"<li>{x}</li>" for x in lines) + "</ul>"


def _ruling_reason(x: dict[str, Any]) -> str:
    reason = x.get("reason")
    return "(its reason is shown when the game is over)" if reason is None else str(reason)


def _round_html(r: dict[str, Any], frs: list[dict[str, Any]], violations: list[dict[str, Any]],
                seats: list[str], seat: SeatName, scoring: str) -> str:
    n = r["round"]
    out = [f'<section class="print-round" id="round-{n}" data-round="{n}">',
           f"<h2>Round {n}</h2><dl>"]

    def fact(name: str, value: str) -> None:
        out.append(f"<dt>{_e(name)}</dt><dd>{value}</dd>")

    fact("Dealer", _e(seat(r.get("dealer"))))
    if r.get("trump"):
        who = r.get("chooser", r.get("maker"))
        fact("Trump", _e(_suit(r["trump"]))
             + (f", chosen by {_e(seat(who))}" if who is not None else ""))
    last = frs[-1] if frs else {}
    if last.get("bids"):
        fact("Bids", _e(", ".join(f"{seat(b['seat'])} {b['call']}" for b in last["bids"])))
    fact("Recorded", "by its score alone" if r.get("recorded") == "score_only" else
         "card by card" + (", the hands as dealt" if r.get("hands_recorded")
                           else ", the hands not recorded"))
    if r.get("hidden"):
        fact("In play", "the round is not over: only what this view may see")
    fact("Result", _e(r.get("result") or "–"))
    if r.get("points"):
        fact("Card points", _e(dash(r["points"])))
    if r.get("roem"):
        fact("Roem", _e(dash(r["roem"])))
    if r.get("score") is not None:
        fact("Score as played", _e(dash(r["score"])))
    if r.get("final") is not None:
        fact("Counts", _e(dash(r["final"])) + (" (as ruled)" if r.get("rulings") else ""))
    if r.get("totals") is not None:
        fact("Game total", _e(dash(r["totals"])))
    out.append("</dl>")
    out.append(_deal_html(r, frs, seats, seat, scoring))
    out.append(_tricks_html(r, violations, len(seats), seat))
    rulings = [(f"<s>ruled {_e(dash(x['score']))}</s>" if x.get("superseded")
                else f"<strong>ruled {_e(dash(x['score']))}</strong>")
               + f" — {_e(_ruling_reason(x))} (seq {x['seq']}"
               + (", after the game ended" if x.get("after_end") else "")
               + (", superseded" if x.get("superseded") else ", counts") + ")"
               for x in r.get("rulings") or []]
    out.append("<h3>Rulings</h3>" + _items("rulings", rulings, "none"))
    claim = r.get("claim")
    if claim:
        out.append("<h3>Claim</h3>" + f'<p class="claim">{_e(_claim_text(claim, seat, len(seats)))}</p>')
    vs = [f"<strong>{_e(v['rule'])}</strong>: {_e(table_words(seats, v.get('message', '')))} "
          f"(trick {_e(v.get('trick') or '–')}, {_e(seat(v.get('seat')))}"
          + (f", {_card(v['card'])}" if v.get("card") else "") + f", seq {v['seq']})"
          for v in violations]
    out.append("<h3>Violations</h3>" + _items("violations", vs, "none"))
    irr = [_e(_irregularity_text(x, seat)) + f" (seq {x['seq']})"
           for x in r.get("irregularities") or []]
    out.append("<h3>Irregularities</h3>" + _items("irregularities", irr, "none"))
    irr_seqs = {x["seq"] for x in r.get("irregularities") or []}
    notes = [f"seq {f['seq']} · {_e(f.get('text', f.get('type', '')))}"
             + (" (retracted)" if f.get("retracted") else "")
             for f in frs if f.get("type") not in OWN_PARTS and f["seq"] not in irr_seqs]
    out.append("<h3>Also during the round</h3>" + _items("notes", notes, "none"))
    out.append("</section>")
    return "".join(out)


def _deal_html(r: dict[str, Any], frs: list[dict[str, Any]], seats: list[str], seat: SeatName,
               scoring: str) -> str:
    dealt = next((f for f in frs if f.get("type") == "dealt"), None)
    out = ["<h3>The deal</h3>"]
    if dealt is None:
        out.append('<p class="none">' + ("recorded by its score alone: no deal and no tricks"
                                          if r.get("recorded") == "score_only"
                                          else "no deal in the record") + "</p>")
        return "".join(out)
    extra = dealt.get("extra") or {}
    shown = [f"{k.replace('_', '-')} {card_text(extra[k])}" for k in ("turn_up", "bottom")
             if extra.get(k)]
    if shown:
        out.append(f'<p class="meta">{_e(" · ".join(shown))}</p>')
    out.append('<table class="deal"><tbody>')
    hands = dealt.get("hands") or []
    for s in range(len(seats)):
        cards = hands[s] if s < len(hands) else None
        if cards:
            hand = " ".join(_card(c) for c in cards)
        elif not dealt.get("hands_known"):
            hand = "hand not recorded"
        else:
            hand = "not shown to this view"
        team = f" · team {s % 2}" if scoring == "teams" else ""
        out.append(f'<tr data-seat="{s}"><th>{_e(seat(s) + team)}</th><td>{hand}</td></tr>')
    out.append("</tbody></table>")
    return "".join(out)


def _tricks_html(r: dict[str, Any], violations: list[dict[str, Any]], players: int,
                 seat: SeatName) -> str:
    tricks = r.get("tricks") or []
    out = ["<h3>Tricks</h3>"]
    if not tricks:
        out.append('<p class="none">' + ("none: recorded by its score alone"
                                          if r.get("recorded") == "score_only"
                                          else "no trick played") + "</p>")
        return "".join(out)
    wrong = {(v.get("trick"), v.get("card")) for v in violations if v.get("card")}
    out.append('<div class="table-scroll"><table class="tricks"><thead><tr><th>Trick</th>'
               "<th>Cards, in the order played (from the leader)</th><th>Won by</th>"
               '<th class="num">Points</th><th class="num">Roem</th></tr></thead><tbody>')
    for k, t in enumerate(tricks, 1):
        leader = t.get("leader")
        cells = []
        for i, c in enumerate(t.get("cards") or []):
            s = (leader + i) % players if isinstance(leader, int) else None
            cls = "wrong" if (k, c) in wrong else "won" if s is not None and s == t.get("winner") else ""
            cells.append(f"{_e(seat(s).split(' (')[0])}: {_card(c, cls)}")
        roem = t.get("roem") or 0
        on_table = t.get("roem_on_table")
        roem_text = str(roem) + (f" (on the table {on_table})" if on_table is not None
                                 and on_table != roem else "")
        out.append(f'<tr class="trick-row" data-trick="{k}"><td class="num">{k}</td>'
                   f"<td>{' · '.join(cells)}</td><td>{_e(seat(t.get('winner')))}</td>"
                   f'<td class="num">{_e(t.get("points", ""))}</td>'
                   f'<td class="num">{_e(roem_text if roem or on_table else "")}</td></tr>')
    out.append("</tbody></table></div>")
    out.append('<p class="meta key">Underlined: the card that won the trick'
               + ("; boxed: a card that broke a rule (below)" if wrong else "") + ".</p>")
    return "".join(out)


def _claim_text(c: dict[str, Any], seat: SeatName, players: int) -> str:
    tricks = f"{c.get('tricks')} trick{'s' * (c.get('tricks') != 1)}"
    verdict = (" · sound" if c.get("guaranteed") is True else
               " · not guaranteed against every defence (claim_not_guaranteed)"
               if c.get("guaranteed") is False else "")
    verb = " claimed " if c.get("gives") == "rest_to_claimer" else " conceded "
    return (f"{seat(c.get('seat'))}{verb}the rest at seq {c.get('seq')}: {tricks} from trick "
            f"{c.get('trick')}, {c.get('points')} card points to {seat(c.get('taker'))}"
            + ("" if players == 2 else "'s side") + verdict)


def _irregularity_text(x: dict[str, Any], seat: SeatName) -> str:
    cards = " ".join(card_text(c) for c in x.get("cards") or [])
    return (f"{x['kind'].replace('_', ' ')} by {seat(x.get('seat'))}"
            + (f" {cards}" if cards else "") + (f": {x['text']}" if x.get("text") else ""))
