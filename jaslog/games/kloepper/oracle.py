"""The rules oracle of Kloepper: ``legal``, ``winner``, ``points`` (no trump suit: the
permanent trumps), ``sides`` (four hands and the call: the black-queen side) and ``score``
(the row of the score table).

>>> from jaslog.games.kloepper.options import resolve
>>> answer("legal", {"trick": ["AH"], "hand": ["JH", "QH", "9C"]}, resolve("kloepper"))["legal"]
['QH']
>>> answer("score", {"queens_points": 95, "queens_tricks": 5, "mode": "pair", "queens": [0, 2]},
...        resolve("kloepper"))["score"]
[4, 0, 4, 0]
"""

from __future__ import annotations

from typing import Any

from jaslog.cards import CARD_TEXT, card_text
from jaslog.engine.oracle import (
    QueryError,
    legal_answer,
    query_cards,
    query_hands,
    query_int,
    query_seat,
)
from jaslog.games.kloepper import rules as kp

#: The questions this game answers (``op``), in the order the README lists them.
OPS = ("legal", "winner", "points", "sides", "score")


def _pack(cards: list[int]) -> list[int]:
    for c in cards:
        if not kp.PACK >> c & 1:
            raise QueryError(f"{card_text(c)} is not in the kloepper pack (9 10 J Q K A)")
    return cards


def answer(op: str, q: dict[str, Any], opts: dict[str, Any]) -> dict[str, Any]:
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
                           query_int(q, "queens_points", 0, 120), query_int(q, "queens_tricks", 0, 6),
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
        hands = query_hands(q, 4, 6, 6)
        for h in hands:
            _pack([c for c in range(32) if h >> c & 1])
        raw = q.get("call")
        call: kp.Call | None = None
        if raw is not None:
            if not (isinstance(raw, dict) and raw.get("call") in ("AC", "AD", "AH", "AS", "alone")):
                raise QueryError("'call' is null or {\"seat\": s, \"call\": \"AH\" | ... | \"alone\"}")
            seat = query_seat(raw, "seat", 4)
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
        return legal_answer(hand, mask, why)
    trick = _pack(query_cards(q, "trick", 1, 4))
    if op == "winner":
        return {"winner": trumps.winner(trick)}
    return {"points": kp.trick_points(trick)}


#: How a ``score`` query of this game looks (``{ruleset}``: the preset's name).
SCORE_EXAMPLE = ('{{"op": "score", "ruleset": "{ruleset}", "queens_points": N, "queens_tricks": N, '
                 '"mode": "pair" or "alone", "queens": [SEATS], "knock": false, "knock_back": false}}')
