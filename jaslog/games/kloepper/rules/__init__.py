"""Kloepper (4 players, Sheepshead family, black-queen partners): rule book section 5."""

from jaslog.games.kloepper.rules.game import (
    KloepperGame,
    Knock,
    Outcome,
    PartnerCall,
    Round,
    Trick,
    check_deal,
)
from jaslog.games.kloepper.rules.partners import Call, Sides, holder, known_sides, sides
from jaslog.games.kloepper.rules.play import (
    ACES,
    BLACK_QUEENS,
    PACK,
    QC,
    QS,
    TRUMPS,
    Trumps,
    explain,
    judge,
    legal,
    points,
    trick_points,
)
from jaslog.games.kloepper.rules.scoring import DealScore, ScoreTable, pick, score_deal

__all__ = [
    "ACES", "BLACK_QUEENS", "PACK", "QC", "QS", "TRUMPS", "Call", "DealScore", "KloepperGame",
    "Knock", "Outcome", "PartnerCall", "Round", "ScoreTable", "Sides", "Trick", "Trumps",
    "check_deal", "explain", "holder", "judge", "known_sides", "legal", "pick", "points",
    "score_deal", "sides", "trick_points",
]
