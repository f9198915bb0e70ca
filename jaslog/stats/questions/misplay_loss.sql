-- question: Which players lose the most points per round to misplay (what their plays cost against par)?
-- by: kind = g.kind
-- by: side = CASE WHEN p.playing_team THEN 'playing' WHEN NOT p.playing_team THEN 'defending' END
-- by: ruleset = p.ruleset
-- by: year = p.year
-- by: all
-- game: p.game
-- plot: x=player y=loss_per_round
-- score_only: false
-- empty: no round with a par (export with `jaslog export DIR --par`; only rounds whose hands are known have one)
-- note: Counts only rounds with a par: those of an export written with --par (jaslog export DIR
-- note: --par) whose hands are known. A play's loss is the par before it minus the par after
-- note: it, from the player's side (rule book 9.2, decision 17; 0 for a best card).
-- note: loss_per_round: the points the player's plays cost, on average, per analysed round the
-- note: player played in; mistakes cost 20 points or more. Points are each game's own
-- note: (Kloepper's table is worth a few points a deal), so compare players within a game
-- note: (kind). A round recorded by its score alone has no plays: left out.
SELECT {by},
       p.player,
       count(DISTINCT (p.game, p.round)) AS rounds,
       count(*) AS plays,
       count(*) FILTER (WHERE p.loss > 0) AS costly_plays,
       count(*) FILTER (WHERE p.loss >= 20) AS mistakes,
       sum(p.loss) AS points_lost,
       sum(p.loss) * 1.0 / count(DISTINCT (p.game, p.round)) AS loss_per_round,
       avg(p.loss) AS loss_per_play
FROM plays p
JOIN (SELECT game, kind FROM games) g ON g.game = p.game
WHERE p.loss IS NOT NULL
GROUP BY ALL
HAVING count(*) > 0
ORDER BY 1 NULLS LAST, loss_per_round DESC, 2
