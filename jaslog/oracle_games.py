"""The rules oracle for Klaberjass and Kloepper (called by :func:`jaslog.oracle.answer`).

Klaberjass ops: ``legal``, ``winner``, ``points`` (a trick of one or two cards, ``trump``),
``sequences`` (two hands: who scores sequences), ``bidding`` (the calls so far: what comes
next, or how it ended) and ``score`` (a deal from each player's points). Kloepper ops:
``legal``, ``winner``, ``points`` (no trump suit: the permanent trumps), ``sides`` (four
hands and the call: the black-queen side) and ``score`` (the row of the score table).

>>> from jaslog.oracle import answer
>>> answer({"op": "legal", "ruleset": "klaberjass-2p", "trump": "H", "trick": ["10H"],
...         "hand": ["7H", "9H", "AS"]})["legal"]
['9H']
>>> answer({"op": "bidding", "ruleset": "klaberjass-2p", "dealer": 1, "turn_up": "QH",
...         "calls": ["pass", "pass", "S"]})["trump"]
'S'
>>> answer({"op": "legal", "ruleset": "kloepper", "trick": ["AH"], "hand": ["JH", "QH", "9C"]})["legal"]
['QH']
>>> answer({"op": "score", "ruleset": "kloepper", "queens_points": 95, "queens_tricks": 5,
...         "mode": "pair", "queens": [0, 2]})["score"]
[4, 0, 4, 0]
"""

from __future__ import annotations

from typing import Any

from jaslog.cards import CARD_TEXT, CardError, card_text, parse_card
from jaslog.oracle import QueryError, query_cards, query_trump
from jaslog.rules import klaberjass as kb
from jaslog.rules import kloepper as kp
from jaslog.rules.jacknine import trick_points, trick_winner


def _int(q: dict[str, Any], key: str, lo: int, hi: int, default: int | None = None) -> int:
    v = q.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise QueryError(f"{key!r} must be a whole number from {lo} to {hi}, not {v!r}")
    return v


def _ints(q: dict[str, Any], key: str, n: int, what: str, default: list[int] | None = None) -> list[int]:
    v = q.get(key, default)
    if not (isinstance(v, list) and len(v) == n and all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)):
        raise QueryError(f"{key!r} must be {n} whole numbers >= 0, {what}")
    return v


def _seat(q: dict[str, Any], key: str, players: int, allow_none: bool = False) -> int | None:
    v = q.get(key)
    if v is None and allow_none:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or v not in range(players):
        raise QueryError(f"{key!r} is a seat, 0 to {players - 1}" + (" or null" if allow_none else "")
                         + f", not {v!r}")
    return v


def _hands(q: dict[str, Any], n: int, lo: int, hi: int) -> list[int]:
    raw = q.get("hands")
    if not isinstance(raw, list) or len(raw) != n:
        raise QueryError(f"'hands' must be {n} lists of cards, one per seat")
    masks = []
    seen = 0
    for i, h in enumerate(raw):
        cards = query_cards({"hand": h}, "hand", lo, hi)
        m = sum(1 << c for c in cards)
        if m & seen:
            raise QueryError(f"hand {i} shares a card with an earlier hand")
        seen |= m
        masks.append(m)
    return masks


def _legal(hand: list[int], mask: int, why: str) -> dict[str, Any]:
    return {"legal": [card_text(c) for c in hand if mask >> c & 1], "why": why}


# ---------------------------------------------------------------------- Klaberjass


def answer_klaberjass(op: str, q: dict[str, Any], opts: dict[str, Any]) -> dict[str, Any]:
    if op == "bidding":
        return _bidding(q, opts)
    if op == "score":
        maker = _seat(q, "maker", 2)
        assert maker is not None
        revoke = _seat(q, "revoke", 2, allow_none=True)
        points = _ints(q, "points", 2, "card points with the last trick, one per player")
        seqs = _ints(q, "sequences", 2, "sequence points, one per player", [0, 0])
        bella = _ints(q, "bella", 2, "bella points, one per player", [0, 0])
        totals = [points[s] + seqs[s] + bella[s] for s in (0, 1)]
        ds = kb.score_deal(kb.ScoreRules.from_options(opts), totals, maker, revoke)
        return {"score": ds.score, "result": ds.result, "held": ds.held, "totals": totals}
    trump = query_trump(q)
    if op == "sequences":
        hands = _hands(q, 2, 0, 9)
        elder = _seat(q, "elder", 2) if "elder" in q else 0
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
        return _legal(hand, mask, why)
    trick = query_cards(q, "trick", 1, 2)
    if op == "winner":
        return {"winner": trick_winner(trick, trump)}
    last = q.get("last", False)
    if not isinstance(last, bool):
        raise QueryError("'last' is true or false")
    return {"points": trick_points(trick, trump) + (opts["last_trick_bonus"] if last else 0)}


