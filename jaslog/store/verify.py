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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import bindparam, func, select
from sqlalchemy.engine import Connection

from jaslog.engine.fold import FoldError
from jaslog.events import Event
from jaslog.fold import start_fold
from jaslog.store.codec import as_bytes, decode, link, norm_id
from jaslog.store.schema import EVENTS, GAME_PLAYERS, GAMES, SIGNATURES
from jaslog.store.signing import (
    KeyDir,
    PublicKey,
    due,
    has_tables,
    head_message,
    marks,
    signatures_of,
    stored_keys,
)
from jaslog.store.types import GENESIS, NoSuchGame, Problem, StoreError, VerifyReport, certificate

_COLS = (EVENTS.c.game, EVENTS.c.seq, EVENTS.c.type, EVENTS.c.version, EVENTS.c.event_id,
         EVENTS.c.at, EVENTS.c.payload, EVENTS.c.prev_hash, EVENTS.c.hash)
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


@dataclass(frozen=True, slots=True)
class Signed:
    """A signature to check: a game's head at ``seq`` with ``hash``, by key ``key_id``."""

    game: str
    seq: int
    hash: str
    key_id: str
    signature: str


@dataclass
class _Signatures:
    """What :func:`check_signatures` found in one game."""

    checked: int = 0
    keys: set[str] = field(default_factory=set)
    at: dict[int, str] = field(default_factory=dict)  # seq -> key id, of the valid ones


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
        if not key.verify(s.signature, head_message(game, s.seq, s.hash)):
            rep.problems.append(Problem(game, s.seq, "signature", f"the signature of seq {s.seq} "
                                        f"was not made by key {s.key_id}: it was forged or "
                                        "altered"))
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
        rows = list(conn.execute(select(*_COLS).where(EVENTS.c.game == game)
                                 .order_by(EVENTS.c.seq)))
        if header is None and not rows:
            raise NoSuchGame(game)
        players = [r.player for r in conn.execute(
            select(GAME_PLAYERS.c.player).where(GAME_PLAYERS.c.game == game)
            .order_by(GAME_PLAYERS.c.seat))]
        sigs = signatures_of(conn, [game])[game] if signing else []
        signed = _one(rep, game, rows, header, players, sigs, trust)
        if cert is not None:
            _check_certificate(rep, game, [r.hash for r in rows], cert, signed)
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
        page_sigs = signatures_of(conn, ids) if signing else {i: [] for i in ids}
        for h in headers:
            _one(rep, h.id, by_game[h.id], h, seats[h.id], page_sigs[h.id], trust)
        if progress:
            progress(rep.events)
    orphans = conn.execute(select(EVENTS.c.game).distinct().where(
        EVENTS.c.game.not_in(select(GAMES.c.id)))).scalars().all()
    for g in orphans:
        rep.games += 1
        rep.problems.append(Problem(g, 0, "header", "events without a row in the games table "
                                    "(the game's header was deleted)"))
    if signing:
        gone = conn.execute(select(SIGNATURES.c.game).distinct().where(
            SIGNATURES.c.game.not_in(select(EVENTS.c.game)),
            SIGNATURES.c.game.not_in(select(GAMES.c.id)))).scalars().all()
        for g in gone:
            rep.problems.append(Problem(g, None, "removed", "the game was signed but its events "
                                        "are gone: the game was deleted from the store"))
    _positions(conn, rep, signing)
    return rep


def _one(rep: VerifyReport, game: str, rows: list[Any], header: Any, seats: list[str],
         sigs: list[Any], trust: Trust) -> dict[int, str]:
    """Check one game: its chain, then (when the chain holds) its signatures. Returns the
    seqs signed validly, with the key of each."""
    problem, head = check_chain(game, rows, header, seats)
    rep.games += 1
    rep.events += len(rows)
    rep.heads[game] = head
    if problem is not None:
        rep.problems.append(problem)
        return {}  # a broken chain: what its signatures say adds nothing

    def events() -> list[Event]:
        return [decode(r.payload, r.version, game, r.seq) for r in rows]

    found = check_signatures(rep, game, [r.hash for r in rows], sigs, trust, events)
    rep.signatures += found.checked
    rep.keys.update(found.keys)
    return found.at


def verify_log(events: list[Event], sigs: list[Signed], trust: Trust) -> VerifyReport:
    """Check games read from a log (as ``jaslog dump`` writes them) against signatures (as
    ``jaslog dump --signatures`` writes them): each game's chain is computed from its
    events' canonical bytes, then its signatures are checked as a store's are."""
    from jaslog.store.codec import canonical

    rep = VerifyReport(trust=trust.source)
    by_game: dict[str, list[Event]] = {}
    for e in events:
        by_game.setdefault(e.game, []).append(e)
    sig_of: dict[str, list[Signed]] = {}
    for s in sigs:
        sig_of.setdefault(s.game, []).append(s)
    for game, evs in by_game.items():
        evs.sort(key=lambda e: e.seq)
        rep.games += 1
        rep.events += len(evs)
        if [e.seq for e in evs] != list(range(len(evs))):
            missing = next(i for i, e in enumerate(evs) if e.seq != i)
            rep.problems.append(Problem(game, missing, "removed", f"the log has no event at seq "
                                        f"{missing} (or has it twice)"))
            continue
        prev = bytes.fromhex(GENESIS)
        hashes = []
        for e in evs:
            prev = link(prev, canonical(e))
            hashes.append(prev.hex())
        rep.heads[game] = hashes[-1]
        found = check_signatures(rep, game, hashes,
                                 sorted(sig_of.get(game, []), key=lambda s: s.seq), trust,
                                 lambda evs=evs: evs)  # type: ignore[misc]
        rep.signatures += found.checked
        rep.keys.update(found.keys)
    for game in sig_of.keys() - by_game.keys():
        rep.problems.append(Problem(game, None, "removed", "signatures of a game that is not "
                                    "in the log"))
    return rep


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
