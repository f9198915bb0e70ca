"""Klaberjass (2 players; Klob, Clob, Bela): rule book section 4."""

from jaslog.games.klaberjass.rules.bidding import CALLS, Bidding
from jaslog.games.klaberjass.rules.game import KlaberjassGame, check_first_deal
from jaslog.games.klaberjass.rules.play import (
    DealScore,
    PlayRules,
    Run,
    ScoreRules,
    SequenceResult,
    SequenceRules,
    bella_cards,
    dix_card,
    explain,
    has_bella,
    judge,
    legal,
    run_mask,
    run_of,
    run_text,
    runs,
    score_deal,
    score_sequences,
)
from jaslog.games.klaberjass.rules.round import Announcement, Declaration, Outcome, Round, Trick

__all__ = [
    "CALLS", "Announcement", "Bidding", "DealScore", "Declaration", "KlaberjassGame", "Outcome",
    "PlayRules", "Round", "Run", "ScoreRules", "SequenceResult", "SequenceRules", "Trick",
    "bella_cards", "check_first_deal", "dix_card", "explain", "has_bella", "judge", "legal",
    "run_mask", "run_of", "run_text", "runs", "score_deal", "score_sequences",
]
