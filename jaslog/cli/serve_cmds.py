"""``jaslog serve`` and ``jaslog token``: run the service, manage its tokens."""

from __future__ import annotations

import errno
from pathlib import Path

import typer

from jaslog.cli.common import console, fail, write_json_line

token_app = typer.Typer(help="Tokens of the service: create, list, revoke.", no_args_is_help=True)

DB_HELP = "the store: a path or a database URL (default: $JASLOG_DB or the user data folder)"


def _tokens(db: str | None):  # type: ignore[no-untyped-def]
    from sqlalchemy.exc import SQLAlchemyError

    from jaslog.service.auth import Tokens
    from jaslog.service.db import service_engine
    from jaslog.store import StoreError, open_store

    try:
        open_store(db).close()  # create the store (and see that it opens) first
        return Tokens(service_engine(db))
    except StoreError as e:
        fail(str(e))
    except (SQLAlchemyError, OSError) as e:  # a database that cannot be opened, said plainly
        fail(f"cannot open the store {db or '(default)'}: {e}")


def serve(
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
    host: str = typer.Option("127.0.0.1", "--host", help="address to listen on"),
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="port (0: any free port)"),
    log_level: str = typer.Option("info", "--log-level", help="uvicorn's log level"),
    dataset: Path | None = typer.Option(
        None, "--dataset", "-d", envvar="JASLOG_EXPORT", show_envvar=True,
        help="the Parquet export the statistics (GET /api/stats, /static/stats.html) are "
             "answered from, as it stands (refresh it with jaslog export DIR); default: "
             "'parquet' beside the SQLite store, as for jaslog stats"),
) -> None:
    """Run the HTTP API and the web replay viewer (OpenAPI at /openapi.json, docs at /docs).

    On a store without any token, an admin token is created and printed once.
    """
    import uvicorn

    from jaslog.cli.stats import default_dataset
    from jaslog.service import Service, create_app
    from jaslog.store import StoreError

    try:
        svc = Service(db)
    except StoreError as e:
        fail(str(e))
    port_free(host, port)  # before an admin token is made and shown once
    if svc.tokens.count() == 0:
        text, _ = svc.tokens.create("admin", label="first admin (created by jaslog serve)")
        console.print("[bold]No tokens yet; an admin token was created (shown once):[/]")
        console.print(f"  {text}", soft_wrap=True)
        console.print(f"  viewer: http://{host}:{port}/#token={text}", soft_wrap=True)
    app = create_app(service=svc)
    app.state.dataset = dataset or default_dataset(db)
    uvicorn.run(app, host=host, port=port, log_level=log_level)


def port_free(host: str, port: int) -> None:
    """Stop with a sentence (exit 2) when ``host:port`` cannot be listened on: another server
    holds it, or the address is not this machine's."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        fail(f"--host {host}: not an address to listen on ({e.strerror or e})")
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
        try:
            s.bind(address)
        except OSError as e:
            why = "another server is listening there" if e.errno == errno.EADDRINUSE \
                else (e.strerror or str(e))
            fail(f"cannot listen on {host}:{port}: {why} (choose another with --port)")


@token_app.command("create")
def token_create(
    role: str = typer.Option(..., "--role", help="admin, referee, scorer, player or public"),
    table: str | None = typer.Option(None, "--table", help="a scorer's table"),
    player: str | None = typer.Option(None, "--player", help="a player's id (as in the seats)"),
    label: str = typer.Option("", "--label", help="a note for people (who holds it)"),
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
    json_out: bool = typer.Option(False, "--json", help="print a JSON object"),
) -> None:
    """Create a token. It is printed once; only its hash is stored."""
    from jaslog.service.auth import TokenError

    try:
        text, info = _tokens(db).create(role, table=table, player=player, label=label)
    except TokenError as e:
        fail(str(e))
    if json_out:
        write_json_line({**info.to_json(), "token": text})
        return
    what = {"scorer": f" for table {table}", "player": f" for player {player}"}.get(role, "")
    console.print(f"{role} token{what} (id {info.id}); keep it, it is shown only now:")
    console.print(text, soft_wrap=True)


@token_app.command("list")
def token_list(
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
    json_out: bool = typer.Option(False, "--json", help="one JSON object per line"),
) -> None:
    """List the tokens (never their secrets); times in UTC. On a narrow terminal, columns
    that do not fit whole are left out (and said), never cut short."""
    from jaslog.cli.tables import print_fitted

    infos = _tokens(db).list()
    if json_out:
        for t in infos:
            write_json_line(t.to_json())
        return
    if not infos:
        console.print("no tokens (create one: jaslog token create --role admin)")
        return

    def utc(at: str | None) -> str:  # to the second, as `jaslog games` shows times
        return at[:19].replace("T", " ") if at else ""

    cells = [{"id": t.id, "role": t.role, "table/player": t.table or t.player or "",
              "state": "revoked" if t.revoked_at else "live", "label": t.label,
              "created": utc(t.created_at), "revoked at": utc(t.revoked_at)} for t in infos]
    priority: tuple[str, ...] = ("id", "role", "table/player", "state", "created", "label",
                                 "revoked at")
    if not any(t.revoked_at for t in infos):  # no column of empty cells
        for c in cells:
            del c["revoked at"]
        priority = priority[:-1]
    print_fitted(cells, priority, wrap="label")


@token_app.command("revoke")
def token_revoke(
    token_id: str = typer.Argument(..., help="the token's id (as `jaslog token list` shows)"),
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Revoke a token (a revocation is recorded; the token row stays)."""
    if not _tokens(db).revoke(token_id, "revoked with jaslog token revoke"):
        fail(f"no live token {token_id!r} (see `jaslog token list`)")
    console.print(f"token {token_id} revoked")


def register(app: typer.Typer) -> None:
    app.command()(serve)
    app.add_typer(token_app, name="token")
