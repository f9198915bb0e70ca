"""The audit of a game: what happened, what was wrong, and how it scored.

:func:`game_report` is the one projection of a folded game that ``jaslog check --json``
prints and the export reads; its keys are a contract for scripts (see the README).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaslog.engine.base import Scored
from jaslog.engine.common import violation_dict
from jaslog.engine.facts import (
    add_round_facts,
    irregularity_list,
    retracted_list,
    timeout_list,
)
from jaslog.engine.fold import FoldError, GameFold
from jaslog.games import get_game
from jaslog.play.fairdeal import check_deals

REPORT_KEYS = ("game", "ruleset", "ok", "error", "violations", "rounds", "totals", "finished",
               "winner", "retracted", "irregularities", "timeouts")


def rounds_report(fold: GameFold, outcomes: Sequence[Scored] | None = None
                  ) -> list[dict[str, Any]]:
    """Every round of the game for ``check --json``: the game's own report, with what every
    game's rounds hold besides (:func:`jaslog.engine.facts.round_facts`); ``outcomes``: the
    rounds' (``fold.state.outcomes()``, worked out here when not given)."""
    game = get_game(fold.game)
    if outcomes is None:
        outcomes = fold.state.outcomes()
    return add_round_facts(fold, game.report(fold, outcomes), outcomes,
                           roem_keys=game.score_only_roem, unknown_keys=game.score_only_unknown)


def deal_problems(fold: GameFold) -> list[dict[str, Any]]:
    """The ``deal_not_fair`` problems of a game's computer deals (rule book 9.3, decision
    21: :func:`jaslog.play.fairdeal.check_deals`), as violations (rule ``deal_not_fair``);
    none for a game without a committed deal."""
    if not fold.fair_deal:
        return []
    found = check_deals(fold.game_id, (e.model_dump() if e.type != "play" else  # a fast play
                                       {"type": "play", "seq": e.seq} for e in fold.log))
    return [{"seq": p.seq if p.seq is not None else 0, "round": p.round, "trick": None,
             "seat": None, "card": None, "rule": p.code, "message": p.message}
            for p in found.problems]


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
    found = [violation_dict(v) for v in violations] + deal_problems(fold)
    found.sort(key=lambda v: v["seq"])
    # the rounds' outcomes, worked out once for the game's report and the round facts; the
    # totals are the last round's running totals (round_facts adds the rounds' final
    # scores as totals() does), and a game is finished when it has a winner (the game's
    # rule, given those totals)
    rounds = rounds_report(fold, state.outcomes())
    totals = list(rounds[-1]["totals"]) if rounds else state.totals()
    winner = state.winner_of(totals)
    return {
        "game": fold.game_id,
        "ruleset": fold.ruleset,
        "ok": not found and error is None,
        "error": str(error) if error else None,
        "violations": found,
        "rounds": rounds,
        "totals": totals,
        "finished": winner is not None,
        "winner": winner,
        "retracted": retracted_list(fold),
        "irregularities": irregularity_list(fold),
        "timeouts": timeout_list(fold),
    }
