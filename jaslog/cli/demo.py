"""``jaslog demo``: the whole way through in one command, on the embedded default (SQLite).

1. bots play a few hundred games across the rulesets, with the faults real records have;
2. the log is imported into a fresh SQLite store (validated, hash-chained), with a
   progress bar, and the chains are verified;
3. one disputed round is replayed from the store: the table at the revoke and the audit's
   explanation (the rule, the legal cards, the score as played and as the rules have it),
   with the ``jaslog replay store:GAME`` command that shows it again;
4. the store is exported to a Parquet dataset;
5. three statistics tables are printed and a chart is written;
6. the user is told what to try next, with the demo's own paths.

Everything lands in one folder (``jaslog-demo`` by default), made fresh on every run. The
output keeps to the terminal's width: sentences wrap under their indent, long commands go on
over lines ending in `` \\`` (as a shell takes them), tables are laid out to fit.

Heavy imports sit in the command functions (the import convention of :mod:`jaslog.cli.common`).
"""

from __future__ import annotations

import shlex
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer.main
from rich.console import Console
from rich.markup import escape
from rich.padding import Padding
from rich.panel import Panel
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from jaslog.cards import SUIT_NAMES, card_text, hand_text
from jaslog.cli.tables import fit_table
from jaslog.errors import JaslogError
from jaslog.games.klaverjas import GAME as KLAVERJAS
from jaslog.games.klaverjas.rules import explain, score_round
from jaslog.play.render import describe_event, render_table
from jaslog.play.sim import Faults
from jaslog.store import StoreError, open_store

MARKER = ".jaslog-demo"
LOG = "games.jsonl"
DB = "jaslog.sqlite"
PARQUET = "parquet"
CHART = "success-by-trump.png"
OURS = (LOG, DB, DB + "-wal", DB + "-shm", DB + "-journal", DB + ".keys", PARQUET, CHART,
        MARKER)  # (DB.keys: the store's signing key, jaslog.store.signing)

#: Games per import transaction and per export chunk: small batches keep memory low.
BATCH = 50

#: Faults of the demo's records: enough for the audit and the statistics to find some.
DEMO_FAULTS = Faults(revoke_rate=0.004, false_roem_rate=0.005, no_hands_rate=0.05)


class DemoError(JaslogError):
    """The demo cannot run (its folder is taken, a step failed): a full sentence."""

    code = "demo_failed"


@dataclass
class DemoResult:
    """What the demo made, for tests and scripts."""

    dir: Path
    log: Path
    db: Path
    parquet: Path
    chart: Path | None = None
    games: int = 0
    events: int = 0
    disputed: dict[str, Any] | None = None
    tables: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


def prepare(folder: Path) -> None:
    """Make ``folder`` an empty demo folder, removing only what an earlier demo left there."""
    if folder.exists() and not folder.is_dir():
        raise DemoError(f"{folder} is a file; give the demo a folder with --dir")
    if folder.is_dir() and any(folder.iterdir()):
        if not (folder / MARKER).is_file():
            raise DemoError(f"{folder} exists and is not a jaslog demo folder; the demo only "
                            "writes into a new or empty folder (use --dir)")
        stray = sorted(p.name for p in folder.iterdir() if p.name not in OURS)
        if stray:
            raise DemoError(f"{folder} holds files the demo did not make ({', '.join(stray[:3])}); "
                            "move them or use another --dir")
        for name in OURS:
            p = folder / name
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            elif p.exists() or p.is_symlink():
                p.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MARKER).write_text("made by `jaslog demo`; it clears this folder on its next run\n")


def demo_rulesets() -> list[str]:
    """Every preset (every game can be both simulated and folded)."""
    from jaslog.play.sim import simulated_rulesets

    return simulated_rulesets()


@contextmanager
def _progress(console: Console, bytes_: bool = False) -> Iterator[Progress]:
    cols: list[Any] = [TextColumn("   {task.description}"), BarColumn()]
    cols.append(DownloadColumn() if bytes_ else MofNCompleteColumn())
    cols.append(TimeRemainingColumn())
    with Progress(*cols, console=console, transient=True) as p:
        yield p


def _step(console: Console, n: int, title: str) -> None:
    console.print()
    console.print(Text(f"{n}. {title}", style="bold cyan"))


#: Where the demo's sentences start, and its commands.
INDENT = 3


def _say(console: Console, markup: str, indent: int = INDENT, style: str = "") -> None:
    """A sentence (rich markup), wrapped to the terminal with its indent kept."""
    console.print(Padding(Text.from_markup(markup, style=style), (0, 0, 0, indent), expand=False))


