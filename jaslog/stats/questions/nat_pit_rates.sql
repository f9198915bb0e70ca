-- question: How often does the playing side go nat, and how often does one side take every trick (pit)?
-- by: ruleset
-- by: trump_method
-- by: trump = CASE trump WHEN 'C' THEN 'clubs' WHEN 'D' THEN 'diamonds' WHEN 'H' THEN 'hearts' WHEN 'S' THEN 'spades' END
-- by: kind
-- by: year
-- plot: x=<by> y=nat_rate
-- kind: klaverjas
-- score_only: result IN ('made', 'nat', 'pit', 'revoke')
-- score_only by trump: trump IS NOT NULL
-- note: Klaverjas rounds only (Klaberjass makers: klaberjass_makers; Kloepper: kloepper_queens),
-- note: every complete one (made, pit, nat or revoke). pit_rate: the playing side took all
-- note: eight tricks; defenders_pit_rate: the defenders did (the round is then nat, unless a
-- note: revoke decided it). A round recorded by its score alone counts when its sheet shows
-- note: the result (and the trump suit, by trump); defenders_pit_rate counts only the rounds
-- note: played card by card (a score sheet does not say who took the tricks).
SELECT {by},
       count(*) AS rounds,
       avg(CASE WHEN result = 'nat' THEN 1.0 ELSE 0.0 END) AS nat_rate,
       avg(CASE WHEN result = 'pit' THEN 1.0 ELSE 0.0 END) AS pit_rate,
       avg(CASE WHEN tricks_won IS NULL THEN NULL WHEN tricks_won[2 - playing_team] = 8 THEN 1.0
                ELSE 0.0 END) AS defenders_pit_rate,
       avg(CASE WHEN result = 'revoke' THEN 1.0 ELSE 0.0 END) AS revoke_rate
FROM rounds
WHERE kind = 'klaverjas' AND result IN ('made', 'nat', 'pit', 'revoke') AND {score_only}
GROUP BY ALL
ORDER BY 1 NULLS LAST
