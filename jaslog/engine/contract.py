"""What the games' rows of the contract test (``tests/games/test_contract.py``) share.

Each game declares its rows in its own folder (``jaslog/games/<g>/contract.py``), so that a
new game adds no line to the test:

* ``NOT_JUDGED``: the results of a round, besides the game's ``won``, ``lost`` and
  ``tied``, that a closed round of a simulated game may have (a revoke scored as a penalty);
* ``WORDS``: what a scorer types at the recorder for each event, by event type: the lines,
  given the table before the event (a game without a ``record`` adapter: none);
* ``ORACLE``: one question per rules-oracle op, built from a played-out round's report
  entry, and what the answer must say (a game without oracle ops: none);
* ``UNTYPED``: fields of a simulated event the recorder cannot reproduce from typed words.

>>> lower(["AH", "10C"]), play_words(None, {"seat": 2, "card": "AH"})
('ah 10c', ['2 ah'])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jaslog.engine.fold import GameFold

Dict = dict[str, Any]
#: the lines a scorer types for one event, given the table before it
Words = Callable[[GameFold, Dict], list[str]]
#: an oracle question and the check of its answer
Query = tuple[Dict, Callable[[Dict], bool]]
#: an oracle question built from a round's report entry and the number of players
Question = Callable[[Dict, int], Query]


def lower(cards: list[str]) -> str:
    return " ".join(c.lower() for c in cards)


def four_hands(f: GameFold, e: Dict) -> list[str]:
    """A deal of four hands: 'deal' and seats 0-2 (seat 3 gets the rest), or 'deal unseen'."""
    hands = e.get("hands")
    return ["deal unseen"] if hands is None else ["deal", *[lower(h) for h in hands[:3]]]


def play_words(f: GameFold | None, e: Dict) -> list[str]:
    return [f"{e['seat']} {e['card'].lower()}"]


def played(rnd: Dict, players: int) -> list[list[str]]:
    """The cards each seat played in a reported round, in order."""
    out: list[list[str]] = [[] for _ in range(players)]
    for t in rnd["tricks"]:
        for i, c in enumerate(t["cards"]):
            out[(t["leader"] + i) % players].append(c)
    return out


def trump_of(rnd: Dict) -> Dict:
    return {"trump": rnd["trump"]} if rnd.get("trump") is not None else {}


def legal_question(rnd: Dict, players: int) -> Query:
    """The second card of trick 1 was legal (the round has no violation): the oracle agrees."""
    t = rnd["tricks"][0]
    seat = (t["leader"] + 1) % players
    hand = played(rnd, players)[seat]
    q = {"trick": t["cards"][:1], "hand": hand, **trump_of(rnd)}
    return q, lambda a: t["cards"][1] in a["legal"]


def winner_question(rnd: Dict, players: int) -> Query:
    t = rnd["tricks"][0]
    return ({"trick": t["cards"], **trump_of(rnd)},
            lambda a: (t["leader"] + a["winner"]) % players == t["winner"])


def points_question(rnd: Dict, players: int) -> Query:
    t = rnd["tricks"][0]
    return {"trick": t["cards"], **trump_of(rnd)}, lambda a: a["points"] == t["points"]
