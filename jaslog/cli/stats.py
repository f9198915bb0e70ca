"""``jaslog export``, ``jaslog stats`` and ``jaslog sql``: the Parquet dataset and its questions."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from jaslog.cli.common import console, err_console, fail, games_progress, write_json_line
from jaslog.cli.tables import fit_table

DATASET_ENV = "JASLOG_EXPORT"

DB = typer.Option(None, "--db", envvar="JASLOG_DB", show_envvar=True,
                  help="the store: a path (SQLite) or a URL (sqlite:///..., postgresql://...); "
                       "default: jaslog.sqlite in the user data folder")
DATASET = typer.Option(None, "--dataset", "-d", envvar=DATASET_ENV, show_envvar=True,
                       help="the export folder to query; default: 'parquet' beside the SQLite "
                            "store (the user data folder for PostgreSQL)")
WHERE = typer.Option(None, "--where", "-w",
                     help="keep only the games for which this SQL condition on the games view "
                          "holds, e.g. \"ruleset = 'rotterdam' AND year = 2026\"")
NO_REFRESH = typer.Option(False, "--no-refresh",
                          help="query the export as it is, without exporting new games first")
JSON = typer.Option(False, "--json", help="JSON output, for scripts")
CSV = typer.Option(False, "--csv", help="CSV output (header line first)")


#: What an answer over what the public may see says of itself.
PUBLIC_NOTE = ("As the public sees the games: finished games only, without the rounds that "
               "ended with cards unplayed.")

#: The most worker processes an export may be asked for (each holds a chunk's rows in memory).
MAX_WORKERS = 64


def default_dataset(db: str | None) -> Path:
    """Where ``stats`` and ``sql`` look when no --dataset is given: ``$JASLOG_EXPORT``, else
    ``parquet`` beside the SQLite store, else ``parquet`` in the user data folder."""
    env = os.environ.get(DATASET_ENV)
    if env:
        return Path(env)
    from jaslog.store import resolve_url

    url = resolve_url(db)
    if url.startswith("sqlite:///"):
        return Path(url[len("sqlite:///"):]).parent / "parquet"
    from platformdirs import user_data_dir

    return Path(user_data_dir("jaslog")) / "parquet"


def _sqlite_missing(url: str) -> bool:
    return url.startswith("sqlite:///") and not Path(url[len("sqlite:///"):]).exists()


@contextmanager
def _errors() -> Iterator[None]:
    """Export, store and database errors as ``jaslog: ...`` (exit 2), never a traceback."""
    from sqlalchemy.exc import SQLAlchemyError

    from jaslog.export import ExportError
    from jaslog.stats.analytics import AnalyticsError
    from jaslog.store import StoreError

    try:
        yield
    except (ExportError, AnalyticsError, StoreError) as e:
        fail(str(e))
    except SQLAlchemyError as e:
        orig = getattr(e, "orig", None)
        fail(f"database error: {(str(orig) if orig else str(e)).strip().splitlines()[0]}")
    except OSError as e:
        fail(f"{e.filename or ''}: {e.strerror}" if e.filename else str(e))


def _print_export(result: Any, quiet_unchanged: bool = False) -> None:
    if not result.changed:
        if not quiet_unchanged:
            games = result.rows_total.get("games", 0)
            console.print(f"up to date: nothing new since version {result.version} "
                          f"({games} game{'s' * (games != 1)}); {result.path}", soft_wrap=True)
        return
    console.print(f"exported {result.games_added} new game{'s' * (result.games_added != 1)}, "
                  f"replaced {result.games_replaced}, {result.games_unchanged} unchanged → "
                  f"[bold]{result.path}[/] (version {result.version}; "
                  f"{result.files_added} new files, {result.files_linked} carried over)",
                  soft_wrap=True)
    t = Table(show_edge=False, pad_edge=False)
    t.add_column("table")
    t.add_column("rows added", justify="right")
    t.add_column("rows in all", justify="right")
    for name, total in result.rows_total.items():
        t.add_row(name, f"{result.rows_added.get(name, 0):,}", f"{total:,}")
    console.print(t)


def export(
    out_dir: Path = typer.Argument(..., help="the export folder (made if missing)"),
    db: str | None = DB,
    from_files: list[Path] = typer.Option([], "--from", help="export these jaslog/1 log files "
                                          "instead of the store (repeatable)"),
    since: str | None = typer.Option(None, "--since", help="only games started on or after "
                                     "this date or RFC 3339 time"),
    ruleset: str | None = typer.Option(None, "--ruleset", "-r", help="only games of this ruleset"),
    full: bool = typer.Option(False, "--full", help="export everything again into a fresh "
                              "snapshot (the default adds only what is new)"),
    chunk: int | None = typer.Option(None, "--chunk", min=1, help="games folded per batch "
                                     "(memory; default 200, 20 with --par)"),
    keep: int = typer.Option(2, "--keep", min=1, help="snapshots to keep for running readers"),
    workers: int | None = typer.Option(None, "--workers", min=0, max=MAX_WORKERS,
                                       help="processes that fold the games, 0 to "
                                       f"{MAX_WORKERS} (default: one per CPU, at most 8, when "
                                       "there are two or more and at least four chunks, "
                                       "two with --par; "
                                       "0: none)"),
    cluster: str | None = typer.Option(None, "--cluster", metavar="ADDRESS",
                                       help="fold the games on the workers of this Dask "
                                       "scheduler (tcp://host:8786) instead; the dataset is "
                                       "the same"),
    verify: bool = typer.Option(False, "--verify", help="only recheck the current snapshot "
                                "against its manifest (sizes, SHA-256, rows): exit 1 on damage"),
    par: bool = typer.Option(False, "--par", help="also solve every round whose hands are "
                             "known: rounds.par, rounds.par_result and plays.loss (slow: about "
                             "0.1 s per Klaverjas round; NULL without it). A "
                             "change of --par exports everything afresh"),
    json: bool = JSON,
) -> None:
    """Write the games as a Parquet dataset (events, plays, tricks, rounds, games, players,
    violations), Hive-partitioned by ruleset and year; incremental and atomic."""
    from jaslog.export import export_files, export_store, verify_dataset

    if verify:
        with _errors():
            problems = verify_dataset(out_dir)
        if json:
            write_json_line({"ok": not problems, "problems": problems})
        elif problems:
            for p in problems:
                console.print(f"[red]✗[/] {p}", soft_wrap=True)
        else:
            console.print(f"[green]✓[/] {out_dir}: every file matches the manifest", soft_wrap=True)
        raise typer.Exit(1 if problems else 0)
    if cluster is not None and workers is not None:
        fail("--workers and --cluster both say who folds the games: give one")
    if chunk is None:
        from jaslog.export.dataset import DEFAULT_CHUNK, PAR_CHUNK

        chunk = PAR_CHUNK if par else DEFAULT_CHUNK
    with _errors():
        if from_files:
            if since or ruleset:
                fail("--since and --ruleset filter the store; they do not apply to --from files")
            with games_progress("exporting") as progress:
                result = export_files(from_files, out_dir, full=full, chunk_games=chunk, keep=keep,
                                      progress=progress, workers=workers,
                                      on_total=progress.total, cluster=cluster, par=par)
        else:
            from jaslog.store import open_store, resolve_url

            url = resolve_url(db)
            if _sqlite_missing(url):
                fail(f"no store at {url[len('sqlite:///'):]}; import games first "
                     "(`jaslog import FILE`) or export log files with --from")
            with open_store(url, create=False) as store, games_progress("exporting") as progress:
                result = export_store(store, out_dir, since=since, ruleset=ruleset, full=full,
                                      chunk_games=chunk, keep=keep, progress=progress,
                                      workers=workers, on_total=progress.total,
                                      cluster=cluster, par=par)
    if json:
        write_json_line(result.to_json())
    else:
        _print_export(result)
    if result.unreadable:  # games stored by an older jaslog that no reader can read
        for said in result.unreadable:
            err_console.print(f"[bold red]jaslog:[/] not exported: {escape(said)}", soft_wrap=True)
        raise typer.Exit(2)


def refresh(dataset: Path, db: str | None) -> None:
    """Export new games first when the dataset is behind its store (or missing)."""
    from jaslog.export import export_store, load_manifest, store_source, store_status
    from jaslog.store import open_store, resolve_url

    url = resolve_url(db)
    loaded = load_manifest(dataset)
    if _sqlite_missing(url):
        if loaded is None:
            fail(f"no export at {dataset} and no store at {url[len('sqlite:///'):]}: import games "
                 "(`jaslog import FILE`) or export log files (`jaslog export DIR --from FILE`)")
        return
    with open_store(url, create=False) as store:
        source = store_source(store.url)
        if loaded is not None and loaded[1].get("source") != source:
            err_console.print(f"note: {dataset} was exported from {loaded[1].get('source')}, not "
                              f"from {source}; querying it as it is", soft_wrap=True, style="dim")
            return
        filters = (loaded[1].get("filters") or {}) if loaded is not None else {}
        par = bool(loaded[1].get("par", False)) if loaded is not None else False
        status = store_status(store, dataset, since=filters.get("since"),
                              ruleset=filters.get("ruleset"), par=par)
        if not status["stale"]:
            return
        from jaslog.export.dataset import DEFAULT_CHUNK, PAR_CHUNK

        with games_progress("exporting new games") as progress:
            result = export_store(store, dataset, since=filters.get("since"),
                                  ruleset=filters.get("ruleset"), progress=progress,
                                  on_total=progress.total, par=par,
                                  chunk_games=PAR_CHUNK if par else DEFAULT_CHUNK)
        if result.changed:
            err_console.print(f"exported {result.games_added} new and {result.games_replaced} "
                              f"changed games to {result.path}", soft_wrap=True, style="dim")


def _display_names(db: str | None) -> dict[str, str]:
    """The players' display names from the store (none when there is no store yet)."""
    from jaslog.store import open_store, resolve_url

    url = resolve_url(db)
    if _sqlite_missing(url):
        return {}
    with open_store(url, create=False) as store:
        return store.players()


