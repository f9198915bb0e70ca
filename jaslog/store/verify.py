"""Rechecking hash chains and signatures: find the first event changed, removed or reordered.

Each game's events must run seq 0, 1, 2... with ``prev_hash`` the previous event's hash
(:data:`GENESIS` for seq 0) and ``hash = sha256(prev_hash + payload)``; the payload must
name its own game and seq, and the indexed columns (type, id, at) must agree with it. The
``games`` row must agree with seq 0. Store-wide, event, game and signature positions must be
contiguous, which also reveals events removed from the end of a game.

A chain can be rewritten and hashed again by anyone with the database; a signature
(:mod:`jaslog.store.signing`) cannot be made without the private key. So a game whose
chain holds must also have (:func:`check_signatures`): every signature made by a trusted
key (:class:`Trust`), over the chain's hash at its seq; and a signature covering every
round that ended, every ruling and the end of the game. Only the events of a round still being played
may come after the last signature.

:func:`verify_store` (``jaslog verify``) also starts each game from the head a clean run
recorded (``verified_heads``: the last head signed by a trusted key), and checks games in
several processes; what that does and does not catch, compared with a full run, is in
docs/recording-and-store.md ("From the last verified head").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import and_, bindparam, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from jaslog.events import Event
from jaslog.store.codec import as_bytes, decode, link
from jaslog.store.rows import event_select, last_pos, read_rows, stored_rows
from jaslog.store.schema import EVENTS, GAME_PLAYERS, GAMES, SIGNATURES, VERIFIED_HEADS
from jaslog.store.signing import (
    KeyDir,
    PublicKey,
    anchor_of,
    has_tables,
    holds,
    parse_anchor,
    signatures_of,
)
from jaslog.store.types import GENESIS, NoSuchGame, Problem, VerifyReport, certificate
from jaslog.store.verify_chain import Trust, check_certificate, check_chain, check_signatures
from jaslog.store.verify_derived import (
    Derived,
    check_from_head,
    check_game,
    check_schema_version,
    derived_of,
    derived_orphans,
    derived_tables,
)

PAGE = 200


def verify(conn: Connection, game: str | None, cert: str | None,
           progress: Callable[[int], None] | None = None,
           trust: Trust | None = None) -> VerifyReport:
    """Recheck one game (or every game) of the store on ``conn``; ``trust``: the keys whose
    signatures count (default: those the store records)."""
    rep = VerifyReport()
    if trust is None:
        trust = Trust({}, "store")
    trust.resolve(conn)
    rep.trust = trust.source
    signing = has_tables(conn)
    if game is not None:
        header = conn.execute(select(GAMES).where(GAMES.c.id == game)).first()
        rows = read_rows(conn, GAMES.c.id == game, lenient=True)
        if header is None and not rows:
            raise NoSuchGame(game)
        players = [r.player for r in conn.execute(
            select(GAME_PLAYERS.c.player).where(GAME_PLAYERS.c.game == game)
            .order_by(GAME_PLAYERS.c.seat))]
        sigs = signatures_of(conn, [game])[game] if signing else []
        tables = derived_tables(conn)
        signed = _one(rep, game, rows, header, players, sigs, trust,
                      derived_of(conn, [game], tables)[game], tables)
        _unplaced(conn, rep, game)
        if cert is not None:
            check_certificate(rep, game, [r.hash for r in rows], cert, signed)
        if progress:
            progress(rep.events)
        return rep
    _range(conn, rep, _Run(trust, signing), None, None, progress)
    _store_wide(conn, rep, signing)
    return rep


def _store_wide(conn: Connection, rep: VerifyReport, signing: bool) -> None:
    """What no one game shows: events of a deleted header, signatures of a deleted game,
    derived rows of no game, holes in the store's positions."""
    orphans = [f"(game #{k})" for k in conn.execute(select(EVENTS.c.game).distinct().where(
        EVENTS.c.game.not_in(select(GAMES.c.pos)))).scalars().all()]
    for g in orphans:
        rep.games += 1
        rep.problems.append(Problem(g, 0, "header", "events without a row in the games table "
                                    "(the game's header was deleted)"))
    if signing:
        gone = conn.execute(select(SIGNATURES.c.game).distinct().where(
            SIGNATURES.c.game.not_in(select(GAMES.c.id).where(
                GAMES.c.pos.in_(select(EVENTS.c.game)))),
            SIGNATURES.c.game.not_in(select(GAMES.c.id)))).scalars().all()
        for g in gone:
            rep.problems.append(Problem(g, None, "removed", "the game was signed but its events "
                                        "are gone: the game was deleted from the store"))
    derived_orphans(conn, rep, derived_tables(conn))
    check_schema_version(conn, rep)
    _positions(conn, rep, signing)
    if signing:
        newest = conn.execute(select(SIGNATURES.c.pos, SIGNATURES.c.signature)
                              .order_by(SIGNATURES.c.pos.desc()).limit(1)).first()
        rep.anchor = anchor_of(newest.pos, newest.signature) if newest is not None else None


