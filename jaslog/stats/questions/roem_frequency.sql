-- question: How often does each kind of roem fall: run of 3, run of 4, stuk, four of a kind, four jacks?
-- by: all
-- by: ruleset
-- by: trump_method
-- by: year
-- plot: x=kind y=per_100_rounds
-- kind: klaverjas
-- score_only: false
-- note: Klaverjas rounds only, every complete one (made, nat, pit or revoke): each scoring
-- note: combination on the table (claimed or not), its occurrences, per 100 rounds, and the
-- note: share of rounds with at least one. three_of_a_kind and stuk_in_hand appear only when
-- note: they fell (options off by default). Klaberjass melds: klaberjass_melds. A round
-- note: recorded by its score alone is left out: its sheet does not say which roem fell.
WITH base AS (
    SELECT {by}, game, round, roem_kinds
    FROM rounds
    WHERE kind = 'klaverjas' AND result IN ('made', 'nat', 'pit', 'revoke') AND {score_only}
),
totals AS (
    SELECT {dim}, count(*) AS rounds FROM base GROUP BY ALL
),
kinds AS (
    SELECT {dim}, game, round, unnest(roem_kinds) AS kind FROM base
),
counted AS (
    SELECT {dim}, kind, count(*) AS occurrences, count(DISTINCT (game, round)) AS rounds_with
    FROM kinds GROUP BY ALL
),
standard(kind, ord) AS (
    VALUES ('run3', 1), ('run4', 2), ('stuk', 3), ('four_of_a_kind', 4), ('four_jacks', 5),
           ('three_of_a_kind', 6), ('stuk_in_hand', 7)
),
grid AS (
    SELECT t.{dim}, s.kind, s.ord, t.rounds FROM totals t CROSS JOIN standard s
)
SELECT g.{dim},
       g.kind,
       coalesce(c.occurrences, 0) AS occurrences,
       g.rounds,
       coalesce(c.occurrences, 0) * 100.0 / g.rounds AS per_100_rounds,
       coalesce(c.rounds_with, 0) * 1.0 / g.rounds AS share_of_rounds
FROM grid g
LEFT JOIN counted c ON c.{dim} IS NOT DISTINCT FROM g.{dim} AND c.kind = g.kind
WHERE g.ord <= 5 OR c.occurrences > 0
ORDER BY 1 NULLS LAST, g.ord
