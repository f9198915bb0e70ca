"""A club's competition table: the points of every game of an event (a season's
"competitie"), added up per player or per pair, over the Parquet export.

Counted: the **finished** games whose ``game_started`` names the event (``meta.event``, any
case), started between ``date_from`` and ``date_to`` (dates or RFC 3339 times, both
included; a date ``to`` takes in the whole day). A game in play counts once it ends (its
points are not final before). A player's points in a game are the final total of the
player's side (``players.score``: the referee's scores and score-only rounds included), so
a table by player adds up the score sheets.

The ways of counting (``count``), each with the others as tie-breakers:

* ``points``: the points added up;
* ``match``: match points, 2 for a game won, 1 for a draw, 0 for a game lost;
* ``average``: points per game.

``by``: ``player`` (each player alone) or ``team`` (a pair of partners, as the games seat
them: Klaverjas partners share a side; in a game where each plays for himself, the player
alone is the team).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jaslog.stats.analytics import AnalyticsError, Dataset, _sql_text, plain, time_bound

COUNTS = ("points", "match", "average")
BYS = ("player", "team")
#: what each count orders by (the first decides, the rest break ties)
ORDER = {"points": "points DESC, match_points DESC, average DESC",
         "match": "match_points DESC, points DESC, average DESC",
         "average": "average DESC, points DESC, match_points DESC"}


@dataclass
class Standings:
    event: str
    by: str
    count: str
    date_from: str | None
    date_to: str | None
    columns: list[str]
    rows: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"event": self.event, "by": self.by, "count": self.count,
                "from": self.date_from, "to": self.date_to, "rows": self.rows}


def standings(out_dir: str | Path, event: str, *, by: str = "player", count: str = "points",
              date_from: str | None = None, date_to: str | None = None,
              names: dict[str, str] | None = None) -> Standings:
    """The competition table of ``event`` over the export at ``out_dir`` (see the module)."""
    if by not in BYS:
        raise AnalyticsError(f"--by {by!r}: a table is by player or by team")
    if count not in COUNTS:
        raise AnalyticsError(f"--count {count!r}: count points, match (2 a win, 1 a draw) or "
                             "average (points per game)")
    start = time_bound(date_from, end=False, what="--from")
    stop = time_bound(date_to, end=True, what="--to")
    conds = ["g.finished", "g.error IS NULL",
             f"lower(json_extract_string(g.meta, '$.event')) = lower({_sql_text(event)})"]
    if start:
        conds.append(f"g.first_at >= {start}")
    if stop:
        conds.append(f"g.first_at < {stop}")
    member = ("list_sort(list_distinct([p.player, coalesce(p.partner, p.player)]))"
              if by == "team" else "[p.player]")
    sql = f"""
        WITH x AS (
            SELECT {member} AS who, p.game, p.score,
                   CASE WHEN g.draw THEN 1 WHEN p.won THEN 2 ELSE 0 END AS mp,
                   g.draw, p.won, strftime(g.first_at, '%Y-%m-%d') AS evening
            FROM players p JOIN games g USING (game)
            WHERE {' AND '.join(conds)}
        ), one AS (  -- a team once per game (both partners' rows say the same)
            SELECT DISTINCT ON (who, game) * FROM x
        )
        SELECT who, count(*) AS games, count(DISTINCT evening) AS evenings,
               count(*) FILTER (WHERE won AND NOT draw) AS won,
               count(*) FILTER (WHERE draw) AS drawn,
               count(*) FILTER (WHERE NOT won AND NOT draw) AS lost,
               sum(score)::BIGINT AS points, sum(mp)::BIGINT AS match_points,
               round(avg(score), 2) AS average
        FROM one GROUP BY who
        ORDER BY {ORDER[count]}, who
    """
    with Dataset(out_dir) as ds:
        res = ds.query(sql)
    rows: list[dict[str, Any]] = []
    prev: Any = object()
    rank = 0
    for i, rec in enumerate(res.records()):
        value = tuple(rec[c.split()[0]] for c in ORDER[count].split(", "))
        if value != prev:
            rank = i + 1
        prev = value
        who = [str(p) for p in plain(rec["who"])]
        label = " & ".join((names or {}).get(p) or p for p in who)
        rows.append({"rank": rank, by: label, "players": who, **{
            k: rec[k] for k in ("games", "evenings", "won", "drawn", "lost", "points",
                                "match_points", "average")}})
    cols = ["rank", by, "games", "evenings", "won", "drawn", "lost", "points", "match_points",
            "average"]
    return Standings(event, by, count, date_from, date_to, cols, rows)
