"""The option catalogue and the named presets of the rule book (section 7).

Every option has a dotted key exactly as the rule book writes it (``free.start``,
``roem.four_kind_ranks``), a kind that says which values it takes, and the default of its
game. A preset is a game plus a set of values; a game's options are its preset with any
per-game overrides applied.

>>> opts = resolve("rotterdam", {"tie_is_failure": False})
>>> opts["play"], opts["tie_is_failure"], opts["trump_selection"]
('rotterdam', False, 'free')
>>> resolve("amsterdam", {"play": "paris"})
Traceback (most recent call last):
...
jaslog.rules.options.OptionError: option 'play' must be one of amsterdam, rotterdam, not 'paris'

Values given as text (``--option roem.four_kind_ranks=A,K,Q,10``) are read by
:func:`parse_option_text`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jaslog.cards import RANK_TEXT, CardError, card_text, parse_card


class OptionError(ValueError):
    """An unknown preset, an unknown option, or a value the option does not take."""


#: Bounds of a game's length: deals, and target points.
MOST_DEALS = 1000
MOST_TARGET = 100_000


@dataclass(frozen=True)
class Option:
    key: str
    kind: str  # choice | int | bool | ranks | cards | game_end | json | choices
    choices: tuple[str, ...] = ()
    help: str = ""
    #: The largest value an ``int`` option takes (points: a value beyond any real rule, and
    #: small enough for every total to fit the store's and the export's integer columns).
    most: int = 1000

    def check(self, value: Any) -> Any:
        """The value in canonical form, or an :class:`OptionError` that says why not."""
        k = self.key
        if self.kind == "choice":
            if not isinstance(value, str) or value not in self.choices:
                raise OptionError(
                    f"option {k!r} must be one of {', '.join(self.choices)}, not {value!r}")
            return value
        if self.kind == "choices":
            if not isinstance(value, list) or not value or any(v not in self.choices for v in value):
                raise OptionError(
                    f"option {k!r} must be a list drawn from {', '.join(self.choices)}, not {value!r}")
            return list(dict.fromkeys(value))
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= self.most:
                raise OptionError(f"option {k!r} must be a whole number from 0 to {self.most}, "
                                  f"not {value!r}")
            return value
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise OptionError(f"option {k!r} must be true or false, not {value!r}")
            return value
        if self.kind == "ranks":
            if not isinstance(value, list):
                raise OptionError(f"option {k!r} must be a list of ranks, not {value!r}")
            out = []
            for v in value:
                r = {"T": "10"}.get(str(v).upper(), str(v).upper())
                if r not in RANK_TEXT:
                    raise OptionError(f"option {k!r}: {v!r} is not a rank (7 8 9 10 J Q K A)")
                out.append(r)
            return sorted(set(out), key=RANK_TEXT.index, reverse=True)
        if self.kind == "cards":
            if not isinstance(value, list):
                raise OptionError(f"option {k!r} must be a list of cards, not {value!r}")
            try:
                return [card_text(parse_card(str(v), lenient=True)) for v in value]
            except CardError as e:
                raise OptionError(f"option {k!r}: {e}") from None
        if self.kind == "game_end":
            ok = isinstance(value, dict) and set(value) == {"type", value.get("type") and (
                "count" if value.get("type") == "deals" else "points")}
            if ok and value["type"] == "deals":
                n = value["count"]
                ok = isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MOST_DEALS
            elif ok and value["type"] == "target":
                n = value["points"]
                ok = isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MOST_TARGET
            else:
                ok = False
            if not ok:
                raise OptionError(
                    f"option {k!r} must be {{\"type\": \"deals\", \"count\": N}} (N from 1 to "
                    f"{MOST_DEALS}) or {{\"type\": \"target\", \"points\": N}} (N from 1 to "
                    f"{MOST_TARGET}), not {value!r}")
            return dict(value)
        if self.kind == "json":
            return value
        raise AssertionError(self.kind)


def _opts(*items: Option) -> dict[str, Option]:
    return {o.key: o for o in items}


KLAVERJAS_OPTIONS = _opts(
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

KLABERJASS_OPTIONS = _opts(
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

KLOEPPER_OPTIONS = _opts(
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

CATALOGUES: dict[str, dict[str, Option]] = {
    "klaverjas": KLAVERJAS_OPTIONS,
    "klaberjass": KLABERJASS_OPTIONS,
    "kloepper": KLOEPPER_OPTIONS,
}

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
    "amsterdam": _AMSTERDAM,
    "amsterdam-kbn": {**_AMSTERDAM, "trump_selection": "utrecht",
                      "roem.four_kind_ranks": ["A", "K", "Q", "10", "9", "8", "7"],
                      "roem.claim_by": "any_player"},
    "rotterdam": {**_AMSTERDAM, "play": "rotterdam", "rotterdam_must_undertrump": True},
    "klaverjas-online-501": {**_AMSTERDAM, "trump_selection": "utrecht",
                             "pit_for": "playing_team",
                             "game_end": {"type": "target", "points": 501},
                             "game_tie": "extra_deal"},
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


def game_of(ruleset: str) -> str:
    """The game a preset belongs to (``klaverjas``, ``klaberjass`` or ``kloepper``)."""
    try:
        return str(PRESETS[ruleset]["game"])
    except KeyError:
        raise OptionError(
            f"unknown ruleset {ruleset!r}; the presets are {', '.join(PRESETS)}") from None


def resolve(ruleset: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The full, checked options of a game: its preset with ``overrides`` applied."""
    game = game_of(ruleset)
    catalogue = CATALOGUES[game]
    out = json.loads(json.dumps(PRESETS[ruleset]))  # a deep copy that cannot share lists
    for key, value in (overrides or {}).items():
        opt = catalogue.get(key)
        if opt is None:
            raise OptionError(f"unknown option {key!r} for {game} (see `jaslog rules options`)")
        if key == "game":
            raise OptionError("option 'game' is fixed by the ruleset")
        out[key] = opt.check(value)
    return out


