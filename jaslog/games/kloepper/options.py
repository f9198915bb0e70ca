"""The options and presets of Kloepper (rule book section 7)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jaslog.engine.options import MOST_TARGET, Option, catalogue, resolve_preset

OPTIONS = catalogue(
    Option("game", "choice", ("kloepper",)),
    Option("deal_pattern", "choice", ("3-3",)),
    Option("trumps", "cards", help="the permanent trumps, high to low"),
    Option("must_trump_when_void", "bool"),
    Option("both_queens", "choices", ("call_ace", "alone")),
    Option("call_own_ace_allowed", "bool"),
    Option("knock_window", "choice", ("before_trick_2",)),
    Option("score_table", "json", help="the scoring table of rule book 5.6, kept whole"),
    Option("failed_pair_knock_no_contra", "json"),
    Option("target", "int", most=MOST_TARGET),
    Option("game_tie", "choice", ("play_on",)),
    Option("revoke", "choice", ("penalty", "reject", "ignore")),
)

#: The seven loose score rows of rule book 5.6, in the literal reading of seed 002.
KLOEPPER_LITERAL_TABLE: dict[str, Any] = {
    "no_knock": {
        "queens_61": {"pair": 2, "alone": 6},
        "queens_91": {"pair": 4, "alone": 12},
        "queens_all_tricks": {"pair": 6, "alone": 18},
        "non_queens_60": {"pair": 2, "alone": 4},
        "non_queens_61": {"pair": 4, "alone": 6},
        "non_queens_91": {"pair": 6, "alone": 12},
    },
    "knock": {
        "knockers_all_tricks": {"pair": 12, "alone": 30},
        "alone_knocker_fails": 30,
        "knock_back_takes_a_trick": 24,
        "knock_back_takes_none": 24,
    },
}

PRESETS: dict[str, dict[str, Any]] = {
    "kloepper": {
        "game": "kloepper",
        "deal_pattern": "3-3",
        "trumps": ["QC", "QS", "JC", "JS", "JH", "JD", "AD", "10D", "KD", "QD", "9D"],
        "must_trump_when_void": False,
        "both_queens": ["call_ace", "alone"],
        "call_own_ace_allowed": False,
        "knock_window": "before_trick_2",
        "score_table": KLOEPPER_LITERAL_TABLE,
        "failed_pair_knock_no_contra": {"non_queens_each": 12},
        "target": 30,
        "game_tie": "play_on",
        "revoke": "penalty",
    },
}


def resolve(ruleset: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The checked options of one of this game's presets, with ``overrides`` applied."""
    return resolve_preset(OPTIONS, ruleset, PRESETS[ruleset], overrides)
