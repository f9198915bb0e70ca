"""Signed heads: records that prove themselves without paper.

A hash chain shows that nothing was changed *unless* everything after the change was hashed
again, which anyone with the database can do. So every store also has an Ed25519 signing
key, and signs a game's head (its seq and chain hash) whenever a round ends or the referee rules,
whenever the game has ended, and for every game an import stores. The signatures are stored append-only
(table ``signatures``) and :mod:`jaslog.store.verify` checks them: rewriting a signed game
now needs the private key.

What is signed (message version 2, :func:`head_message_v2`) is the UTF-8 text
``jaslog head/2 {game} {seq} {hash} event {event_pos} signature {pos}``: the hash covers every
event up to ``seq``, so one signature vouches for all of them; ``event_pos`` is the store-wide
position of the event at ``seq`` and ``pos`` the signature's own store-wide position. With the
positions pinned (verify checks that they run 1..n without a hole), rows cannot be removed
from the middle of the store, neither events nor signatures: a hole shows, and positions
renumbered to close it break every signature made after it. A stored signature of version 2
is written ``2.<base64url>`` (:data:`V2`). Signatures made before (version 1, the text
``jaslog head {game} {seq} {hash}``, :func:`head_message`) keep verifying as they were made;
they pin no position. What no signature can show is the store cut back at its end, after its
newest signature: that needs an anchor kept outside (docs/recording-and-store.md, "What
verify proves").

**Where the private key lives** (:func:`key_dir`): the directory ``$JASLOG_KEYS`` when it is
set (for any store); else, for an SQLite store, ``<file>.keys`` beside the file
(``club.sqlite.keys/``); else (PostgreSQL) ``keys/<host>-<port>-<database>`` in the user data
folder. Several machines writing to one PostgreSQL database should share one directory
through ``$JASLOG_KEYS``. The directory is made with mode 0700, the private key with mode
0600, and a private key that others may read is refused. An in-memory SQLite store has a
key for as long as it lives.

In that directory: ``<id>.key``, the private key now in use (PKCS#8 PEM), and ``<id>.pub``
for every key, current or retired: its public half and dates (JSON). A key's id is the
first 16 hex digits of the SHA-256 of its raw public key. ``jaslog key rotate`` makes a new
key and deletes the old private key; its ``.pub`` stays, so its signatures stay valid.

The directory is what ``verify`` trusts; the table ``signing_keys`` holds a copy of every
public half in the database (served at ``/api/keys``), which a copy of the store elsewhere
can be checked against, or better against the club's published key
(``jaslog verify --key``).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import secrets
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from sqlalchemy import and_, bindparam, func, inspect, select, tuple_
from sqlalchemy.engine import Connection

from jaslog.engine.fold import GameFold
from jaslog.store import engine as eng
from jaslog.store.codec import now_text
from jaslog.store.queries import Queries
from jaslog.store.schema import EVENTS, SIGNATURES, SIGNING_KEYS
from jaslog.store.types import StoreError, certificate

ALGORITHM = "ed25519"
#: The environment variable naming the directory of a store's signing keys.
KEYS_ENV = "JASLOG_KEYS"
PREFIX = "ed25519:"


def head_message(game: str, seq: int, hash_: str) -> bytes:
    """What a signature signs: a game's head as text.

    >>> head_message("club-1", 120, "ab" * 32)[:24]
    b'jaslog head club-1 120 a'
    """
    return f"jaslog head {game} {seq} {hash_}".encode()


#: The prefix of a stored signature of message version 2 (:func:`head_message_v2`).
V2 = "2."


def head_message_v2(game: str, seq: int, hash_: str, event_pos: int, pos: int) -> bytes:
    """What a signature of message version 2 signs: a game's head, the store-wide position of
    its event (``event_pos``) and the signature's own position (``pos``).

    >>> head_message_v2("club-1", 120, "ab" * 32, 4410, 77)[-26:]
    b'ab event 4410 signature 77'
    """
    return f"jaslog head/2 {game} {seq} {hash_} event {event_pos} signature {pos}".encode()


def message_version(signature: str) -> int:
    """The message version of a stored signature: 2 (``2.<base64url>``), else 1."""
    return 2 if signature.startswith(V2) else 1


def signed_message(s: Any) -> tuple[bytes, str]:
    """What the stored signature ``s`` signs and its bare signature (base64url): ``s`` has
    ``game``, ``seq``, ``hash``, ``signature`` and, for version 2, ``pos`` and ``event_pos``
    (the stored position of the event at ``seq``; None when that event is gone)."""
    if s.signature.startswith(V2):
        return (head_message_v2(s.game, s.seq, s.hash, -1 if s.event_pos is None else s.event_pos,
                                s.pos), s.signature[len(V2):])
    return head_message(s.game, s.seq, s.hash), s.signature


def holds(key: PublicKey, s: Any) -> bool:
    """Whether the stored signature ``s`` (see :func:`signed_message`) is ``key``'s."""
    message, bare = signed_message(s)
    return key.verify(bare, message)


