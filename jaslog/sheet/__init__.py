"""The club's score sheet of a game, and a paper sheet held against it.

:func:`score_sheet` projects a folded game and its report (:func:`jaslog.play.audit.game_report`)
onto the sheet a club keeps: a row per round with the dealer, the playing side, each
side's score that counts, its roem, the running totals and the marks (ruled, score only,
superseded rulings). :func:`read_sheet` reads a sheet typed from paper (CSV: round, a score
per side, optionally the running totals), and :func:`compare` holds it against the record
and names every row that differs with its likely cause: a slip in the running total, sides
swapped, roem left out, counted twice or written to the wrong side, a ruling not applied,
a round missing or extra, nat or pit scored wrong.

Nothing here reads a file or prints: ``jaslog sheet`` (:mod:`jaslog.cli.sheet`) does. A
side is a team where the game scores by team, a seat where it scores by player
(:attr:`jaslog.engine.game.Game.scoring`); teams are numbered as in the report (team 0 is
seats 0 and 2).
"""

from jaslog.sheet.compare import compare
from jaslog.sheet.paper import SheetError, SheetLine, read_sheet
from jaslog.sheet.rows import ROW_KEYS, score_sheet

__all__ = ["ROW_KEYS", "SheetError", "SheetLine", "compare", "read_sheet", "score_sheet"]
