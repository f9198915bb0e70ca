-- question: How often does the playing side (the side that chose trumps) make it?
-- by: ruleset
-- by: trump_method
-- by: trump_how
-- by: position = CASE declarer_position WHEN 1 THEN '1 forehand' WHEN 2 THEN '2 second' WHEN 3 THEN '3 third' WHEN 4 THEN '4 dealer' END
-- by: trump = CASE trump WHEN 'C' THEN 'clubs' WHEN 'D' THEN 'diamonds' WHEN 'H' THEN 'hearts' WHEN 'S' THEN 'spades' END
-- by: kind
-- by: year
-- plot: x=<by> y=made_rate
-- kind: klaverjas
-- score_only: result IN ('made', 'nat', 'pit')
-- score_only by trump_how: trump_how IS NOT NULL
-- score_only by position: declarer_position IS NOT NULL
-- score_only by trump: trump IS NOT NULL
-- note: Klaverjas rounds only (Klaberjass makers: klaberjass_makers; Kloepper: kloepper_queens),
-- note: played out without a revoke (result made, pit or nat); a pit counts as made.
-- note: position is the declarer's seat counted from the dealer: 1 is forehand, 4 the dealer.
-- note: A round recorded by its score alone counts when its sheet shows the result (written,
-- note: or made, nat or pit as the score shows once the chooser is written) and what the
-- note: grouping needs (the trump suit, the chooser; never how trumps were fixed).
SELECT {by},
       count(*) AS rounds,
       count(*) FILTER (WHERE made) AS made,
       count(*) FILTER (WHERE result = 'nat') AS nat,
       count(*) FILTER (WHERE result = 'pit') AS pit,
       avg(CASE WHEN made THEN 1.0 ELSE 0.0 END) AS made_rate
FROM rounds
WHERE kind = 'klaverjas' AND result IN ('made', 'nat', 'pit') AND {score_only}
GROUP BY ALL
ORDER BY 1 NULLS LAST
