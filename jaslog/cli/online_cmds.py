"""``jaslog table new --online``: an online game played from the seats (rule book 9.3), made
as ``POST /api/games`` with ``online: true`` makes it: the game, a seat token and a link per
seat (shown once), and round 1 committed. The running service (``jaslog serve`` on the same
store) deals it, times it and reveals its seeds."""

from __future__ import annotations

import re

import typer

from jaslog.cli.common import console, fail, write_json_line
from jaslog.cli.store_cmds import DB, JSON, TABLE_PATTERN, _parse_options, seat_ids

table_app = typer.Typer(help="Tables played online, from the seats: the service deals them.",
                        no_args_is_help=True)


@table_app.command("new")
def new(
    online: bool = typer.Option(False, "--online",
                                help="played from the seats (the only kind made here; "
                                     "`jaslog new` starts a game a scorer records)"),
    seats: str = typer.Option(..., "--seats", help="player ids, clockwise: ann,bob,cor,dirk"),
    ruleset: str = typer.Option("klaverjas-online-501", "--ruleset", "-r", help="a preset"),
    option: list[str] = typer.Option([], "--option", "-o", help="KEY=VALUE, repeatable"),
    dealer: int = typer.Option(0, "--dealer", min=0, max=3, help="seat of the first dealer"),
    clock: int = typer.Option(30, "--clock", min=1, max=600, help="seconds a move"),
    table: str | None = typer.Option(None, "--table", help="the table (meta.table)"),
    game: str | None = typer.Option(None, "--game", help="the game id (default: generated)"),
    url: str = typer.Option("http://localhost:8000", "--url",
                            help="the service's address, for the links"),
    db: str | None = DB,
    as_json: bool = JSON,
) -> None:
    """Create an online game: print each seat's token and link (shown once)."""
    from jaslog.service.core import Service
    from jaslog.service.online import online_of
    from jaslog.store import ConflictError, RejectedError

    if not online:
        fail("table new makes online tables: give --online (`jaslog new` starts a game a "
             "scorer records)")
    if table is not None and not re.fullmatch(TABLE_PATTERN, table):
        fail(f"--table {table!r}: letters, digits and . _ : - (1-64)")
    fields = {"ruleset": ruleset, "seats": seat_ids(seats), "dealer": dealer,
              "options": _parse_options(ruleset, option) or None,
              "meta": {"table": table} if table is not None else None}
    if game is not None:
        fields["game"] = game
    svc = Service(db, pool_size=1)
    try:
        gid, tokens = online_of(svc).create({k: v for k, v in fields.items() if v is not None},
                                            clock, "admin")
    except ConflictError:
        fail(f"game {game} already exists")
    except RejectedError as e:
        fail(str(e))
    finally:
        svc.close()
    base = url.rstrip("/")
    if as_json:
        write_json_line({"game": gid, "clock": clock, "seat_tokens": [
            {**t, "link": base + t["link"]} for t in tokens]})
        return
    console.print(f"online game [bold]{gid}[/] ({ruleset}, {clock} s a move); each seat's "
                  "link, shown once:", highlight=False)
    for t in tokens:
        console.print(f"  seat {t['seat']} ({t['player']}): {base}{t['link']}",
                      highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.add_typer(table_app, name="table")
