"""The rules oracle behind ``jaslog rules`` and the service: queries and their answers,
worked out from the rule book."""

from __future__ import annotations

from typing import Any

import pytest

from jaslog.play.oracle import OPS, QueryError, answer

QUERIES: list[tuple[Any, dict[str, Any]]] = [
    ({"op": "legal", "ruleset": "amsterdam", "trump": "H", "trick": ["AS", "7S"],
      "hand": ["KC", "7H", "AD"]}, {"legal": ["KC", "7H", "AD"]}),          # hand order kept
    ({"op": "legal", "trump": "H", "trick": ["7S", "AS"], "hand": ["KC", "8H", "AD", "7H"]},
     {"legal": ["8H", "7H"]}),
    ({"op": "legal", "ruleset": "rotterdam", "trump": "H", "trick": "AS 9H",
      "hand": "7C JH 8H"}, {"legal": ["JH"]}),
    ({"op": "legal", "trump": "H", "trick": ["AS", "9H", "7S"], "hand": ["8H", "7C", "JH"],
      "options": {"amsterdam_partner_trump": "discard_only"}}, {"legal": ["7C"]}),
    ({"op": "winner", "ruleset": "amsterdam", "trump": "H", "trick": ["AS", "7H", "10S", "KS"]},
     {"winner": 1}),
    ({"op": "points", "ruleset": "amsterdam", "trump": "S", "trick": ["JS", "9S", "AS", "10S"]},
     {"points": 55}),
    ({"op": "points", "trump": "S", "trick": ["JS"], "last": True,
      "options": {"last_trick_bonus": 0}}, {"points": 20}),
    ({"op": "roem", "ruleset": "amsterdam", "trump": "H", "trick": ["AH", "KH", "QH", "JH"]},
     {"roem": 70, "parts": ["run4", "stuk"]}),
    ({"op": "score", "ruleset": "amsterdam", "points": [162, 0], "roem": [0, 0], "tricks": [8, 0],
      "chooser_team": 0, "revoke_team": None}, {"score": [262, 0], "result": "pit"}),
    ({"op": "score", "points": [0, 162], "roem": [0, 20], "tricks": [0, 8], "chooser_team": 0,
      "revoke_team": None, "options": {"pit_for": "playing_team"}},
     {"score": [0, 182], "result": "nat"}),
    ({"op": "score", "points": [90, 62], "tricks": [5, 3], "chooser_team": 0,  # no roem: none
      "options": {"last_trick_bonus": 0}}, {"score": [90, 62], "result": "made"}),
]
BAD_QUERIES: list[tuple[Any, str]] = [
    ({"op": "fly"}, "unknown op 'fly'"),
    ([1, 2], "a query is a JSON object"),
    ({"op": "legal", "ruleset": "paris"}, "unknown ruleset 'paris'"),
    ({"op": "legal", "trump": "H", "trick": [], "hand": ["7H"], "options": {"x": 1}},
     "unknown option 'x'"),
    ({"op": "legal", "trump": "H", "trick": [], "hand": ["7H"], "options": "x"},
     "'options' must be an object"),
    ({"op": "legal", "trump": "H", "trick": [], "hand": []}, "'hand' must hold 1 to 8 cards"),
    ({"op": "legal", "trump": "H", "trick": [], "hand": ["7H", "7H"]}, "names a card twice"),
    ({"op": "legal", "trump": "H", "trick": 5, "hand": ["7H"]}, "'trick' must be a list"),
    ({"op": "winner", "trump": "H"}, "'trick' must be a list"),
    ({"op": "roem", "trump": "H", "trick": ["AH"]}, "4 to 4 cards"),
    ({"op": "score", "points": [1], "roem": [0, 0], "tricks": [4, 4], "chooser_team": 0},
     "'points' must be two whole numbers"),
    ({"op": "score", "points": [1, 2], "roem": [0, 0], "tricks": [4, 4], "chooser_team": True,
      "revoke_team": None}, "'chooser_team' is 0 or 1"),
    ({"op": "winner", "trump": "", "trick": ["AS"]}, "trump"),
    ({"op": "score", "points": [100, 100], "tricks": [4, 4], "chooser_team": 0},
     "'points' must add up to 162"),
    ({"op": "winner", "ruleset": "kloepper", "trump": "H", "trick": ["QC"]},
     "kloepper's trumps are permanent"),
]


@pytest.mark.parametrize("q, expected", QUERIES)
def test_oracle_answers(q: Any, expected: dict[str, Any]) -> None:
    a = answer(q)
    assert {k: a[k] for k in expected} == expected


@pytest.mark.parametrize("q, message", BAD_QUERIES)
def test_oracle_refuses(q: Any, message: str) -> None:
    with pytest.raises(QueryError) as err:
        answer(q)
    assert message in str(err.value)


def test_ops() -> None:
    assert {"legal", "winner", "points", "roem", "score"} <= set(OPS)


def test_legal_explains_why() -> None:
    a = answer({"op": "legal", "trump": "H", "trick": ["AS", "9H", "7S"], "hand": ["JH", "8H", "7C"]})
    assert a["legal"] == ["JH", "7C"]
    assert "partner wins with the trump 9H" in a["why"]


def test_default_ruleset_is_amsterdam() -> None:
    q = {"op": "legal", "trump": "H", "trick": ["AS", "7S"], "hand": ["8H", "7C"]}
    assert answer(q)["legal"] == ["8H", "7C"]                       # partner wins: anything
    assert answer({**q, "ruleset": "rotterdam"})["legal"] == ["8H"]  # Rotterdam: trump


def test_lenient_cards_and_suits() -> None:
    a = answer({"op": "winner", "trump": "♥", "trick": "as th 10s ks"})
    assert a == {"winner": 1}
    a = answer({"op": "points", "trump": "hearts", "trick": ["J♥", "9h"]})
    assert a == {"points": 34}

