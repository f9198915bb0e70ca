"""Rechecking hash chains: find the first event changed, removed or reordered.

Each game's events must run seq 0, 1, 2... with ``prev_hash`` the previous event's hash
(:data:`GENESIS` for seq 0) and ``hash = sha256(prev_hash + payload)``; the payload must
name its own game and seq, and the indexed columns (type, id, at) must agree with it. The
``games`` row must agree with seq 0. Store-wide, event and game positions must be
contiguous, which also reveals events removed from the end of a game.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import orjson
from sqlalchemy import bindparam, func, select
from sqlalchemy.engine import Connection

from jaslog.store.codec import as_bytes, link, norm_id
from jaslog.store.schema import EVENTS, GAME_PLAYERS, GAMES
from jaslog.store.types import GENESIS, NoSuchGame, Problem, VerifyReport, certificate

_COLS = (EVENTS.c.game, EVENTS.c.seq, EVENTS.c.type, EVENTS.c.event_id, EVENTS.c.at,
         EVENTS.c.payload, EVENTS.c.prev_hash, EVENTS.c.hash)
PAGE = 200


def _payload_seq(raw: Any) -> Any:
    return raw.get("seq") if isinstance(raw, dict) else None


def check_chain(game: str, rows: list[Any], header: Any,
                seats: list[str] | None) -> tuple[Problem | None, str]:
    """The first problem in one game's rows (ordered by seq), and the head hash."""
    if not rows:
        return Problem(game, None, "removed", "the game has a header but no events: all its "
                       "events were deleted"), GENESIS
    prev = GENESIS
    raws: list[Any] = []
    for r in rows:
        try:
            raws.append(orjson.loads(r.payload))
        except orjson.JSONDecodeError:
            raws.append(None)
    for i, (r, raw) in enumerate(zip(rows, raws, strict=True)):
        if r.seq != i:
            return Problem(game, i, "removed", f"seq {i} is missing: the chain jumps from seq "
                           f"{i - 1} to seq {r.seq}"), prev
        if raw is None or not isinstance(raw, dict):
            return Problem(game, i, "changed", "the stored bytes are not a JSON object: "
                           "edited after they were written"), prev
        written = _payload_seq(raw)
        if raw.get("game") != game:
            return Problem(game, i, "reordered", f"the event stored at seq {i} was written for "
                           f"game {raw.get('game')!r} (seq {written})"), prev
        if written != i:
            later = any(_payload_seq(x) == i for x in raws[i + 1:])
            kind = "reordered" if later else "removed"
            how = ("the events were reordered" if later
                   else f"seq {i} was removed and the events after it renumbered")
            return Problem(game, i, kind, f"the event stored at seq {i} was written as seq "
                           f"{written}: {how}"), prev
        payload = as_bytes(r.payload)
        if r.prev_hash != prev:
            own = link(bytes.fromhex(r.prev_hash), payload).hex() == r.hash \
                if re.fullmatch(r"[0-9a-f]{64}", r.prev_hash or "") else False
            if own and i > 0:
                return Problem(game, i - 1, "changed", f"seq {i - 1} was rewritten and rehashed: "
                               f"seq {i} still links to the original"), prev
            return Problem(game, i, "changed", "its link to the previous event (prev_hash) "
                           "was altered"), prev
        h = link(bytes.fromhex(prev), payload).hex()
        if r.hash != h:
            return Problem(game, i, "changed", "its bytes no longer match its hash: edited "
                           "after it was written"), prev
        if r.type != raw.get("type") or r.event_id != norm_id(_str_or_none(raw.get("id"))) \
                or r.at != raw.get("at"):
            return Problem(game, i, "changed", "its columns (type, id, at) disagree with its "
                           "hashed bytes"), prev
        prev = h
    first = raws[0]
    if header is None:
        return Problem(game, 0, "header", "the game's row in the games table is missing"), prev
    if (first.get("type") != "game_started" or header.ruleset != first.get("ruleset")
            or header.dealer != first.get("dealer") or list(header.seats) != first.get("seats")):
        return Problem(game, 0, "header", "the games table disagrees with its game_started "
                       "event (ruleset, dealer or seats were edited)"), prev
    if seats is not None and seats != first.get("seats"):
        return Problem(game, 0, "header", "the seat index (game_players) disagrees with its "
                       "game_started event"), prev
    return None, prev


def _str_or_none(v: Any) -> str | None:
    try:
        return norm_id(v) if isinstance(v, str) else None
    except ValueError:
        return v