def check_anchor(conn: Connection, rep: VerifyReport, anchor: str) -> None:
    """The store against an anchor kept outside it (:func:`jaslog.store.signing.anchor_of`):
    the signature the anchor names must still be the store's signature at that position.
    ValueError when ``anchor`` is not one."""
    pos, cert = parse_anchor(anchor)
    row = conn.execute(select(SIGNATURES.c.pos, SIGNATURES.c.signature)
                       .where(SIGNATURES.c.pos == pos)).first() if has_tables(conn) else None
    if row is None:
        top = conn.execute(select(func.coalesce(func.max(SIGNATURES.c.pos), 0))).scalar_one() \
            if has_tables(conn) else 0
        rep.problems.append(Problem("(store)", None, "anchor", f"the anchor {anchor.strip()} "
                                    f"names the store's signature {pos}, but its newest is "
                                    f"signature {top}: the store was cut back at its end (its "
                                    "newest signatures and the events they covered removed), "
                                    "or the anchor is of another store"))
    elif anchor_of(row.pos, row.signature) != f"{pos}:{cert}":
        rep.problems.append(Problem("(store)", None, "anchor", f"the store's signature {pos} is "
                                    f"not the one the anchor {anchor.strip()} names: the store "
                                    "was cut back and written again after it, or the anchor "
                                    "is of another store"))


@dataclass
class Checked:
    """How a whole-store run checked its games: ``full_*`` in full (from seq 0), ``head_*``
    from their verified head (``head_events``: the events after it, read and rechecked;
    ``skipped``: the events before it, not read again); ``read``: event rows read (the folds
    of unsigned tails included); ``recorded``: verified heads this run recorded."""

    full_games: int = 0
    full_events: int = 0
    head_games: int = 0
    head_events: int = 0
    skipped: int = 0
    read: int = 0
    recorded: int = 0
    incremental: bool = False

    def add(self, other: Checked) -> None:
        for k in ("full_games", "full_events", "head_games", "head_events", "skipped", "read"):
            setattr(self, k, getattr(self, k) + getattr(other, k))

    def to_json(self) -> dict[str, Any]:
        return {"incremental": self.incremental,
                "in_full": {"games": self.full_games, "events": self.full_events},
                "from_verified_head": {"games": self.head_games, "events": self.head_events,
                                       "not_reread": self.skipped},
                "events_read": self.read, "recorded": self.recorded}


@dataclass
class _Run:
    """What one pass over games needs: the trust, whether the store has signatures and
    verified heads, whether to start from them, and where to put the heads it may record
    (game, seq, hash: the last signed seq of each game found whole, past its record)."""

    trust: Trust
    signing: bool
    tracked: bool = False
    incremental: bool = False
    checked: Checked = field(default_factory=Checked)
    new_heads: list[tuple[str, int, str]] = field(default_factory=list)
    #: the derived tables the store has (read with the first page)
    tables: frozenset[str] | None = None


def _range(conn: Connection, rep: VerifyReport, run: _Run, after: str | None,
           upto: str | None, progress: Callable[[int], None] | None) -> None:
    """Check the games whose id is after ``after`` (None: from the first) up to ``upto``
    (None: to the last), in id order, a page at a time."""
    last = after or ""
    while True:
        q = select(GAMES).where(GAMES.c.id > last)
        if upto is not None:
            q = q.where(GAMES.c.id <= upto)
        headers = conn.execute(q.order_by(GAMES.c.id).limit(PAGE)).all()
        if not headers:
            break
        last = headers[-1].id
        _page(conn, rep, run, list(headers))
        if progress:
            progress(rep.events)


