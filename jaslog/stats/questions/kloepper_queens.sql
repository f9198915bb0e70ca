-- question: Kloepper: does the queens side make it more often when the black queens are split between two players, or when one player holds both?
-- empty: no Kloepper data yet (the export holds no Kloepper deals)
-- kind: kloepper
-- score_only: false
-- note: Kloepper deals played out without a revoke; made: the black-queen side scored. A deal
-- note: recorded by its score alone is left out (its sheet does not say where the queens were).
WITH k AS (
    SELECT CASE WHEN queens_split THEN 'split queens' ELSE 'one player holds both' END AS queens,
           made
    FROM rounds
    WHERE kind = 'kloepper' AND made IS NOT NULL AND {score_only}
)
SELECT queens, count(*) AS rounds, avg(CASE WHEN made THEN 1.0 ELSE 0.0 END) AS made_rate
FROM k
GROUP BY queens
ORDER BY 1
