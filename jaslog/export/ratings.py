"""Player ratings: one per player per game family, updated game by game in the order played.

A rating is derived, never recorded: it is rebuilt from the games whenever they change (the
export writes it as its ``ratings`` table; ``jaslog ratings --rebuild`` folds the store's
games afresh). Both read the same two rows of each game, its ``games`` row and its
``players`` rows (:func:`outcomes`), and rate them the same way (:func:`rate`), so both
give the same numbers.

The model is openskill's Weng-Lin **Plackett-Luce**: a game is a ranking of sides, each
side one or more players, and a player's rating is a normal belief (``rating``, the mean;
``uncertainty``, its standard deviation) moved by how the sides finished against what the
ratings expected. Plackett-Luce takes any number of sides of any size in one update, linear
in the sides, with ties: a Klaverjas pair against a pair, two Klaberjass players, four
Kloepper players each for himself (the partners of a Kloepper deal are hidden and change
deal by deal: only each player's final total counts). Bradley-Terry-Full would compare
every pair of sides (the same for two sides, slower for four, no better on so few games).

Which side is whose follows the Game contract's ``scoring``: ``teams`` (the players of one
``players.team`` share a side and its total), ``players`` (each player is a side). A side's
place is its final total (``players.score``: the referee's scores included); equal totals
tie.

What counts: a **finished** game whose log folds. A game decided by a referee's ruling
counts as the ruling left it (the ruling's scores are its result); score-only rounds count
(their points are in the totals); an unfinished game does not count until it ends (it has
no result yet), nor does a game whose log stops at an integrity error (``games.error``: its
result is not known).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pyarrow as pa
from openskill.models import PlackettLuce, PlackettLuceRating

from jaslog.export.schema import SCHEMAS
from jaslog.games import get_game

#: openskill's default belief of a new player: mean 25, standard deviation 25/3
START_RATING = 25.0
START_UNCERTAINTY = 25.0 / 3


@dataclass(frozen=True)
class Outcome:
    """One finished game as the ratings see it: its sides (player ids) and their totals."""

    game: str
    kind: str
    part: str  # its partition in the export (ruleset=.../year=...)
    at: Any  # the time of its last event (a datetime, or None: the log has no times)
    first_at: Any
    sides: tuple[tuple[str, ...], ...]
    scores: tuple[int, ...]


@dataclass(frozen=True)
class Rating:
    """A player's rating in a game family after one game."""

    kind: str
    player: str
    game: str           # the game after which it holds
    at: Any             # that game's time
    games: int          # games rated so far
    rating: float
    uncertainty: float
    part: str = field(default="", compare=False)  # that game's partition in the export

    @property
    def ordinal(self) -> float:
        """The conservative rating openskill ranks by: ``rating - 3 * uncertainty``."""
        return self.rating - 3 * self.uncertainty


def _order(o: Outcome) -> tuple[Any, ...]:
    # in the order played: by the time the game ended, then began; games without times last
    return (o.at is None, o.at or 0, o.first_at is None, o.first_at or 0, o.game)


def outcomes(games: pa.Table, players: pa.Table, parts: dict[str, str]) -> list[Outcome]:
    """The finished games of an export's ``games`` and ``players`` rows, in the order played
    (see the module: what counts); ``parts``: each game's partition. The rows are read a
    column at a time (a dict per row cost three times as much).

    >>> from datetime import UTC, datetime
    >>> at = datetime(2026, 3, 1, 21, 40, tzinfo=UTC)
    >>> g = pa.table({"game": ["g-1", "g-2"], "kind": ["klaverjas"] * 2,
    ...               "finished": [True, False], "error": [None, None],
    ...               "first_at": [at, at], "last_at": [at, at]})
    >>> p = pa.table({"game": ["g-1"] * 4, "player": ["ann", "bob", "cas", "dee"],
    ...               "seat": [0, 1, 2, 3], "team": [0, 1, 0, 1], "score": [1200, 900] * 2})
    >>> [(o.game, o.sides, o.scores) for o in outcomes(g, p, {})]
    [('g-1', (('ann', 'cas'), ('bob', 'dee')), (1200, 900))]
    """
    def column(t: pa.Table, name: str) -> list[Any]:
        return t.column(name).to_pylist()

    seats: dict[str, list[tuple[Any, Any, str, Any]]] = {}
    for gid, player, seat, team, points in zip(*(column(players, c) for c in (
            "game", "player", "seat", "team", "score")), strict=True):
        seats.setdefault(gid, []).append((seat, team, player, points))
    by_teams: dict[str, bool] = {}  # kind -> whether a team shares a side
    out = []
    for gid, kind, finished, error, first_at, last_at in zip(*(column(games, c) for c in (
            "game", "kind", "finished", "error", "first_at", "last_at")), strict=True):
        if not finished or error is not None or gid not in seats:
            continue
        by_team = by_teams.get(kind)
        if by_team is None:
            by_team = by_teams[kind] = get_game(kind).scoring == "teams"
        sides: dict[Any, list[str]] = {}
        score: dict[Any, int] = {}
        for seat, team, player, total in sorted(seats[gid], key=lambda p: p[0]):
            key = team if by_team else seat
            sides.setdefault(key, []).append(player)
            score[key] = total
        if len(sides) < 2:
            continue
        keys = sorted(sides)
        out.append(Outcome(gid, kind, parts.get(gid, ""), last_at, first_at,
                           tuple(tuple(sides[k]) for k in keys), tuple(score[k] for k in keys)))
    out.sort(key=_order)
    return out


