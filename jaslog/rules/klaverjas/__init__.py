"""Klaverjas (4 players, Amsterdam and Rotterdam play): rule book section 3."""

from jaslog.rules.klaverjas.game import KlaverjasGame, Outcome, Round, Trick, check_deal
from jaslog.rules.klaverjas.play import (
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
