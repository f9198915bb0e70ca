-- question: Klaberjass: how often does the maker (the player who took the trump) make it?
-- empty: no Klaberjass data yet (the export holds no Klaberjass deals)
-- kind: klaberjass
-- score_only: false
-- note: contract: take (the turn-up's suit in round 1), named (round 2), schmeiss (a schmeiss
-- note: answered 'play'). Klaberjass deals played out without a revoke (made, bete or tie;
-- note: annulled deals left out); a tie counts as not made. A deal recorded by its score alone
-- note: is left out (its sheet does not say the contract).
WITH k AS (
    SELECT coalesce(contract, 'any') AS contract, made
    FROM rounds
    WHERE kind = 'klaberjass' AND made IS NOT NULL AND {score_only}
)
SELECT contract, count(*) AS rounds, avg(CASE WHEN made THEN 1.0 ELSE 0.0 END) AS made_rate
FROM k
GROUP BY contract
ORDER BY 1
