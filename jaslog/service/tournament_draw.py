"""The draw of a knock-out tournament (rule book section 9, decision 7): tables of four
with new teams every round (:func:`draw_tables`), the lucky losers who take the places of
winners who withdrew (:func:`lucky_losers`), and the score of a round given up
(:func:`forfeit_score`). Pure: :mod:`jaslog.service.tournaments` keeps the rows.
"""

from __future__ import annotations

import random
from typing import Any

from jaslog.engine.fold import GameFold
from jaslog.errors import JaslogError


class TournamentError(JaslogError, ValueError):
    """A tournament request that cannot be carried out; ``status`` is the HTTP answer."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def rounds_for(n: int) -> int | None:
    """How many rounds ``n`` players play (4 * 2**k players), or None."""
    k, m = 1, 4
    while m < n:
        m, k = m * 2, k + 1
    return k if m == n else None


def draw_tables(players: list[str], seed: int, round_no: int,
                partners: set[frozenset[str]]) -> list[list[str]]:
    """Shuffle ``players`` into tables of four (seats 0 and 2, 1 and 3 are partners) so that
    no pair in ``partners`` (last round's teams) is a team again. Deterministic for a seed.

    >>> t = draw_tables(["a", "b", "c", "d"], 1, 2, {frozenset("ab"), frozenset("cd")})
    >>> sorted(map(frozenset, (t[0][0::2], t[0][1::2]))) != sorted([frozenset("ab"), frozenset("cd")])
    True
    """
    rng = random.Random(f"{seed}:{round_no}")
    order = list(players)
    for _ in range(10000):
        rng.shuffle(order)
        tables = [order[i:i + 4] for i in range(0, len(order), 4)]
        teams = [frozenset(t[k::2]) for t in tables for k in (0, 1)]
        if not any(team in partners for team in teams):
            return tables
    raise TournamentError(409, "no_new_teams", "no draw of new teams was found")  # pragma: no cover


def forfeit_score(fold: GameFold, seat: int) -> list[int]:
    """The score of a round given up by ``seat`` (a withdrawal): nothing for its side, and
    for the other side all the card points of a round (Klaverjas: 162), within what one round
    can score (:meth:`~jaslog.engine.base.RoundBook.most_round_score`).

    >>> from jaslog.play.fold import start_fold
    >>> from jaslog.events import parse_event
    >>> f = start_fold(parse_event('{"game":"g","seq":0,"type":"game_started",'
    ...     '"ruleset":"amsterdam","seats":["a","b","c","d"],"dealer":0}'))
    >>> forfeit_score(f, 1)
    [162, 0]
    """
    state = fold.state
    most = int(state.most_round_score())
    points = min(int(getattr(getattr(state, "score_rules", None), "total", most)), most)
    teams = state.scores * 2 == len(fold.seats)
    score = [points] * state.scores
    score[seat % state.scores if teams else seat] = 0
    return score


def lucky_losers(tables: list[dict[str, Any]], out: set[str], seed: int, round_no: int,
                 places: int) -> list[str]:
    """``places`` players of the losing teams of a finished round (``tables`` as the standing
    shows them), for the places of winners who withdrew: the players whose team scored most
    first, then in an order drawn from the tournament's seed; nobody in ``out``.

    >>> t = [{"winner": 0, "teams": [["a", "c"], ["b", "d"]], "totals": [1001, 640]},
    ...      {"winner": 1, "teams": [["e", "g"], ["f", "h"]], "totals": [980, 1010]}]
    >>> sorted(lucky_losers(t, {"b"}, 1, 1, 2))
    ['e', 'g']
    """
    rng = random.Random(f"{seed}:{round_no}:lucky")
    ranked: list[tuple[int, float, str]] = []
    for g in tables:
        w = g["winner"]
        if not isinstance(w, int):
            continue
        ranked += [(-g["totals"][1 - w], rng.random(), p) for p in g["teams"][1 - w]
                   if p not in out]
    return [p for _, _, p in sorted(ranked)[:places]]