def _find_question(qs: dict[str, Any], name: str) -> Any:
    key = name.strip().lower().replace("-", "_")
    if key in qs:
        return qs[key]
    hits = [k for k in qs if key in k]
    if len(hits) == 1:
        return qs[hits[0]]
    if hits:
        fail(f"{name!r} could be {', '.join(hits)}; say which")
    fail(f"no question {name!r}; `jaslog stats --list` shows them")


def _print_result(res: Any, *, title: str | None, caption: str | None) -> None:
    from jaslog.stats.charts import result_table_data

    cols, rows = result_table_data(res)
    numeric = [any(isinstance(r[i], int | float) and not isinstance(r[i], bool) for r in res.rows)
               for i in range(len(cols))]
    console.print(fit_table(cols, rows, numeric, console.width, title=title, caption=caption))
    if not rows:
        console.print(f"({getattr(res, 'empty', None) or 'no rows'})", style="dim")
    left_out = getattr(res, "score_only_left_out", None)
    if left_out:
        console.print(left_out_line(left_out), style="dim", soft_wrap=True)


def left_out_line(n: int) -> str:
    """What the text answer says of the score-only rounds a question left out.

    >>> left_out_line(1)
    '1 score-only round left out: its score sheet does not record what this question needs'
    """
    return (f"{n} score-only round{'s' * (n != 1)} left out: {'their' if n != 1 else 'its'} "
            f"score sheet{'s' * (n != 1)} {'do' if n != 1 else 'does'} not record what this "
            "question needs")


