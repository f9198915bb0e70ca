"""A typed paper sheet held against the record: every row that differs, with its likely cause
(a slip in the running total, sides swapped, roem left out or counted twice, a ruling not
applied, a round missing or extra, nat or pit scored wrong)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jaslog.engine.game import Game
from jaslog.games import game_of, get_game
from jaslog.sheet.paper import SheetLine
from jaslog.sheet.rows import dash


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

    >>> from jaslog.play.audit import game_report
    >>> from jaslog.sheet.rows import score_sheet
    >>> from jaslog.play.fold import fold
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