def parse_option_text(ruleset: str, text: str) -> tuple[str, Any]:
    """Read ``KEY=VALUE`` as typed on a command line into a checked (key, value).

    >>> parse_option_text("amsterdam", "game_end=target:1500")
    ('game_end', {'type': 'target', 'points': 1500})
    >>> parse_option_text("amsterdam", "roem.four_kind_ranks=A,K,Q,T,9")
    ('roem.four_kind_ranks', ['A', 'K', 'Q', '10', '9'])
    """
    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key:
        raise OptionError(f"{text!r}: write an option as KEY=VALUE")
    opt = CATALOGUES[game_of(ruleset)].get(key)
    if opt is None:
        raise OptionError(f"unknown option {key!r} (see `jaslog rules options`)")
    value: Any = raw
    if raw[:1] in "[{":
        try:
            value = json.loads(raw)
        except ValueError:
            raise OptionError(f"option {key!r}: {raw!r} is not valid JSON") from None
    elif opt.kind == "int":
        if not raw.isdigit():
            raise OptionError(f"option {key!r} must be a whole number from 0 to {opt.most}, "
                              f"not {raw!r}")
        value = int(raw)
    elif opt.kind == "bool":
        low = raw.lower()
        if low not in ("true", "false", "yes", "no", "1", "0", "on", "off"):
            raise OptionError(f"option {key!r} must be true or false, not {raw!r}")
        value = low in ("true", "yes", "1", "on")
    elif opt.kind in ("ranks", "cards", "choices"):
        value = [v for v in raw.replace(" ", ",").split(",") if v]
    elif opt.kind == "game_end":
        kind, _, n = raw.partition(":")
        if kind not in ("deals", "target") or not n.isdigit():
            raise OptionError(f"option {key!r} takes deals:N or target:N, not {raw!r}")
        value = {"type": kind, ("count" if kind == "deals" else "points"): int(n)}
    return key, opt.check(value)
