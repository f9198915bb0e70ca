"""The store's tables (sqlmodel) and the triggers that make them append-only.

``events``, ``event_types`` and ``games`` (with ``game_players``) are insert-only: the database refuses
UPDATE, DELETE (and on PostgreSQL TRUNCATE) on them. A game's head (next seq, last hash)
is derived from ``events`` through its primary key, so nothing ever needs an UPDATE.
``signatures`` (a game's head signed by the store's key, :mod:`jaslog.store.signing`) and
``signing_keys`` (the public half of every key the store signed with) are insert-only too, and
so are ``game_results`` and ``game_winners`` (where each game stands, written when that
changes: :mod:`jaslog.store.results`) and ``game_places`` (the table and tournament a game
is played at, from its ``game_started``), which the game listings filter by.
``verified_heads`` (a game's head that ``jaslog verify`` found whole and signed, where the
next run may start: :mod:`jaslog.store.verify`) is insert-only too.
``players`` holds display names, personal data outside every hash chain: it may be edited
and erased. ``jaslog_meta`` records the schema version.

Schema versions: 1 had no signatures; 2 adds ``signatures`` and ``signing_keys``; 3 adds
``game_results`` and ``game_winners``; 4 adds ``game_places``; 5 adds ``verified_heads``;
6 stores the events in parts (``event_types``, :mod:`jaslog.store.compact`), which
:mod:`jaslog.store.migrate` moves an older store's events to, in place; 7 adds the round
facts, a projection of the events (``round_facts``, ``round_par``:
:mod:`jaslog.store.projection`), which an upgrade builds
(:func:`upgrade` adds what a
store of an older version lacks when it is opened to write; :meth:`jaslog.store.Store.upgrade`
then records where each of its games stands and where it is played).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    text,
)
from sqlalchemy.engine import Connection
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

from jaslog.store.types import StoreError

SCHEMA_VERSION = 7
#: the first schema version with ``game_results`` and ``game_winners``
RESULTS_SINCE = 3
#: the first schema version with ``game_places``
PLACES_SINCE = 4
#: the first schema version with ``verified_heads``
VERIFIED_SINCE = 5
#: the first schema version with events in parts (``event_types``, :mod:`jaslog.store.compact`)
COMPACT_SINCE = 6
#: the first schema version with the round facts (``round_facts``, ``round_par``)
FACTS_SINCE = 7
APPEND_ONLY = ("events", "event_types", "games", "game_players", "signing_keys", "signatures", "game_results",
               "game_winners", "game_places", "verified_heads")


class StoreModel(SQLModel, registry=registry()):
    """Base of the store's tables: their own metadata, apart from anyone else's models."""


class GameRow(StoreModel, table=True):
    """A game's header, written once with its ``game_started`` event (seq 0)."""

    __tablename__ = "games"
    id: str = Field(sa_column=Column(String(128), primary_key=True))
    pos: int = Field(sa_column=Column(BigInteger, nullable=False, unique=True))
    ruleset: str = Field(sa_column=Column(String(64), nullable=False, index=True))
    dealer: int = Field(sa_column=Column(Integer, nullable=False))
    seats: list[str] = Field(sa_column=Column(JSON, nullable=False))
    created_at: str = Field(sa_column=Column(String(32), nullable=False, index=True))
    stored_at: str = Field(sa_column=Column(String(32), nullable=False))


class GamePlayerRow(StoreModel, table=True):
    """Who sat where: lets ``jaslog games --player`` use an index."""

    __tablename__ = "game_players"
    game: str = Field(sa_column=Column(String(128), primary_key=True))
    seat: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    player: str = Field(sa_column=Column(String(64), nullable=False, index=True))


class EventRow(StoreModel, table=True):
    """One event, in parts its canonical bytes are rebuilt from exactly
    (:mod:`jaslog.store.compact`): the game as its ``games.pos``, the type as a code of
    ``event_types``, the hot fields in typed columns, the others in ``rest``, and the chain's
    ``hash`` as a raw digest (the previous event's is its ``prev_hash``)."""

    __tablename__ = "events"
    __table_args__: Any = (
        Index("events_by_event_id", "game", "event_id", unique=True,
              sqlite_where=text("event_id IS NOT NULL"),
              postgresql_where=text("event_id IS NOT NULL")),
        {"sqlite_with_rowid": False},
    )
    game: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    seq: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    pos: int = Field(sa_column=Column(BigInteger, nullable=False, unique=True))
    kind: int = Field(sa_column=Column(Integer, nullable=False))
    version: int = Field(sa_column=Column(Integer, nullable=False))
    event_id: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    at: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    recorded_at: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    seat: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    card: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    rest: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    hash: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class EventTypeRow(StoreModel, table=True):
    """An event type's code in ``events.kind``: written the first time the store holds an
    event of that type, never changed."""

    __tablename__ = "event_types"
    code: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    name: str = Field(sa_column=Column(String(64), nullable=False, unique=True))


