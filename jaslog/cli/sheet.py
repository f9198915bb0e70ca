"""``jaslog sheet``: a game's score sheet as a club keeps it, and a paper sheet held against it.

GAME is a stored game's id (``--db`` or ``$JASLOG_DB``, as ``show``), ``store:GAME``, or a
jaslog/1 log file (``-`` for standard input; ``--game`` picks a game, default the first),
as ``replay`` reads it. Exit codes: 0 the sheet (agrees), 1 the typed sheet differs, 2 bad
input (an unreadable sheet, a log or game that cannot be read).

Heavy imports sit in the command functions (the import convention of :mod:`jaslog.cli.common`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer
from rich.text import Text

from jaslog.cli.check import standing
from jaslog.cli.common import (
    STORE_PREFIX,
    as_stored,
    check_readable,
    console,
    fail,
    is_stored,
    read_games,
    write_json_line,
)
from jaslog.engine.fold import FoldError, GameFold
from jaslog.games import get_game
from jaslog.logs import lines_of_game
from jaslog.play.audit import game_report
from jaslog.play.fold import FileGame, fold_lines

DB = typer.Option(None, "--db", envvar="JASLOG_DB", show_envvar=True,
                  help="the store of a stored game (path or URL); default: jaslog.sqlite in "
                       "the user data folder")

def _one_game(source: str, game: str | None, db: str | None) -> GameFold:
    """The game to print: stored (an id, ``store:GAME``) or read from a log file."""
    stored = is_stored(as_stored(Path(source)))
    found: list[FileGame | FoldError]
    if stored:
        named = source[len(STORE_PREFIX):] if is_stored(source) else source
        if named and game is not None and game != named:
            fail(f"{source} names game {named}, --game {game}: name the game once")
        named = named or game or ""
        if not named:
            fail("name one stored game: GAME or store:GAME (see `jaslog games`)")
        found = list(read_games([Path(f"{STORE_PREFIX}{named}")], db))
    else:
        check_readable([Path(source)])
        try:
            found = list(fold_lines(lines_of_game(source, game)))
        except OSError as e:
            fail(f"{source}: {e.strerror}")
    for g in found:
        if isinstance(g, FoldError):
            fail(str(g))
        if g.error is not None:
            fail(f"{g.error} (the record is invalid: `jaslog check` says more)")
        if g.fold is not None:
            return g.fold
    fail(f"{source}: no game {game!r} (use `jaslog check {source}` to list the games)" if game
         else f"{source}: no game found")


def _sheet_lines(fold: GameFold, sheet: dict[str, Any]) -> list[Text]:
    """The sheet for people: a line per round, the columns fitted to their values."""
    game = get_game(fold.game)
    word = game.round_word
    k = len(sheet["sides"])
    label = "team" if game.scoring == "teams" else "seat"
    has_roem = game.roem_of is not None
    out = [Text(f"{sheet['game']} ({sheet['ruleset']}), score sheet", style="bold")]
    out += [Text(f"  {label} {t}: {name}") for t, name in enumerate(sheet["sides"])]

    def who(seat: int | None) -> str:
        return "" if seat is None else fold.seats[seat]

    def side(t: int) -> str:
        return f"{label} {t}" if game.scoring == "teams" else fold.seats[t]

    head = [word, "dealer", "plays"]
    for t in range(k):
        head += [side(t)] + (["roem"] if has_roem else [])
    head += [f"total {t}" if game.scoring == "teams" else f"Σ {fold.seats[t]}" for t in range(k)]
    head += ["result"]
    body = []
    for r in sheet["rows"]:
        plays = ", ".join(who(p) if game.scoring == "players" else f"{label} {p}"
                          for p in r["playing"])
        if r["chooser"] is not None and game.scoring == "teams":
            plays = f"{who(r['chooser'])} ({label} {r['playing'][0]})"
        cells = [str(r["round"]), who(r["dealer"]), plays]
        for t in range(k):
            cells.append(str(r["final"][t]))
            if has_roem:
                roem = r["roem"][t] if r["roem"] is not None and r["final"] == r["score"] else None
                cells.append("·" if roem is None else str(roem) if roem else "")
        cells += [str(x) for x in r["totals"]]
        cells.append("?" if r["result"] == "score_only" else r["result"])  # marked score only
        body.append((cells, r["marks"]))
    numeric = {0} | {i for i, h in enumerate(head) if i >= 3 and h != "result"}
    widths = [max(len(h), *(len(c[i]) for c, _ in body)) if body else len(h)
              for i, h in enumerate(head)]

    def row(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in numeric else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    out.append(Text("  " + row(head), style="dim"))
    for cells, marks in body:
        line = Text("  " + row(cells))
        if marks:
            line.append("  " + "; ".join(marks), style="magenta")
        out.append(line)
    report = {"totals": sheet["totals"], "finished": sheet["finished"], "winner": sheet["winner"]}
    out.append(Text(f"  {standing(fold, report)}", style="bold"))
    return out


def _comparison_lines(result: dict[str, Any], source: str, word: str) -> list[Text]:
    n = len(result["differences"])
    what = (f"agrees with the log ({result['lines']} lines, {result['rounds']} {word}s)"
            if result["agrees"] else f"{n} difference{'s' * (n != 1)}")
    out = [Text(f"{source} against {result['game']} ({result['ruleset']}): {what}",
                style="bold green" if result["agrees"] else "bold yellow")]
    entries = result["differences"]
    i = 0
    while i < len(entries):
        e = entries[i]
        only_carried = [f["kind"] for f in e["findings"]] == ["total_carried"]
        j = i
        if only_carried:  # lines that only carry the same difference, as one range
            while (j + 1 < len(entries) and entries[j + 1]["findings"] == e["findings"]
                   and entries[j + 1]["line"] == entries[j]["line"] + 1):
                j += 1
        out.extend(_entry_lines(e, entries[j], word))
        i = j + 1
    out += [Text(f"  note: {note}", style="dim") for note in result["notes"]]
    return out


def _entry_lines(first: dict[str, Any], last: dict[str, Any], word: str) -> list[Text]:
    def where(e: dict[str, Any]) -> str:
        if e["line"] is None:
            return f"{word} {e['round']}"
        return f"line {e['line']} ({word} {e['sheet_round']})"

    if first is last:
        at = where(first)
    else:
        at = f"lines {first['line']}-{last['line']} ({word}s {first['sheet_round']}-" \
             f"{last['sheet_round']})"
    out = []
    for f in first["findings"]:
        out.append(Text(f"  {at}: ", style="bold").append(f["message"], style=""))
    return out


def sheet(
    game: str = typer.Argument(..., help="a stored game's id, store:GAME, or a jaslog/1 log "
                                         "file ('-' for stdin)"),
    game_id: str | None = typer.Option(None, "--game", "-g",
                                       help="the game in a log file (default: the first)"),
    compare: Path | None = typer.Option(
        None, "--compare", "-c",
        help="a score sheet typed from paper (CSV with a header: round, a score per team or "
             "player, optionally the running totals; ',' or ';'; '-' for stdin) to hold "
             "against the log"),
    as_json: bool = typer.Option(False, "--json", help="JSON output, for scripts"),
    db: str | None = DB,
) -> None:
    """A game's score sheet as a club keeps it; --compare holds a paper sheet against it:
    exit 0 it agrees, 1 it differs, 2 bad input."""
    from jaslog.sheet import SheetError, read_sheet, score_sheet
    from jaslog.sheet import compare as compare_sheet
    from jaslog.sheet.paper import MAX_SHEET

    if compare is not None and str(compare) == "-" and game == "-":
        fail("the log and the sheet cannot both come from standard input: give one as a file")
    fold = _one_game(game, game_id, db)
    the_sheet = score_sheet(fold, game_report(fold.game_id, fold))
    if compare is None:
        if as_json:
            write_json_line(the_sheet)
            return
        for line in _sheet_lines(fold, the_sheet):
            console.print(line, soft_wrap=True, highlight=False)
        return
    g = get_game(fold.game)
    source = "<stdin>" if str(compare) == "-" else str(compare)
    try:
        if str(compare) == "-":
            raw = sys.stdin.buffer.read(MAX_SHEET + 1)
        else:
            with compare.open("rb") as f:
                raw = f.read(MAX_SHEET + 1)
    except OSError as e:
        fail(f"{compare}: {e.strerror or e}")
    if len(raw) > MAX_SHEET:
        fail(f"{source}: more than {MAX_SHEET >> 20} MiB; a typed sheet is a header and a line "
             "per round")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("cp1252", errors="replace")  # a spreadsheet's export on Windows
    try:
        lines = read_sheet(text, source, len(the_sheet["sides"]),
                           "team" if g.scoring == "teams" else "seat")
    except SheetError as e:
        fail(str(e))
    result = compare_sheet(the_sheet, lines, fold.options)
    if as_json:
        write_json_line({**result, "sheet": source})
    else:
        for line in _comparison_lines(result, source, g.round_word):
            console.print(line, soft_wrap=True, highlight=False)
    raise typer.Exit(0 if result["agrees"] else 1)


def register(app: typer.Typer) -> None:
    app.command()(sheet)
