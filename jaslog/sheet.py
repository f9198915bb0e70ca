"""The club's score sheet of a game, and a paper sheet held against it.

:func:`score_sheet` projects a folded game and its report (:func:`jaslog.audit.game_report`)
onto the sheet a club keeps: a row per round with the dealer, the playing side, each
side's score that counts, its roem, the running totals and the marks (ruled, score only,
superseded rulings). :func:`read_sheet` reads a sheet typed from paper (CSV: round, a score
per side, optionally the running totals), and :func:`compare` holds it against the record
and names every row that differs with its likely cause: a slip in the running total, sides
swapped, roem left out, counted twice or written to the wrong side, a ruling not applied,
a round missing or extra, nat or pit scored wrong.

Nothing here reads a file or prints: ``jaslog sheet`` (:mod:`jaslog.cli.sheet`) does. A
side is a team where the game scores by team, a seat where it scores by player
(:attr:`jaslog.engine.game.Game.scoring`); teams are numbered as in the report (team 0 is
seats 0 and 2).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jaslog.engine.fold import GameFold
from jaslog.engine.game import Game
from jaslog.errors import JaslogError
from jaslog.games import game_of, get_game

#: The keys of a row of the sheet, in order.
ROW_KEYS = ("round", "dealer", "chooser", "playing", "score", "final", "roem", "roem_held",
            "result", "recorded", "rulings", "marks", "totals")


def dash(xs: Sequence[int] | None) -> str:
    """A score as a sheet writes it: ``108–114`` (``?`` when unknown).

    >>> dash([108, 114]), dash(None)
    ('108–114', '?')
    """
    return "–".join(map(str, xs)) if xs is not None else "?"


def side_names(fold: GameFold) -> list[str]:
    """Who each side of the sheet is: the two partnerships (``ann & cor``) where the game
    scores by team, else each seat's player.

    >>> from jaslog.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> side_names(fold([event_from_dict({"game": "g", "seq": 0, "type": "game_started",
    ...     "ruleset": "amsterdam", "seats": ["ann", "bob", "cor", "dirk"], "dealer": 0})]))
    ['ann & cor', 'bob & dirk']
    """
    if get_game(fold.game).scoring == "teams":
        return [" & ".join(fold.seats[t::2]) for t in (0, 1)]
    return list(fold.seats)


def held_roem(game: Game, entry: dict[str, Any], sides: int) -> list[int] | None:
    """The roem each side held in a played round (claimed or declared, before nat, bete or a
    revoke moves it), by the game's own reading of a round's roem (``Game.roem_of``) taken
    one side at a time: every per-side list of the entry but that side's is zeroed. None
    when the game has no roem or the round does not say.

    >>> from jaslog.games import get_game
    >>> held_roem(get_game("klaberjass"), {"sequences": [0, 20], "bella": [20, 0]}, 2)
    [20, 20]
    >>> held_roem(get_game("kloepper"), {"points": [30, 30, 30, 30]}, 4) is None
    True
    """
    if game.roem_of is None:
        return None
    out = []
    for side in range(sides):
        masked = {k: [x if i == side else 0 for i, x in enumerate(v)]
                  if isinstance(v, list) and len(v) == sides and all(type(x) is int for x in v)
                  else v for k, v in entry.items()}
        try:
            out.append(int(game.roem_of(masked)[0]))
        except (TypeError, KeyError):
            return None
    return out


def counted_roem(game: Game, held: list[int] | None, score: list[int],
                 result: str) -> list[int] | None:
    """The roem inside each side's score as played: its own where both sides scored (and in
    a tie, where only the side that scored keeps its own), all of it where one side took the
    whole round (nat, pit, bete, a revoke's penalty).

    >>> from jaslog.games import get_game
    >>> counted_roem(get_game("klaverjas"), [20, 0], [0, 182], "nat")
    [0, 20]
    >>> counted_roem(get_game("klaverjas"), [20, 40], [63, 159], "made")
    [20, 40]
    """
    if held is None:
        return None
    scored = [t for t, s in enumerate(score) if s]
    if result in game.tied or len(scored) != 1:
        return [h if score[t] else 0 for t, h in enumerate(held)]
    return [sum(held) if t == scored[0] else 0 for t in range(len(held))]


def _playing(game: Game, entry: dict[str, Any]) -> list[int]:
    """The sides whose contract the round was: the chooser's team or seat, or (without a
    chooser) the side the report names as ``queens``."""
    chooser = entry.get("chooser")
    if chooser is not None:
        return [chooser % 2] if game.scoring == "teams" else [chooser]
    return list(entry.get("queens") or [])


def _marks(row: dict[str, Any]) -> list[str]:
    out = []
    if row["recorded"] == "score_only":
        out.append("score only")
    if row["rulings"] and row["score"] != row["final"]:
        out.append(f"as played {dash(row['score'])}")
    for r in row["rulings"]:
        when = ", after the game ended" if r["after_end"] else ""
        if r["superseded"]:
            out.append(f"superseded ruling {dash(r['score'])} (seq {r['seq']}{when})")
        else:
            out.append(f"ruled {dash(r['score'])} (seq {r['seq']}{when}): {r['reason']}")
    return out


def _sheet_rows(fold: GameFold, report: dict[str, Any]) -> list[dict[str, Any]]:
    """The sheet's rows (:data:`ROW_KEYS`), one per round of ``report`` (the game's
    :func:`jaslog.audit.game_report`): ``score`` as played, ``final`` what counts, ``roem``
    the roem inside each side's played score and ``roem_held`` the roem each side held (None
    where unknown, or in a game without roem), ``playing`` the sides whose contract it was,
    ``totals`` running, ``marks`` in words."""
    game = get_game(fold.game)
    sides = len(report["totals"])
    rows = []
    for entry, r in zip(report["rounds"], fold.state.rounds, strict=True):
        so = r.score_only
        if so is not None:
            held = list(so.roem) if so.roem is not None and game.roem_of is not None else None
        else:
            held = held_roem(game, entry, sides)
        row = {
            "round": entry["round"],
            "dealer": entry.get("dealer"),
            "chooser": entry.get("chooser"),
            "playing": _playing(game, entry),
            "score": list(entry["score"]),
            "final": list(entry["final"]),
            "roem": counted_roem(game, held, entry["score"], entry["result"]),
            "roem_held": held,
            "result": entry["result"],
            "recorded": entry["recorded"],
            "rulings": [{k: x[k] for k in ("score", "reason", "seq", "after_end", "superseded")}
                        for x in entry["rulings"]],
            "marks": [],
            "totals": list(entry["totals"]),
        }
        row["marks"] = _marks(row)
        rows.append(row)
    return rows


def score_sheet(fold: GameFold, report: dict[str, Any]) -> dict[str, Any]:
    """The score sheet of a folded game: ``game``, ``ruleset``, ``scoring`` (``teams`` or
    ``players``), ``sides`` (who each is), ``rows`` (:func:`_sheet_rows`), and the report's
    ``totals``, ``finished`` and ``winner``.

    >>> from jaslog.audit import game_report
    >>> from jaslog.fold import fold
    >>> from jaslog.sim import simulate_game
    >>> from jaslog.events import event_from_dict
    >>> f = fold(event_from_dict(e) for e in simulate_game("v", seed=3))
    >>> s = score_sheet(f, game_report("v", f))
    >>> s["scoring"], len(s["rows"]), s["rows"][-1]["totals"] == s["totals"]
    ('teams', 16, True)
    """
    game = get_game(fold.game)
    return {"game": fold.game_id, "ruleset": fold.ruleset, "scoring": game.scoring,
            "sides": side_names(fold), "rows": _sheet_rows(fold, report),
            "totals": list(report["totals"]), "finished": report["finished"],
            "winner": report["winner"]}


# ---------------------------------------------------------------- a sheet typed from paper


class SheetError(JaslogError, ValueError):
    """A typed sheet that cannot be read; the message names the file and line and says what
    was expected there."""

    code = "bad_sheet"


@dataclass(frozen=True)
class SheetLine:
    """One row of a typed sheet: its line in the file, the round as the sheet numbers it,
    each side's score and (when written) the running totals."""

    line: int
    round: int
    scores: list[int]
    totals: list[int] | None


