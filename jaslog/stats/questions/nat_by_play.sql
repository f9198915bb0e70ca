-- question: What share of nat rounds were lost by a play rather than by the deal (par says made)?
-- by: ruleset
-- by: trump_method
-- by: trump = CASE trump WHEN 'C' THEN 'clubs' WHEN 'D' THEN 'diamonds' WHEN 'H' THEN 'hearts' WHEN 'S' THEN 'spades' END
-- by: year
-- by: all
-- plot: x=<by> y=share_by_play
-- kind: klaverjas
-- score_only: false
-- empty: no nat round with a par (export with `jaslog export DIR --par`; only rounds whose hands are known have one)
-- note: Klaverjas rounds that went nat, counting only rounds with a par: those of an export
-- note: written with --par (jaslog export DIR --par) whose hands are known. lost_by_play: par
-- note: (perfect play from the first card) says made or pit, so a play lost it; lost_by_deal:
-- note: par says nat, the cards could not make it. Par counts every roem on the table as
-- note: claimed: a round that went nat only because roem was left unclaimed counts as lost by
-- note: play. A round recorded by its score alone has no par: left out.
SELECT {by},
       count(*) AS rounds,
       count(*) FILTER (WHERE par_result IN ('made', 'pit')) AS lost_by_play,
       count(*) FILTER (WHERE par_result = 'nat') AS lost_by_deal,
       avg(CASE WHEN par_result IN ('made', 'pit') THEN 1.0 ELSE 0.0 END) AS share_by_play
FROM rounds
WHERE kind = 'klaverjas' AND result = 'nat' AND par IS NOT NULL AND {score_only}
GROUP BY ALL
HAVING count(*) > 0
ORDER BY 1 NULLS LAST
