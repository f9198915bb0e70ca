-- question: Kloepper: does the queens side make it more often when the black queens are split between two players, or when one player holds both?
-- note: Kloepper deals played out without a revoke; made: the black-queen side scored. With no
-- note: Kloepper deals in the export the query says so.
WITH k AS (
    SELECT CASE WHEN queens_split THEN 'split queens' ELSE 'one player holds both' END AS queens,
           made
    FROM rounds
    WHERE kind = 'kloepper' AND made IS NOT NULL
)
SELECT queens, count(*) AS rounds, avg(CASE WHEN made THEN 1.0 ELSE 0.0 END) AS made_rate
FROM k
GROUP BY queens
UNION ALL
SELECT 'no Kloepper data yet', 0, NULL
WHERE NOT EXISTS (SELECT 1 FROM k)
ORDER BY 1