#: First words of a header cell that names the running totals (English and Dutch).
TOTAL_WORDS = ("total", "totaal", "tot.", "stand", "running", "cum", "som", "sum")
#: What a score cell may say for a side that scores nothing (a nat side).
ZERO_WORDS = ("-", "–", "nat", "0")


def _number(cell: str) -> int | None:
    text = cell.strip().replace(" ", "")
    if text.lower() in ZERO_WORDS:
        return 0
    try:
        value = int(text)
    except ValueError:
        return None
    return value if value >= 0 else None


def read_sheet(text: str, source: str, sides: int, side_word: str = "team") -> list[SheetLine]:
    """The rows of a sheet typed from paper: CSV with a header, separated by ``,`` ``;`` or
    tabs; the round first, then one score per side (``sides``), then optionally the running
    totals (columns whose header starts with total, totaal, stand... else the last
    ``sides`` columns when there are twice as many). A score of ``-`` or ``nat`` is 0.
    Raises :class:`SheetError` naming the line and what was expected.

    >>> first, second = read_sheet("ronde;wij;zij;totaal wij;totaal zij\\n1;38;124;38;124\\n"
    ...                            "2;nat;182;;\\n", "s.csv", 2)
    >>> first
    SheetLine(line=2, round=1, scores=[38, 124], totals=[38, 124])
    >>> second.scores, second.totals
    ([0, 182], None)
    """
    text = text.removeprefix("\ufeff")
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    delimiter = ";" if ";" in first else "\t" if "\t" in first else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    layout = (f"the round, then {sides} scores (one per {side_word}), then optionally "
              f"{sides} running totals")
    header: list[str] | None = None
    score_cols: list[int] = []
    total_cols: list[int] = []
    out: list[SheetLine] = []
    try:
        for cells in reader:
            n = reader.line_num
            cells = [c.strip() for c in cells]
            while cells and not cells[-1]:
                cells.pop()
            if not cells:
                continue
            if header is None:
                header = cells
                score_cols, total_cols = _columns(header, source, n, sides, layout)
                continue
            out.append(_row(cells, header, score_cols, total_cols, source, n, side_word))
    except csv.Error as e:
        raise SheetError(f"{source}:{reader.line_num}: not CSV: {e}") from None
    if header is None:
        raise SheetError(f"{source}: the sheet is empty: expected a header ({layout}) and a "
                         "line per round")
    if not out:
        raise SheetError(f"{source}: no rounds under the header: expected a line per round "
                         f"({layout})")
    return out