_IDS: Any = bindparam("ids", expanding=True)


def _page(conn: Connection, rep: VerifyReport, run: _Run, headers: list[Any]) -> None:
    ids = [h.id for h in headers]
    if run.tables is None:
        run.tables = derived_tables(conn)
    derived = derived_of(conn, ids, run.tables)
    heads = _verified(conn, ids) if run.tracked else {}
    start = heads if run.incremental else {}
    whole = [i for i in ids if i not in start]
    by_game: dict[str, list[Any]] = {i: [] for i in ids}
    if whole:
        for sr in read_rows(conn, GAMES.c.id.in_(_IDS), params={"ids": whole}, lenient=True):
            by_game[sr.game].append(sr)
    firsts: dict[str, Any] = {}
    page_sigs = signatures_of(conn, whole) if run.signing else {i: [] for i in whole}
    if start:
        vh = (select(VERIFIED_HEADS.c.game, func.max(VERIFIED_HEADS.c.seq).label("seq"))
              .where(VERIFIED_HEADS.c.game.in_(_IDS)).group_by(VERIFIED_HEADS.c.game).subquery())
        from_head = event_select().join(vh, and_(vh.c.game == GAMES.c.id,
                                                 EVENTS.c.seq >= vh.c.seq))
        for sr in stored_rows(conn, list(conn.execute(
                from_head.order_by(GAMES.c.id, EVENTS.c.seq), {"ids": list(start)})),
                lenient=True):
            by_game[sr.game].append(sr)
        for sr in read_rows(conn, GAMES.c.id.in_(_IDS), EVENTS.c.seq == 0,
                            params={"ids": list(start)}, lenient=True):
            firsts[sr.game] = sr
        if run.signing:
            page_sigs.update({i: [] for i in start})
            for r in conn.execute(select(SIGNATURES, EVENTS.c.pos.label("event_pos")).select_from(
                    vh.join(SIGNATURES, and_(SIGNATURES.c.game == vh.c.game,
                                             SIGNATURES.c.seq >= vh.c.seq))
                    .outerjoin(GAMES, GAMES.c.id == SIGNATURES.c.game)
                    .outerjoin(EVENTS, and_(EVENTS.c.game == GAMES.c.pos,
                                            EVENTS.c.seq == SIGNATURES.c.seq)))
                    .order_by(SIGNATURES.c.game, SIGNATURES.c.seq, SIGNATURES.c.pos),
                    {"ids": list(start)}):
                page_sigs[r.game].append(r)
    seats: dict[str, list[str]] = {i: [] for i in ids}
    for r in conn.execute(select(GAME_PLAYERS).where(GAME_PLAYERS.c.game.in_(_IDS))
                          .order_by(GAME_PLAYERS.c.game, GAME_PLAYERS.c.seat), {"ids": ids}):
        seats[r.game].append(r.player)
    for h in headers:
        if h.id in start:
            _from_head(conn, rep, run, h, start[h.id], by_game[h.id], firsts.get(h.id),
                       seats[h.id], page_sigs[h.id], derived[h.id])
        else:
            before = len(rep.problems)
            found = _one(rep, h.id, by_game[h.id], h, seats[h.id], page_sigs[h.id], run.trust,
                         derived[h.id], run.tables)
            run.checked.full_games += 1
            run.checked.full_events += len(by_game[h.id])
            run.checked.read += len(by_game[h.id])
            _note_head(rep, run, h.id, found, [r.hash for r in by_game[h.id]], heads.get(h.id),
                       before)


def _verified(conn: Connection, ids: list[str]) -> dict[str, tuple[int, str]]:
    """The last verified head (seq, hash) of each of ``ids`` that has one."""
    out: dict[str, tuple[int, str]] = {}
    for r in conn.execute(select(VERIFIED_HEADS.c.game, VERIFIED_HEADS.c.seq,
                                 VERIFIED_HEADS.c.hash)
                          .where(VERIFIED_HEADS.c.game.in_(_IDS))
                          .order_by(VERIFIED_HEADS.c.game, VERIFIED_HEADS.c.seq), {"ids": ids}):
        out[r.game] = (r.seq, r.hash)
    return out


