"""The service's own tables, in the store's database but apart from its events.

Tokens and tournaments are not events: they live in tables of their own (prefixed
``service_``), written with SQLAlchemy core. Like the events they are insert-only: revoking
a token inserts a row into ``service_token_revocations``; starting a tournament round
inserts its games. Nothing here updates or deletes a row, and nothing here touches the
store's tables (games are read and written through :mod:`jaslog.store` only).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    Column,
    Engine,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
)

from jaslog.store import resolve_url

metadata = MetaData()

tokens = Table(
    "service_tokens", metadata,
    Column("id", String(16), primary_key=True),
    Column("secret_hash", String(64), nullable=False),
    Column("role", String(16), nullable=False),
    Column("table_id", String(64), nullable=True),
    Column("player", String(64), nullable=True),
    Column("label", String(200), nullable=False, default=""),
    Column("created_at", String(40), nullable=False),
)

revocations = Table(
    "service_token_revocations", metadata,
    Column("token_id", String(16), ForeignKey("service_tokens.id"), primary_key=True),
    Column("revoked_at", String(40), nullable=False),
    Column("reason", String(200), nullable=False, default=""),
)

tournaments = Table(
    "service_tournaments", metadata,
    Column("id", String(64), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("ruleset", String(64), nullable=False),
    Column("options", Text, nullable=False),      # JSON object
    Column("players", Text, nullable=False),      # JSON list of player ids
    Column("move_limit", Integer, nullable=False),
    Column("seed", Integer, nullable=False),
    Column("created_at", String(40), nullable=False),
)

tournament_games = Table(
    "service_tournament_games", metadata,
    Column("tournament", String(64), ForeignKey("service_tournaments.id"), primary_key=True),
    Column("round", Integer, primary_key=True, autoincrement=False),
    Column("table_no", Integer, primary_key=True, autoincrement=False),
    Column("game", String(128), nullable=False, unique=True),
)


def service_engine(url: str | None) -> Engine:
    """An engine on the store's database for the service's tables (created if missing)."""
    full = resolve_url(url)
    if full.startswith("sqlite"):
        from pathlib import Path

        path = full.split(":///", 1)[1] if ":///" in full else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(full, connect_args={"timeout": 60})

        @event.listens_for(engine, "connect")
        def _connect(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA busy_timeout = 60000")
            cur.close()
    else:
        engine = create_engine(full, pool_pre_ping=True)
    metadata.create_all(engine)
    return engine