def _columns(header: list[str], source: str, n: int, sides: int,
             layout: str) -> tuple[list[int], list[int]]:
    """The score columns and the running totals' columns of a header."""
    if all(_number(c) is not None for c in header):
        raise SheetError(f"{source}:{n}: expected a header line ({layout}), found only "
                         f"numbers: {', '.join(header)}")
    rest = range(1, len(header))
    totals = [i for i in rest if header[i].lower().startswith(TOTAL_WORDS)]
    scores = [i for i in rest if i not in totals]
    if not totals and len(header) == 1 + 2 * sides:
        scores, totals = list(range(1, 1 + sides)), list(range(1 + sides, 1 + 2 * sides))
    if len(scores) != sides or len(totals) not in (0, sides):
        raise SheetError(
            f"{source}:{n}: the header has {len(header)} columns ({', '.join(header)}); "
            f"expected {layout}: {1 + sides} or {1 + 2 * sides} columns")
    return scores, totals


def _row(cells: list[str], header: list[str], score_cols: list[int], total_cols: list[int],
         source: str, n: int, side_word: str) -> SheetLine:
    if len(cells) > len(header):
        raise SheetError(f"{source}:{n}: {len(cells)} cells, but the header has "
                         f"{len(header)} columns")
    cells = cells + [""] * (len(header) - len(cells))
    try:
        number = int(cells[0])
    except ValueError:
        raise SheetError(f"{source}:{n}: the round (column 1) is {cells[0]!r}, not a round "
                         "number") from None
    scores = []
    for side, col in enumerate(score_cols):
        value = _number(cells[col])
        if value is None:
            what = f"{cells[col]!r}, not a score (a whole number, or - for none)" \
                if cells[col] else "empty: expected a score (a whole number, or - for none)"
            raise SheetError(f"{source}:{n}: {side_word} {side}'s score (column {col + 1}, "
                             f"{header[col]}) is {what}")
        scores.append(value)
    totals: list[int] | None = None
    if total_cols and any(cells[c] for c in total_cols):
        totals = []
        for side, col in enumerate(total_cols):
            value = _number(cells[col]) if cells[col] else None
            if value is None:
                what = f"{cells[col]!r}, not a whole number" if cells[col] else \
                    "empty: write every running total of a line, or none"
                raise SheetError(f"{source}:{n}: {side_word} {side}'s running total (column "
                                 f"{col + 1}, {header[col]}) is {what}")
            totals.append(value)
    return SheetLine(n, number, scores, totals)


