-- question: How often does the playing side fail a round that par says it makes, and make one that par says it loses?
-- by: kind
-- by: ruleset
-- by: trump_method
-- by: year
-- by: all
-- plot: x=<by> y=failed_rate
-- score_only: false
-- empty: no round with a par (export with `jaslog export DIR --par`; only rounds whose hands are known have one)
-- note: Counts only rounds with a par: those of an export written with --par (jaslog export DIR
-- note: --par) whose hands are known, played out without a revoke (made is not NULL). Par says
-- note: the playing side makes it when its par result (perfect play from the first card) is
-- note: made or pit (Klaverjas), made (Klaberjass) or queens (Kloepper); made is the result
-- note: as played (rounds.made). failed: par made, result not; made_anyway: par lost, result
-- note: made (the other side let it through). Rates: of the rounds par says made (failed_rate)
-- note: or lost (made_anyway_rate). A round recorded by its score alone has no par: left out.
SELECT {by},
       count(*) AS rounds,
       count(*) FILTER (WHERE par_result IN ('made', 'pit', 'queens')) AS par_made,
       count(*) FILTER (WHERE par_result IN ('made', 'pit', 'queens') AND NOT made) AS failed,
       count(*) FILTER (WHERE par_result IN ('made', 'pit', 'queens') AND NOT made) * 1.0
           / nullif(count(*) FILTER (WHERE par_result IN ('made', 'pit', 'queens')), 0)
           AS failed_rate,
       count(*) FILTER (WHERE par_result NOT IN ('made', 'pit', 'queens')) AS par_lost,
       count(*) FILTER (WHERE par_result NOT IN ('made', 'pit', 'queens') AND made) AS made_anyway,
       count(*) FILTER (WHERE par_result NOT IN ('made', 'pit', 'queens') AND made) * 1.0
           / nullif(count(*) FILTER (WHERE par_result NOT IN ('made', 'pit', 'queens')), 0)
           AS made_anyway_rate
FROM rounds
WHERE par IS NOT NULL AND made IS NOT NULL AND {score_only}
GROUP BY ALL
HAVING count(*) > 0
ORDER BY 1 NULLS LAST