def _bidding(q: dict[str, Any], opts: dict[str, Any]) -> dict[str, Any]:
    dealer = _seat(q, "dealer", 2)
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


# ---------------------------------------------------------------------- Kloepper


def _pack(cards: list[int]) -> list[int]:
    for c in cards:
        if not kp.PACK >> c & 1:
            raise QueryError(f"{card_text(c)} is not in the kloepper pack (9 10 J Q K A)")
    return cards


def answer_kloepper(op: str, q: dict[str, Any], opts: dict[str, Any]) -> dict[str, Any]:
    trumps = kp.Trumps.from_options(opts)
    if q.get("trump") is not None:
        raise QueryError("kloepper's trumps are permanent (`jaslog rules options -r kloepper`): "
                         "there is no trump suit to name; leave out 'trump' (--trump)")
    if op == "score":
        mode = q.get("mode", "pair")
        if mode not in ("pair", "alone"):
            raise QueryError("'mode' is pair (the queens split, or a called ace) or alone")
        flags = {k: q.get(k, False) for k in ("knock", "knock_back")}
        if any(not isinstance(v, bool) for v in flags.values()):
            raise QueryError("'knock' and 'knock_back' are true or false")
        ds = kp.score_deal(kp.ScoreTable.from_options(opts), str(mode),
                           _int(q, "queens_points", 0, 120), _int(q, "queens_tricks", 0, 6),
                           knock=flags["knock"], knock_back=flags["knock_back"] and flags["knock"])
        out: dict[str, Any] = {"queens_each": ds.queens_each, "others_each": ds.others_each,
                               "row": ds.row}
        if q.get("queens") is not None:
            qs = q["queens"]
            if not (isinstance(qs, list) and 1 <= len(qs) <= 2 and all(
                    x in range(4) and not isinstance(x, bool) for x in qs)):
                raise QueryError("'queens' lists the seats (0-3) of the black-queen side")
            out["score"] = [ds.queens_each if s in qs else ds.others_each for s in range(4)]
        return out
    if op == "sides":
        hands = _hands(q, 4, 6, 6)
        for h in hands:
            _pack([c for c in range(32) if h >> c & 1])
        raw = q.get("call")
        call: kp.Call | None = None
        if raw is not None:
            if not (isinstance(raw, dict) and raw.get("call") in ("AC", "AD", "AH", "AS", "alone")):
                raise QueryError("'call' is null or {\"seat\": s, \"call\": \"AH\" | ... | \"alone\"}")
            seat = _seat(raw, "seat", 4)
            assert seat is not None
            call = (seat, str(raw["call"]))
        sd = kp.sides(hands, call)
        return {"queens": list(sd.queens), "mode": sd.mode, "scoring": sd.scoring,
                "caller": sd.caller, "partner": sd.partner,
                "black_queens": [CARD_TEXT[kp.QC], CARD_TEXT[kp.QS]]}
    if op == "legal":
        trick = _pack(query_cards(q, "trick", 0, 3))
        hand = _pack(query_cards(q, "hand", 1, 6))
        if set(trick) & set(hand):
            raise QueryError("a card is both in the trick and in the hand")
        mask, why = kp.explain(sum(1 << c for c in hand), trick, trumps,
                               bool(opts["must_trump_when_void"]))
        return _legal(hand, mask, why)
    trick = _pack(query_cards(q, "trick", 1, 4))
    if op == "winner":
        return {"winner": trumps.winner(trick)}
    return {"points": kp.trick_points(trick)}
