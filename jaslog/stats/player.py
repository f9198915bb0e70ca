"""A player's page, over the Parquet export: the games played (newest first) with their
results, the results and roles added up per game family, the rating after each game, and
the rules the player broke most often."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jaslog.stats.analytics import Dataset, _sql_text
from jaslog.stats.ratings import export_ratings

#: the most games the page lists
MOST_GAMES = 200


def player_page(out_dir: str | Path, player: str, *, public: bool = False,
                name: str | None = None) -> dict[str, Any]:
    """What the page of ``player`` (an id) shows; ``public``: over what the public may see
    (finished games, no round that ended with cards unplayed)."""
    p = _sql_text(player)
    with Dataset(out_dir, public=public) as ds:
        games = ds.query(f"""
            SELECT g.game, g.kind, g.ruleset, g.first_at AS started, g.finished, p.seat,
                   p.team, p.partner, p.score, p.won, g.draw, g.totals, g.players AS seats,
                   json_extract_string(g.meta, '$.event') AS event
            FROM players p JOIN games g USING (game)
            WHERE p.player = {p}
            ORDER BY g.first_at DESC NULLS LAST, g.game DESC
            LIMIT {MOST_GAMES}""").records()
        results = ds.query(f"""
            SELECT g.kind, count(*) AS games,
                   count(*) FILTER (WHERE g.finished) AS finished,
                   count(*) FILTER (WHERE p.won AND NOT g.draw) AS won,
                   count(*) FILTER (WHERE g.draw) AS drawn,
                   count(*) FILTER (WHERE g.finished AND NOT p.won AND NOT g.draw) AS lost,
                   round(avg(p.score) FILTER (WHERE g.finished), 2) AS average_score
            FROM players p JOIN games g USING (game)
            WHERE p.player = {p} GROUP BY g.kind ORDER BY g.kind""").records()
        roles = ds.query(f"""
            SELECT kind, sum(rounds)::BIGINT AS rounds,
                   sum(rounds_declarer)::BIGINT AS declarer,
                   sum(made_declarer)::BIGINT AS made_declarer,
                   sum(rounds_partner)::BIGINT AS partner,
                   sum(made_partner)::BIGINT AS made_partner,
                   sum(rounds_defending)::BIGINT AS defending,
                   sum(made_against)::BIGINT AS made_against,
                   sum(plays)::BIGINT AS plays, sum(tricks_won)::BIGINT AS tricks_won
            FROM players p JOIN (SELECT game, kind FROM games) g USING (game)
            WHERE p.player = {p} GROUP BY kind ORDER BY kind""").records()
        violations = ds.query(f"""
            SELECT v.rule, v.category, count(*) AS times, count(DISTINCT v.game) AS games
            FROM violations v
            WHERE v.player = {p} AND v.category <> 'irregularity'
            GROUP BY ALL ORDER BY times DESC, v.rule LIMIT 10""").records()
    ratings = [{"kind": r.kind, "game": r.game, "games": r.games,
                "at": r.at.isoformat().replace("+00:00", "Z") if r.at is not None else None,
                "rating": round(r.rating, 3), "uncertainty": round(r.uncertainty, 3),
                "ordinal": round(r.ordinal, 3)}
               for r in export_ratings(out_dir) if r.player == player]
    return {"player": player, "name": name, "view": "public" if public else "full",
            "games": games, "results": results, "roles": roles, "ratings": ratings,
            "violations": violations}