def anchor_of(pos: int, signature: str) -> str:
    """The anchor of the store's signature at ``pos``: ``POS:CERTIFICATE``, the certificate
    of the SHA-256 of the stored signature (which signs its own position). Kept outside the
    store, it shows a store cut back at its end (no signature at ``pos`` any more), and one
    cut back and written again (another signature at ``pos``).

    >>> anchor_of(812, "2.abc")
    '812:76ab-cf85-7939-2316'
    """
    return f"{pos}:{certificate(hashlib.sha256(signature.encode()).hexdigest())}"


def parse_anchor(text: str) -> tuple[int, str]:
    """An anchor as ``verify`` prints it (``812:76ab-cf85-7939-2316``): the position and the
    certificate (16 hex digits); ValueError otherwise."""
    m = re.fullmatch(r"\s*(\d+)\s*:\s*([0-9a-fA-F-]+)\s*", text)
    digits = m.group(2).replace("-", "").lower() if m else ""
    if m is None or len(digits) != 16 or int(m.group(1)) < 1:
        raise ValueError(f"{text!r} is not an anchor: give it as `jaslog verify` prints it, "
                         "the position of a signature and its certificate "
                         "(812:76ab-cf85-7939-2316)")
    return int(m.group(1)), certificate(digits)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# ---------------------------------------------------------------------- keys


@dataclass(frozen=True, slots=True)
class PublicKey:
    """The public half of a signing key: checks signatures."""

    raw: bytes
    created_at: str | None = None
    retired_at: str | None = None

    @property
    def id(self) -> str:
        """The key's id: the first 16 hex digits of the SHA-256 of the raw key."""
        return hashlib.sha256(self.raw).hexdigest()[:16]

    @property
    def text(self) -> str:
        """The key as ``jaslog key`` prints it and ``--key`` takes it: ``ed25519:<base64url>``."""
        return PREFIX + _b64(self.raw)

    def verify(self, signature: str, message: bytes) -> bool:
        """Whether ``signature`` (base64url) is this key's signature of ``message``."""
        try:
            sig = _unb64(signature)
            Ed25519PublicKey.from_public_bytes(self.raw).verify(sig, message)
        except (InvalidSignature, ValueError, TypeError):
            return False
        return True

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "algorithm": ALGORITHM, "public_key": self.text,
                "created_at": self.created_at, "retired_at": self.retired_at}

    @classmethod
    def parse(cls, text: str) -> PublicKey:
        """A public key from ``ed25519:<base64url>`` (as ``jaslog key`` prints it), 64 hex
        digits, a PEM public key, or a file holding one of these; ValueError otherwise.

        >>> k = PublicKey(bytes(range(32)))
        >>> PublicKey.parse(k.text) == k, PublicKey.parse(bytes(range(32)).hex()) == k
        (True, True)
        """
        t = text.strip()
        if not t.startswith(PREFIX) and "BEGIN" not in t and not re.fullmatch(r"[0-9a-fA-F]{64}", t):
            path = Path(t).expanduser()
            try:
                if path.is_file():
                    t = path.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError) as e:
                raise ValueError(f"{text}: cannot be read ({e})") from None
            with contextlib.suppress(ValueError):  # a .pub file of a key directory
                t = str(json.loads(t)["public_key"])
        if t.startswith(PREFIX):
            try:
                raw = _unb64(t[len(PREFIX):].strip())
            except (ValueError, TypeError):
                raw = b""
        elif re.fullmatch(r"[0-9a-fA-F]{64}", t):
            raw = bytes.fromhex(t)
        elif "BEGIN PUBLIC KEY" in t:
            try:
                key = serialization.load_pem_public_key(t.encode())
            except ValueError:
                key = None
            if not isinstance(key, Ed25519PublicKey):
                raise ValueError(f"{text[:60]!r}: not an Ed25519 public key")
            raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        else:
            raise ValueError(f"{text[:60]!r} is not a public key: give it as `jaslog key` prints "
                             "it (ed25519:...), as 64 hex digits, or a file holding it")
        if len(raw) != 32:
            raise ValueError(f"{text[:60]!r} is not an Ed25519 public key (32 bytes)")
        return cls(raw)


