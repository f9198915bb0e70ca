-- question: Klaberjass: does the maker make it more often when the melds (sequences and bella) go his way?
-- empty: no Klaberjass data yet (the export holds no Klaberjass deals)
-- by: melds = CASE WHEN roem_playing > roem_defending THEN 'maker scored more melds' WHEN roem_playing < roem_defending THEN 'opponent scored more melds' ELSE 'melds even' END
-- by: contract
-- by: year
-- plot: x=<by> y=made_rate
-- kind: klaberjass
-- score_only: made IS NOT NULL AND roem_playing IS NOT NULL
-- score_only by contract: contract IS NOT NULL
-- note: Klaberjass deals played out without a revoke (made, tie or bete); a tie counts as
-- note: not made.
-- note: Melds are the sequences of the player holding the best one, and bella. A deal recorded
-- note: by its score alone counts when its sheet writes the result, the maker and the melds
-- note: (never by contract, which it does not say).
WITH k AS (
    SELECT {by}, made, roem_playing + roem_defending AS meld_points
    FROM rounds
    WHERE kind = 'klaberjass' AND made IS NOT NULL AND {score_only}
)
SELECT {dim}, count(*) AS rounds, avg(CASE WHEN made THEN 1.0 ELSE 0.0 END) AS made_rate,
       avg(meld_points) AS melds_per_deal
FROM k
GROUP BY ALL
ORDER BY 1
