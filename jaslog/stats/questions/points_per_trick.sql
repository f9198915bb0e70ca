-- question: How many points does each trick of a round bring (trick 1 to 8)?
-- by: all
-- by: ruleset
-- by: trump = CASE trump WHEN 'C' THEN 'clubs' WHEN 'D' THEN 'diamonds' WHEN 'H' THEN 'hearts' WHEN 'S' THEN 'spades' END
-- plot: x=trick y=avg_points
-- kind: klaverjas
-- score_only: false
-- note: Every complete trick of a Klaverjas game (Klaberjass deals have nine tricks of two
-- note: cards, Kloepper deals six). Points are card points; trick 8 includes
-- note: the last-trick bonus. roem is the roem on the table; playing_side_rate is how often
-- note: the playing side won it. A round recorded by its score alone has no tricks: left out.
SELECT {by},
       trick,
       count(*) AS tricks,
       avg(points) AS avg_points,
       avg(roem) AS avg_roem,
       avg(CASE WHEN roem > 0 THEN 1.0 ELSE 0.0 END) AS roem_rate,
       avg(CASE WHEN playing_team_won THEN 1.0 ELSE 0.0 END) AS playing_side_rate
FROM tricks
WHERE complete AND game IN (SELECT game FROM rounds WHERE kind = 'klaverjas')
GROUP BY ALL
ORDER BY 1 NULLS LAST, 2
