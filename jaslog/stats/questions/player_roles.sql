-- question: How does each player do by role: playing side or defending, declarer (leader) or partner (follower)?
-- by: role = CASE WHEN r.declarer = p.seat THEN 'declarer' WHEN list_contains(r.playing_seats, p.seat) THEN 'partner' ELSE 'defender' END
-- by: side = CASE WHEN list_contains(r.playing_seats, p.seat) THEN 'playing' ELSE 'defending' END
-- by: lead = CASE WHEN r.first_leader = p.seat THEN 'led trick 1' ELSE 'followed' END
-- by: all
-- game: r.game
-- plot: y=made_rate
-- kind: klaverjas
-- score_only: r.result IN ('made', 'nat', 'pit')
-- score_only by role: r.declarer IS NOT NULL
-- score_only by side: r.declarer IS NOT NULL
-- score_only by lead: r.first_leader IS NOT NULL
-- note: Klaverjas rounds only (Klaberjass makers: klaberjass_makers; Kloepper: kloepper_queens),
-- note: played out without a revoke (made, nat or pit). role: the declarer chose trumps and
-- note: leads the playing side, the partner follows; side: playing or defending; lead: who led
-- note: to trick 1. made_rate is how often the contract was made (for defenders: how often they
-- note: lost the round); avg_score is the player's side's final score in the round. A round
-- note: recorded by its score alone counts when its sheet shows the result and, by role or
-- note: side, names the chooser; by lead never (nobody knows who led).
SELECT p.player,
       {by},
       count(DISTINCT r.game) AS games,
       count(*) AS rounds,
       avg(CASE WHEN r.made THEN 1.0 ELSE 0.0 END) AS made_rate,
       avg(r.seat_scores[p.seat + 1]) AS avg_score
FROM rounds r
JOIN players p ON p.game = r.game
WHERE r.kind = 'klaverjas' AND r.result IN ('made', 'nat', 'pit') AND {score_only}
GROUP BY ALL
ORDER BY 1, 2 NULLS LAST
