-- question: How often did roem turn a round from nat into made (and how often did it sink one)?
-- by: ruleset
-- by: trump_method
-- by: kind
-- by: year
-- plot: x=<by> y=saved_rate
-- kind: klaverjas
-- score_only: false
-- note: Klaverjas rounds only (Klaberjass melds: klaberjass_melds), played out without a revoke
-- note: (made, nat or pit). saved_by_roem: made, but without any roem on either side the rules
-- note: would have scored it nat; sunk_by_roem: nat, but made without roem. A round recorded
-- note: by its score alone is left out (what it would have scored without roem needs its tricks).
SELECT {by},
       count(*) AS rounds,
       count(*) FILTER (WHERE made AND result_without_roem = 'nat') AS saved_by_roem,
       avg(CASE WHEN made AND result_without_roem = 'nat' THEN 1.0 ELSE 0.0 END) AS saved_rate,
       count(*) FILTER (WHERE NOT made AND result_without_roem IN ('made', 'pit')) AS sunk_by_roem,
       avg(CASE WHEN NOT made AND result_without_roem IN ('made', 'pit') THEN 1.0 ELSE 0.0 END)
           AS sunk_rate
FROM rounds
WHERE kind = 'klaverjas' AND result IN ('made', 'nat', 'pit') AND {score_only}
GROUP BY ALL
ORDER BY 1 NULLS LAST
