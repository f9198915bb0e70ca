-- question: What is in the dataset: games, rounds, players and rule violations per ruleset?
-- by: ruleset
-- by: year
-- by: kind
-- by: all
-- score_only: true
-- note: Every game of every kind (Klaverjas, Klaberjass, Kloepper; --by kind separates them).
-- note: finished counts games that are over; rounds counts the rounds over (played out,
-- note: ruled, annulled Klaberjass deals, or recorded by their score alone); players counts
-- note: distinct player ids; first and
-- note: last played are dates (UTC).
SELECT {by},
       count(*) AS games,
       count(*) FILTER (WHERE finished) AS finished,
       sum(rounds_complete) AS rounds,
       len(list_distinct(flatten(list(players)))) AS players,
       sum(violations) AS violations,
       min(first_at)::DATE AS first_played,
       max(last_at)::DATE AS last_played
FROM games
GROUP BY ALL
ORDER BY 1 NULLS LAST
