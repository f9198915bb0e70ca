"""A new game's header rows: ``games`` (its key, ruleset, seats, start), ``game_players`` and
``game_places`` (the table and tournament it names), written in the caller's transaction
when its first events are stored, appended or imported."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from jaslog.events import GameStarted
from jaslog.store.codec import now_text, parse_time
from jaslog.store.schema import GAME_PLACES, GAME_PLAYERS, GAMES


def created_at(started: GameStarted) -> str:
    """The sortable UTC start of a game: its ``at``, else now."""
    if started.at:
        return parse_time(started.at)
    return now_text()


def insert_games(conn: Connection, started: list[GameStarted],
                 stored_at: str | None = None) -> dict[str, int]:
    """The header rows of new games (in the caller's write transaction); ``stored_at``
    (sortable UTC text) defaults to now. Returns each game's key (``games.pos``), which its
    events are stored under."""
    if not started:
        return {}
    pos = int(conn.execute(select(func.coalesce(func.max(GAMES.c.pos), 0))).scalar_one())
    stamp_text = stored_at or now_text()
    rows: list[dict[str, Any]] = []
    seats: list[dict[str, Any]] = []
    for i, s in enumerate(started, 1):
        rows.append({"id": s.game, "pos": pos + i, "ruleset": s.ruleset, "dealer": s.dealer,
                     "seats": list(s.seats), "created_at": created_at(s),
                     "stored_at": stamp_text})
        seats.extend({"game": s.game, "seat": n, "player": p} for n, p in enumerate(s.seats))
    conn.execute(GAMES.insert(), rows)
    conn.execute(GAME_PLAYERS.insert(), seats)
    conn.execute(GAME_PLACES.insert(), [place_of(s) for s in started])
    return {r["id"]: r["pos"] for r in rows}


#: The longest table or tournament a game's place keeps (the listings ask for at most 64).
LONGEST_PLACE = 200


def place_of(started: GameStarted) -> dict[str, Any]:
    """The ``game_places`` row of a game: the table its ``game_started`` names, as text (as the
    service reads it), and the tournament, when it is text; None when it names none, or one
    longer than :data:`LONGEST_PLACE`.

    >>> from jaslog.events import parse_event
    >>> place_of(parse_event(b'{"game":"g","seq":0,"type":"game_started","ruleset":"amsterdam",'
    ...                      b'"seats":["a","b","c","d"],"dealer":0,"meta":{"table":3}}'))
    {'game': 'g', 'table_id': '3', 'tournament': None}
    """
    meta = started.meta or {}
    table = None if meta.get("table") is None else str(meta["table"])
    tournament = meta.get("tournament")
    return {"game": started.game,
            "table_id": table if table is not None and len(table) <= LONGEST_PLACE else None,
            "tournament": tournament if isinstance(tournament, str)
            and len(tournament) <= LONGEST_PLACE else None}