def _note_head(rep: VerifyReport, run: _Run, game: str, found: dict[int, str],
               hashes: list[str], had: tuple[int, str] | None, before: int) -> None:
    """Keep the game's last validly signed head to record, when the game was found whole and
    it is past the head recorded already."""
    if not run.tracked or len(rep.problems) != before or not found:
        return
    seq = max(found)
    if had is None or seq > had[0]:
        run.new_heads.append((game, seq, hashes[seq]))


def _own_link(r: Any, prev: str) -> bool:
    """Whether a row's bytes hash, after ``prev``, to its stored hash."""
    return r.prev_hash == prev and link(bytes.fromhex(prev), as_bytes(r.payload)).hex() == r.hash


def _from_head(conn: Connection, rep: VerifyReport, run: _Run, header: Any,
               head: tuple[int, str], rows: list[Any], first: Any, seats: list[str],
               sigs: list[Any], derived: Derived) -> None:
    """Check a game from its verified head (``rows``: the events from the head's seq on;
    ``sigs``: the signatures from there on): the row at that seq must still hold the recorded
    hash (its own bytes hashing to it) and be signed there by a trusted key; then the chain
    is recomputed from there, and the signatures after it checked. When the head does not
    hold, the game is checked in full (and when that finds nothing, the record itself was
    forged)."""
    game = header.id
    seq, hash_ = head
    trust = run.trust
    ok = bool(rows) and rows[0].seq == seq and rows[0].hash == hash_ and first is not None
    if ok:
        ok = (re.fullmatch(r"[0-9a-f]{64}", rows[0].prev_hash or "") is not None
              and _own_link(rows[0], rows[0].prev_hash) and _own_link(first, GENESIS)
              and any(s.seq == seq and s.hash == hash_ and s.key_id in trust.keys
                      and holds(trust.keys[s.key_id], s) for s in sigs))
    raw0: Any = None
    if ok:
        try:
            raw0 = orjson.loads(first.payload)
        except orjson.JSONDecodeError:
            ok = False
        ok = ok and isinstance(raw0, dict)
    if not ok:
        before = len(rep.problems)
        all_rows = read_rows(conn, GAMES.c.id == game, lenient=True)
        all_sigs = signatures_of(conn, [game])[game] if run.signing else []
        _one(rep, game, all_rows, header, seats, all_sigs, trust, derived, run.tables or frozenset())
        run.checked.full_games += 1
        run.checked.full_events += len(all_rows)
        run.checked.read += len(all_rows)
        if len(rep.problems) == before:
            rep.problems.append(Problem(game, seq, "verified", f"the verified head recorded for "
                                        f"seq {seq} ({certificate(hash_)}) is not the game's "
                                        "signed head at that seq: the record of verified heads "
                                        "was written behind verify's back"))
        return
    after = rows[1:]
    problem, top = check_chain(game, after, header, seats, start=seq + 1, prev=hash_, first=raw0)
    rep.games += 1
    rep.events += seq + 1 + len(after)
    rep.heads[game] = top
    run.checked.head_games += 1
    run.checked.head_events += len(after)
    run.checked.skipped += seq
    run.checked.read += len(rows) + (1 if seq > 0 else 0)
    if problem is not None:
        rep.problems.append(problem)
        return
    hashes = [""] * seq + [r.hash for r in rows]

    def events() -> list[Event]:
        every = read_rows(conn, GAMES.c.id == game)
        run.checked.read += len(every)
        return [decode(r.payload, r.version, game, r.seq) for r in every]

    before = len(rep.problems)
    signed = check_signatures(rep, game, hashes, sigs, trust, events)
    rep.signatures += signed.checked
    rep.keys.update(signed.keys)
    if len(rep.problems) == before:
        check_from_head(rep, game, header, list(header.seats), first, rows, derived,
                        run.tables or frozenset())
    _note_head(rep, run, game, signed.at, hashes, head, before)


