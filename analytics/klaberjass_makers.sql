-- question: Klaberjass: how often does the maker (the player who took the trump) make it?
-- note: No Klaberjass games are recorded yet (Klaberjass arrives with issue 5); the query runs
-- note: and says so until there are.
WITH k AS (
    SELECT coalesce(contract, 'any') AS contract, made
    FROM rounds
    WHERE kind = 'klaberjass' AND made IS NOT NULL
)
SELECT contract, count(*) AS rounds, avg(CASE WHEN made THEN 1.0 ELSE 0.0 END) AS made_rate
FROM k
GROUP BY contract
UNION ALL
SELECT 'no Klaberjass data yet', 0, NULL
WHERE NOT EXISTS (SELECT 1 FROM k)
ORDER BY 1
