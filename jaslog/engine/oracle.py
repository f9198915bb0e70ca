"""What every game's rules oracle shares: reading a query's fields, and its one error.

A query is a dict (one JSON object of ``jaslog rules --batch``); each reader gives the
value or raises :class:`QueryError`, whose message says which field is wrong and why.

>>> query_cards({"hand": "AS,7s"}, "hand", 1, 8)
[31, 24]
>>> query_pair({"points": [90]}, "points")
Traceback (most recent call last):
...
jaslog.engine.oracle.QueryError: 'points' must be two whole numbers >= 0, one per team
"""

from __future__ import annotations

from typing import Any

from jaslog.cards import CardError, card_text, parse_card, parse_suit
from jaslog.errors import JaslogError


class QueryError(JaslogError, ValueError):
    """A query the oracle cannot answer; the message says why."""

    code = "bad_query"


def query_cards(q: dict[str, Any], key: str, lo: int, hi: int) -> list[int]:
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


def query_pair(q: dict[str, Any], key: str) -> list[int]:
    v = q.get(key)
    if not (isinstance(v, list) and len(v) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)):
        raise QueryError(f"{key!r} must be two whole numbers >= 0, one per team")
    return v


def query_int(q: dict[str, Any], key: str, lo: int, hi: int, default: int | None = None) -> int:
    v = q.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise QueryError(f"{key!r} must be a whole number from {lo} to {hi}, not {v!r}")
    return v


def query_ints(q: dict[str, Any], key: str, n: int, what: str, default: list[int] | None = None) -> list[int]:
    v = q.get(key, default)
    if not (isinstance(v, list) and len(v) == n and all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)):
        raise QueryError(f"{key!r} must be {n} whole numbers >= 0, {what}")
    return v


def query_seat(q: dict[str, Any], key: str, players: int, allow_none: bool = False) -> int | None:
    v = q.get(key)
    if v is None and allow_none:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or v not in range(players):
        raise QueryError(f"{key!r} is a seat, 0 to {players - 1}" + (" or null" if allow_none else "")
                         + f", not {v!r}")
    return v


def query_hands(q: dict[str, Any], n: int, lo: int, hi: int) -> list[int]:
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


def legal_answer(hand: list[int], mask: int, why: str) -> dict[str, Any]:
    return {"legal": [card_text(c) for c in hand if mask >> c & 1], "why": why}