def _check_certificate(rep: VerifyReport, game: str, hashes: list[str], cert: str) -> None:
    """Find the event whose chain hash the certificate is: the head when nothing was added
    since it was written, an earlier event when the game went on (legitimately: appends only
    extend a chain). No event at all: the log was changed, or the certificate mistyped."""
    want = re.sub(r"[^0-9a-f]", "", cert.lower())
    if len(want) < 8:
        rep.problems.append(Problem(game, None, "certificate", f"{cert!r} is not a certificate "
                                    "(at least 8 hex digits, e.g. 0123-4567-89ab-cdef)"))
        return
    if rep.problems:  # a broken chain certifies nothing (the problem is reported already)
        return
    for seq in range(len(hashes) - 1, -1, -1):
        if hashes[seq].startswith(want):
            rep.certified = {"game": game, "seq": seq, "appended_since": len(hashes) - 1 - seq}
            return
    head = hashes[-1] if hashes else GENESIS
    rep.problems.append(Problem(
        game, len(hashes) - 1, "certificate",
        f"{cert} is the hash of no event of this game (the head is {certificate(head)}): the "
        "log was changed after the certificate was written (events removed at the end, or "
        "rewritten), or the certificate is mistyped"))


def verify(conn: Connection, game: str | None, cert: str | None,
           progress: Callable[[int], None] | None = None) -> VerifyReport:
    rep = VerifyReport()
    if game is not None:
        header = conn.execute(select(GAMES).where(GAMES.c.id == game)).first()
        rows = list(conn.execute(select(*_COLS).where(EVENTS.c.game == game)
                                 .order_by(EVENTS.c.seq)))
        if header is None and not rows:
            raise NoSuchGame(game)
        players = [r.player for r in conn.execute(
            select(GAME_PLAYERS.c.player).where(GAME_PLAYERS.c.game == game)
            .order_by(GAME_PLAYERS.c.seat))]
        _one(rep, game, rows, header, players)
        if cert is not None:
            _check_certificate(rep, game, [r.hash for r in rows], cert)
        if progress:
            progress(rep.events)
        return rep
    last = ""
    while True:
        headers = conn.execute(select(GAMES).where(GAMES.c.id > last).order_by(GAMES.c.id)
                               .limit(PAGE)).all()
        if not headers:
            break
        ids = [h.id for h in headers]
        last = ids[-1]
        by_game: dict[str, list[Any]] = {i: [] for i in ids}
        for r in conn.execute(select(*_COLS).where(EVENTS.c.game.in_(bindparam("ids", expanding=True)))
                              .order_by(EVENTS.c.game, EVENTS.c.seq), {"ids": ids}):
            by_game[r.game].append(r)
        seats: dict[str, list[str]] = {i: [] for i in ids}
        for r in conn.execute(select(GAME_PLAYERS).where(
                GAME_PLAYERS.c.game.in_(bindparam("ids", expanding=True)))
                .order_by(GAME_PLAYERS.c.game, GAME_PLAYERS.c.seat), {"ids": ids}):
            seats[r.game].append(r.player)
        for h in headers:
            _one(rep, h.id, by_game[h.id], h, seats[h.id])
        if progress:
            progress(rep.events)
    orphans = conn.execute(select(EVENTS.c.game).distinct().where(
        EVENTS.c.game.not_in(select(GAMES.c.id)))).scalars().all()
    for g in orphans:
        rep.games += 1
        rep.problems.append(Problem(g, 0, "header", "events without a row in the games table "
                                    "(the game's header was deleted)"))
    _positions(conn, rep)
    return rep


def _one(rep: VerifyReport, game: str, rows: list[Any], header: Any, seats: list[str]) -> None:
    problem, head = check_chain(game, rows, header, seats)
    rep.games += 1
    rep.events += len(rows)
    rep.heads[game] = head
    if problem is not None:
        rep.problems.append(problem)


def _positions(conn: Connection, rep: VerifyReport) -> None:
    """Event and game positions run 1..n without holes (a hole is a deleted row)."""
    for table, what in ((EVENTS, "event"), (GAMES, "game")):
        n, hi = conn.execute(select(func.count(), func.coalesce(func.max(table.c.pos), 0))
                             .select_from(table)).one()
        if n == hi:
            continue
        expect = 1
        missing: list[int] = []
        for (pos,) in conn.execute(select(table.c.pos).order_by(table.c.pos)):
            if pos != expect:
                missing.append(expect)
                break
            expect += 1
        first = missing[0] if missing else expect
        rep.problems.append(Problem("(store)", None, "removed",
                                    f"{hi - n} {what} position(s) are missing, the first is "
                                    f"{first}: {what}s were deleted from the store"))
