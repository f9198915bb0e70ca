"""What-if in the terminal: ``check --as``, ``replay --as`` and ``analyze --as`` (with ``-o``).

The comparison itself is :mod:`jaslog.play.whatif`; this module only prints it: the options that
differ, each event whose verdict changes (as recorded → as if), each round whose result or
score changes, the standing of both, and the first refusal where the comparison stops.

Heavy imports sit in the command functions (the import convention of :mod:`jaslog.cli.common`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import typer
from rich.markup import escape

from jaslog.cli.common import console, fail, read_games, write_json_line
from jaslog.engine.fold import FoldError, GameFold
from jaslog.logs import Line
from jaslog.play.whatif import WhatIf, WhatIfError, what_if

AS_OPTION = typer.Option(None, "--as", metavar="PRESET",
                         help="what-if: refold the game under this preset of its game (the log "
                              "is not touched)")
WHAT_IF_OPTIONS = typer.Option([], "--option", "-o", metavar="KEY=VALUE",
                               help="what-if: a rule option (repeatable); they replace the "
                                    "game's own options")


def value_text(v: Any) -> str:
    """An option's value as ``-o`` takes it back.

    >>> value_text(True), value_text("ignore"), value_text({"type": "deals", "count": 16})
    ('true', 'ignore', '{"type":"deals","count":16}')
    """
    if isinstance(v, bool) or v is None:
        return orjson.dumps(v).decode()
    if isinstance(v, (dict, list)):
        return orjson.dumps(v).decode()
    return str(v)


def rules_text(ruleset: str, options: dict[str, Any] | None) -> str:
    """The what-if rules as typed: ``rotterdam`` or ``rotterdam -o revoke=ignore``.

    >>> rules_text("rotterdam", {"revoke": "ignore", "pit_bonus": 50})
    'rotterdam -o revoke=ignore -o pit_bonus=50'
    """
    return ruleset + "".join(f" -o {k}={value_text(v)}" for k, v in (options or {}).items())


def _score(s: list[int] | None) -> str:
    return "–".join(map(str, s)) if s else "?"


def _verdict(vs: list[dict[str, Any]]) -> str:
    return ", ".join(v["rule"] for v in vs) if vs else "legal"


def what_if_lines(w: WhatIf, seat: int | None = None, verdicts: bool = True,
                  round: int | None = None, refusal: bool = True) -> list[str]:
    """The comparison as printed (rich markup): the options that differ, the verdicts that
    change (``seat``: only that seat's own), the rounds whose score changes (``round``: that
    one only), the standing, and the first refusal.

    >>> from jaslog.events import event_from_dict
    >>> from jaslog.play.sim import simulate_game
    >>> w = what_if([event_from_dict(e) for e in simulate_game("d", seed=1)[:40]], "rotterdam")
    >>> what_if_lines(w)[0], what_if_lines(w)[-1]
    ('    options differ: play amsterdam → rotterdam', '    as if:       not finished, 162–0')
    """
    from jaslog.cli.check import standing  # import cycle: check imports this module

    d = w.to_dict()
    fold = w.recorded
    out = []
    if d["options_differ"]:
        out.append("    options differ: " + escape("; ".join(
            f"{x['option']} {value_text(x['recorded'])} → {value_text(x['as_if'])}"
            for x in d["options_differ"])))
    else:
        out.append("    no option differs")
    if verdicts:
        out.extend(_verdict_line(fold, v) for v in d["verdicts"]
                   if seat is None or v["seat"] == seat)
    for r in d["rounds"]:
        if round is not None and r["round"] != round:
            continue
        a, b = r["recorded"], r["as_if"]
        final = "" if (a["final"], b["final"]) == (a["score"], b["score"]) else \
            f" (final {_score(a['final'])} → {_score(b['final'])})"
        out.append(f"    round {r['round']}: {escape(str(a['result']))} {_score(a['score'])} → "
                   f"{escape(str(b['result']))} {_score(b['score'])}{final}")
    if round is None and not d["verdicts"] and not d["rounds"]:
        out.append("    no verdict and no round's score changes")
    rec = {k: d[k]["recorded"] for k in ("totals", "finished", "winner")}
    alt = {k: d[k]["as_if"] for k in ("totals", "finished", "winner")}
    out.append(f"    as recorded: {escape(standing(fold, rec))}")
    out.append(f"    as if:       {escape(standing(w.as_if, alt))}")
    if w.record_error is not None:
        out.append(f"    [red]the record stops folding[/] at seq {w.record_error.seq}: "
                   f"{escape(w.record_error.message)} [{escape(w.record_error.code)}]; compared "
                   f"up to seq {w.compared_to}")
    if w.refused is not None and refusal:
        out.append(_refusal_line(w))
    return out


def _refusal_line(w: WhatIf) -> str:
    e = w.refused
    assert e is not None
    return (f"    [red]first refusal[/]: seq {e.seq} round {w.refused_round}: "
            f"{escape(e.message)} \\[{escape(e.code)}]; the comparison stops there (compared "
            f"up to seq {w.compared_to})")


def _verdict_line(fold: GameFold, v: dict[str, Any]) -> str:
    """``seq 14 round 1 trick 3 seat 1 (bob) 7C play: legal → must_trump: ...``."""
    trick = f" trick {v['trick']}" if v["trick"] else ""
    seat = f" seat {v['seat']} ({escape(fold.seats[v['seat']])})" if v["seat"] is not None else ""
    card = f" {v['card']}" if v["card"] else ""
    why = (v["as_if"] or v["recorded"])[0]["message"]
    return (f"    seq {v['seq']} round {v['round']}{trick}{seat}{card} {v['type']}: "
            f"[yellow]{escape(_verdict(v['recorded']))} → {escape(_verdict(v['as_if']))}[/]: "
            f"{escape(why)}")


def _head(w: WhatIf, mark: str) -> str:
    alt = w.as_if
    return (f"{mark} [bold]{escape(w.game)}[/] ({escape(w.recorded.ruleset)}) as "
            f"{escape(rules_text(alt.ruleset, alt.started.options))}: "
            f"{len(w.verdicts)} verdict{'s' * (len(w.verdicts) != 1)} and {len(w.rounds)} "
            f"round{'s' * (len(w.rounds) != 1)} change")


def _error(game: str | None, code: str, message: str, as_json: bool, text: str) -> None:
    if as_json:
        write_json_line({"game": game, "error": {"code": code, "message": message}})
    else:
        console.print(f"[red]✗[/] {escape(text)}", soft_wrap=True)


def check_as(files: list[Path], db: str | None, preset: str | None, options: list[str],
             as_json: bool) -> tuple[int, int]:
    """``check --as``: each game compared with itself under the what-if rules. Returns the
    exit code (0 clean as if, 1 violations as if, 2 an invalid log or a refusal) and how
    many games were read."""
    worst, seen = 0, 0
    for g in read_games(files, db):
        seen += 1
        if isinstance(g, FoldError):
            worst = 2
            _error(g.game, g.code, g.message, as_json, str(g))
            continue
        if g.fold is None:
            worst = 2
            err = g.error
            code, message = (err.code, err.message) if err else ("empty_game", "no events")
            _error(g.game, code, message, as_json, str(err) if err else f"{g.game}: {message}")
            continue
        try:
            w = what_if(g.fold.log, preset, options)
        except WhatIfError as e:
            worst = 2
            _error(g.game, e.code, str(e), as_json,
                   f"{g.game}: cannot refold it as asked: {e} [{e.code}]")
            continue
        if g.error is not None and w.record_error is None and w.refused is None:
            w.record_error = g.error
        exit_code = 2 if (w.refused or w.record_error) else \
            (1 if w.as_if.state.violations else 0)
        worst = max(worst, exit_code)
        if as_json:
            write_json_line(w.to_dict())
            continue
        console.print(_head(w, ("[green]✓[/]", "[yellow]![/]", "[red]✗[/]")[exit_code]),
                      soft_wrap=True)
        for line in what_if_lines(w):
            console.print(line, soft_wrap=True)
    return worst, seen


class ReplayWhatIf:
    """What ``replay --as`` adds: the game folded under the what-if rules from the start,
    under each event whose verdict changes the change, and at the end (or at the first
    refusal) the rounds whose score changed and the standing of both."""

    def __init__(self, events: list[Line], preset: str | None, options: list[str],
                 seat: int | None) -> None:
        try:
            self.w = what_if([ln.event for ln in events if ln.event is not None], preset,
                             options)
        except WhatIfError as e:
            fail(f"--as: {e} [{e.code}]")
        self.seat = seat
        self.changed = {v["seq"]: v for v in self.w.verdicts if seat is None or v["seat"] == seat}
        alt = self.w.as_if
        console.print(f"[bold]what-if[/]: {escape(self.w.game)} ({escape(self.w.recorded.ruleset)})"
                      f" as {escape(rules_text(alt.ruleset, alt.started.options))}",
                      soft_wrap=True)

    @property
    def started(self) -> Any:
        return self.w.started

    def after(self, seq: int) -> None:
        """The change of verdict of event ``seq``, under its line."""
        v = self.changed.get(seq)
        if v is not None:
            why = (v["as_if"] or v["recorded"])[0]["message"]
            console.print(f"  ↳ as {escape(self.w.as_if.ruleset)}: [yellow]"
                          f"{escape(_verdict(v['recorded']))} → {escape(_verdict(v['as_if']))}[/]"
                          f": {escape(why)}", soft_wrap=True)

    def summary(self, round: int | None = None, refusal: bool = True) -> None:
        """The rounds whose score changed (``round``: that one), the standing of both."""
        for line in what_if_lines(self.w, self.seat, verdicts=False, round=round,
                                  refusal=refusal):
            console.print(line, soft_wrap=True)

    def refuses(self, err: FoldError) -> bool:
        """Whether ``err`` is the what-if rules' first refusal (not the record's own error)."""
        return self.w.refused is not None and err.seq == self.w.refused.seq

    def refuse(self, err: FoldError, where: str) -> None:
        """The first refusal: the summary of what was compared, then stop (exit 2)."""
        self.summary(refusal=False)
        alt = self.w.as_if
        fail(f"{where}: as {rules_text(alt.ruleset, alt.started.options)}: {err.message} "
             f"[{err.code}]: the what-if rules refuse this event; the comparison stops there")


def what_if_fold(fold: GameFold, preset: str | None, options: list[str]) -> WhatIf | str:
    """``analyze --as``: the game refolded under the what-if rules, or the sentence the
    command stops with when they cannot be asked."""
    try:
        return what_if(fold.log, preset, options)
    except WhatIfError as e:
        return f"--as: game {fold.game_id}: {e} [{e.code}]"


def what_if_head(w: WhatIf) -> list[str]:
    """What ``analyze --as`` says before the rounds: the what-if rules, the options that
    differ, and where the what-if rules refused an event.

    >>> from jaslog.events import event_from_dict
    >>> from jaslog.play.sim import simulate_game
    >>> evs = [event_from_dict(e) for e in simulate_game("d", seed=1)[:40]]
    >>> for line in what_if_head(what_if(evs, None, ["pit_bonus=50"])):
    ...     print(line)
        what-if: as amsterdam -o pit_bonus=50 (recorded as amsterdam)
        options differ: pit_bonus 100 → 50
    """
    alt = w.as_if
    out = [f"    what-if: as {escape(rules_text(alt.ruleset, alt.started.options))} (recorded as "
           f"{escape(w.recorded.ruleset)})"]
    out.extend(what_if_lines(w, verdicts=False, round=0)[:1])
    if w.refused is not None:
        out.append(_refusal_line(w))
    return out
