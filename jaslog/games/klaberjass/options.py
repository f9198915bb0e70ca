"""The options and presets of Klaberjass (rule book section 7)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jaslog.engine.options import MOST_TARGET, Option, catalogue, resolve_preset

OPTIONS = catalogue(
    Option("game", "choice", ("klaberjass",)),
    Option("dealer_rotation", "choice", ("alternate", "round_winner_deals")),
    Option("schmeiss_enabled", "bool"),
    Option("schmeiss_annul_next_dealer", "choice", ("same", "elder")),
    Option("second_round_any_suit", "bool"),
    Option("all_pass", "choice", ("annul_deal_passes",)),
    Option("dix_exchange", "bool"),
    Option("sequence_3", "int"),
    Option("sequence_4plus", "int"),
    Option("sequence_tie", "choice", ("none", "elder_wins")),
    Option("sequences_require_announcement", "bool"),
    Option("sequences_require_a_trick", "bool"),
    Option("bella", "int"),
    Option("bella_requires_announcement", "bool"),
    Option("must_head_plain_lead", "bool"),
    Option("last_trick_bonus", "int"),
    Option("tie_mode", "choice", ("half_bete", "carry_over")),
    Option("target", "int", most=MOST_TARGET),
    Option("revoke", "choice", ("penalty", "reject", "ignore")),
)

PRESETS: dict[str, dict[str, Any]] = {
    "klaberjass-2p": {
        "game": "klaberjass",
        "dealer_rotation": "alternate",
        "schmeiss_enabled": True,
        "schmeiss_annul_next_dealer": "same",
        "second_round_any_suit": False,
        "all_pass": "annul_deal_passes",
        "dix_exchange": True,
        "sequence_3": 20,
        "sequence_4plus": 50,
        "sequence_tie": "none",
        "sequences_require_announcement": False,
        "sequences_require_a_trick": False,
        "bella": 20,
        "bella_requires_announcement": False,
        "must_head_plain_lead": False,
        "last_trick_bonus": 10,
        "tie_mode": "half_bete",
        "target": 500,
        "revoke": "penalty",
    },
}


def resolve(ruleset: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The checked options of one of this game's presets, with ``overrides`` applied."""
    return resolve_preset(OPTIONS, ruleset, PRESETS[ruleset], overrides)