# ---------------------------------------------------------------- the comparison


@dataclass(frozen=True)
class _Context:
    game: Game
    names: list[str]
    pit_bonus: int | None
    #: the ruling that counts on each round, by its score (for one written on the wrong round)
    rulings: dict[tuple[int, ...], int]

    @property
    def word(self) -> str:
        return self.game.round_word

    @property
    def side_word(self) -> str:
        return "team" if self.game.scoring == "teams" else "player"

    def label(self, side: int) -> str:
        if self.game.scoring == "teams":
            return f"team {side}"
        return f"seat {side} ({self.names[side]})"

    def by(self, diff: Sequence[int]) -> str:
        """``+10 for team 0, -10 for team 1``: how far a sheet is off, side by side."""
        return ", ".join(f"{d:+d} for {self.label(t)}" for t, d in enumerate(diff) if d)


def _finding(kind: str, message: str, **more: Any) -> dict[str, Any]:
    return {"kind": kind, "message": message, **more}


def _swapped(scores: list[int], final: list[int]) -> tuple[int, int] | None:
    """The two sides whose scores the sheet exchanged, if that is the only difference."""
    diff = [t for t in range(len(final)) if scores[t] != final[t]]
    if len(diff) == 2:
        a, b = diff
        if scores[a] == final[b] and scores[b] == final[a]:
            return a, b
    return None


def _ruling_causes(scores: list[int], row: dict[str, Any], ctx: _Context) -> list[dict[str, Any]]:
    final, played, rulings, r = row["final"], row["score"], row["rulings"], row["round"]
    if played != final and scores == played:
        if rulings:
            last = rulings[-1]
            return [_finding("ruling_not_applied",
                             f"a ruling not applied: the sheet has {ctx.word} {r} as played "
                             f"({dash(played)}), but the ruling at seq {last['seq']} counts: "
                             f"{dash(final)} ({last['reason']})", seq=last["seq"])]
        extra = [f - p for f, p in zip(final, played, strict=True)]
        return [_finding("held_points_left_out",
                         f"the sheet has {ctx.word} {r}'s own score ({dash(played)}), but "
                         f"{dash(final)} counts: the rules add {ctx.by(extra)} to it (points "
                         f"held over from an earlier {ctx.word})")]
    for x in rulings[:-1]:
        if scores == x["score"]:
            last = rulings[-1]
            return [_finding("superseded_ruling",
                             f"a superseded ruling: the sheet has {dash(scores)} from the ruling "
                             f"at seq {x['seq']}, which the ruling at seq {last['seq']} replaced: "
                             f"{dash(final)} counts", seq=x["seq"])]
    other = ctx.rulings.get(tuple(scores))
    if other is not None and other != r:
        return [_finding("ruling_misplaced",
                         f"the ruling on {ctx.word} {other} ({dash(scores)}) is written on "
                         f"{ctx.word} {r}, which scores {dash(final)}", ruled_round=other)]
    return []