class PlayerRow(StoreModel, table=True):
    """A player's display name: editable and erasable, never part of a hash."""

    __tablename__ = "players"
    id: str = Field(sa_column=Column(String(64), primary_key=True))
    name: str = Field(sa_column=Column(Text, nullable=False))
    updated_at: str = Field(sa_column=Column(String(32), nullable=False))


class SigningKeyRow(StoreModel, table=True):
    """The public half of a key the store signs (or signed) with; written once."""

    __tablename__ = "signing_keys"
    id: str = Field(sa_column=Column(String(16), primary_key=True))
    algorithm: str = Field(sa_column=Column(String(16), nullable=False))
    public_key: str = Field(sa_column=Column(String(128), nullable=False))
    created_at: str = Field(sa_column=Column(String(32), nullable=False))


class SignatureRow(StoreModel, table=True):
    """A game's head (seq and hash) signed by a key of the store: written when a round
    ends, when the game ends, and for each game an import stores."""

    __tablename__ = "signatures"
    game: str = Field(sa_column=Column(String(128), primary_key=True))
    seq: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    key_id: str = Field(sa_column=Column(String(16), primary_key=True))
    pos: int = Field(sa_column=Column(BigInteger, nullable=False, unique=True))
    hash: str = Field(sa_column=Column(String(64), nullable=False))
    signature: str = Field(sa_column=Column(String(128), nullable=False))
    signed_at: str = Field(sa_column=Column(String(32), nullable=False))


class GameResultRow(StoreModel, table=True):
    """Where a game stands once its events up to ``seq`` are in: over or not, and who won
    (``winner``: the winning seat or team as a number, ``draw``, or NULL). A row is written
    with the events that change it (the game ends; a ruling or a correction after that),
    never updated: a game's row of the highest ``seq`` is where it stands, and a game
    without any has not ended."""

    __tablename__ = "game_results"
    __table_args__: Any = (Index("game_results_by_status", "finished", "game", "seq"),
                           Index("game_results_by_winner", "winner", "game", "seq"))
    game: str = Field(sa_column=Column(String(128), primary_key=True))
    seq: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    finished: bool = Field(sa_column=Column(Boolean, nullable=False))
    winner: str | None = Field(default=None, sa_column=Column(String(16), nullable=True))


class GameWinnerRow(StoreModel, table=True):
    """A player who won, as the ``game_results`` row of the same game and seq says (both
    players of a Klaverjas team): lets the listings' ``winner`` filter use an index."""

    __tablename__ = "game_winners"
    game: str = Field(sa_column=Column(String(128), primary_key=True))
    seq: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    player: str = Field(sa_column=Column(String(64), primary_key=True, index=True))


class GamePlaceRow(StoreModel, table=True):
    """Where a game is played, as its ``game_started`` says (``meta.table`` as text,
    ``meta.tournament``; NULL when it names none, or one longer than any listing asks for):
    written with the game's header, never updated; lets the listings' ``table`` and
    ``tournament`` filters use an index."""

    __tablename__ = "game_places"
    game: str = Field(sa_column=Column(String(128), primary_key=True))
    table_id: str | None = Field(default=None, sa_column=Column(String(200), nullable=True,
                                                                index=True))
    tournament: str | None = Field(default=None, sa_column=Column(String(200), nullable=True,
                                                                  index=True))


class VerifiedHeadRow(StoreModel, table=True):
    """A game's head (``seq``, ``hash``) that a clean ``jaslog verify`` run found whole and
    covered by a valid signature of a trusted key, with when (``verified_at``) and how far the
    store's events reached then (``pos``, the highest event position): a later run starts the
    game there. Written once, never updated: a game's row of the highest ``seq`` is where the
    next run starts."""

    __tablename__ = "verified_heads"
    game: str = Field(sa_column=Column(String(128), primary_key=True))
    seq: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    hash: str = Field(sa_column=Column(String(64), nullable=False))
    pos: int = Field(sa_column=Column(BigInteger, nullable=False))
    verified_at: str = Field(sa_column=Column(String(32), nullable=False))


