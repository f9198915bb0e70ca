"""The report of a Klaverjas game's rounds for ``check --json`` (the referee's view: every
round, every trick), built in one pass over the rounds the rules kept.

This module is on the compiled hot path (:data:`jaslog.native.HOT_PATH`): ``jaslog check``
reports every round and every trick of every game, and compiled, the rounds and tricks are
read as the native classes they are. Run as pure Python it gives the same answers.

>>> from jaslog.play.sim import simulate_game
>>> from jaslog.play.fold import fold
>>> from jaslog.events import event_from_dict
>>> f = fold(event_from_dict(e) for e in simulate_game("v", seed=3)[:12])
>>> [r["tricks"][-1] for r in rounds_report(f, f.state.outcomes())]
[{'leader': 3, 'cards': ['AD'], 'winner': None, 'points': 0, 'roem': 0, 'roem_on_table': 0}]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaslog.cards import SUIT_LETTERS
from jaslog.engine.fold import GameFold
from jaslog.games.klaverjas.rules.game import KlaverjasGame, Outcome, Trick


def trick_reports(tricks: list[Trick], claimed_mode: bool) -> list[dict[str, Any]]:
    """Each trick with a card in it, as the round's report shows it
    (:meth:`~jaslog.games.klaverjas.rules.game.Trick.report`)."""
    return [t.report(claimed_mode) for t in tricks if t.cards]


def rounds_report(fold: GameFold, outcomes: Sequence[Any]) -> list[dict[str, Any]]:
    """Every round for ``check --json`` (the referee's view: everything), with its
    outcome of ``outcomes`` (``state.outcomes()``, worked out once by the audit)."""
    state: KlaverjasGame = fold.state
    claimed = state.claimed_mode
    out: list[dict[str, Any]] = []
    for r, o in zip(state.rounds, outcomes, strict=True):
        oc: Outcome = o
        trump = r.trump
        ruling = r.ruling
        out.append({
            "round": r.number,
            "dealer": r.dealer,
            "trump": SUIT_LETTERS[trump] if trump is not None else None,
            "chooser": r.chooser,
            "tricks": trick_reports(r.tricks, claimed),
            "points": oc.points,
            "roem": oc.roem,
            "roem_on_table": oc.roem_on_table,
            "result": oc.result,
            "score": oc.score,
            "ruling": ({"score": ruling.score, "reason": ruling.reason, "seq": ruling.seq}
                       if ruling is not None else None),
        })
    return out
