"""Klaverjas (4 players, Amsterdam and Rotterdam play): rule book section 3."""

from jaslog.games.klaverjas.rules.game import KlaverjasGame, Outcome, Round, Trick, check_deal
from jaslog.games.klaverjas.rules.play import (
    PlayRules,
    RoemRules,
    ScoreRules,
    explain,
    judge,
    legal,
    roem_parts,
    score_round,
    trick_roem,
)

__all__ = [
    "KlaverjasGame", "Outcome", "PlayRules", "RoemRules", "Round", "ScoreRules", "Trick",
    "check_deal", "explain", "judge", "legal", "roem_parts", "score_round", "trick_roem",
]