def _roem_causes(scores: list[int], row: dict[str, Any], ctx: _Context) -> list[dict[str, Any]]:
    """Every side that differs explained by roem: left out, counted twice, or written to
    the wrong side. Empty when roem does not explain them all."""
    final, counted, held = row["final"], row["roem"], row["roem_held"]
    if counted is None or held is None or row["score"] != final:
        return []
    diff = [s - f for s, f in zip(scores, final, strict=True)]
    off = [t for t, d in enumerate(diff) if d]
    total = sum(held)

    def amounts(t: int) -> dict[int, str]:
        """The roem inside side t's score, and what it is, by amount."""
        out: dict[int, str] = {}
        if counted[t] == total:
            out.update({h: f"its own roem ({h})" if s == t else
                        f"{ctx.label(s)}'s roem ({h}), which it scores with the {row['result']}"
                        for s, h in enumerate(held) if h})
        if counted[t]:
            out[counted[t]] = (f"its roem ({counted[t]})" if counted[t] == held[t] else
                               f"the {ctx.word}'s roem ({counted[t]}), all of which it scores "
                               f"with the {row['result']}")
        return out

    if len(off) == 2:
        for a, b in (off, off[::-1]):
            x = -diff[a]
            if x > 0 and diff[b] == x and x in amounts(a):
                return [_finding("roem_wrong_side",
                                 f"roem on the wrong {ctx.side_word}: {amounts(a)[x]} is written "
                                 f"to {ctx.label(b)} ({dash(scores)}, the log {dash(final)})",
                                 side=a, to=b, roem=x)]
    found = []
    for t in off:
        what = amounts(t)
        if -diff[t] in what:
            found.append(_finding("roem_left_out",
                                  f"roem left out: {ctx.label(t)} has {scores[t]}, the log "
                                  f"{final[t]}: {-diff[t]} short, {what[-diff[t]]}",
                                  side=t, roem=-diff[t]))
        elif diff[t] in what:
            found.append(_finding("roem_twice",
                                  f"roem counted twice: {ctx.label(t)} has {scores[t]}, the log "
                                  f"{final[t]}: {what[diff[t]]} once more", side=t, roem=diff[t]))
        else:
            return []
    return found


def _pit_causes(scores: list[int], row: dict[str, Any], ctx: _Context) -> list[dict[str, Any]]:
    """A pit bonus left out or given where the round was not pit (games with a pit bonus)."""
    bonus, final = ctx.pit_bonus, row["final"]
    if not bonus or row["score"] != final:
        return []
    diff = [s - f for s, f in zip(scores, final, strict=True)]
    off = [t for t, d in enumerate(diff) if d]
    if len(off) != 1:
        return []
    t = off[0]
    if row["result"] == "pit" and diff[t] == -bonus:
        return [_finding("pit_bonus_left_out",
                         f"pit bonus left out: {ctx.label(t)} took every trick; the sheet has "
                         f"{scores[t]}, the log {final[t]} (with the {bonus} bonus)", side=t)]
    if row["result"] != "pit" and diff[t] == bonus:
        return [_finding("pit_bonus_extra",
                         f"a pit bonus the {ctx.word} did not earn: {ctx.label(t)} has "
                         f"{scores[t]}, the log {final[t]} ({row['result']}, not pit)", side=t)]
    return []


def _exact_causes(scores: list[int], row: dict[str, Any], ctx: _Context) -> list[dict[str, Any]]:
    """The causes that account for every point of the difference between a sheet's scores
    and a round's: sides swapped, a ruling, roem, the pit bonus."""
    pair = _swapped(scores, row["final"])
    if pair is not None:
        a, b = pair
        who = (f"{ctx.side_word}s swapped" if len(scores) == 2 else
               f"{ctx.label(a)} and {ctx.label(b)} swapped")
        return [_finding("swapped", f"{who}: the sheet has {dash(scores)}, the log "
                                    f"{dash(row['final'])}", sides=[a, b])]
    return (_ruling_causes(scores, row, ctx) or _roem_causes(scores, row, ctx)
            or _pit_causes(scores, row, ctx))