def command_lines(argv: list[str], width: int, indent: int = INDENT) -> list[str]:
    """``jaslog ARGV`` as shell lines of at most ``width`` columns (with the indent): a long
    command goes on over lines ending in `` \\``, an option kept with its value. Only a
    single word longer than the line can make one wider."""
    words = ["jaslog", *(shlex.quote(a) for a in argv)]
    units: list[str] = []
    for w in words:
        if units and units[-1].startswith("--") and " " not in units[-1] \
                and not w.startswith("-"):
            units[-1] += " " + w
        else:
            units.append(w)
    room = width - indent - 2  # room for " \\"
    lines: list[str] = []
    line = ""
    for u in units:
        if line and len(line) + 1 + len(u) > room:
            lines.append(line + " \\")
            line = "    " + u
        else:
            line = f"{line} {u}" if line else u
    lines.append(line)
    return [" " * indent + x for x in lines]


def _command(console: Console, argv: list[str], indent: int = INDENT, style: str = "bold") -> None:
    for line in command_lines(argv, console.width, indent):
        console.print(Text(line, style=style), soft_wrap=True)


def run_demo(folder: Path, *, games: int = 240, seed: int = 2026,
             console: Console | None = None) -> DemoResult:
    """Run the whole demo into ``folder``; raises :class:`DemoError` when it cannot."""
    console = console or Console(emoji=False)
    folder = Path(folder)
    prepare(folder)
    res = DemoResult(folder, folder / LOG, folder / DB, folder / PARQUET)
    rulesets = demo_rulesets()
    console.print(Panel.fit(
        f"jaslog demo: {games} games of {', '.join(rulesets)} played by bots, recorded as "
        f"immutable event logs, audited, exported and analysed, in [bold]{escape(str(folder))}/[/]",
        border_style="cyan"))
    clock = time.perf_counter()

    def lap(name: str) -> float:
        nonlocal clock
        now = time.perf_counter()
        res.seconds[name] = round(now - clock, 2)
        clock = now
        return res.seconds[name]

    _simulate(console, res, rulesets, games, seed)
    lap("simulate")

    try:
        store = open_store(str(res.db))
    except StoreError as e:
        raise DemoError(f"cannot open the store {res.db}: {e}") from None
    with store:
        _import(console, res, store)
        lap("import")
        res.disputed = _disputed_round(console, res, store)
        lap("audit")
        _export(console, res, store)
        lap("export")
    _statistics(console, res)
    lap("statistics")
    _next_steps(console, res)
    total = sum(res.seconds.values())
    console.print(Text(f"\nDone in {total:.1f} s: " + ", ".join(
        f"{k} {v:.1f} s" for k, v in res.seconds.items()), style="dim"))
    return res


# ---------------------------------------------------------------------- 1. simulate


def _simulate(console: Console, res: DemoResult, rulesets: list[str], games: int,
              seed: int) -> None:
    from jaslog.play.sim import DEFAULT_START, simulate, to_jsonl

    _step(console, 1, "Bots play the games")
    faults = DEMO_FAULTS
    n_events = 0
    kinds = {"revoke": 0, "false": 0, "blind": 0}
    with _progress(console) as p, open(res.log, "wb") as f:
        task = p.add_task("simulating", total=games)
        for e in simulate(games, rulesets, seed=seed, prefix="demo", faults=faults,
                          start=DEFAULT_START):
            if e["seq"] == 0 and n_events:
                p.advance(task)
            if e["type"] == "dealt" and "hands" not in e:
                kinds["blind"] += 1
            n_events += 1
            f.writelines(to_jsonl((e,)))
        p.advance(task)
    res.games, res.events = games, n_events
    _say(console, f"{games} games ({', '.join(rulesets)}), {n_events:,} events, with revokes "
         f"and false roem claims at the rates real records show, and {kinds['blind']} rounds "
         "whose hands nobody wrote down")
    _say(console, f"→ [bold]{escape(str(res.log))}[/] (jaslog/1 JSON Lines)")


# ---------------------------------------------------------------------- 2. import


def _import(console: Console, res: DemoResult, store: Any) -> None:
    _step(console, 2, "Import into a fresh SQLite store")
    size = res.log.stat().st_size
    t0 = time.perf_counter()
    with _progress(console, bytes_=True) as p:
        task = p.add_task("importing", total=size)
        try:
            summary = store.import_files([res.log], batch_games=BATCH,
                                         progress=lambda done: p.update(task, completed=done))
        except StoreError as e:
            raise DemoError(f"the import failed: {e}") from None
    took = time.perf_counter() - t0
    if summary.rejected:
        first = summary.rejected[0]
        raise DemoError(f"the store refused {len(summary.rejected)} simulated game(s), e.g. "
                        f"{first.game}: {first.reason}")
    report = store.verify()
    _say(console, f"{summary.games} games, {summary.events:,} events stored in {took:.1f} s "
         f"({summary.events / max(took, 1e-9):,.0f} events/s), each validated through the rules")
    chains = "[green]intact[/]" if report.ok else f"[red]{len(report.problems)} problems[/]"
    _say(console, f"hash chains verified: {report.games} games, {report.events:,} events, {chains}")
    _say(console, f"→ [bold]{escape(str(res.db))}[/]")


