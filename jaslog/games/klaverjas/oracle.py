"""The rules oracle of Klaverjas: ``legal``, ``winner``, ``points``, ``roem`` (a trick and
the trump suit) and ``score`` (a round from each team's points, roem and tricks).

>>> from jaslog.games.klaverjas.options import resolve
>>> answer("legal", {"trump": "H", "trick": ["AS", "7S"], "hand": ["7H", "AD", "KC"]},
...        resolve("amsterdam"))["legal"]
['7H', 'AD', 'KC']
>>> answer("score", {"points": [70, 92], "roem": [20, 0], "tricks": [4, 4], "chooser_team": 0,
...                  "revoke_team": None}, resolve("amsterdam"))
{'score': [0, 182], 'result': 'nat'}
"""

from __future__ import annotations

from typing import Any

from jaslog.cards import card_text
from jaslog.engine.jacknine import trick_points, trick_winner
from jaslog.engine.oracle import QueryError, query_cards, query_pair, query_trump
from jaslog.games.klaverjas.rules import (
    PlayRules,
    RoemRules,
    ScoreRules,
    explain,
    roem_parts,
    score_round,
)

#: The questions this game answers (``op``), in the order the README lists them.
OPS = ("legal", "winner", "points", "roem", "score")


def answer(op: str, q: dict[str, Any], opts: dict[str, Any]) -> dict[str, Any]:
    """The answer to query ``q`` (its ``op`` one of :data:`OPS`) under the options ``opts``."""
    if op == "score":
        ct = q.get("chooser_team")
        rt = q.get("revoke_team")
        if any(isinstance(x, bool) for x in (ct, rt)) or ct not in (0, 1) or rt not in (0, 1, None):
            raise QueryError("'chooser_team' is 0 or 1; 'revoke_team' is 0, 1 or null")
        tricks = query_pair(q, "tricks")
        if sum(tricks) != 8:
            raise QueryError(f"'tricks' must add up to 8, not {sum(tricks)}")
        points, last = query_pair(q, "points"), int(opts["last_trick_bonus"])
        if sum(points) != 152 + last:
            raise QueryError(f"'points' must add up to {152 + last} (152 in the cards, {last} "
                             f"for the last trick), not {sum(points)}")
        if any(t == 0 and p for p, t in zip(points, tricks, strict=True)):
            raise QueryError("a team without tricks has no points")
        roem = query_pair(q, "roem") if q.get("roem") is not None else [0, 0]
        score, result = score_round(ScoreRules.from_options(opts), points, roem, tricks, ct, rt)
        return {"score": score, "result": result}
    trump = query_trump(q)
    if op == "legal":
        trick = query_cards(q, "trick", 0, 3)
        hand = query_cards(q, "hand", 1, 8)
        if set(trick) & set(hand):
            raise QueryError("a card is both in the trick and in the hand")
        mask, why = explain(sum(1 << c for c in hand), trick, trump, PlayRules.from_options(opts))
        return {"legal": [card_text(c) for c in hand if mask >> c & 1], "why": why}
    if op == "winner":
        return {"winner": trick_winner(query_cards(q, "trick", 1, 4), trump)}
    if op == "points":
        trick = query_cards(q, "trick", 1, 4)
        last = bool(q.get("last", False))
        return {"points": trick_points(trick, trump) + (opts["last_trick_bonus"] if last else 0)}
    trick = query_cards(q, "trick", 4, 4)
    parts = roem_parts(trick, trump, RoemRules.from_options(opts))
    return {"roem": sum(p for _, p in parts), "parts": [k for k, p in parts if p]}


#: How a ``score`` query of this game looks (``{ruleset}``: the preset's name).
SCORE_EXAMPLE = ('{{"op": "score", "ruleset": "{ruleset}", "points": [P0, P1], "roem": [R0, R1], '
                 '"tricks": [T0, T1], "chooser_team": TEAM, "revoke_team": TEAM or null}}')
