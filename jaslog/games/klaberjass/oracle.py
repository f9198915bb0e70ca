"""The rules oracle of Klaberjass: ``legal``, ``winner``, ``points`` (a trick of one or two
cards, ``trump``), ``sequences`` (two hands: who scores sequences), ``bidding`` (the calls so
far: what comes next, or how it ended) and ``score`` (a deal from each player's points).

>>> from jaslog.games.klaberjass.options import resolve
>>> answer("legal", {"trump": "H", "trick": ["10H"], "hand": ["7H", "9H", "AS"]},
...        resolve("klaberjass-2p"))["legal"]
['9H']
>>> answer("bidding", {"dealer": 1, "turn_up": "QH", "calls": ["pass", "pass", "S"]},
...        resolve("klaberjass-2p"))["trump"]
'S'
"""

from __future__ import annotations

from typing import Any

from jaslog.cards import CardError, parse_card
from jaslog.engine.jacknine import trick_points, trick_winner
from jaslog.engine.oracle import (
    QueryError,
    legal_answer,
    query_cards,
    query_hands,
    query_ints,
    query_seat,
    query_trump,
)
from jaslog.games.klaberjass import rules as kb

#: The questions this game answers (``op``), in the order the README lists them.
OPS = ("legal", "winner", "points", "sequences", "bidding", "score")


def answer(op: str, q: dict[str, Any], opts: dict[str, Any]) -> dict[str, Any]:
    if op == "bidding":
        return _bidding(q, opts)
    if op == "score":
        maker = query_seat(q, "maker", 2)
        assert maker is not None
        revoke = query_seat(q, "revoke", 2, allow_none=True)
        points = query_ints(q, "points", 2, "card points with the last trick, one per player")
        seqs = query_ints(q, "sequences", 2, "sequence points, one per player", [0, 0])
        bella = query_ints(q, "bella", 2, "bella points, one per player", [0, 0])
        totals = [points[s] + seqs[s] + bella[s] for s in (0, 1)]
        ds = kb.score_deal(kb.ScoreRules.from_options(opts), totals, maker, revoke)
        return {"score": ds.score, "result": ds.result, "held": ds.held, "totals": totals}
    trump = query_trump(q)
    if op == "sequences":
        hands = query_hands(q, 2, 0, 9)
        elder = query_seat(q, "elder", 2) if "elder" in q else 0
        assert elder is not None
        per = [kb.runs(h) for h in hands]
        res = kb.score_sequences(per, trump, elder, kb.SequenceRules.from_options(opts))
        return {"sequences": [[kb.run_text(r) for r in rs] for rs in per], "best": res.best,
                "points": res.points, "why": res.reason}
    if op == "legal":
        trick = query_cards(q, "trick", 0, 1)
        hand = query_cards(q, "hand", 1, 9)
        if set(trick) & set(hand):
            raise QueryError("a card is both in the trick and in the hand")
        mask, why = kb.explain(sum(1 << c for c in hand), trick, trump,
                               kb.PlayRules.from_options(opts))
        return legal_answer(hand, mask, why)
    trick = query_cards(q, "trick", 1, 2)
    if op == "winner":
        return {"winner": trick_winner(trick, trump)}
    last = q.get("last", False)
    if not isinstance(last, bool):
        raise QueryError("'last' is true or false")
    return {"points": trick_points(trick, trump) + (opts["last_trick_bonus"] if last else 0)}


def _bidding(q: dict[str, Any], opts: dict[str, Any]) -> dict[str, Any]:
    dealer = query_seat(q, "dealer", 2)
    assert dealer is not None
    try:
        turn_up = parse_card(str(q.get("turn_up", "")), lenient=True)
    except CardError as e:
        raise QueryError(f"turn_up: {e}") from None
    calls = q.get("calls", [])
    if not isinstance(calls, list):
        raise QueryError("'calls' is a list: calls (\"pass\") or {\"seat\": s, \"call\": c}")
    b = kb.Bidding(dealer, turn_up >> 3, opts)
    violations = []
    for i, c in enumerate(calls):
        seat, call = (c.get("seat"), c.get("call")) if isinstance(c, dict) else (b.turn, c)
        if seat not in (0, 1) or not isinstance(call, str):
            raise QueryError(f"call {i + 1}: {c!r} is not a call (a text, or {{seat, call}})")
        try:
            for code, msg in b.bid(int(seat), call):
                violations.append({"call": i + 1, "rule": code, "message": msg})
        except ValueError as e:
            raise QueryError(f"call {i + 1}: {e}") from None
    next_dealer = None
    if b.annulled == "all_pass":
        next_dealer = b.elder
    elif b.annulled == "schmeiss":
        next_dealer = dealer if opts["schmeiss_annul_next_dealer"] == "same" else b.elder
    return {"stage": b.stage, "turn": None if b.over else b.turn, "allowed": b.allowed_calls(),
            "trump": "CDHS"[b.trump] if b.trump is not None else None, "maker": b.maker,
            "annulled": b.annulled, "next_dealer": next_dealer,
            "dix": b.turn_up_accepted and bool(opts["dix_exchange"]),
            "violations": violations}


#: How a ``score`` query of this game looks (``{ruleset}``: the preset's name).
SCORE_EXAMPLE = ('{{"op": "score", "ruleset": "{ruleset}", "points": [P0, P1], "maker": SEAT, '
                 '"sequences": [S0, S1], "bella": [B0, B1], "revoke": SEAT or null}}')
