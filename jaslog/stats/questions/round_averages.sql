-- question: How many card points, how much roem and what score does a round bring, on average?
-- by: ruleset
-- by: trump_method
-- by: kind
-- by: year
-- kind: klaverjas
-- score_only: result IN ('made', 'nat', 'pit', 'revoke') AND declarer IS NOT NULL
-- note: Klaverjas rounds only, every complete one (made, nat, pit or revoke). Card points include
-- note: the last-trick 10; roem is the roem credited (claimed, or on the table with
-- note: roem.claim_mode auto); roem_on_table is all roem that fell; scores are the final scores
-- note: (rulings included). Klaberjass and Kloepper deals score otherwise: see their questions.
-- note: A round recorded by its score alone counts when its sheet names the chooser: in the
-- note: scores, and in the card points and roem when it writes them; roem_on_table averages
-- note: the rounds played card by card.
SELECT {by},
       count(*) AS rounds,
       avg(points_playing) AS avg_points_playing,
       avg(points_defending) AS avg_points_defending,
       avg(roem[1] + roem[2]) AS avg_roem,
       avg(roem_playing) AS avg_roem_playing,
       avg(roem_defending) AS avg_roem_defending,
       avg(roem_on_table[1] + roem_on_table[2]) AS avg_roem_on_table,
       avg(score_playing) AS avg_score_playing,
       avg(score_defending) AS avg_score_defending
FROM rounds
WHERE kind = 'klaverjas' AND result IN ('made', 'nat', 'pit', 'revoke') AND {score_only}
GROUP BY ALL
ORDER BY 1 NULLS LAST
