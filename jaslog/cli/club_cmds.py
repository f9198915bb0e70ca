"""``jaslog ratings`` and ``jaslog standings``: a club's players rated, and a season's
competition table.

Heavy imports sit in the command functions (the import convention of :mod:`jaslog.cli.common`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from jaslog.cli.common import console, fail, write_json_line
from jaslog.cli.stats import (
    DATASET,
    DB,
    JSON,
    NO_REFRESH,
    _display_names,
    _errors,
    default_dataset,
    refresh,
)
from jaslog.cli.tables import fit_table
from jaslog.store import open_store, resolve_url


def _names(db: str | None) -> dict[str, str]:
    """The players' display names from the store (none when there is no store)."""
    return _display_names(db)


def _print(columns: list[str], rows: list[list[Any]], title: str) -> None:
    cells = [["" if v is None else (f"{v:,.2f}" if isinstance(v, float) else str(v)) for v in r]
             for r in rows]
    numeric = [any(isinstance(r[i], int | float) and not isinstance(r[i], bool) for r in rows)
               for i in range(len(columns))]
    console.print(fit_table(columns, cells, numeric, console.width, title=title))
    if not rows:
        console.print("(no rows)", style="dim")


def ratings(
    game: str | None = typer.Option(None, "--game", "-g", help="only this game family "
                                    "(klaverjas, klaberjass, kloepper; a ruleset names its own)"),
    as_of: str | None = typer.Option(None, "--as-of", help="the ratings as they stood then: a "
                                     "date (after that day's games) or an RFC 3339 time"),
    rebuild: bool = typer.Option(False, "--rebuild", help="rate the store's games afresh "
                                 "instead of reading the export's ratings table"),
    json: bool = JSON,
    dataset: Path | None = DATASET,
    db: str | None = DB,
    no_refresh: bool = NO_REFRESH,
) -> None:
    """Each player's rating per game family (openskill Plackett-Luce over the finished games,
    in the order played), best first: from the Parquet export, or --rebuild from the store."""
    from jaslog.stats.ratings import (
        as_of_time,
        check_kind,
        export_ratings,
        standings_of,
        store_ratings,
    )

    with _errors():
        kind = check_kind(game)
        when = as_of_time(as_of)
        if rebuild:
            url = resolve_url(db)
            if url.startswith("sqlite:///") and not Path(url[len("sqlite:///"):]).exists():
                fail(f"no store at {url[len('sqlite:///'):]}; import games first")
            with open_store(url, create=False) as store:
                rows = store_ratings(store)
                names = store.players()
        else:
            ds = dataset or default_dataset(db)
            if not no_refresh:
                refresh(ds, db)
            rows = export_ratings(ds)
            names = _names(db)
        out = standings_of(rows, kind=kind, as_of=when, names=names)
    if json:
        write_json_line({"game": kind, "as_of": as_of, "source": "store" if rebuild else "export",
                         "ratings": out})
        return
    cols = ["game", "#", "player", "rating", "uncertainty", "ordinal", "games", "last game"]
    _print(cols, [[r["kind"], r["rank"], r["name"] or r["player"], r["rating"], r["uncertainty"],
                   r["ordinal"], r["games"], r["after"]] for r in out],
           "ratings" + (f" as of {as_of}" if as_of else ""))


def standings(
    event: str = typer.Option(..., "--event", "-e", help="the competition: the games whose "
                              "meta.event is this (any case)"),
    date_from: str | None = typer.Option(None, "--from", help="only games started on or after "
                                         "this date or RFC 3339 time"),
    date_to: str | None = typer.Option(None, "--to", help="only games started on or before this "
                                       "date (the whole day) or time"),
    by: str = typer.Option("player", "--by", "-b", help="player, or team (a pair of partners)"),
    count: str = typer.Option("points", "--count", "-c", help="points (added up), match (2 a "
                              "win, 1 a draw, 0 a loss) or average (points per game)"),
    json: bool = JSON,
    dataset: Path | None = DATASET,
    db: str | None = DB,
    no_refresh: bool = NO_REFRESH,
) -> None:
    """A club's competition table: the points of every finished game of an event, added up per
    player (or pair), ranked by points, match points or average; a plain table to print."""
    from jaslog.stats.standings import standings as table

    with _errors():
        ds = dataset or default_dataset(db)
        if not no_refresh:
            refresh(ds, db)
        res = table(ds, event, by=by, count=count, date_from=date_from, date_to=date_to,
                    names=_names(db))
    if json:
        write_json_line(res.to_json())
        return
    span = "".join([f" from {date_from}" if date_from else "", f" to {date_to}" if date_to else ""])
    cols = ["#", by, "games", "evenings", "won", "drawn", "lost", "points", "match points",
            "average"]
    _print(cols, [[r["rank"], r[by], r["games"], r["evenings"], r["won"], r["drawn"], r["lost"],
                   r["points"], r["match_points"], r["average"]] for r in res.rows],
           f"{event}{span}, by {count if count != 'match' else 'match points'}")


def register(app: typer.Typer) -> None:
    app.command()(ratings)
    app.command()(standings)
