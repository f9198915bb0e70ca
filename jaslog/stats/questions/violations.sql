-- question: Which rules are broken at the table (plays, roem and melds, bidding, calls, claims), and how often?
-- by: all
-- by: ruleset
-- by: year
-- game: v.game
-- score_only: true
-- note: One row per game (kind) and rule code: how many times it was broken and in how many
-- note: games. category: play (a revoke), roem or bid in Klaverjas; play, meld (a sequence or
-- note: bella), dix or bid in Klaberjass; play, call or knock in Kloepper; claim in every game
-- note: (a claim of the rest its side could not make). Irregularities (a card led out of turn,
-- note: an exposed card...) break no rule of play: the question irregularities counts them.
SELECT {by},
       k.kind,
       v.category,
       v.rule,
       count(*) AS violations,
       count(DISTINCT v.game) AS games
FROM violations v
JOIN (SELECT game, kind FROM games) k ON k.game = v.game
WHERE v.category <> 'irregularity'
GROUP BY ALL
ORDER BY 1 NULLS LAST, 2, violations DESC, 4
