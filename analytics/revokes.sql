-- question: Which rules do illegal plays (revokes) break, and how often?
-- by: all
-- by: ruleset
-- by: year
-- plot: x=rule y=per_1000_plays
-- note: Plays whose legality is known (a round recorded without hands is judged once its 32
-- note: cards are in). per_1000_plays counts revokes of that rule per 1,000 such plays.
WITH judged AS (
    SELECT {by}, game, round, legal, rule FROM plays WHERE legal IS NOT NULL
),
totals AS (
    SELECT {dim}, count(*) AS plays FROM judged GROUP BY ALL
)
SELECT j.{dim},
       j.rule,
       count(*) AS revokes,
       count(DISTINCT (j.game, j.round)) AS rounds,
       any_value(t.plays) AS plays,
       count(*) * 1000.0 / any_value(t.plays) AS per_1000_plays
FROM judged j
JOIN totals t ON t.{dim} IS NOT DISTINCT FROM j.{dim}
WHERE NOT j.legal
GROUP BY ALL
ORDER BY 1 NULLS LAST, revokes DESC, 2
