"""The option catalogue and the presets of the rule book (sections 7 and 9)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from jaslog.engine.options import OptionError
from jaslog.games import CATALOGUES, PRESETS, game_of, parse_option_text, resolve

KLAVERJAS_PRESETS = ["amsterdam", "amsterdam-kbn", "rotterdam", "klaverjas-online-501"]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_resolves_and_every_value_checks(name: str) -> None:
    opts = resolve(name)
    catalogue = CATALOGUES[game_of(name)]
    assert set(opts) == set(catalogue), "a preset sets exactly the options of its game"
    for key, value in opts.items():
        assert catalogue[key].check(value) == value


def test_presets_are_the_rule_books() -> None:
    assert set(PRESETS) == {*KLAVERJAS_PRESETS, "klaberjass-2p", "kloepper"}
    assert [game_of(p) for p in KLAVERJAS_PRESETS] == ["klaverjas"] * 4
    assert game_of("klaberjass-2p") == "klaberjass"
    assert game_of("kloepper") == "kloepper"


def test_amsterdam_defaults_section_7_and_9() -> None:
    o = resolve("amsterdam")
    assert o["trump_selection"] == "free"
    assert (o["free.start"], o["free.forced"]) == ("forehand", "starter")
    assert o["first_lead"] == "forehand"
    assert o["play"] == "amsterdam"
    assert o["amsterdam_partner_trump"] == "no_undertrump"
    assert o["amsterdam_cannot_overtrump"] == "discard"
    assert o["roem.four_kind_ranks"] == ["A", "K", "Q", "10"]   # 9/8/7 score nothing (9.2)
    assert (o["roem.run3"], o["roem.run4"], o["roem.stuk"]) == (20, 50, 20)
    assert (o["roem.four_kind"], o["roem.four_jacks"], o["roem.three_of_a_kind"]) == (100, 200, 0)
    assert o["roem.claim_mode"] == "claimed"                    # 9.3
    assert o["revoke"] == "penalty"                             # 9.4
    assert o["tie_is_failure"] is True
    assert (o["pit_bonus"], o["pit_for"], o["last_trick_bonus"]) == (100, "any_team", 10)
    assert o["game_end"] == {"type": "deals", "count": 16}
    assert o["game_tie"] == "draw"
    assert o["random.all_pass"] == "second_card_forced"
    assert o["random.source"] == "separate_pack"
    assert o["random.first_deal_clubs"] is False


def test_preset_differences() -> None:
    a = resolve("amsterdam")
    diff = {p: {k for k, v in resolve(p).items() if a[k] != v} for p in KLAVERJAS_PRESETS}
    assert diff["amsterdam"] == set()
    assert diff["rotterdam"] == {"play"}
    assert resolve("rotterdam")["rotterdam_must_undertrump"] is True
    assert diff["amsterdam-kbn"] == {"trump_selection", "roem.four_kind_ranks"}
    kbn = resolve("amsterdam-kbn")
    assert kbn["trump_selection"] == "utrecht"
    assert kbn["roem.four_kind_ranks"] == ["A", "K", "Q", "10", "9", "8", "7"]
    assert diff["klaverjas-online-501"] == {"trump_selection", "pit_for", "game_end", "game_tie"}
    online = resolve("klaverjas-online-501")
    assert online["game_end"] == {"type": "target", "points": 501}
    assert (online["pit_for"], online["game_tie"]) == ("playing_team", "extra_deal")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_resolved_preset_is_its_preset_as_json_reads_it(name: str) -> None:
    """Options are JSON: resolving a preset copies it as a JSON round trip would, without
    sharing a list or dict with it."""
    opts = resolve(name)
    assert opts == json.loads(json.dumps(PRESETS[name]))
    assert not [k for k, v in opts.items() if isinstance(v, (list, dict)) and v is PRESETS[name][k]]


def test_resolve_returns_a_fresh_copy() -> None:
    a = resolve("amsterdam")
    a["roem.four_kind_ranks"].append("9")
    a["game_end"]["count"] = 1
    assert resolve("amsterdam")["roem.four_kind_ranks"] == ["A", "K", "Q", "10"]
    assert resolve("amsterdam")["game_end"]["count"] == 16


# Every klaverjas option with one good value (other than the default) and bad values.
GOOD: dict[str, Any] = {
    "deal_pattern": "4-4", "dealer_rotation": "clockwise", "first_lead": "trump_chooser",
    "trump_selection": "random", "free.start": "dealer", "free.forced": "dealer",
    "random.source": "dealers_last_card", "random.first_deal_clubs": True,
    "random.all_pass": "twents", "play": "rotterdam", "amsterdam_partner_trump": "discard_only",
    "amsterdam_cannot_overtrump": "must_undertrump", "rotterdam_must_undertrump": False,
    "roem.run3": 25, "roem.run4": 0, "roem.stuk": 10, "roem.four_kind": 150,
    "roem.four_kind_ranks": ["A", "J"], "roem.four_jacks": 300, "roem.three_of_a_kind": 50,
    "roem.stuk_in_hand": True, "roem.claim_mode": "auto", "roem.claim_by": "winning_team",
    "last_trick_bonus": 0, "pit_bonus": 50, "pit_for": "playing_team", "tie_is_failure": False,
    "revoke": "ignore", "game_end": {"type": "target", "points": 1500}, "game_tie": "extra_deal",
}
BAD: dict[str, list[Any]] = {
    "deal_pattern": ["5-3", 323], "dealer_rotation": ["anticlockwise"],
    "first_lead": ["dealer", None], "trump_selection": ["auction", ""],
    "free.start": ["partner"], "free.forced": ["nobody"], "random.source": ["deck"],
    "random.first_deal_clubs": ["yes", 1, None], "random.all_pass": ["redeal"],
    "play": ["paris", "Amsterdam"], "amsterdam_partner_trump": ["undertrump"],
    "amsterdam_cannot_overtrump": ["overtrump"], "rotterdam_must_undertrump": ["true", 0],
    "roem.run3": [-1, "20", 2.5, True, 1001], "roem.run4": [None, 10**20], "roem.stuk": [-20],
    "roem.four_kind": [1.0], "roem.four_kind_ranks": ["A", ["B"], ["1"], None],
    "roem.four_jacks": [False], "roem.three_of_a_kind": ["x"], "roem.stuk_in_hand": ["no"],
    "roem.claim_mode": ["manual"], "roem.claim_by": ["anyone"], "last_trick_bonus": [-10],
    "pit_bonus": ["100"], "pit_for": ["both"], "tie_is_failure": [None],
    "revoke": ["forgive"], "game_end": [{"type": "deals"}, {"type": "deals", "count": 0},
                                        {"type": "target", "count": 10}, 16, "deals:16",
                                        {"type": "target", "points": 1500, "x": 1},
                                        {"type": "deals", "count": True},
                                        {"type": "deals", "count": 1001},
                                        {"type": "target", "points": 100_001}],
    "game_tie": ["replay"],
}


def test_the_tables_cover_every_klaverjas_option() -> None:
    keys = set(CATALOGUES["klaverjas"]) - {"game"}
    assert set(GOOD) == keys
    assert set(BAD) == keys


@pytest.mark.parametrize("key", sorted(GOOD))
def test_each_option_takes_a_good_value(key: str) -> None:
    for ruleset in KLAVERJAS_PRESETS:
        opts = resolve(ruleset, {key: GOOD[key]})
        assert opts[key] == GOOD[key]


@pytest.mark.parametrize("key, value", [(k, v) for k, vs in sorted(BAD.items()) for v in vs])
def test_each_option_refuses_a_bad_value(key: str, value: Any) -> None:
    with pytest.raises(OptionError) as err:
        resolve("amsterdam", {key: value})
    assert repr(key) in str(err.value)


def test_ranks_are_normalised() -> None:
    o = resolve("amsterdam", {"roem.four_kind_ranks": ["t", "9", "a", "A"]})
    assert o["roem.four_kind_ranks"] == ["A", "10", "9"]


def test_unknown_option_and_unknown_ruleset() -> None:
    with pytest.raises(OptionError, match=r"unknown option 'roem\.run5'"):
        resolve("amsterdam", {"roem.run5": 100})
    with pytest.raises(OptionError, match="unknown ruleset 'paris'"):
        resolve("paris")
    with pytest.raises(OptionError, match="unknown ruleset"):
        game_of("")
    with pytest.raises(OptionError, match="fixed by the ruleset"):
        resolve("amsterdam", {"game": "klaverjas"})
    # an option of another game is unknown here
    with pytest.raises(OptionError, match="unknown option 'bella'"):
        resolve("amsterdam", {"bella": 20})


def test_other_games_options_check() -> None:
    assert resolve("klaberjass-2p", {"target": 501})["target"] == 501
    with pytest.raises(OptionError):
        resolve("klaberjass-2p", {"tie_mode": "x"})
    assert resolve("kloepper", {"trumps": ["qc", "QS"]})["trumps"] == ["QC", "QS"]
    with pytest.raises(OptionError, match="'trumps'"):
        resolve("kloepper", {"trumps": ["QX"]})
    with pytest.raises(OptionError):
        resolve("kloepper", {"both_queens": ["call_ace", "ask"]})
    with pytest.raises(OptionError):
        resolve("kloepper", {"both_queens": []})


@pytest.mark.parametrize("text, key, value", [
    ("tie_is_failure=false", "tie_is_failure", False),
    ("tie_is_failure=TRUE", "tie_is_failure", True),
    ("roem.stuk_in_hand=yes", "roem.stuk_in_hand", True),
    ("roem.stuk_in_hand=off", "roem.stuk_in_hand", False),
    ("roem.stuk_in_hand=1", "roem.stuk_in_hand", True),
    ("pit_bonus=150", "pit_bonus", 150),
    (" pit_bonus = 0 ", "pit_bonus", 0),
    ("play=rotterdam", "play", "rotterdam"),
    ("game_end=target:1500", "game_end", {"type": "target", "points": 1500}),
    ("game_end=deals:8", "game_end", {"type": "deals", "count": 8}),
    ('game_end={"type":"deals","count":4}', "game_end", {"type": "deals", "count": 4}),
    ("roem.four_kind_ranks=A,K,Q,T,9", "roem.four_kind_ranks", ["A", "K", "Q", "10", "9"]),
    ("roem.four_kind_ranks=A K", "roem.four_kind_ranks", ["A", "K"]),
    ('roem.four_kind_ranks=["J","7"]', "roem.four_kind_ranks", ["J", "7"]),
])
def test_option_text(text: str, key: str, value: Any) -> None:
    assert parse_option_text("amsterdam", text) == (key, value)


@pytest.mark.parametrize("text, message", [
    ("tie_is_failure", "KEY=VALUE"),
    ("=true", "KEY=VALUE"),
    ("tie=true", "unknown option 'tie'"),
    ("tie_is_failure=maybe", "true or false"),
    ("pit_bonus=-5", "whole number"),
    ("pit_bonus=ten", "whole number"),
    ("play=paris", "must be one of amsterdam, rotterdam"),
    ("game_end=target", "deals:N or target:N"),
    ("game_end=rounds:16", "deals:N or target:N"),
    ("game_end={bad json", "not valid JSON"),
    ("roem.four_kind_ranks=A,B", "'B' is not a rank"),
    ("game_end=deals:0", "game_end"),
])
def test_bad_option_text(text: str, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        parse_option_text("amsterdam", text)


def test_option_text_for_other_games() -> None:
    assert parse_option_text("kloepper", "trumps=QC,QS,JC") == ("trumps", ["QC", "QS", "JC"])
    assert parse_option_text("kloepper", "both_queens=alone") == ("both_queens", ["alone"])
    with pytest.raises(OptionError, match="unknown ruleset"):
        parse_option_text("paris", "a=b")
