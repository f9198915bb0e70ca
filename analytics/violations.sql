-- question: Which rules are broken at the table (plays, roem claims, bidding), and how often?
-- by: all
-- by: ruleset
-- by: year
-- note: One row per rule code: how many times it was broken and in how many games.
SELECT {by},
       category,
       rule,
       count(*) AS violations,
       count(DISTINCT game) AS games
FROM violations
GROUP BY ALL
ORDER BY 1 NULLS LAST, violations DESC, rule