def _emit(res: Any, *, json: bool, csv: bool, title: str | None, caption: str | None) -> None:
    if json:
        write_json_line(res.to_json())
    elif csv:
        sys.stdout.write(res.to_csv())
        sys.stdout.flush()
    else:
        _print_result(res, title=title, caption=caption)


def stats(
    question: str | None = typer.Argument(None, help="the question (see --list); a unique part "
                                          "of its name will do"),
    by: str | None = typer.Option(None, "--by", "-b", help="group by this dimension (see --list; "
                                  "every question that groups also takes month, weekday, "
                                  "evening and hour)"),
    where: str | None = WHERE,
    player: list[str] = typer.Option([], "--player", "-p", help="only the games this player "
                                     "sat in: an id or a display name (repeatable: games they "
                                     "all sat in)"),
    date_from: str | None = typer.Option(None, "--from", help="only games begun on or after "
                                         "this date or RFC 3339 time"),
    date_to: str | None = typer.Option(None, "--to", help="only games begun on or before this "
                                       "date (the whole day) or time"),
    json: bool = JSON,
    csv: bool = CSV,
    plot: Path | None = typer.Option(None, "--plot", help="also draw the answer as a bar chart "
                                     "into this file (.png, .svg or .pdf)"),
    list_: bool = typer.Option(False, "--list", "-l", help="list the questions and their "
                               "dimensions"),
    public: bool = typer.Option(False, "--public", help="count only what the public may see, "
                                "as the service answers a public token: finished games, "
                                "without the rounds that ended with cards unplayed"),
    show_sql: bool = typer.Option(False, "--show-sql", help="print the SQL that answers it"),
    dataset: Path | None = DATASET,
    db: str | None = DB,
    no_refresh: bool = NO_REFRESH,
) -> None:
    """Answer a question about how people play, over the Parquet export (exporting new games
    from the store first when the export is behind)."""
    from jaslog.stats import charts
    from jaslog.stats.analytics import Dataset, questions

    if json and csv:
        fail("--json and --csv exclude each other")
    with _errors():
        qs = questions()
    if list_ or question is None:
        if json:
            write_json_line([{"name": q.name, "question": q.question, "by": q.groupings,
                              "notes": list(q.notes)} for q in qs.values()])
            return
        t = Table(title="jaslog stats QUESTION [--by DIMENSION]", title_justify="left")
        t.add_column("question")
        t.add_column("what it answers")
        t.add_column("--by (first: default)")
        for q in qs.values():
            t.add_row(q.name, q.question, ", ".join(q.groupings) or "-")
        console.print(t)
        return
    q = _find_question(qs, question)
    if plot is not None and not show_sql:
        with _errors():
            charts.check_plot_path(plot)
    if show_sql:
        with _errors():
            sys.stdout.write(q.render(by) + "\n")
        return
    with _errors():
        ds_dir = dataset or default_dataset(db)
        if not no_refresh:
            refresh(ds_dir, db)
        from jaslog.stats.analytics import both, games_filter, player_ids

        ids = player_ids(player, _display_names(db)) if player else []
        where = both(where, games_filter(players=ids, date_from=date_from, date_to=date_to))
        with Dataset(ds_dir, where=where, public=public) as ds:
            res = ds.ask(q, by)
        if plot is not None:
            charts.plot(res, q, plot)
            err_console.print(f"chart written to {plot}", style="dim", soft_wrap=True)
    caption = " ".join(q.notes) if q.notes else None
    if where:
        caption = f"games where {where}. " + (caption or "")
    if public:
        caption = (f"{PUBLIC_NOTE} " + (caption or "")).strip()
    _emit(res, json=json, csv=csv, title=q.question, caption=caption)


