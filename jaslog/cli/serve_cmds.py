"""``jaslog serve`` and ``jaslog token``: run the service, manage its tokens."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

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
    auth_failures: int = typer.Option(20, "--auth-failures", min=1,
                                      help="failed authentications (tokens guessed) an "
                                           "address may make in a minute before it is "
                                           "answered 429 until the minute has passed"),
    dataset: Path | None = typer.Option(
        None, "--dataset", "-d", envvar="JASLOG_EXPORT", show_envvar=True,
        help="the Parquet export the statistics (GET /api/stats, /static/stats.html) are "
             "answered from, as it stands (refresh it with jaslog export DIR); default: "
             "'parquet' beside the SQLite store, as for jaslog stats"),
    solve_nodes: int = typer.Option(12_000_000, "--solve-nodes", min=0,
                                    help="the most positions one solve of POST /api/oracle "
                                         "may search (0: no limit); past it, 422 too_hard"),
    solve_seconds: float = typer.Option(1.0, "--solve-seconds", min=0,
                                        help="the most seconds one solve may take (0: no "
                                             "limit); past it, 422 too_hard"),
    solves_per_minute: int = typer.Option(30, "--solves-per-minute", min=1,
                                          help="the solves a token may ask for in a minute; "
                                               "past them, 429 too_many_solves"),
    workers: int = typer.Option(1, "--workers",
                                help="processes answering on the one port over the one store "
                                     "(over SQLite this process writes the appends of them "
                                     "all; over PostgreSQL each appends itself; a live "
                                     "stream sees every process's appends)"),
) -> None:
    """Run the HTTP API and the web replay viewer (OpenAPI at /openapi.json, docs at /docs).

    On a store without any token, an admin token is created and printed once.
    """
    import uvicorn

    from jaslog.cli.stats import default_dataset
    from jaslog.service import Service
    from jaslog.service.auth import guard_logs
    from jaslog.service.processes import serving_app
    from jaslog.store import StoreError

    if workers < 1:
        fail(f"--workers {workers}: at least 1 process answers (--workers 1: one process)")
    try:
        svc = Service(db)
    except StoreError as e:
        fail(str(e))
    port_free(host, port)  # before an admin token is made and shown once
    if svc.tokens.count() == 0:
        text, _ = svc.tokens.create("admin", label="first admin (created by jaslog serve)")
        console.print("[bold]No tokens yet; an admin token was created (shown once):[/]")
        console.print(f"  {text}", soft_wrap=True)
        console.print(f"  home page: http://{host}:{port}/#token={text}", soft_wrap=True)
    settings: dict[str, Any] = {
        "dataset": dataset or default_dataset(db), "auth_failures": auth_failures,
        "solve_nodes": solve_nodes, "solve_seconds": solve_seconds,
        "solves_per_minute": solves_per_minute}
    if workers > 1:
        _serve_workers(svc, workers, settings, host, port, log_level)
        return
    app = serving_app(db, service=svc, **settings)
    config = uvicorn.Config(app, host=host, port=port, **uvicorn_logging(log_level))
    guard_logs()  # after uvicorn's logging is set up: no token in a log line
    server = uvicorn.Server(config)
    server.run()
    if not server.started:
        raise typer.Exit(3)  # as uvicorn.run exits when the server could not start


def _serve_workers(svc: Any, workers: int, settings: dict[str, Any], host: str, port: int,
                   log_level: str) -> None:
    """``workers`` processes on one listening socket (uvicorn's supervisor: it starts them,
    starts again one that dies, and on SIGTERM or SIGINT stops every one and waits for it),
    each the app of :func:`jaslog.service.processes.worker_app`. Over SQLite this process
    is the one writer of them all (:class:`jaslog.service.writer.WriterServer`, through
    ``svc``); over PostgreSQL each worker writes itself and ``svc`` is closed."""
    import os

    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from jaslog.service.auth import guard_logs
    from jaslog.service.processes import (
        WORKER_SETTINGS,
        postgres_dsn,
        tune_collector,
        worker_settings,
    )
    from jaslog.service.writer import WriterServer, writer_socket
    from jaslog.store import resolve_url

    writer = None
    if postgres_dsn(svc.url or str(resolve_url(None))) is None:
        tune_collector()  # the writer holds the games' folds, as a worker would
        writer = WriterServer(svc, writer_socket()).start()
        settings = {**settings, "writer": writer.path}
    else:
        svc.close()  # each worker opens its own
    # the workers' settings (spawned: they inherit them)
    os.environ[WORKER_SETTINGS] = worker_settings(db=svc.url, **settings)
    config = uvicorn.Config("jaslog.service.processes:worker_app", factory=True, host=host,
                            port=port, workers=workers, **uvicorn_logging(log_level))
    guard_logs()
    try:
        try:
            sock = config.bind_socket()
        except SystemExit:
            fail(f"cannot listen on {host}:{port} (choose another with --port)")
        Multiprocess(config, sockets=[sock]).run()
    finally:
        if writer is not None:
            writer.stop()
            svc.close()


def uvicorn_logging(log_level: str) -> dict[str, Any]:
    """uvicorn's logging settings for ``--log-level``: the access log (a line a request, at
    level info) on only where the level lets its lines through. Above info uvicorn would
    still work out each request's line (its client, its path quoted) to drop it.

    >>> uvicorn_logging("info"), uvicorn_logging("warning")
    ({'log_level': 'info', 'access_log': True}, {'log_level': 'warning', 'access_log': False})
    """
    import logging

    from uvicorn.config import LOG_LEVELS

    level = LOG_LEVELS.get(log_level.lower(), logging.INFO)
    return {"log_level": log_level, "access_log": level <= logging.INFO}


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
    tournament: str | None = typer.Option(None, "--tournament",
                                          help="a scorer's tournament (its table of it), or a "
                                               "referee's: the tournament's director"),
    event: str | None = typer.Option(None, "--event",
                                     help="a scorer's event: the games whose meta.event it is"),
    expires: str | None = typer.Option(None, "--expires",
                                       help="when it expires: a span (8h, 30d), a date or a "
                                            "time (default: in 30 days; an admin token: never)"),
    label: str = typer.Option("", "--label", help="a note for people (who holds it)"),
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
    json_out: bool = typer.Option(False, "--json", help="print a JSON object"),
) -> None:
    """Create a token. It is printed once; only its hash is stored.

    A scorer token is for a table of the club's games (of no tournament), of an event
    (--event) or of a tournament (--tournament; `jaslog tournament tokens` makes every table's
    at once)."""
    from jaslog.service.auth import TokenError, expiry

    tokens = _tokens(db)
    expires_at = None
    if expires is not None:
        try:
            expires_at = expiry(expires, tokens.clock())
        except ValueError as e:
            fail(f"--expires: {e}")
    try:
        text, info = tokens.create(role, table=table, player=player, label=label,
                                   tournament=tournament, event=event, expires_at=expires_at)
    except TokenError as e:
        fail(str(e))
    if json_out:
        write_json_line({**info.to_json(), "token": text})
        return
    of = f" of tournament {tournament}" if tournament else f" of event {event!r}" if event else ""
    what = {"scorer": f" for table {table}{of}", "player": f" for player {player}",
            "referee": f" directing tournament {tournament}" if tournament else ""}.get(role, "")
    until = f", expires {_utc(info.expires_at)}" if info.expires_at else ""
    console.print(f"{role} token{what} (id {info.id}{until}); keep it, it is shown only now:")
    console.print(text, soft_wrap=True)


def _utc(at: str | None) -> str:
    """A stored time to the second, as `jaslog games` shows times."""
    return at[:19].replace("T", " ") if at else ""


@token_app.command("list")
def token_list(
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
    json_out: bool = typer.Option(False, "--json", help="one JSON object per line"),
) -> None:
    """List the tokens (never their secrets); times in UTC. On a narrow terminal, columns
    that do not fit whole are left out (and said), never cut short."""
    from jaslog.cli.tables import print_fitted

    tokens = _tokens(db)
    infos = tokens.list()
    if json_out:
        for t in infos:
            write_json_line(t.to_json())
        return
    if not infos:
        console.print("no tokens (create one: jaslog token create --role admin)")
        return
    now = tokens.clock()

    def of(t: Any) -> str:
        return t.tournament or (repr(t.event) if t.event else "")

    cells = [{"id": t.id, "role": t.role, "table/player": t.table or t.player or "",
              "of": of(t),
              "state": "revoked" if t.revoked_at else "expired" if t.expired(now) else "live",
              "label": t.label, "created": _utc(t.created_at), "expires": _utc(t.expires_at),
              "revoked at": _utc(t.revoked_at)} for t in infos]
    priority: list[str] = ["id", "role", "table/player", "of", "state", "created", "label",
                           "expires", "revoked at"]
    for column, used in (("revoked at", any(t.revoked_at for t in infos)),
                         ("of", any(of(t) for t in infos)),
                         ("expires", any(t.expires_at for t in infos))):
        if not used:  # no column of empty cells
            for c in cells:
                del c[column]
            priority.remove(column)
    print_fitted(cells, tuple(priority), wrap="label")


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