class Signer:
    """A private key in use: signs heads. ``path`` is its file (None: in memory only)."""

    def __init__(self, private: Ed25519PrivateKey, path: Path | None,
                 created_at: str | None = None) -> None:
        self._private = private
        self.path = path
        raw = private.public_key().public_bytes(serialization.Encoding.Raw,
                                                serialization.PublicFormat.Raw)
        self.public = PublicKey(raw, created_at)

    @property
    def id(self) -> str:
        return self.public.id

    def sign(self, message: bytes) -> str:
        """The signature (base64url) of ``message``."""
        return _b64(self._private.sign(message))

    def sign_head(self, game: str, seq: int, hash_: str, event_pos: int, pos: int) -> str:
        """The stored signature of a game's head (message version 2: ``2.<base64url>``)."""
        return V2 + self.sign(head_message_v2(game, seq, hash_, event_pos, pos))

    def usable(self) -> bool:
        """Whether the key is still the one in use (its file was not rotated away)."""
        return self.path is None or self.path.exists()


def key_dir(url: str) -> Path | None:
    """Where the store at ``url`` keeps its keys (see the module's text); None for an
    in-memory SQLite store.

    >>> os.environ.get(KEYS_ENV) or key_dir("sqlite:////srv/club.sqlite")
    PosixPath('/srv/club.sqlite.keys')
    """
    env = os.environ.get(KEYS_ENV)
    if env:
        return Path(env).expanduser()
    if url.startswith("sqlite"):
        path = url.split(":///", 1)[1] if ":///" in url else ""
        if not path or path == ":memory:":
            return None
        return Path(path + ".keys")
    from platformdirs import user_data_dir
    from sqlalchemy.engine import make_url

    u = make_url(url)
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{u.host or 'local'}-{u.port or 5432}-{u.database}")
    return Path(user_data_dir("jaslog")) / "keys" / name