def _score_causes(scores: list[int], row: dict[str, Any], ctx: _Context) -> list[dict[str, Any]]:
    """Why a sheet's scores differ from a round's (:func:`_exact_causes`, else a nat or a
    made round scored the other way, else the difference itself)."""
    found = _exact_causes(scores, row, ctx)
    if found:
        return found
    final, playing, game = row["final"], row["playing"], ctx.game
    who = " and ".join(ctx.label(p) for p in playing)
    side = "team" if game.scoring == "teams" else "side"
    if playing and row["score"] == final:
        if row["result"] in game.lost and not any(final[p] for p in playing) and any(
                scores[p] for p in playing):
            return [_finding("lost_round_scored",
                             f"scored as if the playing {side} had won: the {ctx.word} is "
                             f"{row['result']}, so {who} score{'s' * (len(playing) == 1)} nothing "
                             f"(the log: {dash(final)}), but the sheet gives "
                             f"{'it' if len(playing) == 1 else 'them'} "
                             f"{dash([scores[p] for p in playing])}")]
        if row["result"] in game.won and not any(scores[p] for p in playing) and any(
                final[p] for p in playing):
            lost = "/".join(sorted(game.lost)) or "lost"
            return [_finding("won_round_scored_lost",
                             f"scored as {lost}: the sheet gives the playing {side} ({who}) "
                             f"nothing, but the {ctx.word} is {row['result']} (the log: "
                             f"{dash(final)})")]
    diff = [s - f for s, f in zip(scores, final, strict=True)]
    return [_finding("score_differs", f"the score differs: the sheet has {dash(scores)}, the "
                                      f"log {dash(final)} ({ctx.by(diff)})")]


#: What aligning a line with a round costs (hundredths): the same scores, a difference an
#: exact cause explains, any other; a line the log does not have, a round missing from the
#: sheet (one that scored nothing costs little: sheets leave such rounds out), a line
#: numbered otherwise than its round.
_SAME, _EXPLAINED, _OTHER, _EXTRA, _MISSING, _MISSING_ZERO, _RENUMBERED = 0, 50, 100, 100, 100, 10, 1


def _align(lines: list[SheetLine], rows: list[dict[str, Any]],
           ctx: _Context) -> list[tuple[SheetLine | None, dict[str, Any] | None]]:
    """The sheet's lines matched to the log's rounds in order, at the least cost (an edit
    distance on the scores): a line with no round is extra, a round with no line missing."""
    n, m = len(lines), len(rows)

    def sub(i: int, j: int) -> int:
        line, row = lines[i], rows[j]
        c = _SAME if line.scores == row["final"] else (
            _EXPLAINED if _exact_causes(line.scores, row, ctx) else _OTHER)
        return c + (_RENUMBERED if line.round != row["round"] else 0)

    def missing(j: int) -> int:
        return _MISSING if any(rows[j]["final"]) else _MISSING_ZERO

    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for j in range(1, m + 1):
        cost[0][j] = cost[0][j - 1] + missing(j - 1)
    for i in range(1, n + 1):
        cost[i][0] = cost[i - 1][0] + _EXTRA
        for j in range(1, m + 1):
            cost[i][j] = min(cost[i - 1][j - 1] + sub(i - 1, j - 1),
                             cost[i][j - 1] + missing(j - 1), cost[i - 1][j] + _EXTRA)
    out: list[tuple[SheetLine | None, dict[str, Any] | None]] = []
    i, j = n, m
    while i or j:
        if i and j and cost[i][j] == cost[i - 1][j - 1] + sub(i - 1, j - 1):
            out.append((lines[i - 1], rows[j - 1]))
            i, j = i - 1, j - 1
        elif j and cost[i][j] == cost[i][j - 1] + missing(j - 1):
            out.append((None, rows[j - 1]))
            j -= 1
        else:
            out.append((lines[i - 1], None))
            i -= 1
    return out[::-1]


def _add(a: Sequence[int], b: Sequence[int]) -> list[int]:
    return [x + y for x, y in zip(a, b, strict=True)]


def _sub(a: Sequence[int], b: Sequence[int]) -> list[int]:
    return [x - y for x, y in zip(a, b, strict=True)]