def sql(
    query: str = typer.Argument(..., help="one DuckDB query over the views events, plays, "
                                "tricks, rounds, games, players, violations, ratings (SELECT, WITH, VALUES, "
                                "FROM, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN, PRAGMA, CALL)"),
    where: str | None = WHERE,
    json: bool = JSON,
    csv: bool = CSV,
    plot: Path | None = typer.Option(None, "--plot", help="also draw the answer as a bar chart "
                                     "into this file (.png, .svg or .pdf)"),
    dataset: Path | None = DATASET,
    db: str | None = DB,
    no_refresh: bool = NO_REFRESH,
    external: bool = typer.Option(False, "--external", help="let the query read files other "
                                  "than the export's, the network, and DuckDB's extensions "
                                  "(by default it reads the export's views only)"),
    fmt: str | None = typer.Option(None, "--format", "-f", help="table (the default: as "
                                   "DuckDB's shell, the columns that do not fit the terminal "
                                   "folded into …), vertical (each row as column = value "
                                   "lines), csv, json or markdown"),
    vertical: bool = typer.Option(False, "--vertical", "-x", help="each row as column = value "
                                  "lines (--format vertical; DuckDB's .mode line, psql's \\x)"),
) -> None:
    """Run one SQL query over the export's views (named after the tables); statements that
    change something (DROP, CREATE, COPY, SET...) are refused, and so is reading any other
    file or the network unless --external. A table too wide for the terminal shows its first
    and last columns that fit and folds the rest (…), as DuckDB's shell does: --vertical
    shows every column, --format csv, json or markdown every column for another program."""
    from jaslog.stats import charts
    from jaslog.stats.analytics import Dataset, check_query

    asked = [f for f, on in (("json", json), ("csv", csv), ("vertical", vertical)) if on]
    if fmt is not None:
        if fmt not in SQL_FORMATS:
            fail(f"--format {fmt!r}: {', '.join(SQL_FORMATS)}")
        asked.append(fmt)
    if len(set(asked)) > 1:
        fail(f"--{' and --'.join(dict.fromkeys(asked))}: one format at a time"
             if fmt is None else f"--format {fmt} and --{asked[0]}: one format at a time")
    form = asked[0] if asked else "table"
    with _errors():
        check_query(query)
        if plot is not None:
            charts.check_plot_path(plot)
        ds_dir = dataset or default_dataset(db)
        if not no_refresh:
            refresh(ds_dir, db)
        with Dataset(ds_dir, where=where, external=external) as ds:
            res = ds.query(query)
        if plot is not None:
            charts.plot(res, None, plot)
            err_console.print(f"chart written to {plot}", style="dim", soft_wrap=True)
    if form in ("json", "csv"):
        _emit(res, json=form == "json", csv=form == "csv", title=None, caption=None)
    else:
        _print_query(res, form)


