-- question: Kloepper: how often does the black-queen side score, by how the sides were formed and whether anyone knocked?
-- empty: no Kloepper data yet (the export holds no Kloepper deals)
-- by: contract
-- by: sides = CASE WHEN contract LIKE 'pair%' THEN 'queens split' WHEN contract LIKE 'called%' THEN 'called ace' ELSE 'alone' END
-- by: knock = CASE WHEN contract LIKE '%knock_back%' THEN 'knock and knock-back' WHEN contract LIKE '%+knock%' THEN 'knock' ELSE 'no knock' END
-- by: year
-- plot: x=<by> y=queens_rate
-- kind: kloepper
-- score_only: made IS NOT NULL
-- score_only by contract: contract IS NOT NULL
-- score_only by sides: contract IS NOT NULL
-- score_only by knock: contract IS NOT NULL
-- note: Kloepper deals played out (a revoke counts: it is scored as if the other side took
-- note: every trick, so the queens side scored it when a player of the other side revoked).
-- note: points_each is the game points a player of the scoring side received, on average.
-- note: A deal recorded by its score alone counts by year when its sheet shows the result
-- note: (never by how the sides formed or who knocked, which it does not say).
WITH k AS (
    SELECT {by},
           CASE WHEN result = 'revoke' THEN NOT list_contains(playing_seats, revoke_team)
                ELSE made END AS made,
           coalesce(greatest(score_playing, score_defending), list_max(final_score)) AS points_each
    FROM rounds
    WHERE kind = 'kloepper' AND complete AND {score_only}
)
SELECT {dim}, count(*) AS rounds, avg(CASE WHEN made THEN 1.0 ELSE 0.0 END) AS queens_rate,
       avg(points_each) AS points_each
FROM k
GROUP BY ALL
ORDER BY 1
