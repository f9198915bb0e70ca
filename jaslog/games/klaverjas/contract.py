"""Klaverjas's rows of the contract test's tables (see :mod:`jaslog.engine.contract`)."""

from __future__ import annotations

from jaslog.engine.contract import (
    Dict,
    Question,
    Words,
    four_hands,
    legal_question,
    play_words,
    points_question,
    trump_of,
    winner_question,
)

NOT_JUDGED = frozenset({"revoke"})

WORDS: dict[str, Words] = {
    "dealt": four_hands,
    "bid": lambda f, e: [f"{e['seat']} {e['call'].lower()}"],
    "trump_turned": lambda f, e: [f"turn {e['card'].lower()}"],
    "roem": lambda f, e: [f"roem {e['points']} {e['seat']}"],
    "play": play_words,
}

UNTYPED: frozenset[str] = frozenset()


def _tricks_per_team(rnd: Dict) -> list[int]:
    won = [0, 0]
    for t in rnd["tricks"]:
        won[t["winner"] % 2] += 1
    return won


ORACLE: dict[str, Question] = {
    "legal": legal_question, "winner": winner_question, "points": points_question,
    "roem": lambda r, n: ({"trick": r["tricks"][0]["cards"], **trump_of(r)},
                          lambda a: a["roem"] == r["tricks"][0]["roem_on_table"]),
    "score": lambda r, n: ({"points": r["points"], "roem": r["roem"],
                            "tricks": _tricks_per_team(r), "chooser_team": r["chooser"] % 2,
                            "revoke_team": None},
                           lambda a: a == {"score": r["score"], "result": r["result"]}),
}
