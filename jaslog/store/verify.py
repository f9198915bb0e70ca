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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import and_, bindparam, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from jaslog.engine.fold import FoldError
from jaslog.events import Event
from jaslog.play.fold import start_fold
from jaslog.store.codec import as_bytes, decode, link, norm_id
from jaslog.store.rows import event_select, read_rows, stored_rows
from jaslog.store.schema import EVENTS, GAME_PLAYERS, GAMES, SIGNATURES, VERIFIED_HEADS
from jaslog.store.signing import (
    KeyDir,
    PublicKey,
    anchor_of,
    due,
    has_tables,
    holds,
    marks,
    message_version,
    parse_anchor,
    signatures_of,
    stored_keys,
)
from jaslog.store.types import GENESIS, NoSuchGame, Problem, StoreError, VerifyReport, certificate
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


@dataclass
class Trust:
    """The keys whose signatures ``verify`` accepts, and where they come from: ``given``
    (``--key``: a club's published keys), ``directory`` (the store's key directory) or
    ``store`` (no key directory here: the keys the store records, which prove the
    signatures were not altered but not who made them)."""

    keys: dict[str, PublicKey]
    source: str
    directory: KeyDir | None = None

    @classmethod
    def given(cls, keys: Iterable[PublicKey]) -> Trust:
        return cls({k.id: k for k in keys}, "given")

    @classmethod
    def of_directory(cls, directory: KeyDir) -> Trust:
        keys = directory.trusted()
        return cls(keys, "directory" if keys else "store", directory)

    def resolve(self, conn: Connection) -> None:
        """Read the store's own keys when they are what is trusted."""
        if self.source == "store":
            self.keys = stored_keys(conn)

    def words(self) -> str:
        """Whose keys these are, for a sentence."""
        if self.source == "given":
            return "the key given" if len(self.keys) == 1 else "the keys given"
        if self.source == "directory":
            where = self.directory.path if self.directory is not None else None
            return f"this store's keys ({where})" if where else "this store's keys"
        return "the keys the store records"


@dataclass
class _Signatures:
    """What :func:`check_signatures` found in one game."""

    checked: int = 0
    keys: set[str] = field(default_factory=set)
    at: dict[int, str] = field(default_factory=dict)  # seq -> key id, of the valid ones


def _payload_seq(raw: Any) -> Any:
    return raw.get("seq") if isinstance(raw, dict) else None


def check_chain(game: str, rows: list[Any], header: Any, seats: list[str] | None,
                start: int = 0, prev: str = GENESIS,
                first: dict[str, Any] | None = None) -> tuple[Problem | None, str]:
    """The first problem in one game's rows (ordered by seq), and the head hash. ``start``,
    ``prev``: the rows begin after a verified head, at seq ``start``, linking to ``prev``;
    ``first``: then the game's ``game_started`` payload, which the header must agree with."""
    if not rows and start == 0:
        return Problem(game, None, "removed", "the game has a header but no events: all its "
                       "events were deleted"), GENESIS
    raws: list[Any] = []
    for r in rows:
        try:
            raws.append(orjson.loads(r.payload))
        except orjson.JSONDecodeError:
            raws.append(None)
    for i, (r, raw) in enumerate(zip(rows, raws, strict=True), start):
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
            later = any(_payload_seq(x) == i for x in raws[i - start + 1:])
            kind = "reordered" if later else "removed"
            how = ("the events were reordered" if later
                   else f"seq {i} was removed and the events after it renumbered")
            return Problem(game, i, kind, f"the event stored at seq {i} was written as seq "
                           f"{written}: {how}"), prev
        payload = as_bytes(r.payload)
        if r.prev_hash != prev:
            own = link(bytes.fromhex(r.prev_hash), payload).hex() == r.hash \
                if re.fullmatch(r"[0-9a-f]{64}", r.prev_hash or "") else False
            if own and i > start:
                return Problem(game, i - 1, "changed", f"seq {i - 1} was rewritten and rehashed: "
                               f"seq {i} still links to the original"), prev
            return Problem(game, i, "changed", "its link to the previous event (prev_hash) "
                           "was altered"), prev
        h = link(bytes.fromhex(prev), payload).hex()
        if r.hash != h:
            if i > start and link(bytes.fromhex(rows[i - start - 1].prev_hash),
                                  as_bytes(rows[i - start - 1].payload)).hex() == prev:
                # the event before holds together, this one does not link to it: either this
                # one was edited, or the one before was rewritten and rehashed (the chain
                # keeps no copy of the link to tell which)
                return Problem(game, i, "changed", "its bytes no longer match its hash: it was "
                               f"edited after it was written, or seq {i - 1} was rewritten and "
                               "rehashed"), prev
            return Problem(game, i, "changed", "its bytes no longer match its hash: edited "
                           "after it was written"), prev
        if r.type != raw.get("type") or r.event_id != norm_id(_str_or_none(raw.get("id"))) \
                or r.at != raw.get("at"):
            return Problem(game, i, "changed", "its columns (type, id, at) disagree with its "
                           "hashed bytes"), prev
        prev = h
    if start == 0:
        first = raws[0]
    if first is None:
        return None, prev
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


