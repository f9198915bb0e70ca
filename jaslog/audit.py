"""The audit of a game: what happened, what was wrong, and how it scored.

:func:`game_report` is the one projection of a folded game that ``jaslog check --json``
prints and the export reads; its keys are a contract for scripts (see the README).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jaslog.cards import SUIT_LETTERS, card_text
from jaslog.fold import FoldError, GameFold
from jaslog.fold.klaberjass import rounds_report as klaberjass_rounds
from jaslog.fold.kloepper import rounds_report as kloepper_rounds
from jaslog.rules.base import Violation

REPORT_KEYS = ("game", "ruleset", "ok", "error", "violations", "rounds", "totals", "finished",
               "winner")


def violation_dict(v: Violation) -> dict[str, Any]:
    return {"seq": v.seq, "round": v.round, "trick": v.trick, "seat": v.seat,
            "card": card_text(v.card) if v.card is not None else None, "rule": v.rule,
            "message": v.message}


#: The round report of each game that has its own (Klaverjas is the default below).
#: Klaberjass and Kloepper report scores per player; see their fold modules.
ROUND_REPORTS: dict[str, Callable[[GameFold], list[dict[str, Any]]]] = {
    "klaberjass": klaberjass_rounds, "kloepper": kloepper_rounds}


def rounds_report(fold: GameFold) -> list[dict[str, Any]]:
    custom = ROUND_REPORTS.get(fold.game)
    if custom is not None:
        return custom(fold)
    state = fold.state
    out = []
    for r, o in zip(state.rounds, state.outcomes(), strict=True):
        out.append({
            "round": r.number,
            "dealer": r.dealer,
            "trump": SUIT_LETTERS[r.trump] if r.trump is not None else None,
            "chooser": r.chooser,
            "tricks": [{"leader": t.leader, "cards": [card_text(c) for c in t.cards],
                        "winner": t.winner if t.complete else None, "points": t.points,
                        "roem": (t.claimed if state.claimed_mode else t.roem),
                        "roem_on_table": t.roem} for t in r.tricks if t.cards],
            "points": o.points,
            "roem": o.roem,
            "roem_on_table": o.roem_on_table,
            "result": o.result,
            "score": o.score,
            "ruling": ({"score": r.ruling.score, "reason": r.ruling.reason, "seq": r.ruling.seq}
                       if r.ruling else None),
        })
    return out


ERROR_KEYS = ("file", "line", "game", "seq", "seat", "card", "code", "message")


def error_dict(e: FoldError) -> dict[str, Any]:
    """An integrity error for scripts: where (file, line, game, seq, seat, card), which rule
    (``code``) and the plain sentence (``message``, without the location)."""
    return {"file": e.source, "line": e.line, "game": e.game, "seq": e.seq, "seat": e.seat,
            "card": e.card, "code": e.code, "message": e.message}


def game_report(game: str | None, fold: GameFold | None,
                error: FoldError | None = None) -> dict[str, Any]:
    """The audit of one game, with exactly :data:`REPORT_KEYS`.

    ``error`` is the integrity error's message, which names the file and line, game, seq
    and rule code (``x.jsonl:8: game a seq 7: seat 1 played 10H but it is seat 0's turn
    [not_your_turn]``); :func:`error_dict` gives the same parts one by one. With an error
    the report still shows everything folded before it.
    """
    if fold is None:
        return {"game": game, "ruleset": None, "ok": False,
                "error": str(error) if error else f"game {game}: no events [empty_game]",
                "violations": [], "rounds": [],
                "totals": [0, 0], "finished": False, "winner": None}
    state = fold.state
    violations = sorted(state.violations, key=lambda v: v.seq)
    return {
        "game": fold.game_id,
        "ruleset": fold.ruleset,
        "ok": not violations and error is None,
        "error": str(error) if error else None,
        "violations": [violation_dict(v) for v in violations],
        "rounds": rounds_report(fold),
        "totals": state.totals(),
        "finished": state.finished,
        "winner": state.winner,
    }