def compare(sheet: dict[str, Any], lines: list[SheetLine],
            options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Hold a typed sheet (:func:`read_sheet`) against a game's :func:`score_sheet`: every
    line or round that differs, with its likely cause in ``findings`` (``kind`` and a
    plain ``message``). ``options`` are the game's (its ``pit_bonus``, if it has one).

    Lines are matched to rounds by their scores in order (:func:`_align`), so a round left
    out or written twice shows as one ``round_missing`` or ``round_extra`` and the lines
    after it still match. A running total is held against the sheet's own scores: where it
    is not the previous total plus the line's scores it is a ``total_slip``, unless it adds
    the log's score (then only the score was typed wrong); the totals after a difference
    that carry it are ``total_carried``. A round that scored nothing and is not on the sheet
    is a note, not a difference.

    >>> from jaslog.audit import game_report
    >>> from jaslog.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> f = fold(event_from_dict(e) for e in [
    ...     {"game": "g", "seq": 0, "type": "game_started", "ruleset": "amsterdam",
    ...      "seats": ["ann", "bob", "cor", "dirk"], "dealer": 3},
    ...     {"game": "g", "seq": 1, "type": "round_score", "round": 1, "score": [102, 60]},
    ...     {"game": "g", "seq": 2, "type": "round_score", "round": 2, "score": [52, 130]}])
    >>> s = score_sheet(f, game_report("g", f))
    >>> c = compare(s, [SheetLine(2, 1, [102, 60], [102, 60]), SheetLine(3, 2, [130, 52], None)])
    >>> c["agrees"], c["differences"][0]["findings"][0]["message"]
    (False, 'teams swapped: the sheet has 130–52, the log 52–130')
    """
    game = get_game(game_of(sheet["ruleset"]))
    bonus = (options or {}).get("pit_bonus")
    rows = sheet["rows"]
    ctx = _Context(game, sheet["sides"], bonus if isinstance(bonus, int) else None,
                   {tuple(r["final"]): r["round"] for r in rows if r["rulings"]})
    k = len(sheet["totals"])
    entries: list[dict[str, Any]] = []
    notes: list[str] = []
    aligned = _align(lines, rows, ctx)
    for at, (line, row) in enumerate(aligned):
        entry = {"line": line.line if line else None, "sheet_round": line.round if line else None,
                 "round": row["round"] if row else None, "sheet": line.scores if line else None,
                 "log": row["final"] if row else None,
                 "sheet_totals": line.totals if line else None, "log_totals": None,
                 "findings": []}
        if line is not None and row is not None and line.scores != row["final"]:
            entry["findings"] = _score_causes(line.scores, row, ctx)
        elif line is not None and row is None:
            entry["findings"] = [_extra_line(line, aligned, at, ctx)]
        elif row is not None and line is None:
            if any(row["final"]):
                entry["findings"] = [_missing_round(row, aligned, at, ctx)]
            else:
                notes.append(f"{ctx.word} {row['round']} scored nothing "
                             f"({dash(row['final'])}) and is not on the sheet")
        entries.append(entry)
    if any(line.totals is not None for line in lines):
        _check_totals(entries, aligned, ctx, k)
    differences = [e for e in entries if e["findings"]]
    return {"game": sheet["game"], "ruleset": sheet["ruleset"], "agrees": not differences,
            "lines": len(lines), "rounds": len(rows), "differences": differences,
            "notes": notes}


def _extra_line(line: SheetLine, aligned: list[tuple[SheetLine | None, dict[str, Any] | None]],
                at: int, ctx: _Context) -> dict[str, Any]:
    before = next((r for _, r in reversed(aligned[:at]) if r is not None), None)
    after = next((r for _, r in aligned[at + 1:] if r is not None), None)
    same = [r for r in (before, after) if r is not None and r["final"] == line.scores]
    again = f"; it repeats {ctx.word} {same[0]['round']}" if same else ""
    return _finding("round_extra",
                    f"a {ctx.word} the log does not have: {ctx.word} {line.round} on the sheet "
                    f"({dash(line.scores)}){again}",
                    repeats=same[0]["round"] if same else None)


def _missing_round(row: dict[str, Any],
                   aligned: list[tuple[SheetLine | None, dict[str, Any] | None]],
                   at: int, ctx: _Context) -> dict[str, Any]:
    nxt = next(((ln, r) for ln, r in aligned[at + 1:] if ln is not None and r is not None), None)
    after = ""
    if nxt is not None and nxt[0].round != nxt[1]["round"]:
        ln, r = nxt
        how = {-1: "one less", 1: "one more"}.get(ln.round - r["round"], "otherwise")
        after = (f"; the sheet numbers the {ctx.word}s after it {how} (line {ln.line} is "
                 f"{ctx.word} {ln.round} on the sheet, {ctx.word} {r['round']} in the log)")
    return _finding("round_missing",
                    f"missing from the sheet: {ctx.word} {row['round']} "
                    f"({dash(row['final'])}){after}")


def _check_totals(entries: list[dict[str, Any]],
                  aligned: list[tuple[SheetLine | None, dict[str, Any] | None]],
                  ctx: _Context, k: int) -> None:
    """Add the running totals' findings to ``entries`` (see :func:`compare`).

    A line's total is held against the previous total plus the scores since (``slip``) and
    against the sheet's own sums (``drift``): a slip that leaves the total off its sums is a
    ``total_slip``; one that brings it back to them puts the earlier slips right. What puts
    a total off the log's (a score, an extra line, a missing round, a slip) is carried on
    until the totals agree with the log again."""
    zero = [0] * k
    prev, sheet_run, log_run, span_sheet, span_log = zero, zero, zero, zero, zero
    span: list[tuple[str, list[int]]] = []  # what since the last total puts the sheet off the log
    carried: list[tuple[str, list[int]]] = []  # what the totals carry, while off the log
    slips: list[dict[str, Any]] = []
    last = max(ln.line for ln, _ in aligned if ln is not None and ln.totals is not None)
    for entry, (line, row) in zip(entries, aligned, strict=True):
        if row is not None:
            log_run, span_log = _add(log_run, row["final"]), _add(span_log, row["final"])
        if line is not None:
            sheet_run, span_sheet = _add(sheet_run, line.scores), _add(span_sheet, line.scores)
        if line is not None and row is not None and line.scores != row["final"]:
            span.append((f"the score of line {line.line}", _sub(line.scores, row["final"])))
        elif line is not None and row is None:
            span.append((f"the extra line {line.line}", line.scores))
        elif line is None and row is not None and any(row["final"]):
            span.append((f"{ctx.word} {row['round']} missing", _sub(zero, row["final"])))
        if line is None or line.totals is None:
            continue
        t = line.totals
        entry["log_totals"] = log_run
        slip, drift = _sub(_sub(t, prev), span_sheet), _sub(t, sheet_run)
        if any(slip) and _sub(t, prev) == span_log and span_sheet != span_log:
            for f in entry["findings"]:  # the total adds the log's score: the score is wrong
                f["message"] += "; its running total adds the right score"
            span = []
        elif any(slip) and not any(drift):  # the total adds up again: the slips are put right
            carried = [c for c in carried if not c[0].startswith("the slip")]
        elif any(slip):
            right = "; the scores are right" if span_sheet == span_log else ""
            finding = _finding(
                "total_slip",
                f"running-total slip: the total should be {dash(_add(prev, span_sheet))} "
                f"({dash(prev)} plus {dash(span_sheet)}), the sheet has {dash(t)} "
                f"({ctx.by(slip)}){right}", by=slip, line=line.line, drift_to=None)
            entry["findings"].append(finding)
            slips.append(finding)
            span.append((f"the slip at line {line.line}", slip))
        delta = _sub(t, log_run)
        carried = carried + span if any(delta) else []
        if any(delta) and not entry["findings"]:
            causes = [what for what, v in carried if any(v)]
            entry["findings"].append(_finding(
                "total_carried",
                f"the running total is off the log's by {ctx.by(delta)}: it carries "
                f"{', '.join(causes) or 'an earlier difference'}", by=delta))
        for s in slips:
            if s["line"] != line.line and any(
                    what == f"the slip at line {s['line']}" for what, _ in carried):
                s["drift_to"] = line.line
        prev, span_sheet, span_log, span = t, zero, zero, []
    for s in slips:
        if s["drift_to"] is None:
            s["message"] += ("; it is the last total on the sheet" if s["line"] == last else
                             "; the totals after it add up again")
        else:
            s["message"] += (f"; from this line on the totals drift by {ctx.by(s['by'])} "
                             f"(lines {s['line']}-{s['drift_to']})")
