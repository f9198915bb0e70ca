"""The players' ratings, as ``jaslog ratings`` and ``GET /api/ratings`` give them: from the
Parquet export's ``ratings`` table, or rebuilt from the store's games (the same numbers:
both rate the games' ``games`` and ``players`` rows, :mod:`jaslog.export.ratings`)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from jaslog.engine.options import OptionError
from jaslog.export import load_manifest
from jaslog.export.dataset import build_chunks
from jaslog.export.ratings import Rating, from_rows, latest, outcomes, rate
from jaslog.export.schema import SCHEMAS
from jaslog.games import GAMES, game_of
from jaslog.stats.analytics import AnalyticsError

if TYPE_CHECKING:  # the store (SQLAlchemy) is the caller's; ratings read its games
    from jaslog.store import Store


def as_of_time(text: str | None) -> datetime | None:
    """``--as-of``: a date (the ratings at the end of that day, UTC) or an RFC 3339 time; the
    games that ended before it count.

    >>> as_of_time("2026-03-02")
    datetime.datetime(2026, 3, 3, 0, 0, tzinfo=datetime.timezone.utc)
    """
    if text is None:
        return None
    t = text.strip()
    try:
        if len(t) == 10:
            return datetime.combine(date.fromisoformat(t) + timedelta(days=1),
                                    datetime.min.time(), UTC)
        when = datetime.fromisoformat(t.replace("Z", "+00:00"))
    except ValueError:
        raise AnalyticsError(f"--as-of {text!r}: give a date (2026-03-01) or an RFC 3339 time "
                             "(2026-03-01T21:40:00Z)") from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def export_ratings(out_dir: str | Path) -> list[Rating]:
    """Every row of the export's ``ratings`` table, in the order rated."""
    loaded = load_manifest(out_dir)
    if loaded is None:
        raise AnalyticsError(f"{out_dir}: no export here; run `jaslog export {out_dir}` first")
    snap, manifest = loaded
    if "ratings" not in manifest.get("tables", {}):
        raise AnalyticsError(f"{out_dir}: this export has no ratings (it was written by an "
                             "older jaslog): export it again with jaslog export DIR --full")
    tables = [pq.read_table(snap / f["path"]) for f in manifest["files"]
              if f["table"] == "ratings"]
    if not tables:
        return []
    t = pa.concat_tables(tables)
    rows = from_rows(t.to_pylist())
    order = {r.game: i for i, r in enumerate(rate_order(rows))}
    return sorted(rows, key=lambda r: (order[r.game], r.games))


def rate_order(rows: list[Rating]) -> list[Rating]:
    """The rows in the order their games were rated (by time, then game id)."""
    return sorted(rows, key=lambda r: (r.at is None, r.at or 0, r.game))


def store_ratings(store: Store) -> list[Rating]:
    """Every player's rating after each finished game, rebuilt from the store's games."""
    games: list[pa.Table] = []
    players: list[pa.Table] = []
    parts: dict[str, str] = {}
    gcols = ["game", "kind", "finished", "error", "first_at", "last_at"]
    pcols = ["game", "player", "seat", "team", "score"]
    read = (events for _, events in store.iter_games(fast=True))
    for chunk in build_chunks(read, {}, 200):
        for table, part, t in chunk.tables:
            if table == "games":
                games.append(t.select(gcols))
                parts.update(dict.fromkeys(t.column("game").to_pylist(), part))
            elif table == "players":
                players.append(t.select(pcols))
    g = pa.concat_tables(games) if games else SCHEMAS["games"].empty_table().select(gcols)
    p = pa.concat_tables(players) if players else SCHEMAS["players"].empty_table().select(pcols)
    return rate(outcomes(g, p, parts))


def standings_of(rows: list[Rating], *, kind: str | None = None, as_of: datetime | None = None,
                 names: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Each player's latest rating, best first, as JSON-able rows (``rank`` within the
    game family)."""
    out: list[dict[str, Any]] = []
    rank: dict[str, int] = {}
    for r in latest(rows, kind=kind, as_of=as_of):
        rank[r.kind] = rank.get(r.kind, 0) + 1
        out.append({"kind": r.kind, "rank": rank[r.kind], "player": r.player,
                    "name": (names or {}).get(r.player), "rating": round(r.rating, 3),
                    "uncertainty": round(r.uncertainty, 3), "ordinal": round(r.ordinal, 3),
                    "games": r.games, "after": r.game,
                    "at": r.at.isoformat().replace("+00:00", "Z") if r.at is not None else None})
    return out


def check_kind(kind: str | None) -> str | None:
    """``--game``: a game family's name (klaverjas, klaberjass, kloepper) or a ruleset's."""
    if kind is None:
        return None

    if kind in GAMES:
        return kind
    try:
        return game_of(kind)
    except OptionError:
        raise AnalyticsError(f"--game {kind!r}: no such game; give one of "
                             f"{', '.join(GAMES)} (or a ruleset)") from None
