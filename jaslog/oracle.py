"""The rules oracle: questions about one trick or one round, answered by the rules engine.

Used by ``jaslog rules`` (one question, or JSON Lines in batch) and by the service. A query
is a dict with ``op`` and a ``ruleset`` (optionally ``options``); the ops of each game are
in :data:`GAME_OPS` (Klaberjass and Kloepper are answered by :mod:`jaslog.oracle_games`);
the answer is a dict, or :class:`QueryError`.

>>> answer({"op": "legal", "ruleset": "amsterdam", "trump": "H", "trick": ["AS", "7S"],
...         "hand": ["7H", "AD", "KC"]})["legal"]
['7H', 'AD', 'KC']
>>> answer({"op": "winner", "ruleset": "rotterdam", "trump": "H", "trick": ["AS", "7H"]})
{'winner': 1}
>>> answer({"op": "score", "ruleset": "amsterdam", "points": [70, 92], "roem": [20, 0],
...         "tricks": [4, 4], "chooser_team": 0, "revoke_team": None})
{'score': [0, 182], 'result': 'nat'}
"""

from __future__ import annotations

from typing import Any

from jaslog.cards import CardError, card_text, parse_card, parse_suit
from jaslog.rules.jacknine import trick_points, trick_winner
from jaslog.rules.klaverjas import (
    PlayRules,
    RoemRules,
    ScoreRules,
    explain,
    roem_parts,
    score_round,
)
from jaslog.rules.options import OptionError, game_of, resolve

#: The questions of each game (section headers of the README's oracle table).
GAME_OPS = {
    "klaverjas": ("legal", "winner", "points", "roem", "score"),
    "klaberjass": ("legal", "winner", "points", "sequences", "bidding", "score"),
    "kloepper": ("legal", "winner", "points", "sides", "score"),
}
OPS = tuple(dict.fromkeys(op for ops in GAME_OPS.values() for op in ops))


class QueryError(ValueError):
    """A query the oracle cannot answer; the message says why."""


def query_cards(q: dict[str, Any], key: str, lo: int, hi: int) -> list[int]:
    """The cards of ``q[key]`` (a list, or text ``"AS,7S"``), ``lo`` to ``hi`` of them."""
    return _cards(q, key, lo, hi)


def _cards(q: dict[str, Any], key: str, lo: int, hi: int) -> list[int]:
    raw = q.get(key)
    if isinstance(raw, str):
        raw = [x for x in raw.replace(",", " ").split() if x]
    if not isinstance(raw, list):
        raise QueryError(f"{key!r} must be a list of cards")
    try:
        cards = [parse_card(str(c), lenient=True) for c in raw]
    except CardError as e:
        raise QueryError(f"{key}: {e}") from None
    if len(set(cards)) != len(cards):
        raise QueryError(f"{key!r} names a card twice")
    if not lo <= len(cards) <= hi:
        raise QueryError(f"{key!r} must hold {lo} to {hi} cards, not {len(cards)}")
    return cards


def query_trump(q: dict[str, Any]) -> int:
    """The query's ``trump`` suit, or a :class:`QueryError` that says what is wrong."""
    if q.get("trump") is None:
        raise QueryError("'trump' is needed: the trump suit, C, D, H or S")
    try:
        return parse_suit(str(q["trump"]), lenient=True)
    except CardError as e:
        raise QueryError(f"trump: {e}") from None


def _pair(q: dict[str, Any], key: str) -> list[int]:
    v = q.get(key)
    if not (isinstance(v, list) and len(v) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)):
        raise QueryError(f"{key!r} must be two whole numbers >= 0, one per team")
    return v


def answer(q: Any) -> dict[str, Any]:
    """The answer to one query."""
    if not isinstance(q, dict):
        raise QueryError("a query is a JSON object")
    op = q.get("op")
    ruleset = q.get("ruleset", "amsterdam")
    if not isinstance(q.get("options") or {}, dict):
        raise QueryError("'options' must be an object of option overrides")
    try:
        if not isinstance(ruleset, str):
            raise QueryError(f"'ruleset' must be the name of a preset, not {ruleset!r}")
        game = game_of(ruleset)
        opts = resolve(ruleset, q.get("options"))
    except OptionError as e:
        raise QueryError(str(e)) from None
    if op not in OPS:
        raise QueryError(f"unknown op {op!r} (one of {', '.join(GAME_OPS[game])})")
    if op not in GAME_OPS[game]:
        raise QueryError(f"op {op!r} is not a question for {game} (its ops: "
                         f"{', '.join(GAME_OPS[game])})")
    if game != "klaverjas":
        from jaslog.oracle_games import answer_klaberjass, answer_kloepper

        try:
            return (answer_klaberjass if game == "klaberjass" else answer_kloepper)(op, q, opts)
        except ValueError as e:  # QueryError, or a bad value the rules refused
            raise QueryError(str(e)) from None
    if op == "score":
        ct = q.get("chooser_team")
        rt = q.get("revoke_team")
        if any(isinstance(x, bool) for x in (ct, rt)) or ct not in (0, 1) or rt not in (0, 1, None):
            raise QueryError("'chooser_team' is 0 or 1; 'revoke_team' is 0, 1 or null")
        tricks = _pair(q, "tricks")
        if sum(tricks) != 8:
            raise QueryError(f"'tricks' must add up to 8, not {sum(tricks)}")
        points, last = _pair(q, "points"), int(opts["last_trick_bonus"])
        if sum(points) != 152 + last:
            raise QueryError(f"'points' must add up to {152 + last} (152 in the cards, {last} "
                             f"for the last trick), not {sum(points)}")
        if any(t == 0 and p for p, t in zip(points, tricks, strict=True)):
            raise QueryError("a team without tricks has no points")
        roem = _pair(q, "roem") if q.get("roem") is not None else [0, 0]
        score, result = score_round(ScoreRules.from_options(opts), points, roem, tricks, ct, rt)
        return {"score": score, "result": result}
    trump = query_trump(q)
    if op == "legal":
        trick = _cards(q, "trick", 0, 3)
        hand = _cards(q, "hand", 1, 8)
        if set(trick) & set(hand):
            raise QueryError("a card is both in the trick and in the hand")
        mask, why = explain(sum(1 << c for c in hand), trick, trump, PlayRules.from_options(opts))
        return {"legal": [card_text(c) for c in hand if mask >> c & 1], "why": why}
    if op == "winner":
        return {"winner": trick_winner(_cards(q, "trick", 1, 4), trump)}
    if op == "points":
        trick = _cards(q, "trick", 1, 4)
        last = bool(q.get("last", False))
        return {"points": trick_points(trick, trump) + (opts["last_trick_bonus"] if last else 0)}
    trick = _cards(q, "trick", 4, 4)
    parts = roem_parts(trick, trump, RoemRules.from_options(opts))
    return {"roem": sum(p for _, p in parts), "parts": [k for k, p in parts if p]}
