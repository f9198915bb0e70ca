"""Reading ``jaslog/1`` logs: lines (:mod:`jaslog.logs.lines`: a line to its event or its
error, JSON Lines or notation, a byte order mark stepped over) and files read game by game
(:mod:`jaslog.logs.files`: many files, pipes and standard input, never held whole).

A layer above the event models (:mod:`jaslog.events`) and the notation
(:mod:`jaslog.notation`), below every layer that reads a log.

>>> [ln.event.type for ln in read_lines([b'{"game":"g","seq":0,"type":"note","text":"hi"}'], "x")]
['note']
"""

from jaslog.logs.files import (
    COMPRESSED,
    LogError,
    LogFiles,
    RawLine,
    blocks,
    compressed_problem,
    lines_of_game,
    path_problem,
    paths_problem,
    repeated_path,
)
from jaslog.logs.lines import (
    BOM,
    SNIFF,
    Line,
    canonical_game_end,
    guess_game,
    line_game,
    read_file,
    read_line,
    read_line_fast,
    read_lines,
    skip_bom,
)

__all__ = ["BOM", "COMPRESSED", "SNIFF", "Line", "LogError", "LogFiles", "RawLine",
           "blocks", "canonical_game_end", "compressed_problem", "guess_game", "line_game",
           "lines_of_game", "path_problem", "paths_problem", "read_file", "read_line",
           "read_line_fast", "read_lines", "repeated_path", "skip_bom"]