class _Teams(list):  # type: ignore[type-arg]
    """The sides handed to openskill's ``rate``, which deep-copies them before it changes
    them: copied here as openskill's own copy of a rating does (a new rating of the same
    mean, deviation and name, its id kept), without ``copy.deepcopy``'s walk over the lists
    and its memo (a sixth of the ratings' time). The numbers are the same: ``rate`` reads
    the same fields of the same values (``tests/club/test_ratings.py``)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> list[list[PlackettLuceRating]]:
        return [[_copied(r) for r in side] for side in self]


def _copied(r: PlackettLuceRating) -> PlackettLuceRating:
    c = PlackettLuceRating(r.mu, r.sigma, r.name)
    c.id = r.id
    return c


def rate(games: Iterable[Outcome]) -> list[Rating]:
    """Every player's rating after each game of ``games`` (rated in :func:`outcomes`' order),
    one row per player per game.

    >>> g = Outcome("g-1", "klaverjas", "", None, None, (("ann", "cas"), ("bob", "dee")),
    ...             (1200, 900))
    >>> [(r.player, r.games, round(r.rating, 3)) for r in rate([g])][:2]
    [('ann', 1, 26.964), ('cas', 1, 26.964)]
    """
    model = PlackettLuce(mu=START_RATING, sigma=START_UNCERTAINTY)
    now: dict[tuple[str, str], Any] = {}
    played: dict[tuple[str, str], int] = {}
    out: list[Rating] = []
    for o in sorted(games, key=_order):
        teams = _Teams([now.get((o.kind, p)) or model.rating(name=p) for p in side]
                       for side in o.sides)
        rated = model.rate(teams, scores=list(o.scores))
        for side, new in zip(o.sides, rated, strict=True):
            for p, r in zip(side, new, strict=True):
                key = (o.kind, p)
                now[key] = r
                played[key] = played.get(key, 0) + 1
                out.append(Rating(o.kind, p, o.game, o.at, played[key], float(r.mu),
                                  float(r.sigma), o.part))
    return out


def latest(rows: Sequence[Rating], *, kind: str | None = None,
           as_of: datetime | None = None) -> list[Rating]:
    """Each player's latest rating (of ``kind``; after the games that ended before ``as_of``,
    a datetime), best first (by :attr:`Rating.ordinal`)."""
    last: dict[tuple[str, str], Rating] = {}
    for r in rows:
        if kind is not None and r.kind != kind:
            continue
        if as_of is not None and (r.at is None or r.at >= as_of):
            continue
        last[(r.kind, r.player)] = r
    return sorted(last.values(), key=lambda r: (r.kind, -r.ordinal, r.player))


def ratings_tables(rows: Sequence[Rating]) -> dict[str, pa.Table]:
    """The ``ratings`` rows as Arrow tables, by the partition of the game each follows."""
    by_part: dict[str, list[Rating]] = {}
    for r in rows:
        by_part.setdefault(r.part, []).append(r)
    out = {}
    for part, rs in by_part.items():
        out[part] = pa.Table.from_pydict({
            "game": [r.game for r in rs], "kind": [r.kind for r in rs],
            "player": [r.player for r in rs], "at": [r.at for r in rs],
            "games": [r.games for r in rs], "rating": [r.rating for r in rs],
            "uncertainty": [r.uncertainty for r in rs],
            "ordinal": [r.ordinal for r in rs]}, schema=SCHEMAS["ratings"])
    return out


def from_rows(rows: Iterable[dict[str, Any]]) -> list[Rating]:
    """Ratings read back from the export's ``ratings`` table (dicts of its columns)."""
    return [Rating(r["kind"], r["player"], r["game"], r["at"], r["games"], r["rating"],
                   r["uncertainty"]) for r in rows]
