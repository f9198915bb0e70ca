"""``jaslog simulate`` (bots play games into a file or the store) and ``jaslog demo``.

Heavy imports sit in the command functions (the import convention of :mod:`jaslog.cli.common`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from jaslog.cli.common import fail, write_json_line
from jaslog.engine.options import OptionError
from jaslog.games import PRESETS, parse_option_text, resolve
from jaslog.store import StoreError, open_store

err = Console(stderr=True, highlight=False, emoji=False)
out = Console(highlight=False, emoji=False)


def progress_bar(console: Console) -> Progress:
    """The progress bar of long work (drawn on ``console``; silent when it is not a terminal)."""
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeRemainingColumn(), console=console, transient=True)


def _rulesets(names: list[str]) -> list[str]:
    from jaslog.play.sim import simulated_rulesets

    known = simulated_rulesets()
    if not names:
        return ["amsterdam"]
    rulesets: list[str] = []
    for n in names:
        for name in (known if n == "all" else [n]):
            if name not in PRESETS:
                fail(f"unknown ruleset {name!r}; the presets are {', '.join(PRESETS)}")
            if name not in known:
                fail(f"there is no simulator for {name} yet; simulated rulesets: {', '.join(known)}")
            if name not in rulesets:
                rulesets.append(name)
    return rulesets


def _options(rulesets: list[str], texts: list[str]) -> dict[str, dict[str, Any]]:
    by_ruleset: dict[str, dict[str, Any]] = {}
    for rs in rulesets:
        opts: dict[str, Any] = {}
        for text in texts:
            try:
                k, v = parse_option_text(rs, text)
            except OptionError as e:
                hint = (f"; -o applies to every ruleset of -r ({', '.join(rulesets)}): give only "
                        "the rulesets it fits" if len(rulesets) > 1 else "")
                fail(f"--option {text}: {e} (ruleset {rs}){hint}")
            opts[k] = v
        try:
            resolve(rs, opts)
        except OptionError as e:
            fail(f"{e} (ruleset {rs})")
        by_ruleset[rs] = opts
    return by_ruleset


def _start(text: str | None, times: bool) -> datetime | None:
    from jaslog.play.sim import DEFAULT_START

    if not times:
        return None
    if text is None:
        return DEFAULT_START
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        fail(f"--start {text!r} is not a date or time (e.g. 2026-01-05 or 2026-01-05T19:30:00Z)")
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return t


def _stats_table(stats: dict[str, Any], bot: str) -> Table:
    table = Table(title=f"How the rounds ended ({bot} bots)", title_justify="left",
                  box=box.SIMPLE_HEAD, padding=(0, 0), show_edge=False,
                  caption="made / failed / tied: the playing side (Klaverjas: the side that "
                          "chose trumps, made or pit / nat; Klaberjass: the maker, made / bete; "
                          "Kloepper: the black queens' side) won / lost / neither, of the rounds "
                          "played out; roem: Klaberjass sequences and bella; w/roem: the rounds "
                          "with roem; faults: the rule violations found",
                  caption_justify="left")
    rows = [*stats["by_ruleset"].items(), *([("all", stats)] if len(stats["by_ruleset"]) > 1
                                            else [])]
    ties = any(s["tie_rate"] for _, s in rows)  # rare: the column only when there are any
    for col in ("ruleset", "games", "rounds", "made", "failed", *(["tied"] * ties), "pit",
                "revoke", "roem/rd", "w/roem", "faults"):
        table.add_column(col, justify="left" if col == "ruleset" else "right",
                         no_wrap=col == "ruleset")

    def pct(x: float | None, fmt: str = ".0%") -> str:
        return "–" if x is None else format(x, fmt)

    def row(name: str, s: dict[str, Any]) -> None:
        table.add_row(name, str(s["games"]), str(s["rounds"]), pct(s["made_rate"]),
                      pct(s["failed_rate"]), *([pct(s["tie_rate"])] * ties), pct(s["pit_rate"]),
                      str(s["revoke_rounds"]),
                      "–" if s["roem_per_round"] is None else f"{s['roem_per_round']:.1f}",
                      pct(s["rounds_with_roem"], ".0%"), str(sum(s["violations"].values())))

    for name, s in rows:
        row(name, s)
    return table


def simulate(
    ruleset: list[str] = typer.Option([], "--ruleset", "-r",
                                      help="a preset, repeatable, or 'all' (default amsterdam); "
                                           "games are spread over the rulesets in turn"),
    games: int = typer.Option(100, "--games", "-n", min=1, metavar="N", help="how many games"),
    seed: int = typer.Option(0, "--seed", help="the same seed gives the same games, byte for byte"),
    bot: str = typer.Option("heuristic", "--bot", help="random | heuristic"),
    option: list[str] = typer.Option([], "--option", "-o", help="KEY=VALUE rule option, repeatable"),
    revoke_rate: float = typer.Option(0.0, "--revoke-rate", min=0.0, max=1.0, metavar="P",
                                      help="chance per play of an illegal card, when one is held"),
    false_roem_rate: float = typer.Option(0.0, "--false-roem-rate", min=0.0, max=1.0, metavar="P",
                                          help="chance per trick of claiming roem that is not "
                                               "there (Klaberjass: a sequence not held; Kloepper: "
                                               "a knock without a black queen)"),
    no_hands_rate: float = typer.Option(0.0, "--no-hands-rate", min=0.0, max=1.0, metavar="P",
                                        help="chance per round that the hands were not recorded"),
    unclaimed_roem_rate: float = typer.Option(0.1, "--unclaimed-roem-rate", min=0.0, max=1.0, metavar="P",
                                              help="chance that roem on the table goes unclaimed"),
    claim_rate: float = typer.Option(0.0, "--claim-rate", min=0.0, max=1.0, metavar="P",
                                     help="chance per trick to lead that the seat due claims "
                                          "the rest (one time in four it concedes)"),
    out_file: Path | None = typer.Option(None, "--out", "-O",
                                         help="write jaslog/1 JSON Lines here ('-': stdout, "
                                              "the default)"),
    db: str | None = typer.Option(None, "--db", help="import the games into this store "
                                  "(a path or URL; see `jaslog import`)"),
    prefix: str = typer.Option("sim", "--prefix",
                               help="game ids are PREFIX-ruleset-number (sim-rotterdam-000007)"),
    first: int = typer.Option(0, "--first", min=0, metavar="N", help="number the games from here"),
    start: str | None = typer.Option(None, "--start",
                                     help="time of the first game (default: 2026-01-05 19:30 UTC)"),
    times: bool = typer.Option(True, "--times/--no-times", help="stamp events with `at`"),
    stats: bool = typer.Option(False, "--stats", help="also fold the games and show how the "
                               "rounds ended (made, failed, pit, roem)"),
    json: bool = typer.Option(False, "--json", help="the summary as one JSON object"),
    game: str | None = typer.Option(None, "--game", help="play this game of the store (--db), "
                                    "created but not yet dealt (a tournament's table: "
                                    "cup-r1-t1), at its seats and from its dealer"),
) -> None:
    """Bots play complete games: every ruleset and option, faults on request, deterministic."""
    from jaslog.play.sim import BOT_NAMES, Faults, to_jsonl
    from jaslog.play.sim import simulate as run

    if bot not in BOT_NAMES:
        fail(f"unknown bot {bot!r}; the bots are {', '.join(BOT_NAMES)}")
    if game is not None:
        _play_stored(game, db, bot, seed, json)
        return
    if out_file is not None and db is not None:
        fail("give --out or --db, not both")
    rulesets = _rulesets(ruleset)
    by_ruleset = _options(rulesets, option)
    faults = Faults(revoke_rate=revoke_rate, false_roem_rate=false_roem_rate,
                    no_hands_rate=no_hands_rate, unclaimed_roem_rate=unclaimed_roem_rate,
                    claim_rate=claim_rate)
    to_stdout = db is None and (out_file is None or str(out_file) == "-")
    report = err if to_stdout else out
    events = run(games, rulesets, lambda rs: by_ruleset[rs] or None, seed=seed, prefix=prefix,
                 bot=bot, faults=faults, start=_start(start, times), first=first)
    from jaslog.play.sim import ResultStats

    tally = ResultStats() if stats else None
    counts = {"games": 0, "events": 0}

    def counted(progress: Progress) -> Iterator[dict[str, Any]]:
        task = progress.add_task("simulating", total=games)
        for e in events:
            if e["seq"] == 0 and counts["events"]:
                progress.advance(task)
            if e["seq"] == 0:
                counts["games"] += 1
            counts["events"] += 1
            if tally is not None:
                tally.add(e)
            yield e
        progress.advance(task)

    summary: dict[str, Any] = {"games": games, "rulesets": rulesets, "bot": bot, "seed": seed}
    with progress_bar(err) as progress:
        if db is not None:
            summary.update(_into_store(db, to_jsonl(counted(progress)), progress))
        elif to_stdout:
            write = sys.stdout.buffer.write
            try:
                for line in to_jsonl(counted(progress)):
                    write(line)
                sys.stdout.flush()
            except BrokenPipeError:  # `jaslog simulate | head`: the reader has had enough
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                raise typer.Exit(0) from None
        else:
            assert out_file is not None
            try:
                with open(out_file, "wb") as f:
                    f.writelines(to_jsonl(counted(progress)))
            except OSError as e:
                fail(f"{out_file}: {e.strerror}")
            summary["out"] = str(out_file)
    summary["events"] = counts["events"]
    if tally is not None:
        summary["stats"] = tally.summary()
    if json:
        if to_stdout:
            err.print_json(data=summary)
        else:
            write_json_line(summary)
        _refused(summary)
        return
    where = (f"into {db}" if db is not None else f"to {out_file}" if not to_stdout else "to stdout")
    report.print(f"simulated {games} game{'s' * (games != 1)} ({', '.join(rulesets)}; {bot} bots, "
                 f"seed {seed}): {counts['events']} events {where}", soft_wrap=True)
    if "imported" in summary:
        imp = summary["imported"]
        report.print(f"stored {imp['games']} games, {imp['events']} events; "
                     f"{len(imp['skipped'])} already present, {len(imp['rejected'])} rejected")
    if stats:
        report.print(_stats_table(summary["stats"], bot))
    _refused(summary)


def _play_stored(game: str, db: str | None, bot: str, seed: int, as_json: bool) -> None:
    """``simulate --game``: the bots play one game of the store, not yet dealt, through the
    service's append (every rule checked, as a scorer's batch)."""
    from jaslog.service.bots import BotPlayError, play_stored_game
    from jaslog.service.core import Service
    from jaslog.service.tournaments import GAME_ID, Tournaments

    m = GAME_ID.fullmatch(game)
    hint = (f" (a round of tournament {m.group(1)}: `jaslog tournament play {m.group(1)} "
            "--bots`)" if m else "")
    if db is None:
        fail(f"--game {game}: the bots play a game already in a store: give --db{hint}")
    try:
        open_store(db, create=False).close()
    except StoreError as e:
        fail(str(e))
    svc = Service(db, pool_size=1)
    try:
        owner = Tournaments(svc).owner_of(game)
        if owner is not None:
            hint = f" (a round of tournament {owner}: `jaslog tournament play {owner} --bots`)"
        try:
            done = play_stored_game(svc, game, bot=bot, seed=seed)
        except BotPlayError as e:
            if as_json:
                write_json_line({"ok": False, "error": {"code": e.code, "message": e.message,
                                                        "exit": 2}})
            fail(f"{e.message}{hint} ({e.code})")
    finally:
        svc.close()
    if as_json:
        write_json_line(done)
        return
    out.print(f"{bot} bots played {game} into {db}: {done['events']} events, {done['rounds']} "
              f"deals, {'-'.join(map(str, done['totals']))}", soft_wrap=True)


def _refused(summary: dict[str, Any]) -> None:
    """Exit 1 when the store refused simulated games (a bug somewhere: say so)."""
    refused = summary.get("imported", {}).get("rejected")
    if refused:
        fail(f"the store refused {len(refused)} game(s), e.g. {refused[0]['game']}: "
             f"{refused[0]['reason']}", code=1)


def _into_store(url: str, lines: Iterator[bytes], progress: Progress) -> dict[str, Any]:
    try:
        store = open_store(url)
    except StoreError as e:
        fail(str(e))
    try:
        with store:
            summary = store.import_lines(lines, source="simulate")
    except StoreError as e:
        fail(str(e))
    return {"db": url, "imported": summary.to_json()}


def demo(
    dir: Path = typer.Option(Path("jaslog-demo"), "--dir", help="the demo folder (made fresh)"),
    games: int = typer.Option(240, "--games", "-n", min=4, help="games to simulate"),
    seed: int = typer.Option(2026, "--seed", help="seed of the simulated games"),
) -> None:
    """The main job in one go: simulate, store, audit a disputed round, export, statistics."""
    from jaslog.cli.demo import DemoError, run_demo

    try:
        run_demo(dir, games=games, seed=seed, console=out)
    except DemoError as e:
        fail(str(e))


def register(app: typer.Typer) -> None:
    app.command()(simulate)
    app.command()(demo)
