"""The options and presets of Klaverjas (rule book section 7)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jaslog.engine.options import Option, catalogue, resolve_preset

OPTIONS = catalogue(
    Option("game", "choice", ("klaverjas",)),
    Option("deal_pattern", "choice", ("3-2-3", "4-4", "3-3-2"), "packets of the deal (cosmetic)"),
    Option("dealer_rotation", "choice", ("clockwise",)),
    Option("first_lead", "choice", ("forehand", "trump_chooser"), "who leads to trick 1"),
    Option("trump_selection", "choice", ("free", "utrecht", "random", "dealer_must_choose")),
    Option("free.start", "choice", ("forehand", "dealer"), "free choice: who speaks first"),
    Option("free.forced", "choice", ("starter", "dealer", "forehand"),
           "free choice: who must choose after four passes"),
    Option("random.source", "choice", ("separate_pack", "dealers_last_card")),
    Option("random.first_deal_clubs", "bool", help="deal 1 of a game proposes clubs"),
    Option("random.all_pass", "choice", ("second_card_forced", "forehand_names_other",
                                         "second_round_other_suits", "twents",
                                         "second_card_auction")),
    Option("play", "choice", ("amsterdam", "rotterdam"), "the play rules when void"),
    Option("amsterdam_partner_trump", "choice", ("no_undertrump", "discard_only", "free")),
    Option("amsterdam_cannot_overtrump", "choice", ("discard", "must_undertrump")),
    Option("rotterdam_must_undertrump", "bool"),
    Option("roem.run3", "int"),
    Option("roem.run4", "int"),
    Option("roem.stuk", "int"),
    Option("roem.four_kind", "int"),
    Option("roem.four_kind_ranks", "ranks", help="ranks whose four of a kind score roem.four_kind"),
    Option("roem.four_jacks", "int"),
    Option("roem.three_of_a_kind", "int"),
    Option("roem.stuk_in_hand", "bool", help="K and Q of trumps in one hand score roem.stuk"),
    Option("roem.claim_mode", "choice", ("claimed", "auto")),
    Option("roem.claim_by", "choice", ("any_player", "winning_team")),
    Option("last_trick_bonus", "int"),
    Option("pit_bonus", "int"),
    Option("pit_for", "choice", ("any_team", "playing_team")),
    Option("tie_is_failure", "bool"),
    Option("revoke", "choice", ("penalty", "reject", "ignore")),
    Option("game_end", "game_end"),
    Option("game_tie", "choice", ("draw", "extra_deal")),
)

_AMSTERDAM: dict[str, Any] = {
    "game": "klaverjas",
    "deal_pattern": "3-2-3",
    "dealer_rotation": "clockwise",
    "first_lead": "forehand",
    "trump_selection": "free",
    "free.start": "forehand",
    "free.forced": "starter",
    "random.source": "separate_pack",
    "random.first_deal_clubs": False,
    "random.all_pass": "second_card_forced",
    "play": "amsterdam",
    "amsterdam_partner_trump": "no_undertrump",
    "amsterdam_cannot_overtrump": "discard",
    "rotterdam_must_undertrump": True,
    "roem.run3": 20,
    "roem.run4": 50,
    "roem.stuk": 20,
    "roem.four_kind": 100,
    "roem.four_kind_ranks": ["A", "K", "Q", "10"],
    "roem.four_jacks": 200,
    "roem.three_of_a_kind": 0,
    "roem.stuk_in_hand": False,
    "roem.claim_mode": "claimed",
    "roem.claim_by": "any_player",
    "last_trick_bonus": 10,
    "pit_bonus": 100,
    "pit_for": "any_team",
    "tie_is_failure": True,
    "revoke": "penalty",
    "game_end": {"type": "deals", "count": 16},
    "game_tie": "draw",
}

PRESETS: dict[str, dict[str, Any]] = {
    "amsterdam": _AMSTERDAM,
    "amsterdam-kbn": {**_AMSTERDAM, "trump_selection": "utrecht",
                      "roem.four_kind_ranks": ["A", "K", "Q", "10", "9", "8", "7"],
                      "roem.claim_by": "any_player"},
    "rotterdam": {**_AMSTERDAM, "play": "rotterdam", "rotterdam_must_undertrump": True},
    "klaverjas-online-501": {**_AMSTERDAM, "trump_selection": "utrecht",
                             "pit_for": "playing_team",
                             "game_end": {"type": "target", "points": 501},
                             "game_tie": "extra_deal"},
}


def resolve(ruleset: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The checked options of one of this game's presets, with ``overrides`` applied."""
    return resolve_preset(OPTIONS, ruleset, PRESETS[ruleset], overrides)
