-- question: Which rules do illegal plays (revokes) break, and how often?
-- by: all
-- by: ruleset
-- by: year
-- game: p.game
-- plot: x=rule y=per_1000_plays
-- score_only: false
-- note: Plays whose legality is known (a round recorded without hands is judged once all its
-- note: cards are in), per game (kind): each game has its own rules of play, so a rule's
-- note: per_1000_plays counts its revokes per 1,000 judged plays of that game. A round recorded
-- note: by its score alone has no plays: left out.
WITH judged AS (
    SELECT {by}, k.kind, p.game, p.round, p.legal, p.rule
    FROM plays p
    JOIN (SELECT game, kind FROM games) k ON k.game = p.game
    WHERE p.legal IS NOT NULL
),
totals AS (
    SELECT {dim}, kind, count(*) AS plays FROM judged GROUP BY ALL
)
SELECT j.{dim},
       j.kind,
       j.rule,
       count(*) AS revokes,
       count(DISTINCT (j.game, j.round)) AS rounds,
       any_value(t.plays) AS plays,
       count(*) * 1000.0 / any_value(t.plays) AS per_1000_plays
FROM judged j
JOIN totals t ON t.{dim} IS NOT DISTINCT FROM j.{dim} AND t.kind = j.kind
WHERE NOT j.legal
GROUP BY ALL
ORDER BY 1 NULLS LAST, 2, revokes DESC, 3
