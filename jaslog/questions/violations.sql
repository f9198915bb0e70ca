-- question: Which rules are broken at the table (plays, roem and melds, bidding, calls), and how often?
-- by: all
-- by: ruleset
-- by: year
-- score_only: true
-- note: One row per game (kind) and rule code: how many times it was broken and in how many
-- note: games. category: play (a revoke), roem or bid in Klaverjas; play, meld (a sequence or
-- note: bella), dix or bid in Klaberjass; play, call or knock in Kloepper; irregularity in
-- note: every game (a fact of the table the rules do not turn into play, its kind as the rule).
-- note: A round recorded by its score alone counts what was recorded of it (irregularities,
-- note: no plays).
SELECT {by},
       k.kind,
       v.category,
       v.rule,
       count(*) AS violations,
       count(DISTINCT v.game) AS games
FROM violations v
JOIN (SELECT game, kind FROM games) k ON k.game = v.game
GROUP BY ALL
ORDER BY 1 NULLS LAST, 2, violations DESC, 4
