"""Rechecking one game: its hash chain (:func:`check_chain`), its signatures against the keys
trusted (:class:`Trust`, :func:`check_signatures`) and a certificate of its head
(:func:`check_certificate`). :mod:`jaslog.store.verify` runs them over a store,
:mod:`jaslog.store.verify_log` over a dumped log; the module docstring of
:mod:`jaslog.store.verify` says what must hold.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy.engine import Connection

from jaslog.engine.fold import FoldError
from jaslog.events import Event
from jaslog.play.fold import start_fold
from jaslog.store.codec import as_bytes, link, norm_id
from jaslog.store.signing import (
    KeyDir,
    PublicKey,
    due,
    holds,
    marks,
    message_version,
    stored_keys,
)
from jaslog.store.types import GENESIS, Problem, StoreError, VerifyReport, certificate


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
class Signatures:
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
                     trust: Trust, events: Callable[[], list[Event]]) -> Signatures:
    """Check the signatures of one game whose chain holds (``hashes``: the chain's hash at each
    seq); a problem is added to ``rep`` for the first that does not hold, or for a round end
    no signature covers. ``events`` gives the game's events (folded only when events follow
    the last signature)."""
    found = Signatures()
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
              found: Signatures) -> None:
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


def check_certificate(rep: VerifyReport, game: str, hashes: list[str], cert: str,
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
