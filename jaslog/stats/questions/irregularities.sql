-- question: Which irregularities happen at the table (cards led or played out of turn, exposed cards, misdeals), and how often?
-- by: all
-- by: ruleset
-- by: year
-- game: v.game
-- score_only: true
-- note: One row per game (kind) and kind of irregularity: how many were recorded and in how
-- note: many games. An irregularity is a fact of the table the rules do not turn into play
-- note: (rule book 9.1, decision 10): no rule of play was broken, so the violations question
-- note: leaves them out. A round recorded by its score alone counts the irregularities recorded
-- note: of it.
SELECT {by},
       k.kind,
       v.rule AS irregularity,
       count(*) AS irregularities,
       count(DISTINCT v.game) AS games
FROM violations v
JOIN (SELECT game, kind FROM games) k ON k.game = v.game
WHERE v.category = 'irregularity'
GROUP BY ALL
ORDER BY 1 NULLS LAST, 2, irregularities DESC, 3
