"""Kloepper's rows of the contract test's tables (see :mod:`jaslog.engine.contract`)."""

from __future__ import annotations

from jaslog.engine.contract import (
    Dict,
    Question,
    Words,
    four_hands,
    legal_question,
    play_words,
    played,
    points_question,
    winner_question,
)
from jaslog.engine.fold import GameFold

NOT_JUDGED = frozenset({"revoke"})


def _partner_call(f: GameFold, e: Dict) -> list[str]:
    kind, _ = f.state.expected()
    return [e["call"].lower()] if kind == "call" else [f"call {e['call'].lower()} {e['seat']}"]


WORDS: dict[str, Words] = {
    "dealt": four_hands,
    "partner_call": _partner_call,
    "knock": lambda f, e: [f"knock {e['seat']}"],
    "knock_back": lambda f, e: [f"kb {e['seat']}"],
    "play": play_words,
}

UNTYPED: frozenset[str] = frozenset()

ORACLE: dict[str, Question] = {
    "legal": legal_question, "winner": winner_question, "points": points_question,
    "sides": lambda r, n: ({"hands": played(r, n), "call": (
                               {"seat": r["call"]["seat"], "call": r["call"]["call"]}
                               if r["call"] else None)},
                           lambda a: a["queens"] == r["queens"]),
    "score": lambda r, n: ({"queens_points": r["queens_points"],
                            "queens_tricks": r["queens_tricks"],
                            "mode": "alone" if r["mode"] == "alone" else "pair",
                            "queens": r["queens"], "knock": r["knock"],
                            "knock_back": r["knock_back"]},
                           lambda a: a["score"] == r["score"]),
}
