"""Klaberjass's rows of the contract test's tables (see :mod:`jaslog.engine.contract`)."""

from __future__ import annotations

from jaslog.engine.contract import (
    Dict,
    Question,
    Words,
    legal_question,
    lower,
    play_words,
    played,
    points_question,
    trump_of,
    winner_question,
)
from jaslog.engine.fold import GameFold

#: an annulled deal is not played
NOT_JUDGED = frozenset({"revoke", "annulled"})


def _deal(f: GameFold, e: Dict) -> list[str]:
    """Both hands and the turn-up (a recorded stock cannot be typed: see :data:`UNTYPED`)."""
    if e.get("hands") is None:
        return [f"deal unseen {e['turn_up'].lower()}"]
    return ["deal", lower(e["hands"][0]), lower(e["hands"][1]), e["turn_up"].lower()]


def _second_deal(f: GameFold, e: Dict) -> list[str]:
    """Both players' three cards and the bottom card (the recorder was given no stock)."""
    r = f.state.rounds[-1]
    if e.get("hands") is None:
        return ["second", e["bottom"].lower()]
    return ["second", lower(e["hands"][r.elder]), lower(e["hands"][r.dealer]),
            e["bottom"].lower()]


WORDS: dict[str, Words] = {
    "dealt": _deal,
    "bid": lambda f, e: [f"{e['seat']} {e['call'].lower()}"],
    "second_deal": _second_deal,
    "dix": lambda f, e: [f"dix {e['seat']}"],
    "sequence": lambda f, e: [f"seq {e['seat']} {lower(e['cards'])}"],
    "bella": lambda f, e: [f"bella {e['seat']}"],
    "play": play_words,
}

#: a stock is recorded only by ``deal random`` (the recorder shuffles it)
UNTYPED = frozenset({"stock"})

ORACLE: dict[str, Question] = {
    "legal": legal_question, "winner": winner_question, "points": points_question,
    "sequences": lambda r, n: ({"hands": played(r, n), "elder": r["elder"], **trump_of(r)},
                               lambda a: len(a["sequences"]) == 2),
    "bidding": lambda r, n: ({"dealer": r["dealer"], "turn_up": r["turn_up"], "calls": r["bids"]},
                             lambda a: (a["trump"], a["maker"]) == (r["trump"], r["chooser"])),
    "score": lambda r, n: ({"maker": r["chooser"], "revoke": None, "points": r["points"],
                            "sequences": r["sequences"], "bella": r["bella"]},
                           lambda a: (a["result"], a["score"]) == (r["result"], r["score"])),
}