class KeyDir:
    """The key directory of a store (``path`` None: keys in memory only)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._memory: Signer | None = None
        self._retired_memory: list[PublicKey] = []

    def __repr__(self) -> str:
        return f"KeyDir({str(self.path) if self.path else 'memory'!r})"

    # reading

    def _pubs(self) -> dict[str, PublicKey]:
        out: dict[str, PublicKey] = {}
        if self.path is None or not self.path.is_dir():
            return out
        for f in sorted(self.path.glob("*.pub")):
            try:
                d = json.loads(f.read_text(encoding="utf-8"))
                key = PublicKey.parse(str(d["public_key"]))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # not one of ours: what it vouches for is not trusted
            out[key.id] = PublicKey(key.raw, d.get("created_at"), d.get("retired_at"))
        return out

    def current(self) -> Signer | None:
        """The key in use, or None (no key yet)."""
        if self.path is None:
            return self._memory
        if not self.path.is_dir():
            return None
        found = sorted(self.path.glob("*.key"))
        if not found:
            return None
        pubs = self._pubs()
        signers = [self._load(f, pubs) for f in found]
        return max(signers, key=lambda s: s.public.created_at or "")

    def _load(self, f: Path, pubs: dict[str, PublicKey]) -> Signer:
        if os.name == "posix":
            mode = f.stat().st_mode
            if mode & (stat.S_IRWXG | stat.S_IRWXO):
                raise StoreError(f"{f}: the store's private signing key may be read by others "
                                 f"(mode {stat.S_IMODE(mode):o}): make it private first "
                                 f"(chmod 600 {f})")
        try:
            private = serialization.load_pem_private_key(f.read_bytes(), password=None)
        except (OSError, ValueError) as e:
            raise StoreError(f"{f}: not a signing key that can be read ({e})") from None
        if not isinstance(private, Ed25519PrivateKey):
            raise StoreError(f"{f}: not an Ed25519 private key")
        s = Signer(private, f)
        known = pubs.get(s.id)
        if known is not None:
            s.public = known
        return s

    def trusted(self) -> dict[str, PublicKey]:
        """Every key of the directory (current and retired) by id: what ``verify`` trusts."""
        if self.path is None:
            out = {k.id: k for k in self._retired_memory}
            if self._memory is not None:
                out[self._memory.id] = self._memory.public
            return out
        out = self._pubs()
        if self.path.is_dir():
            for f in self.path.glob("*.key"):
                with contextlib.suppress(StoreError):
                    s = self._load(f, out)
                    out.setdefault(s.id, s.public)
        return out

    # writing

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        assert self.path is not None
        try:
            self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot make the store's key directory {self.path}: "
                             f"{e.strerror or e} (set ${KEYS_ENV} to a directory it may write)") from None
        fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX)
            except ImportError:  # pragma: no cover - not POSIX: the database's lock serializes
                pass
            yield
        finally:
            os.close(fd)

    def _write(self, name: str, data: bytes, mode: int) -> Path:
        assert self.path is not None
        tmp = self.path / f".{name}.{secrets.token_hex(4)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        final = self.path / name
        os.replace(tmp, final)
        return final

    def _new(self) -> Signer:
        private = Ed25519PrivateKey.generate()
        at = now_text()
        if self.path is None:
            s = Signer(private, None, at)
            self._memory = s
            return s
        pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
        s = Signer(private, None, at)
        self._write(f"{s.id}.pub", _pub_json(s.public), 0o644)
        s.path = self._write(f"{s.id}.key", pem, 0o600)
        return s

    def create(self) -> Signer:
        """The key in use, made now when there is none yet."""
        if self.path is None:
            return self._memory or self._new()
        with self._locked():
            return self.current() or self._new()

    def rotate(self) -> tuple[Signer, list[PublicKey]]:
        """A new key in use; the private halves of the older keys are deleted (their public
        halves stay, and with them the signatures they made). Returns the new key and the
        keys retired now."""
        if self.path is None:
            old = self._memory
            new = self._new()
            if old is not None:
                self._retired_memory.append(PublicKey(old.public.raw, old.public.created_at,
                                                      new.public.created_at))
            return new, self._retired_memory[-1:] if old is not None else []
        with self._locked():
            olds = [self._load(f, self._pubs()) for f in sorted(self.path.glob("*.key"))]
            new = self._new()
            retired: list[PublicKey] = []
            for o in olds:
                pub = PublicKey(o.public.raw, o.public.created_at, new.public.created_at)
                self._write(f"{o.id}.pub", _pub_json(pub), 0o644)
                assert o.path is not None
                o.path.unlink()
                retired.append(pub)
            return new, retired


def _pub_json(key: PublicKey) -> bytes:
    return json.dumps(key.to_json(), indent=2).encode() + b"\n"


# ---------------------------------------------------------------------- when to sign


#: Where a game stands for signing: rounds closed, whether the game is over, rulings made.
Marks = tuple[int, bool, int]


def marks(fold: GameFold) -> Marks:
    """How many rounds of ``fold`` are closed, whether the game is over, and how many rulings
    the referee made (on any round)."""
    state = fold.state
    rounds = state.rounds
    closed = len(rounds) - (1 if rounds and not rounds[-1].closed else 0)
    return closed, bool(state.finished), sum(len(r.rulings) for r in rounds)


def due(before: Marks, after: Marks) -> bool:
    """Whether a head must be signed: a round ended since ``before``, or a ruling was made, or
    the game is over.

    >>> due((2, False, 0), (3, False, 0)), due((3, False, 0), (3, False, 0))
    (True, False)
    >>> due((3, False, 0), (3, False, 1)), due((9, True, 0), (9, True, 0))
    (True, True)
    """
    return after[0] > before[0] or after[1] or after[2] > before[2]


# ---------------------------------------------------------------------- the tables


def has_tables(conn: Connection) -> bool:
    """Whether the store has the tables of signatures (a store of schema version 1 opened to
    read only has not)."""
    return bool(inspect(conn).has_table("signatures"))


def stored_keys(conn: Connection) -> dict[str, PublicKey]:
    """The public keys recorded in the store, by id."""
    if not has_tables(conn):
        return {}
    out: dict[str, PublicKey] = {}
    for r in conn.execute(select(SIGNING_KEYS).order_by(SIGNING_KEYS.c.created_at)):
        with contextlib.suppress(ValueError):
            k = PublicKey.parse(r.public_key)
            out[r.id] = PublicKey(k.raw, r.created_at)
    return out


def record_key(conn: Connection, key: PublicKey) -> None:
    """Record a public key in the store (once)."""
    with eng.raw_cursor(conn) as cur:
        ph = eng.param_mark(conn.dialect.name)
        cur.execute(f"SELECT 1 FROM signing_keys WHERE id = {ph}", (key.id,))
        if cur.fetchone() is None:
            cur.execute("INSERT INTO signing_keys (id, algorithm, public_key, created_at) "
                        f"VALUES ({ph}, {ph}, {ph}, {ph})",
                        (key.id, ALGORITHM, key.text, key.created_at or now_text()))


#: A head to sign: game, seq, hash, and the store-wide position of the event at seq.
HeadToSign = tuple[str, int, str, int]


def insert_signatures(conn: Connection, signer: Signer, heads: Sequence[HeadToSign],
                      at: str) -> int:
    """Sign ``heads`` (game, seq, hash, event position) and store the signatures, in the
    caller's write transaction (which holds the writers' lock: positions follow one another);
    a head this key signed already is left as it is. Returns how many."""
    if not heads:
        return 0
    record_key(conn, signer.public)
    with eng.raw_cursor(conn) as cur:
        ph = eng.param_mark(conn.dialect.name)
        have: set[tuple[str, int]] | None = None
        if len(heads) == 1:  # an append's: is this head signed by this key already?
            game, seq = heads[0][0], heads[0][1]
            cur.execute(f"SELECT game, seq FROM signatures WHERE game = {ph} AND seq = {ph} "
                        f"AND key_id = {ph}", (game, seq, signer.id))
            have = {(str(r[0]), int(r[1])) for r in cur.fetchall()}
        elif len(heads) <= 500:  # (a larger batch is an import's: heads new to the store)
            games = sorted({h[0] for h in heads})
            cur.execute(f"SELECT game, seq FROM signatures WHERE key_id = {ph} AND game IN "
                        f"({', '.join([ph] * len(games))})", (signer.id, *games))
            have = {(str(r[0]), int(r[1])) for r in cur.fetchall()}
        cur.execute("SELECT coalesce(max(pos), 0) FROM signatures")
        row = cur.fetchone()
        pos = int(row[0]) if row is not None else 0
        rows = []
        for game, seq, hash_, event_pos in heads:
            if have is not None and (game, seq) in have:
                continue
            pos += 1
            rows.append((game, seq, signer.id, pos, hash_,
                         signer.sign_head(game, seq, hash_, event_pos, pos), at))
        if rows:
            cur.executemany("INSERT INTO signatures (game, seq, key_id, pos, hash, signature, "
                            f"signed_at) VALUES ({', '.join([ph] * 7)})", rows)
    return len(rows)


def with_event_pos(q: Any) -> Any:
    """A select from ``signatures`` with the stored position of each signed head's event
    added (``event_pos``, None when that event is gone): what a signature of message version
    2 signs besides the head."""
    from jaslog.store.schema import GAMES

    return q.add_columns(EVENTS.c.pos.label("event_pos")).join_from(
        SIGNATURES, GAMES, GAMES.c.id == SIGNATURES.c.game, isouter=True).join(
        EVENTS, and_(EVENTS.c.game == GAMES.c.pos, EVENTS.c.seq == SIGNATURES.c.seq),
        isouter=True)


def signatures_of(conn: Connection, games: Sequence[str]) -> dict[str, list[Any]]:
    """The stored signatures of ``games``, by game, each list in seq order (with the
    ``event_pos`` of :func:`with_event_pos`)."""
    out: dict[str, list[Any]] = {g: [] for g in games}
    if not games or not has_tables(conn):
        return out
    for i in range(0, len(games), 500):
        q = (with_event_pos(select(SIGNATURES))
             .where(SIGNATURES.c.game.in_(bindparam("g", expanding=True)))
             .order_by(SIGNATURES.c.game, SIGNATURES.c.seq, SIGNATURES.c.pos))
        for r in conn.execute(q, {"g": list(games[i:i + 500])}):
            out[r.game].append(r)
    return out


def signature_json(row: Any) -> dict[str, Any]:
    """A stored signature as the API, ``show --json`` and ``dump --signatures`` give it:
    ``signature`` is the bare signature (base64url) of the UTF-8 text ``signed``; a signature
    of message version 2 also gives the positions it pins (``pos``, ``event_pos``)."""
    message, bare = signed_message(row)
    out = {"game": row.game, "seq": row.seq, "hash": row.hash, "key": row.key_id,
           "algorithm": ALGORITHM, "signature": bare, "signed_at": row.signed_at,
           "version": message_version(row.signature), "signed": message.decode()}
    if out["version"] == 2:
        out |= {"pos": row.pos, "event_pos": row.event_pos}
    return out


# ---------------------------------------------------------------------- the store's part


class Signing(Queries):
    """What a store does with its key: sign heads, show its keys, rotate them (a mixin of
    :class:`jaslog.store.Store`)."""

    url: str
    _key_dir: KeyDir | None = None
    _signer: Signer | None = None

    @property
    def keys(self) -> KeyDir:
        """The store's key directory (see :func:`key_dir`)."""
        if self._key_dir is None:
            self._key_dir = KeyDir(key_dir(self.url))
        return self._key_dir

    def _signer_now(self) -> Signer:
        s = self._signer
        if s is None or not s.usable():
            s = self._signer = self.keys.create()
        return s

    def _sign_heads(self, conn: Connection, heads: Sequence[HeadToSign],
                    at: str | None = None) -> int:
        """Sign ``heads`` in the caller's write transaction (the key is made on first use)."""
        if not heads:
            return 0
        return insert_signatures(conn, self._signer_now(), heads, at or now_text())

    def current_key(self) -> PublicKey | None:
        """The public half of the key the store signs with, None when it has none yet."""
        cur = self.keys.current()
        return cur.public if cur is not None else None

    def signing_key(self) -> PublicKey:
        """The public half of the key the store signs with (made now when there is none yet,
        and recorded in the store)."""
        s = self._signer_now()
        with eng.write_tx(self.engine) as conn:
            record_key(conn, s.public)
        return s.public

    def public_keys(self) -> list[PublicKey]:
        """Every key the store trusts (its key directory's), the one in use first."""
        cur = self.keys.current()
        keys = sorted(self.keys.trusted().values(), key=lambda k: k.created_at or "", reverse=True)
        if cur is not None:
            keys.sort(key=lambda k: k.id != cur.id)
        return keys

    def rotate_key(self) -> tuple[PublicKey, list[PublicKey]]:
        """A new signing key (recorded in the store); the keys it replaces, whose signatures
        stay valid."""
        new, retired = self.keys.rotate()
        self._signer = new
        with eng.write_tx(self.engine) as conn:
            record_key(conn, new.public)
        return new.public, retired

    def signatures(self, game: str) -> list[dict[str, Any]]:
        """The game's stored signatures, in seq order."""
        with eng.read_tx(self.engine) as conn:
            return [signature_json(r) for r in signatures_of(conn, [game])[game]]

    def signature(self, game: str, seq: int | None = None) -> dict[str, Any] | None:
        """The newest signature of ``game`` at seq ``seq`` (None: at any seq, the latest)."""
        sigs = [s for s in self.signatures(game) if seq is None or s["seq"] == seq]
        return sigs[-1] if sigs else None

    def sign_unsigned(self) -> int:
        """Sign the head of every game whose head is not signed yet (games stored before the
        store had a key); returns how many were signed. Whoever runs it vouches for the
        store as it is now."""
        from jaslog.store.schema import GAMES

        done = 0
        last = ""
        while True:
            with eng.write_tx(self.engine) as conn:
                ids = list(conn.execute(select(GAMES.c.id).where(GAMES.c.id > last)
                                        .order_by(GAMES.c.id).limit(500)).scalars())
                if not ids:
                    return done
                last = ids[-1]
                heads = self._heads(conn, ids)
                signed = {(r.game, r.seq) for r in conn.execute(
                    select(SIGNATURES.c.game, func.max(SIGNATURES.c.seq).label("seq"))
                    .where(SIGNATURES.c.game.in_(bindparam("g", expanding=True)))
                    .group_by(SIGNATURES.c.game), {"g": ids})}
                todo = [(g, h.seq, h.hash) for g, h in heads.items() if (g, h.seq) not in signed]
                at_pos = {(r.id, r.seq): r.pos for r in conn.execute(
                    select(GAMES.c.id, EVENTS.c.seq, EVENTS.c.pos)
                    .join_from(EVENTS, GAMES, GAMES.c.pos == EVENTS.c.game)
                    .where(tuple_(GAMES.c.id, EVENTS.c.seq).in_(
                        [(g, q) for g, q, _ in todo])))} if todo else {}
                done += self._sign_heads(conn, [(g, q, h, at_pos[(g, q)]) for g, q, h in todo])