# ---------------------------------------------------------------------- 3. a disputed round


def find_revoke(store: Any, games: Iterator[str] | list[str]) -> tuple[str, Any] | None:
    """The first Klaverjas revoke (with the hands recorded) in ``games``: (game id,
    violation). The demo's disputed round is told with Klaverjas's rules (:data:`DISPUTE`)."""
    fallback = None
    for gid in games:
        fold = store.fold(gid)
        if fold.game != DISPUTE.name:
            continue
        for r in fold.state.rounds:
            revokes = [v for v in r.violations if v.rule in _REVOKE_RULES]
            if not revokes:
                continue
            if _hands_seen(store, gid, r.number):
                return gid, revokes[0]
            fallback = fallback or (gid, revokes[0])
    return fallback


#: The game whose revoke the demo explains (its rules explain the play and score the round).
DISPUTE = KLAVERJAS
_REVOKE_RULES = ("must_follow_suit", "must_trump", "must_overtrump", "no_undertrump",
                 "must_discard")


def _hands_seen(store: Any, gid: str, number: int) -> bool:
    n = 0
    for e in store.events(gid):
        if e.type == "dealt":
            n += 1
            if n == number:
                return e.hands is not None
    return False


def _disputed_round(console: Console, res: DemoResult, store: Any) -> dict[str, Any] | None:
    _step(console, 3, "A disputed round, replayed from the store")
    ids = [g.game for g in store.games()]
    found = find_revoke(store, ids)
    if found is None:
        _say(console, "no revoke in these games (try more --games)")
        return None
    gid, v = found
    before = store.fold(gid, upto=v.seq - 1)
    g = before.state
    r = g.current_round
    seat = v.seat
    t = r.tricks[-1]
    trick = [] if t.complete else list(t.cards)
    assert r.trump is not None and seat is not None and v.card is not None
    names = before.seats
    _say(console, f"Game [bold]{escape(gid)}[/] ({before.ruleset}), round {r.number}, trick "
         f"{v.trick}: {escape(names[seat])} (seat {seat}) is to play. The table just before:")
    console.print(Padding(render_table(before), (0, 0, 0, 5)))
    hand = r.hands[seat] if r.hands_known else 0
    events = store.events(gid, upto=v.seq)
    after = store.fold(gid, upto=v.seq)
    console.print(Padding(describe_event(after, events[-1]), (0, 0, 0, 3)))
    _say(console, f"[yellow]✗ {v.rule}[/]: {escape(v.message)}")
    legal, why = explain(hand, trick, r.trump, g.play_rules)

    _say(console, f"[bold]The rule:[/] {escape(why)} Legal were: {hand_text(legal) or '-'}; "
         f"{card_text(v.card)} was not.")
    full = store.fold(gid)
    rr = full.state.rounds[r.number - 1]
    o = rr.outcome(full.state.score_rules, full.state.claimed_mode)
    chooser_team = (rr.chooser or 0) & 1
    played, result = score_round(full.state.score_rules, o.points, o.roem, o.tricks, chooser_team)
    option = full.options["revoke"]
    _say(console, f"[bold]The score:[/] trumps {SUIT_NAMES[rr.trump or 0]}, chosen by team "
         f"{chooser_team}. As the cards fell the round is {result} {played[0]}–{played[1]}; "
         f"with the revoke (option revoke: {option}) team {seat & 1} loses it: "
         f"[bold]{o.score[0]}–{o.score[1]}[/].")
    _say(console, "Replay it yourself from the store, card by card:")
    _command(console, replay_argv(res, gid, r.number))
    return {"game": gid, "round": r.number, "seq": v.seq, "seat": seat, "rule": v.rule,
            "card": card_text(v.card), "legal": hand_text(legal).split(),
            "as_played": played, "scored": o.score}


# ---------------------------------------------------------------------- 4. export


def _export(console: Console, res: DemoResult, store: Any) -> None:
    _step(console, 4, "Export to Parquet")
    try:
        from jaslog.export import ExportError, export_store
    except ImportError:
        _say(console, "not available (jaslog.export is not installed)")
        return
    t0 = time.perf_counter()
    with _progress(console) as p:
        task = p.add_task("exporting", total=res.games)
        try:
            result = export_store(store, res.parquet, chunk_games=BATCH,
                                  progress=lambda n: p.update(task, completed=n))
        except ExportError as e:
            raise DemoError(f"the export failed: {e}") from None
    took = time.perf_counter() - t0
    rows = ", ".join(f"{t} {n:,}" for t, n in result.rows_total.items())
    _say(console, f"{sum(result.rows_total.values()):,} rows in {took:.1f} s: {rows}")
    _say(console, f"→ [bold]{escape(str(res.parquet))}/current[/] (Hive-partitioned by ruleset "
         "and year, zstd, with a manifest of SHA-256 checksums)")