#: the forms ``jaslog sql --format`` writes an answer in
SQL_FORMATS = ("table", "vertical", "csv", "json", "markdown")


def _print_query(res: Any, form: str) -> None:
    """A query's answer as a table (folded as DuckDB's shell folds one too wide), each row
    as ``column = value`` lines, or a Markdown table."""
    from jaslog.cli.tables import folded_table, markdown_table, vertical_table
    from jaslog.stats.charts import result_table_data

    cols, rows = result_table_data(res)
    numeric = [any(isinstance(r[i], int | float) and not isinstance(r[i], bool) for r in res.rows)
               for i in range(len(cols))]
    if form == "markdown":
        sys.stdout.write(markdown_table(cols, rows, numeric))
    elif form == "vertical":
        sys.stdout.write(vertical_table(cols, rows))
    else:
        table, shown = folded_table(cols, rows, numeric, console.width)
        console.print(table)
        if shown < len(cols):
            console.print(f"{len(cols)} columns, {shown} shown (… the others): --vertical "
                          "shows each row whole, --format csv, json or markdown every column",
                          style="dim", highlight=False)
    if not rows and form != "markdown":
        console.print("(no rows)", style="dim")
    sys.stdout.flush()


def register(app: typer.Typer) -> None:
    app.command()(export)
    app.command()(stats)
    app.command()(sql)
