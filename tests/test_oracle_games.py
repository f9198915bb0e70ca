"""The rule book on demand for Klaberjass (``jaslog.play.oracle``, ``jaslog.oracle_games``): the
bidding answer says whether the dix may be exchanged as the fold judges it."""

from __future__ import annotations

import pytest

from jaslog.play.oracle import answer


@pytest.mark.parametrize("calls, options, dix", [
    (["take"], {}, True),                                  # the turn-up accepted in round 1
    (["pass", "schmeiss", "play"], {}, True),              # a schmeiss played: the turn-up's suit
    (["pass", "pass", "S"], {}, False),                    # another suit named in round 2
    (["pass", "pass", "H"], {"second_round_any_suit": True}, False),  # the turn-up's, in round 2
    (["take"], {"dix_exchange": False}, False),            # the option turns the dix off
])
def test_the_dix_is_offered_only_when_the_turn_up_was_accepted_in_round_1(
        calls: list[str], options: dict[str, object], dix: bool) -> None:
    q = {"op": "bidding", "ruleset": "klaberjass-2p", "dealer": 1, "turn_up": "QH",
         "calls": calls}
    if options:
        q["options"] = options
    got = answer(q)
    assert got["trump"] is not None and got["dix"] is dix, got