def verify_store(store: Any, *, keys: list[PublicKey] | None = None, full: bool = False,
                 workers: int = 0, record: bool = True,
                 progress: Callable[[int], None] | None = None,
                 anchor: str | None = None) -> VerifyReport:
    """Recheck every game of ``store`` (a :class:`jaslog.store.Store`), as ``jaslog verify``
    does: each game from its last verified head when the store records one (``full``: every
    game from seq 0), in ``workers`` processes (0: in this one), each with its own
    connection and a range of games; the report is the same as one process's. A clean run
    records (``record``), in one transaction, each game's last signed head past its record;
    a store that cannot be written (or has no table of verified heads: opened to read before
    it was upgraded) is checked all the same, and records nothing. ``keys``: as
    :meth:`jaslog.store.Store.verify`'s. ``anchor``: the store's newest signature as a former
    run gave it (:attr:`VerifyReport.anchor`), kept outside the store: that signature must
    still be there (:func:`check_anchor`; ValueError when it is not an anchor).

    >>> from jaslog.store import open_store
    >>> with open_store("sqlite://") as s:
    ...     verify_store(s).checked.to_json()["in_full"]
    {'games': 0, 'events': 0}
    """
    from sqlalchemy import inspect

    from jaslog.store import engine as eng

    if anchor is not None:
        parse_anchor(anchor)  # (refused before the run)
    trust = Trust.given(keys) if keys is not None else Trust.of_directory(store.keys)
    rep = VerifyReport()
    with eng.read_tx(store.engine) as conn:
        trust.resolve(conn)
        rep.trust = trust.source
        tracked = bool(inspect(conn).has_table("verified_heads"))
        run = _Run(trust, has_tables(conn), tracked, tracked and not full)
        run.checked.incremental = run.incremental
        rep.checked = run.checked
        reached = last_pos(conn)
        ids = list(conn.execute(select(GAMES.c.id).order_by(GAMES.c.id)).scalars()) \
            if workers > 0 and store.workers_ok() else []
        if len(ids) > 1:
            _in_workers(store.url, rep, run, ids, workers, progress)
        else:
            _range(conn, rep, run, None, None, progress)
        _store_wide(conn, rep, run.signing)
        if anchor is not None:
            check_anchor(conn, rep, anchor)
    if rep.ok and tracked and record and run.new_heads:
        run.checked.recorded = _record(store, run.new_heads, reached)
    return rep


def _record(store: Any, heads: list[tuple[str, int, str]], reached: int) -> int:
    """Insert the verified heads (one transaction); 0 when the store cannot be written."""
    from jaslog.store import engine as eng
    from jaslog.store.codec import now_text

    at = now_text()
    try:
        with eng.write_tx(store.engine) as conn:
            have: set[tuple[str, int]] = set()
            for i in range(0, len(heads), 500):
                part = sorted({g for g, _, _ in heads[i:i + 500]})
                have.update((r.game, r.seq) for r in conn.execute(
                    select(VERIFIED_HEADS.c.game, VERIFIED_HEADS.c.seq)
                    .where(VERIFIED_HEADS.c.game.in_(_IDS)), {"ids": part}))
            rows = [{"game": g, "seq": q, "hash": h, "pos": reached, "verified_at": at}
                    for g, q, h in heads if (g, q) not in have]
            if rows:
                conn.execute(VERIFIED_HEADS.insert(), rows)
            return len(rows)
    except (eng.DatabaseError, SQLAlchemyError):
        return 0  # a read-only store: checked, not recorded


#: Ranges of games per worker: several, so that a worker done early takes another.
_CHUNKS_PER_WORKER = 4