# ---------------------------------------------------------------------- 5. statistics


#: The demo's three questions (``jaslog/stats/questions/<name>.sql``, grouped by a dimension), and its chart.
DEMO_QUESTIONS = (("declarer_success", "ruleset"), ("roem_frequency", "all"), ("violations", "all"))
DEMO_CHART = ("declarer_success", "trump")


def _statistics(console: Console, res: DemoResult) -> None:
    _step(console, 5, "Statistics (DuckDB over the Parquet dataset)")
    try:
        from jaslog.stats.analytics import AnalyticsError, Dataset, questions
        from jaslog.stats.charts import PlotUnavailable, plot, result_table_data
    except ImportError:
        _say(console, "not available (jaslog.stats.analytics is not installed)")
        return
    if not (res.parquet / "current").exists():
        _say(console, "not available: there is no export to query")
        return
    try:
        qs = questions()
        with Dataset(res.parquet) as ds:
            for name, by in DEMO_QUESTIONS:
                q = qs[name]
                answer = ds.ask(q, by)
                cols, rows = result_table_data(answer)
                keep = [i for i, c in enumerate(cols) if c != "all"]
                numeric = [any(isinstance(r[i], int | float) and not isinstance(r[i], bool)
                               for r in answer.rows) for i in keep]
                table = fit_table([cols[i] for i in keep], [[row[i] for i in keep] for row in rows],
                                  numeric, console.width - INDENT, title=q.question, out=console)
                table.title_style = "bold"
                console.print(Padding(table, (0, 0, 0, INDENT), expand=False))
                again = ["stats", name, "--by", by, "--db", str(res.db)]
                if available(again):
                    _command(console, again, 2 * INDENT, style="dim")
                res.tables.append(name)
            name, by = DEMO_CHART
            chart = ds.ask(qs[name], by)
        res.chart = plot(chart, qs[name], res.dir / CHART)
    except PlotUnavailable as e:
        _say(console, f"chart: not drawn; {escape(str(e))}")
        return
    except (AnalyticsError, KeyError) as e:
        raise DemoError(f"the statistics failed: {e}") from None
    _say(console, f"chart: how often the playing side makes it, by trump suit → "
         f"[bold]{escape(str(res.chart))}[/]")


# ---------------------------------------------------------------------- 6. next


def available(argv: list[str]) -> bool:
    """Does the ``jaslog`` command line take ``argv`` (its command and every --option)?"""
    from jaslog.cli import app  # import cycle: the app's commands import this module

    cmd: Any = typer.main.get_command(app)
    words = list(argv)
    while words and hasattr(cmd, "commands"):  # a group (typer vendors its own click)
        sub = cmd.commands.get(words[0])
        if sub is None:
            return False
        cmd, words = sub, words[1:]
    opts = {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)}
    return all(w in opts for w in words if w.startswith("--"))


def replay_argv(res: DemoResult, game: str, round_: int) -> list[str]:
    """``jaslog replay`` of one stored round (what step 3 showed)."""
    return ["replay", f"store:{game}", "--round", str(round_), "--db", str(res.db)]


def _next_steps(console: Console, res: DemoResult) -> None:
    db, log = res.db, res.log
    if res.disputed:
        replay = [*replay_argv(res, res.disputed["game"], res.disputed["round"]), "--seat", "1"]
        what = "the disputed round as seat 1 saw it (from the store)"
    else:
        replay, what = ["replay", str(log)], "replay the first game of the log, event by event"
    tries: list[tuple[list[str], str]] = [
        (["check", str(log)], "validate and score every game (exit 1: rule violations found)"),
        (replay, what),
        (["games", "--db", str(db)], "the games in the store"),
        (["verify", "--db", str(db)], "recheck every hash chain"),
        (["stats", "--list", "--db", str(db)], "the questions jaslog answers"),
        (["stats", "declarer_success", "--by", "trump", "--db", str(db), "--plot", "chart.png"],
         "a question, as a chart"),
        (["simulate", "-r", "rotterdam", "-n", "50", "--revoke-rate", "0.01", "--stats"],
         "more games, with your options"),
        (["rules", "legal", "--ruleset", "amsterdam", "--trump", "H", "--trick", "AS,7S",
          "--hand", "7H,AD,KC"], "the rule book on demand"),
    ]
    _step(console, 6, "What to try next")
    for argv, what in tries:
        if available(argv):
            _command(console, argv)
            _say(console, what, 2 * INDENT, style="dim")
    _say(console, f"(every command takes the store from [bold]JASLOG_DB={escape(str(db))}[/] too)")

