-- question: Klaberjass: does the maker make it more often when the melds (sequences and bella) go his way?
-- empty: no Klaberjass data yet (the export holds no Klaberjass deals)
-- by: melds = CASE WHEN roem_playing > roem_defending THEN 'maker scored more melds' WHEN roem_playing < roem_defending THEN 'opponent scored more melds' ELSE 'melds even' END
-- by: contract
-- by: year
-- plot: x=<by> y=made_rate
-- note: Klaberjass deals played out without a revoke (made, tie or bete); a tie counts as
-- note: not made.
-- note: Melds are the sequences of the player holding the best one, and bella.
WITH k AS (
    SELECT {by}, made, roem_playing + roem_defending AS meld_points
    FROM rounds
    WHERE kind = 'klaberjass' AND made IS NOT NULL
)
SELECT {dim}, count(*) AS rounds, avg(CASE WHEN made THEN 1.0 ELSE 0.0 END) AS made_rate,
       avg(meld_points) AS melds_per_deal
FROM k
GROUP BY ALL
ORDER BY 1
