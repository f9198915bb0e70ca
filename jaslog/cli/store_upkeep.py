"""Keeping a store: ``upgrade`` (an older store to this schema, in place), ``reindex`` (the
round facts built again from the events) and ``players`` (display names, kept outside the
hash chains)."""

from __future__ import annotations

import typer

from jaslog.cli.common import console, games_progress, write_json_line
from jaslog.cli.store_cmds import DB, JSON, opened


def upgrade(
    games: int | None = typer.Option(None, "--games", min=1,
                                     help="move at most this many games' events now; the next "
                                          "run goes on from there"),
    db: str | None = DB,
) -> None:
    """Upgrade a store written by an older jaslog to this one's schema, in place: its events
    are rewritten into the compact layout a batch of games per transaction (an upgrade that
    stops halfway is finished by the next run), the old table dropped once every event is in
    the new one. The events' bytes, hashes and signatures stay as they were. Opening the
    store to write does the same, at once."""
    from jaslog.store.schema import SCHEMA_VERSION

    moved = 0

    def progress(n: int) -> None:
        nonlocal moved
        moved += n

    with opened(db, create=False, upgrade=False) as store:
        before = store.schema_version()
        if before is not None and before >= SCHEMA_VERSION:
            console.print(f"the store is at schema version {before}: nothing to upgrade",
                          highlight=False)
            return
        done = store.upgrade(games=games, progress=progress)
    if not done:
        console.print(f"moved the events of {moved} games; run `jaslog upgrade` again to go on "
                      f"(the store stays at schema version {before} until every game is moved)",
                      highlight=False)
        return
    console.print(f"upgraded the store from schema version {before} to {SCHEMA_VERSION} "
                  f"({moved} games' events moved)", highlight=False)


def reindex(
    resume: bool = typer.Option(False, "--resume",
                                help="go on from where an interrupted reindex stopped, "
                                     "instead of starting afresh"),
    games: int | None = typer.Option(None, "--games", min=1,
                                     help="build at most this many games now; `reindex "
                                          "--resume` goes on from there"),
    as_json: bool = JSON,
    db: str | None = DB,
) -> None:
    """Build the store's round facts again from its events: each closed round's result,
    scores, roem and the rules' verdicts (the projection an export reads, kept beside the
    events, never part of the hashed log). The facts table is dropped and built again, a
    batch of games per transaction; the events, hashes and signatures are not touched, and
    the rounds an export solved (`export --par`) are kept."""
    built = 0
    with opened(db, create=False) as store, games_progress("reindexing") as bar:
        def progress(n: int) -> None:
            nonlocal built
            built += n
            bar(built)

        done = store.reindex(resume=resume, games=games, progress=progress,
                             on_total=bar.total)
        rounds = sum(1 for _ in store.round_facts()) if done else None
    if as_json:
        write_json_line({"done": done, "games": built, "rounds": rounds})
        return
    if not done:
        console.print(f"built the round facts of {built} games; run `jaslog reindex --resume` "
                      "to go on", highlight=False)
        return
    console.print(f"built the round facts of {built} games ({rounds} closed rounds)",
                  highlight=False)


players_app = typer.Typer(help="Display names of players (personal data kept outside the hash "
                          "chains: edit or erase them freely).", invoke_without_command=True,
                          no_args_is_help=False)


@players_app.callback()
def players(ctx: typer.Context, as_json: bool = JSON, db: str | None = DB) -> None:
    """List display names; `players set ID NAME`, `players erase ID`."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = db
        return
    with opened(db, create=False) as store:
        names = store.players()
    if as_json:
        write_json_line(names)
        return
    if not names:
        console.print("no display names set (jaslog players set ID NAME)", highlight=False)
    for pid, name in names.items():
        console.print(f"{pid}  {name}", highlight=False, markup=False)


@players_app.command("set")
def players_set(ctx: typer.Context, player: str = typer.Argument(..., help="the player id"),
                name: str = typer.Argument(..., help="the display name"),
                db: str | None = DB) -> None:
    """Set a player's display name."""
    with opened(db or ctx.obj) as store:
        store.set_player(player, name)
    console.print(f"{player} is shown as {name}", highlight=False, markup=False)


@players_app.command("erase")
def players_erase(ctx: typer.Context, player: str = typer.Argument(..., help="the player id"),
                  db: str | None = DB) -> None:
    """Erase a player's display name (the games keep the opaque id)."""
    with opened(db or ctx.obj) as store:
        had = store.erase_player(player)
    console.print(f"erased the display name of {player}" if had
                  else f"{player} had no display name", highlight=False)