def check_signatures(rep: VerifyReport, game: str, hashes: list[str], sigs: list[Any],
                     trust: Trust, events: Callable[[], list[Event]]) -> _Signatures:
    """Check the signatures of one game whose chain holds (``hashes``: the chain's hash at each
    seq); a problem is added to ``rep`` for the first that does not hold, or for a round end
    no signature covers. ``events`` gives the game's events (folded only when events follow
    the last signature)."""
    found = _Signatures()
    last = -1
    for s in sigs:
        found.checked += 1
        words = trust.words()
        if s.seq >= len(hashes):
            rep.problems.append(Problem(game, s.seq, "signature", f"seq {s.seq} was signed (by "
                                        f"key {s.key_id}) but the game ends at seq "
                                        f"{len(hashes) - 1}: events were removed after they "
                                        "were signed"))
            return found
        if s.hash != hashes[s.seq]:
            rep.problems.append(Problem(game, s.seq, "signature", f"the events up to seq {s.seq} "
                                        "were changed after they were signed: the signed hash "
                                        f"is {certificate(s.hash)}, the chain's is "
                                        f"{certificate(hashes[s.seq])} (rewritten and hashed "
                                        "again behind the store's back)"))
            return found
        key = trust.keys.get(s.key_id)
        if key is None:
            rep.problems.append(Problem(game, s.seq, "signature", f"the head at seq {s.seq} is "
                                        f"signed by key {s.key_id}, which is not one of "
                                        f"{words}"))
            return found
        if not holds(key, s):
            if message_version(s.signature) == 2:
                rep.problems.append(Problem(
                    game, s.seq, "signature", f"the signature of seq {s.seq} does not hold for "
                    f"signature position {s.pos} and event position "
                    f"{'(none)' if s.event_pos is None else s.event_pos}: it was forged or "
                    "altered, or rows stored before it (events or signatures) were removed and "
                    "the positions renumbered to hide it"))
            else:
                rep.problems.append(Problem(game, s.seq, "signature", f"the signature of seq "
                                            f"{s.seq} was not made by key {s.key_id}: it was "
                                            "forged or altered"))
            return found
        found.keys.add(s.key_id)
        found.at[s.seq] = s.key_id
        last = max(last, s.seq)
    if last < len(hashes) - 1:
        _unsigned(rep, game, last, events, found)
    return found


def _unsigned(rep: VerifyReport, game: str, last: int, events: Callable[[], list[Event]],
              found: _Signatures) -> None:
    """The events after seq ``last`` (the last signed, -1: none) may only be those of a round
    still being played: a problem when a round or the game ended among them, or the
    referee ruled."""
    legacy = ("; a store written before jaslog signed its games has none: `jaslog key sign` "
              "signs every game's head as it stands now") if not found.checked else ""
    try:
        evs = events()
        f = start_fold(evs[0])
        base = marks(f)
        for e in evs[1:last + 1]:
            f.apply(e)
        if last >= 0:
            base = marks(f)
        for e in evs[max(last + 1, 1):]:
            f.apply(e)
            now = marks(f)
            if due(base, now):
                word = f.state.round_word
                what = f"ends {word} {now[0]}" if now[0] > base[0] else \
                    f"is a ruling on {word} {getattr(e, 'round', '?')}" if now[2] > base[2] \
                    else "ends the game"
                since = f"after seq {last}" if last >= 0 else "at all"
                rep.problems.append(Problem(game, e.seq, "unsigned", f"seq {e.seq} {what} but no "
                                            f"signature covers it (the game is not signed "
                                            f"{since}): the signature was removed, or the events "
                                            f"were written behind the store's back{legacy}"))
                return
    except (FoldError, StoreError, IndexError) as err:
        rep.problems.append(Problem(game, last + 1, "unsigned", "the events after the last "
                                    f"signature do not fold ({err}), so no signature can vouch "
                                    "for them"))


def _check_certificate(rep: VerifyReport, game: str, hashes: list[str], cert: str,
                       signed: dict[int, str] | None = None) -> None:
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
            rep.certified = {"game": game, "seq": seq, "appended_since": len(hashes) - 1 - seq,
                             "signed_by": (signed or {}).get(seq)}
            return
    head = hashes[-1] if hashes else GENESIS
    rep.problems.append(Problem(
        game, len(hashes) - 1, "certificate",
        f"{cert} is the hash of no event of this game (the head is {certificate(head)}): the "
        "log was changed after the certificate was written (events removed at the end, or "
        "rewritten), or the certificate is mistyped"))


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
        if cert is not None:
            _check_certificate(rep, game, [r.hash for r in rows], cert, signed)
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
        reached = int(conn.execute(select(func.coalesce(func.max(EVENTS.c.pos), 0))).scalar_one())
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


def _positions(conn: Connection, rep: VerifyReport, signing: bool = False) -> None:
    """Event, game and signature positions run 1..n without holes (a hole is a deleted row)."""
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