class RoundFactsRow(StoreModel, table=True):
    """A closed round's facts as the game's rules fold them (:mod:`jaslog.store.projection`): its
    ``result`` word, ``score`` as played and ``final`` (what counts) per side, ``roem`` per
    side, the rules' ``verdicts`` on it (``[seq, rule, card]`` of each rule broken) and how it
    was ``recorded``, and what the export's ``rounds`` row reads of the fold (``detail``: the
    game's own list, :attr:`jaslog.engine.game.Game.round_details`; NULL for a game that keeps
    none, or a row written before the column existed). A projection of the events, never part
    of the hashed log: a row is written when the facts of a round change (``seq``: the game's
    last event then), never updated; a round's row of the highest ``seq`` is its facts, and a
    row without a ``result`` says the round is gone (a correction retracted its deal).
    ``jaslog reindex`` drops the table and builds it again from the events."""

    __tablename__ = "round_facts"
    game: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    round: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    seq: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    result: str | None = Field(default=None, sa_column=Column(String(16), nullable=True))
    recorded: str | None = Field(default=None, sa_column=Column(String(16), nullable=True))
    score: list[int] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    final: list[int] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    roem: list[int] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    verdicts: list[Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    detail: list[Any] | None = Field(default=None, sa_column=Column(JSON(none_as_null=True),
                                                                   nullable=True))


class RoundParRow(StoreModel, table=True):
    """A solved round (:mod:`jaslog.store.projection`): its ``par`` from the first card, the
    ``par_result`` at the end of the principal line and each play's ``losses`` (``[seq,
    loss]``), for the deal ``deal`` (a digest of the hands, the plays and the rules the
    solver was given, so a changed round is never answered from an old solve). Written the
    first time ``jaslog export --par`` solves the round, read by the next; ``seq`` is the
    game's last event then. Kept by ``jaslog reindex`` (a solve is a pure function of its
    deal)."""

    __tablename__ = "round_par"
    game: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    round: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    deal: bytes = Field(sa_column=Column(LargeBinary, primary_key=True))
    seq: int = Field(sa_column=Column(Integer, nullable=False))
    par: int = Field(sa_column=Column(Integer, nullable=False))
    par_result: str | None = Field(default=None, sa_column=Column(String(16), nullable=True))
    losses: list[Any] = Field(sa_column=Column(JSON, nullable=False))


class MetaRow(StoreModel, table=True):
    __tablename__ = "jaslog_meta"
    key: str = Field(sa_column=Column(String(64), primary_key=True))
    value: str = Field(sa_column=Column(Text, nullable=False))


METADATA: MetaData = StoreModel.metadata
GAMES = GameRow.__table__  # type: ignore[attr-defined]
GAME_PLAYERS = GamePlayerRow.__table__  # type: ignore[attr-defined]
EVENTS = EventRow.__table__  # type: ignore[attr-defined]
EVENT_TYPES = EventTypeRow.__table__  # type: ignore[attr-defined]
PLAYERS = PlayerRow.__table__  # type: ignore[attr-defined]
META = MetaRow.__table__  # type: ignore[attr-defined]
SIGNING_KEYS = SigningKeyRow.__table__  # type: ignore[attr-defined]
SIGNATURES = SignatureRow.__table__  # type: ignore[attr-defined]
GAME_RESULTS = GameResultRow.__table__  # type: ignore[attr-defined]
GAME_WINNERS = GameWinnerRow.__table__  # type: ignore[attr-defined]
GAME_PLACES = GamePlaceRow.__table__  # type: ignore[attr-defined]
VERIFIED_HEADS = VerifiedHeadRow.__table__  # type: ignore[attr-defined]
ROUND_FACTS = RoundFactsRow.__table__  # type: ignore[attr-defined]
ROUND_PAR = RoundParRow.__table__  # type: ignore[attr-defined]


def _sqlite_triggers() -> list[str]:
    out = []
    for table in APPEND_ONLY:
        for op in ("UPDATE", "DELETE"):
            out.append(
                f"CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} BEFORE {op} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, 'jaslog: {table} is append-only: {op} refused'); END")
    return out


_PG_FUNCTION = """
CREATE OR REPLACE FUNCTION jaslog_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'jaslog: % is append-only: % refused', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'insufficient_privilege';
END
$$
"""


def _pg_triggers() -> list[str]:
    out = [_PG_FUNCTION]
    for table in APPEND_ONLY:
        for name, when in (("no_change", "BEFORE UPDATE OR DELETE ON {t} FOR EACH ROW"),
                           ("no_truncate", "BEFORE TRUNCATE ON {t} FOR EACH STATEMENT")):
            trig = f"{table}_{name}"
            out.append(f"DROP TRIGGER IF EXISTS {trig} ON {table}")
            out.append(f"CREATE TRIGGER {trig} {when.format(t=table)} "
                       "EXECUTE FUNCTION jaslog_append_only()")
    return out


class UnreadableSchemaVersion(StoreError):
    """``jaslog_meta`` holds a schema version that is not a number (edited behind the store's
    back): ``text`` is what it holds, ``tables`` the version the store's tables are of."""

    code = "unreadable_schema_version"

    def __init__(self, text: str, tables: int) -> None:
        self.text, self.tables = text, tables
        super().__init__(f"the store's schema version (jaslog_meta) is {text!r}, which is not a "
                         f"version: it was edited behind the store's back (the store's tables "
                         f"are those of version {tables}); `jaslog verify` checks the store "
                         "all the same, nothing can be written to it")


def recorded_version(conn: Connection) -> str | None:
    """The schema version as ``jaslog_meta`` holds it (text), None when it holds none."""
    from sqlalchemy import inspect, select

    if not inspect(conn).has_table("jaslog_meta"):
        return None
    v = conn.execute(select(META.c.value).where(META.c.key == "schema_version")).scalar()
    return None if v is None else str(v)


def tables_version(conn: Connection) -> int:
    """The schema version the store's tables are of: the newest whose tables it has."""
    from sqlalchemy import inspect

    have = inspect(conn)
    if have.has_table("event_types") and have.has_table("verified_heads"):
        # (the upgrade to them adds every table before them too)
        return FACTS_SINCE if have.has_table("round_facts") else COMPACT_SINCE
    for version, table in ((VERIFIED_SINCE, "verified_heads"),
                           (PLACES_SINCE, "game_places"), (RESULTS_SINCE, "game_results"),
                           (2, "signatures")):
        if have.has_table(table):
            return version
    return 1


def schema_version(conn: Connection) -> int | None:
    """The schema version recorded in the database, or None for an empty database (an
    :class:`UnreadableSchemaVersion` when what it records is not a number)."""
    v = recorded_version(conn)
    if v is None:
        return None
    try:
        return int(v)
    except ValueError:
        raise UnreadableSchemaVersion(v, tables_version(conn)) from None


def _tables_and_triggers(conn: Connection) -> None:
    METADATA.create_all(conn)  # only the tables missing
    ddl = _pg_triggers() if conn.dialect.name == "postgresql" else _sqlite_triggers()
    for stmt in ddl:
        conn.exec_driver_sql(stmt.replace("%", "%%") if conn.dialect.name == "postgresql" else stmt)


def create(conn: Connection) -> None:
    """Create the tables and triggers (inside the caller's write transaction)."""
    from jaslog.store.compact import first_codes

    _tables_and_triggers(conn)
    conn.execute(EVENT_TYPES.insert(), [{"code": c, "name": n} for c, n in first_codes().items()])
    conn.execute(META.insert(), [{"key": "schema_version", "value": str(SCHEMA_VERSION)},
                                 {"key": "format", "value": "jaslog/1"},
                                 {"key": "round_facts", "value": "built"}])


def upgrade(conn: Connection) -> None:
    """Bring a store of an older schema version to :data:`SCHEMA_VERSION` (inside the caller's
    write transaction): version 1 gets the tables of signatures and keys, versions 1 and 2
    those of the games' results, versions 1 to 3 that of the games' places, versions 1 to 4
    that of the verified heads (empty: the next ``verify`` checks every game in full),
    versions 1 to 6 those of the round facts (empty: :meth:`jaslog.store.Store.upgrade`
    builds them), append-only (which
    games' results and places to write then is :meth:`jaslog.store.Store.upgrade`'s
    business)."""
    v = schema_version(conn)
    if v is None or v >= SCHEMA_VERSION:
        return
    _tables_and_triggers(conn)
    conn.execute(META.update().where(META.c.key == "schema_version")
                 .values(value=str(SCHEMA_VERSION)))