def _in_workers(url: str, rep: VerifyReport, run: _Run, ids: list[str], workers: int,
                progress: Callable[[int], None] | None) -> None:
    """Check the games ``ids`` (in id order) in ``workers`` processes, a contiguous range of
    games each task, and add up their reports in range order: the problems come in the order
    one process finds them."""
    import multiprocessing as mp

    from jaslog.store.parallel import start_method

    n = min(workers * _CHUNKS_PER_WORKER, len(ids))
    bounds = [ids[(len(ids) * k) // n - 1] if k else None for k in range(n)] + [None]
    keydir = run.trust.directory.path if run.trust.directory is not None else None
    tasks = [(url, bounds[k], bounds[k + 1], run.trust.keys, run.trust.source, keydir,
              run.signing, run.tracked, run.incremental) for k in range(n)]
    ctx: Any = mp.get_context(start_method())
    with ctx.Pool(min(workers, n)) as pool:
        for part, checked, heads in pool.imap(_range_in_worker, tasks):
            rep.games += part.games
            rep.events += part.events
            rep.problems.extend(part.problems)
            rep.heads.update(part.heads)
            rep.signatures += part.signatures
            rep.keys.update(part.keys)
            run.checked.add(checked)
            run.new_heads.extend(heads)
            if progress:
                progress(rep.events)


_ENGINES: dict[str, Any] = {}


def _range_in_worker(task: tuple[Any, ...]) -> tuple[VerifyReport, Checked,
                                                    list[tuple[str, int, str]]]:
    """A worker's range of games, through its own connection."""
    from jaslog.store import engine as eng

    url, after, upto, keys, source, keydir, signing, tracked, incremental = task
    if url not in _ENGINES:
        _ENGINES[url] = eng.make_engine(url)
    trust = Trust(keys, source, KeyDir(keydir) if keydir is not None else None)
    run = _Run(trust, signing, tracked, incremental)
    rep = VerifyReport(trust=source)
    with eng.read_tx(_ENGINES[url]) as conn:
        _range(conn, rep, run, after, upto, None)
    return rep, run.checked, run.new_heads


def _one(rep: VerifyReport, game: str, rows: list[Any], header: Any, seats: list[str],
         sigs: list[Any], trust: Trust, derived: Derived | None = None,
         tables: frozenset[str] = frozenset()) -> dict[int, str]:
    """Check one game: its chain, then (when the chain holds) its signatures and (``derived``:
    its rows in the derived tables ``tables``) what the store keeps beside its events
    (:mod:`jaslog.store.verify_derived`). Returns the seqs signed validly, with the key of
    each."""
    problem, head = check_chain(game, rows, header, seats)
    rep.games += 1
    rep.events += len(rows)
    rep.heads[game] = head
    if problem is not None:
        rep.problems.append(problem)
        return {}  # a broken chain: what its signatures say adds nothing

    def events() -> list[Event]:
        return [decode(r.payload, r.version, game, r.seq) for r in rows]

    before = len(rep.problems)
    found = check_signatures(rep, game, [r.hash for r in rows], sigs, trust, events)
    rep.signatures += found.checked
    rep.keys.update(found.keys)
    if derived is not None and len(rep.problems) == before:  # (else what it says comes first)
        check_game(rep, game, header, list(header.seats) if header is not None else seats, rows,
                   derived, tables)
    return found.at


def _unplaced(conn: Connection, rep: VerifyReport, game: str | None = None) -> None:
    """Each event (of ``game`` only, when given) with no position (``pos`` NULL, in a table
    rebuilt without its NOT NULL): its chain holds, but every read up to a position leaves
    it out, so its game reads without it. One indexed look-up, for the whole store."""
    q = (select(GAMES.c.id, EVENTS.c.seq).join_from(EVENTS, GAMES, GAMES.c.pos == EVENTS.c.game)
         .where(EVENTS.c.pos.is_(None)))
    if game is not None:
        q = q.where(GAMES.c.id == game)
    for r in conn.execute(q.order_by(GAMES.c.id, EVENTS.c.seq)):
        rep.problems.append(Problem(r.id, r.seq if type(r.seq) is int else None, "position",
                                    "the event has no position in the store (its pos is NULL, "
                                    "where jaslog writes one to every event): every read up to "
                                    "a position (the replay, check store:, the export) leaves "
                                    "it out, and the game reads without it; the row was "
                                    "changed behind the store's back"))


def _positions(conn: Connection, rep: VerifyReport, signing: bool = False) -> None:
    """Event, game and signature positions run 1..n without holes (a hole is a deleted row),
    and every event has one (:func:`_unplaced`)."""
    _unplaced(conn, rep)
    tables = [(EVENTS, "event"), (GAMES, "game")] + ([(SIGNATURES, "signature")] if signing else [])
    for table, what in tables:
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
