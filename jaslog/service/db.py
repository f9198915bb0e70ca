"""The service's own tables, in the store's database but apart from its events.

Tokens and tournaments are not events: they live in tables of their own (prefixed
``service_``), written with SQLAlchemy core. Like the events they are insert-only: revoking
a token inserts a row into ``service_token_revocations`` (a token's scope and expiry are a
row of ``service_token_terms``, written with it); starting a tournament round
inserts its games; a player's withdrawal inserts a row. Nothing here updates or deletes a
row, and nothing here touches the store's tables (games are read and written through
:mod:`jaslog.store` only).
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

#: What a token is limited to besides its role, table and player: a scorer's tournament or
#: event (a referee's tournament: its director), and when it expires. One row, written with
#: the token; a token without a row (made before tokens had terms) has none.
token_terms = Table(
    "service_token_terms", metadata,
    Column("token_id", String(16), ForeignKey("service_tokens.id"), primary_key=True),
    Column("tournament", String(64), nullable=True),
    Column("event", String(200), nullable=True),
    Column("expires_at", String(40), nullable=True),
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

#: What a tournament's move clock does after a timeout (``record`` or ``autoplay``); a
#: tournament without a row records only.
tournament_clocks = Table(
    "service_tournament_clocks", metadata,
    Column("tournament", String(64), ForeignKey("service_tournaments.id"), primary_key=True),
    Column("on_timeout", String(16), nullable=False),
)

#: A tournament's move clock as its director set it after the start: one row a change (the
#: ``n``-th), never updated; the last row holds (before any: the tournament's own).
tournament_clock_settings = Table(
    "service_tournament_clock_settings", metadata,
    Column("tournament", String(64), ForeignKey("service_tournaments.id"), primary_key=True),
    Column("n", Integer, primary_key=True, autoincrement=False),
    Column("move_limit", Integer, nullable=False),
    Column("on_timeout", String(16), nullable=False),
    Column("set_at", String(40), nullable=False),
    Column("by", String(64), nullable=False),
)

#: A tournament played online (its games dealt by the service and played from seat links):
#: one row, written when it is created; a tournament without a row is recorded by scorers.
tournament_online = Table(
    "service_tournament_online", metadata,
    Column("tournament", String(64), ForeignKey("service_tournaments.id"), primary_key=True),
    Column("created_at", String(40), nullable=False),
)

#: Players who left a tournament: one row each, so a player withdraws once and for good.
tournament_withdrawals = Table(
    "service_tournament_withdrawals", metadata,
    Column("tournament", String(64), ForeignKey("service_tournaments.id"), primary_key=True),
    Column("player", String(64), primary_key=True),
    Column("round", Integer, nullable=False),         # the tournament round in play
    Column("game", String(128), nullable=True),       # the game it decided, if one was in play
    Column("withdrawn_at", String(40), nullable=False),
    Column("by", String(64), nullable=False),         # who withdrew them (a token, the CLI)
    Column("reason", String(200), nullable=False, default=""),
)


#: Who appended each event through the scorer's pad (``POST /api/games/{id}/pad/events``):
#: the token's label (``by``), its id and role, beside the event, never inside its hashed
#: bytes, so a game's certificate is the same whoever recorded it. One row per event stored.
event_authors = Table(
    "service_event_authors", metadata,
    Column("game", String(128), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("event_id", String(36), nullable=True),
    Column("by", String(200), nullable=False),
    Column("token_id", String(16), nullable=False),
    Column("role", String(16), nullable=False),
    Column("at", String(40), nullable=False),
)


#: Games played from the seats (rule book 9.3, decision 18): the move clock of each (seconds
#: a move). One row, written when the game is created.
online_games = Table(
    "service_online_games", metadata,
    Column("game", String(128), primary_key=True),
    Column("clock", Integer, nullable=False),
    Column("created_at", String(40), nullable=False),
)

#: Online games the service no longer deals nor times (a tournament's game decided by a
#: withdrawal): one row a game, written when it stops, never removed.
online_stops = Table(
    "service_online_stops", metadata,
    Column("game", String(128), primary_key=True),
    Column("reason", String(200), nullable=False),
    Column("stopped_at", String(40), nullable=False),
)

#: A seat token's game and seat (role ``seat``): one row, written with the token.
seat_tokens = Table(
    "service_seat_tokens", metadata,
    Column("token_id", String(16), ForeignKey("service_tokens.id"), primary_key=True),
    Column("game", String(128), nullable=False),
    Column("seat", Integer, nullable=False),
)

#: The secret seed of each round the server deals (rule book 9.3, decision 20), written
#: before its commit is appended and read only to deal and to reveal it when the round
#: ends: no route, view, export or log line shows it before ``deal_revealed`` does.
deal_seeds = Table(
    "service_deal_seeds", metadata,
    Column("game", String(128), primary_key=True),
    Column("round", Integer, primary_key=True, autoincrement=False),
    Column("seed", String(64), nullable=False),
    Column("created_at", String(40), nullable=False),
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
            # as the store's own connections: in WAL mode a commit waits for no disk flush
            # (safe from a crash of the service; the last commits may go with the machine's
            # power, the events' with them)
            cur.execute("PRAGMA synchronous = NORMAL")
            cur.close()
    else:
        engine = create_engine(full, pool_pre_ping=True)
    metadata.create_all(engine)
    return engine
