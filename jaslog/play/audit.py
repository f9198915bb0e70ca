"""The audit of a game: what happened, what was wrong, and how it scored.

:func:`game_report` is the one projection of a folded game that ``jaslog check --json``
prints and the export reads; its keys are a contract for scripts (see the README).
"""

from __future__ import annotations

from typing import Any

from jaslog.engine.common import violation_dict
from jaslog.engine.facts import add_round_facts, irregularity_list, retracted_list, timeout_list
from jaslog.engine.fold import FoldError, GameFold
from jaslog.games import get_game

REPORT_KEYS = ("game", "ruleset", "ok", "error", "violations", "rounds", "totals", "finished",
               "winner", "retracted", "irregularities", "timeouts")


def rounds_report(fold: GameFold) -> list[dict[str, Any]]:
    """Every round of the game for ``check --json``: the game's own report, with what every
    game's rounds hold besides (:func:`jaslog.engine.facts.round_facts`)."""
    game = get_game(fold.game)
    return add_round_facts(fold, game.report(fold), roem_keys=game.score_only_roem,
                           unknown_keys=game.score_only_unknown)


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
                "totals": [0, 0], "finished": False, "winner": None,
                "retracted": [], "irregularities": [], "timeouts": []}
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
        "retracted": retracted_list(fold),
        "irregularities": irregularity_list(fold),
        "timeouts": timeout_list(fold),
    }
