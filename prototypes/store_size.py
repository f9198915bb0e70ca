"""``python -m prototypes.store_size``: the SQLite store's bytes per event, and a compact layout's.

It imports a fixed workload (``--games`` simulated Klaverjas games, 500 by default, made as
``benchmarks.bench`` makes its own) into a real store with the real :class:`jaslog.store.Store`,
then copies the store into one SQLite file per design step, each with only the ``events``
table laid out differently (the other tables as the store wrote them), and measures every
file after ``VACUUM``: its size over the events, and per table and index (SQLite's ``dbstat``)
and per column of ``events``. The steps, each on top of the one before unless it says:

1. ``current``: the store as it is (payload, ``prev_hash`` and ``hash`` as 64 hex characters);
2. ``raw digests``: ``prev_hash`` and ``hash`` as 32-byte blobs;
3. ``chain hash only``: no ``prev_hash`` (it is the ``hash`` of the game's row before);
4. ``typed hot columns``: no payload; the event's type as a small code, ``seat``, ``card``
   (0-31), ``at`` and ``recorded_at`` (seconds or milliseconds since 1970) and the ``id`` (16
   bytes) in typed columns, the fields left as a JSON array in field order (NULL when none are
   left): :func:`encode`, and :func:`rebuild` writes the canonical bytes back;
5. ``rowid_pos``, instead of 4's ``WITHOUT ROWID`` table keyed by ``(game, seq)`` with
   ``pos`` a unique index: a rowid table whose rowid is ``pos``, ``(game, seq)`` a unique index;
6. ``game_int``, on top of 4: the events' ``game`` is the game's ``games.pos`` (the primary
   key ``(game, seq)`` on that integer), the game's id text kept once, in ``games``;
7. ``signatures``: the signed heads' ``hash`` and ``signature`` (hex, base64url) as raw bytes
   (32 and 64, or 65 for a signature of message version 2: a version byte first), their
   ``game`` as ``games.pos`` too (the one other table whose size grows with the events: a
   live game signs its head at the end of every round).

``--live`` records the games round by round through :meth:`jaslog.store.Store.append`
(:func:`record_live`) instead of importing them: every event then carries ``recorded_at``
and every round's end a signed head, as in a store the service fills.

Then it proves the compact layouts lose nothing: for every event, the bytes :func:`rebuild`
makes from the compact row equal the payload the real store holds, and the SHA-256 chain
recomputed from them gives the real store's ``prev_hash`` and ``hash`` (and the compact row's
``hash``) — :func:`check`. And it times the rebuild, beside the chain over stored payloads,
for what ``verify`` would pay. Sizes are exact; timings move with the machine's load.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     r = run(2, 1, Path(d), timing_repeat=0)
>>> [s["key"] for s in r["steps"]]
['current', 'raw_digests', 'chain_hash', 'typed', 'rowid_pos', 'game_int', 'signatures']
>>> r["steps"][-1]["bytes_per_event"] < r["steps"][0]["bytes_per_event"]
True
>>> all(c["checked"] == r["events"] and c["mismatches"] == 0 for c in r["checks"])
True
"""

from __future__ import annotations

import argparse
import base64
import calendar
import gc
import hashlib
import io
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import orjson
from rich.console import Console

from benchmarks.bench import _commit, build_workload
from benchmarks.bench_stages import Work
from benchmarks.store_perf import import_into_sqlite
from jaslog.cards import card_text
from jaslog.events import EVENT_MODELS, VERSION
from jaslog.store.types import GENESIS

# ------------------------------------------------------------------ the compact row

#: The event types by code (1, 2, ...; 0: a type no model knows, its row kept verbatim).
KINDS: tuple[str, ...] = tuple(EVENT_MODELS)
CODE: dict[str, int] = {t: i for i, t in enumerate(KINDS, 1)}
#: Each type's fields after ``game``, ``seq`` and ``type``, in the order of its canonical bytes.
FIELDS: tuple[tuple[str, ...], ...] = ((), *(tuple(m.model_fields)[3:]
                                             for m in EVENT_MODELS.values()))
CARD_CODE: dict[str, int] = {card_text(c): c for c in range(32)}
CARD_TEXT: tuple[str, ...] = tuple(card_text(c) for c in range(32))
#: The latest time in whole seconds (9999-12-31T23:59:59Z): a stored time up to it is in
#: seconds, a larger one in milliseconds (every millisecond time after 1978-01-12 is larger).
SECONDS_MAX = 253_402_300_799
#: Added to ``kind`` when the fields with a column whose column is NULL are in ``rest``.
SPILLED = 64
_TIME = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d{3})?Z$")


class Compact(NamedTuple):
    """An event's row in the compact layout, beside its ``game`` and ``seq`` (:func:`encode`).

    ``kind`` is the type's code (:data:`CODE`), plus :data:`SPILLED` when a field with a column
    has a value the column cannot hold exactly. ``rest`` is the fields without a column of
    their own as a JSON array in field order, ``null`` for a field the event leaves out, NULL
    when none is left; with :data:`SPILLED`, the fields with a column whose column is NULL take
    their places in it too. For an event whose bytes the row cannot rebuild, ``rest`` is its
    canonical bytes whole (a JSON object: ``{...``)."""

    kind: int
    event_id: bytes | None
    at: int | None
    recorded_at: int | None
    seat: int | None
    card: int | None
    rest: bytes | None


def time_code(text: Any) -> int | None:
    """A time as an integer that gives its text back exactly, or None: whole seconds
    (``...:55Z``) as seconds since 1970, milliseconds (``...:55.123Z``) as milliseconds.

    >>> time_code("2026-01-05T19:30:55Z"), time_code("2026-01-05T19:30:55.120Z")
    (1767641455, 1767641455120)
    >>> time_code("2026-01-05T20:30:55+01:00") is None
    True
    """
    if not isinstance(text, str):
        return None
    m = _TIME.match(text)
    if m is None:
        return None
    try:
        secs = calendar.timegm(tuple(int(x) for x in m.groups()[:6]))  # type: ignore[arg-type]
    except (ValueError, OverflowError):
        return None
    frac = m.group(7)
    code = secs if frac is None else secs * 1000 + int(frac[1:])
    if secs < 0 or (frac is None and code > SECONDS_MAX) or (frac is not None and
                                                              code <= SECONDS_MAX):
        return None
    return code if time_text(code) == text else None


def time_text(code: int) -> str:
    """The text of a :func:`time_code`.

    >>> time_text(1767641455), time_text(1767641455120)
    ('2026-01-05T19:30:55Z', '2026-01-05T19:30:55.120Z')
    """
    if code <= SECONDS_MAX:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(code))
    secs, ms = divmod(code, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + f".{ms:03d}Z"


def _id_code(v: Any) -> bytes | None:
    try:
        u = uuid.UUID(v)
    except (TypeError, ValueError, AttributeError):
        return None
    return u.bytes if str(u) == v else None


def _card_code(v: Any) -> int | None:
    return CARD_CODE.get(v) if isinstance(v, str) else None


def _seat_code(v: Any) -> int | None:
    return v if type(v) is int else None


#: The fields with a column: (slot in :class:`Compact`, value to column, column to value).
_COLUMNS: dict[str, tuple[int, Callable[[Any], Any], Callable[[Any], Any]]] = {
    "id": (1, _id_code, lambda b: str(uuid.UUID(bytes=b))),
    "at": (2, time_code, time_text),
    "recorded_at": (3, time_code, time_text),
    "seat": (4, _seat_code, int),
    "card": (5, _card_code, CARD_TEXT.__getitem__),
}
#: Per type code, its fields as (name, slot or -1, column to value or None).
_PLAN: tuple[tuple[tuple[str, int, Callable[[Any], Any] | None], ...], ...] = tuple(
    tuple((n, _COLUMNS[n][0], _COLUMNS[n][2]) if n in _COLUMNS else (n, -1, None) for n in f)
    for f in FIELDS)


def rebuild(game: str, seq: int, c: Compact) -> bytes:
    """The canonical bytes of the event whose compact row is ``c`` (in ``game`` at ``seq``).

    >>> p = b'{"game":"g","seq":3,"type":"play","at":"2026-01-05T19:30:55Z","seat":2,"card":"7C"}'
    >>> rebuild("g", 3, encode(p)) == p
    True
    """
    rest = c.rest
    if rest is not None and rest[:1] == b"{":
        return bytes(rest)
    kind = c.kind & (SPILLED - 1)
    spilled = c.kind & SPILLED
    d: dict[str, Any] = {"game": game, "seq": seq, "type": KINDS[kind - 1]}
    left = iter(orjson.loads(rest)) if rest is not None else iter(())
    for name, slot, read in _PLAN[kind]:
        if slot >= 0:
            v = c[slot]
            if v is not None:
                d[name] = read(v)  # type: ignore[misc]
                continue
            if not spilled:
                continue
        v = next(left, None)
        if v is not None:
            d[name] = v
    return orjson.dumps(d)


def encode(payload: bytes, version: int = VERSION) -> Compact:
    """An event's canonical bytes (``payload``, of format ``version``) as a compact row:
    verbatim (``rest`` the bytes whole) when :func:`rebuild` would not give them back
    exactly, or for an older format version.

    >>> c = encode(b'{"game":"g","seq":3,"type":"play","at":"2026-01-05T19:30:55Z","seat":2,"card":"7C"}')
    >>> (KINDS[c.kind - 1], c.at, c.seat, c.card, c.rest)
    ('play', 1767641455, 2, 0, None)
    >>> encode(b'{"game":"g","seq":2,"type":"bid","seat":1,"call":"pass"}').rest
    b'["pass"]'
    """
    try:
        d = orjson.loads(payload)
        kind = CODE.get(str(d.get("type")), 0) if isinstance(d, dict) else 0
    except orjson.JSONDecodeError:
        d, kind = None, 0
    id_col = _id_code(d.get("id")) if isinstance(d, dict) else None
    if id_col is None and isinstance(d, dict) and isinstance(d.get("id"), str):
        try:
            id_col = uuid.UUID(d["id"]).bytes  # the index's key: the id's canonical form
        except ValueError:
            id_col = None
    verbatim = Compact(kind, id_col, None, None, None, None, bytes(payload))
    if kind == 0 or version != VERSION or not isinstance(d, dict):
        return verbatim
    cols: list[Any] = [kind, None, None, None, None, None]
    rest: list[Any] = []
    spill: list[Any] = []  # rest as it is when a column cannot hold its field's value
    for name, slot, _ in _PLAN[kind]:
        v = d.get(name)
        if slot < 0:
            rest.append(v)
            spill.append(v)
            continue
        code = _COLUMNS[name][1](v) if v is not None else None
        if code is not None:
            cols[slot] = code
        else:
            spill.append(v)
            if v is not None:
                cols[0] = kind | SPILLED
    if cols[0] & SPILLED:
        rest = spill
    while rest and rest[-1] is None:
        rest.pop()
    c = Compact._make([*cols, orjson.dumps(rest) if rest else None])
    game, seq = d.get("game"), d.get("seq")
    if not isinstance(game, str) or type(seq) is not int or rebuild(game, seq, c) != payload:
        return verbatim
    return c


# ------------------------------------------------------------------ the layouts

_EVENT_ID_INDEX = ("CREATE UNIQUE INDEX events_event_id ON events (game, event_id) "
                   "WHERE event_id IS NOT NULL")
_TYPED_COLUMNS = ("kind INTEGER NOT NULL, version INTEGER NOT NULL, event_id BLOB, at INTEGER, "
                  "recorded_at INTEGER, seat INTEGER, card INTEGER, rest BLOB, hash BLOB NOT NULL")
_COMPACT_OUT = "kind, version, event_id, at, recorded_at, seat, card, rest, hash"


@dataclass(frozen=True)
class Step:
    """A design step: its ``events`` table (DDL) and how its rows are made from its base step's
    (``fill``: SQL over the base's file attached as ``src``; None: :func:`typed_rows`)."""

    key: str
    label: str
    ddl: tuple[str, ...]
    fill: str | None
    #: the step it is made from (None: the one before it)
    base: str | None = None
    #: the table it lays out anew (the others are its base's)
    table: str = "events"


STEPS: tuple[Step, ...] = (
    Step("current", "current store (hex digests, payload)", (), None),
    Step("raw_digests", "+ raw 32-byte digests",
         ("CREATE TABLE events (game VARCHAR(128) NOT NULL, seq INTEGER NOT NULL, "
          "pos BIGINT NOT NULL UNIQUE, type VARCHAR(32) NOT NULL, version INTEGER NOT NULL, "
          "event_id VARCHAR(36), at VARCHAR(40), payload BLOB NOT NULL, prev_hash BLOB NOT NULL, "
          "hash BLOB NOT NULL, PRIMARY KEY (game, seq)) WITHOUT ROWID", _EVENT_ID_INDEX),
         "INSERT INTO events SELECT game, seq, pos, type, version, event_id, at, payload, "
         "unhex(prev_hash), unhex(hash) FROM src.events ORDER BY game, seq"),
    Step("chain_hash", "+ chain hash only (no prev_hash)",
         ("CREATE TABLE events (game VARCHAR(128) NOT NULL, seq INTEGER NOT NULL, "
          "pos BIGINT NOT NULL UNIQUE, type VARCHAR(32) NOT NULL, version INTEGER NOT NULL, "
          "event_id VARCHAR(36), at VARCHAR(40), payload BLOB NOT NULL, hash BLOB NOT NULL, "
          "PRIMARY KEY (game, seq)) WITHOUT ROWID", _EVENT_ID_INDEX),
         "INSERT INTO events SELECT game, seq, pos, type, version, event_id, at, payload, hash "
         "FROM src.events ORDER BY game, seq"),
    Step("typed", "+ typed hot columns, rest as JSON (no payload)",
         (f"CREATE TABLE events (game VARCHAR(128) NOT NULL, seq INTEGER NOT NULL, "
          f"pos BIGINT NOT NULL UNIQUE, {_TYPED_COLUMNS}, PRIMARY KEY (game, seq)) WITHOUT ROWID",
          _EVENT_ID_INDEX),
         None),
    Step("rowid_pos", "(instead) a rowid table keyed by pos, (game, seq) an index",
         (f"CREATE TABLE events (pos INTEGER PRIMARY KEY, game VARCHAR(128) NOT NULL, "
          f"seq INTEGER NOT NULL, {_TYPED_COLUMNS}, UNIQUE (game, seq))", _EVENT_ID_INDEX),
         f"INSERT INTO events SELECT pos, game, seq, {_COMPACT_OUT} FROM src.events ORDER BY pos",
         base="typed"),
    Step("game_int", "+ game as an integer key (games.pos)",
         (f"CREATE TABLE events (game INTEGER NOT NULL, seq INTEGER NOT NULL, "
          f"pos BIGINT NOT NULL UNIQUE, {_TYPED_COLUMNS}, PRIMARY KEY (game, seq)) WITHOUT ROWID",
          _EVENT_ID_INDEX),
         f"INSERT INTO events SELECT g.pos, e.seq, e.pos, {_COMPACT_OUT.replace(', ', ', e.')} "
         "FROM src.events e JOIN games g ON g.id = e.game ORDER BY g.pos, e.seq", base="typed"),
    Step("signatures", "+ signatures: raw digest and signature, game as an integer",
         ("CREATE TABLE signatures (game INTEGER NOT NULL, seq INTEGER NOT NULL, "
          "key_id VARCHAR(16) NOT NULL, pos BIGINT NOT NULL UNIQUE, hash BLOB NOT NULL, "
          "signature BLOB NOT NULL, signed_at VARCHAR(32) NOT NULL, "
          "PRIMARY KEY (game, seq, key_id))",),
         "INSERT INTO signatures SELECT g.pos, s.seq, s.key_id, s.pos, unhex(s.hash), "
         "unb64(s.signature), s.signed_at FROM src.signatures s JOIN games g ON g.id = s.game "
         "ORDER BY s.pos", base="game_int", table="signatures"),
)
COMPACT_STEPS = ("typed", "rowid_pos", "game_int", "signatures")


#: A stored signature of message version 2 is ``2.<base64url>`` (jaslog.store.signing.V2): its
#: raw bytes are kept behind one version byte (65 bytes; a version 1 signature is 64).
_V2, _V2_BYTE = "2.", b"\x02"


def _unb64(text: str | None) -> bytes | None:
    if text is None:
        return None
    tag = _V2_BYTE if text.startswith(_V2) else b""
    text = text[len(_V2):] if tag else text
    return tag + base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _b64(raw: bytes | None) -> str | None:
    if raw is None:
        return None
    tag = _V2 if len(raw) == 65 and raw[:1] == _V2_BYTE else ""
    return tag + base64.urlsafe_b64encode(raw[1:] if tag else raw).rstrip(b"=").decode()


def _connect(path: Path) -> sqlite3.Connection:
    """A connection with ``unhex`` (hex to bytes: SQLite 3.41 has its own), ``unb64`` and
    ``b64`` (base64url without padding, as the store writes signatures, to bytes and back)."""
    con = sqlite3.connect(str(path), isolation_level=None)
    con.create_function("unhex", 1, lambda h: bytes.fromhex(h) if h is not None else None,
                        deterministic=True)
    con.create_function("unb64", 1, _unb64, deterministic=True)
    con.create_function("b64", 1, _b64, deterministic=True)
    return con


def _vacuum_into(src: Path, dst: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(dst) + suffix).unlink(missing_ok=True)
    con = sqlite3.connect(str(src), isolation_level=None)
    try:
        con.execute("VACUUM INTO ?", (str(dst),))
    finally:
        con.close()


def typed_rows(con: sqlite3.Connection) -> Iterator[tuple[Any, ...]]:
    """The compact rows (``game, seq, pos, kind, version, event_id, at, recorded_at, seat,
    card, rest, hash``) of the events on ``con`` (a store's, or a step's with raw digests), in
    ``(game, seq)`` order."""
    cur = con.execute("SELECT game, seq, pos, version, payload, hash FROM events "
                      "ORDER BY game, seq")
    for game, seq, pos, version, payload, h in cur:
        c = encode(bytes(payload), version)
        yield (game, seq, pos, c.kind, version, c.event_id, c.at, c.recorded_at, c.seat, c.card,
               c.rest, h if isinstance(h, bytes) else bytes.fromhex(h))


def build_steps(store: Path, workdir: Path) -> dict[str, Path]:
    """One SQLite file per :data:`STEPS` entry in ``workdir``, each vacuumed: the store's own
    copy first, then each step made from its base (the step before it unless it names one).
    Returns the files by step key."""
    files: dict[str, Path] = {}
    prev: Path | None = None
    for step in STEPS:
        path = workdir / f"store-{step.key}.sqlite"
        if step.base is not None:
            prev = files[step.base]
        # a step of the events starts from the store's other tables; one of another table,
        # from its base's file (whose events it keeps)
        _vacuum_into(store if step.table == "events" or prev is None else prev, path)
        if prev is not None:
            con = _connect(path)
            try:
                con.execute("BEGIN")
                con.execute(f"DROP TABLE {step.table}")  # its indexes and triggers go with it
                for ddl in step.ddl:
                    con.execute(ddl)
                if step.fill is None:
                    src = sqlite3.connect(str(prev))
                    try:
                        con.executemany("INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                                        typed_rows(src))
                    finally:
                        src.close()
                else:
                    con.execute("ATTACH DATABASE ? AS src", (str(prev),))
                    con.execute(step.fill)
                con.execute("COMMIT")
                if step.fill is not None:
                    con.execute("DETACH DATABASE src")
                con.execute("VACUUM")
            finally:
                con.close()
        files[step.key] = path
        prev = path
    return files


# ------------------------------------------------------------------ measuring a file

_INT_BYTES = ("CASE WHEN {c} IN (0, 1) THEN 0 WHEN {c} BETWEEN -128 AND 127 THEN 1 "
              "WHEN {c} BETWEEN -32768 AND 32767 THEN 2 WHEN {c} BETWEEN -8388608 AND 8388607 "
              "THEN 3 WHEN {c} BETWEEN -2147483648 AND 2147483647 THEN 4 "
              "WHEN {c} BETWEEN -140737488355328 AND 140737488355327 THEN 6 ELSE 8 END")


def _column_bytes(c: str) -> str:
    """SQL for the bytes column ``c``'s value takes in a record (its header byte aside)."""
    return (f"CASE typeof({c}) WHEN 'null' THEN 0 WHEN 'integer' THEN {_INT_BYTES.format(c=c)} "
            f"WHEN 'real' THEN 8 ELSE length(CAST({c} AS BLOB)) END")


def measure_file(path: Path, events: int) -> dict[str, Any]:
    """The size of a store file and of each table and index in it (``dbstat``), and of each
    column of its ``events``, in bytes and bytes per event."""
    con = sqlite3.connect(str(path))
    try:
        page_size = con.execute("PRAGMA page_size").fetchone()[0]
        pages = con.execute("PRAGMA page_count").fetchone()[0]
        owners = {name: (kind, table) for kind, name, table in con.execute(
            "SELECT type, name, tbl_name FROM sqlite_schema WHERE type IN ('table', 'index')")}
        objects = []
        for name, size, payload in con.execute(
                "SELECT name, sum(pgsize), sum(payload) FROM dbstat GROUP BY name "
                "ORDER BY sum(pgsize) DESC"):
            kind, table = owners.get(name, ("table", name))
            cols = [r[2] for r in con.execute(f"PRAGMA index_info('{name}')")] \
                if kind == "index" else []
            objects.append({"name": name, "type": kind, "table": table, "columns": cols,
                            "bytes": size, "record_bytes": payload,
                            "bytes_per_event": size / events})
        info = list(con.execute("PRAGMA table_info(events)"))
        rowid_table = con.execute("SELECT sql FROM sqlite_schema WHERE name = 'events'"
                                  ).fetchone()[0].upper().find("WITHOUT ROWID") < 0
        columns = []
        for _, name, decl, _, _, pk in info:
            if rowid_table and pk == 1 and decl.upper() == "INTEGER":
                columns.append({"name": name, "bytes": 0, "note": "the rowid: in the cell's key"})
                continue
            total = con.execute(f"SELECT sum({_column_bytes(name)}) FROM events").fetchone()[0]
            columns.append({"name": name, "bytes": total or 0})
        for c in columns:
            c["bytes_per_event"] = c["bytes"] / events
    finally:
        con.close()
    size = os.path.getsize(path)
    return {"file_bytes": size, "page_size": page_size, "pages": pages,
            "bytes_per_event": size / events, "objects": objects, "columns": columns}


# ------------------------------------------------------------------ the round trip


def _compact_query(con: sqlite3.Connection) -> str:
    """The compact events of the file on ``con`` with the game's id text, in ``pos`` order."""
    decl = {r[1]: r[2] for r in con.execute("PRAGMA table_info(events)")}["game"]
    game = "g.id" if decl.upper() == "INTEGER" else "e.game"
    join = " JOIN games g ON g.pos = e.game" if game == "g.id" else ""
    return (f"SELECT {game}, e.seq, e.kind, e.event_id, e.at, e.recorded_at, e.seat, e.card, "
            f"e.rest, e.hash FROM events e{join} ORDER BY e.pos")


def check(store: Path, compact: Path) -> dict[str, Any]:
    """Rebuild every event of the compact file and compare it with the real store: the bytes
    with the stored payload, the SHA-256 chain recomputed from them with the stored
    ``prev_hash`` and ``hash`` (and the compact row's ``hash``). Counts and the first few
    mismatches."""
    real = sqlite3.connect(str(store))
    comp = sqlite3.connect(str(compact))
    genesis = bytes.fromhex(GENESIS)
    heads: dict[str, bytes] = {}
    checked = bad_bytes = bad_chain = verbatim = 0
    first: list[str] = []
    try:
        ours = comp.execute(_compact_query(comp))
        theirs = real.execute("SELECT game, seq, payload, prev_hash, hash FROM events "
                              "ORDER BY pos")
        for r, (game, seq, payload, prev_hex, hash_hex) in zip(ours, theirs, strict=True):
            c = Compact._make(r[2:9])
            if c.rest is not None and c.rest[:1] == b"{":
                verbatim += 1
            if (r[0], r[1]) != (game, seq):
                raise AssertionError(f"rows out of step: {r[0]}/{r[1]} against {game}/{seq}")
            built = rebuild(r[0], r[1], c)
            prev = heads.get(game, genesis)
            h = hashlib.sha256(prev + built).digest()
            heads[game] = h
            checked += 1
            if built != bytes(payload):
                bad_bytes += 1
                if len(first) < 5:
                    first.append(f"{game} seq {seq}: rebuilt {built!r} stored {bytes(payload)!r}")
            if prev.hex() != prev_hex or h.hex() != hash_hex or h != r[9]:
                bad_chain += 1
                if len(first) < 5:
                    first.append(f"{game} seq {seq}: the chain does not recompute")
    finally:
        real.close()
        comp.close()
    return {"file": compact.name, "checked": checked, "byte_mismatches": bad_bytes,
            "chain_mismatches": bad_chain, "mismatches": bad_bytes + bad_chain,
            "verbatim_rows": verbatim, "first": first}


def check_signatures(store: Path, compact: Path) -> dict[str, int]:
    """Whether every signed head of the store is in the compact file, its digest and
    signature the same bytes: the signatures compared, and how many differ or are missing."""
    con = _connect(compact)
    try:
        con.execute("ATTACH DATABASE ? AS real", (str(store),))
        checked, bad = con.execute(
            "SELECT count(*), coalesce(sum(t.hash IS NULL OR lower(hex(t.hash)) != s.hash "
            "OR b64(t.signature) != s.signature OR t.pos != s.pos "
            "OR t.signed_at != s.signed_at), 0) FROM real.signatures s "
            "JOIN games g ON g.id = s.game LEFT JOIN signatures t "
            "ON t.game = g.pos AND t.seq = s.seq AND t.key_id = s.key_id").fetchone()
        rows = con.execute("SELECT count(*) FROM signatures").fetchone()[0]
    finally:
        con.close()
    return {"checked": checked, "mismatches": bad + abs(rows - checked)}


def _best(fn: Callable[[], int], repeat: int) -> tuple[int, float]:
    best = float("inf")
    n = 0
    for _ in range(repeat):
        t = time.perf_counter()
        n = fn()
        best = min(best, time.perf_counter() - t)
    return n, best


def time_rebuild(store: Path, compact: Path, repeat: int = 3) -> dict[str, float]:
    """Events per second (best of ``repeat``): rebuilding the canonical bytes of the compact
    rows, rebuilding and chaining them (SHA-256), and the chain alone over the stored payloads
    (what ``verify`` hashes today); in memory (the rows fetched first), then with the fetch
    from the file (cursor in ``pos`` order)."""
    comp = sqlite3.connect(str(compact))
    real = sqlite3.connect(str(store))
    try:
        rows = [(r[0], r[1], Compact._make(r[2:9])) for r in comp.execute(_compact_query(comp))]
        payloads = [(g, bytes(p)) for g, p in real.execute(
            "SELECT game, payload FROM events ORDER BY pos")]
        genesis = bytes.fromhex(GENESIS)
        sha = hashlib.sha256
        gc.collect()
        gc.freeze()  # the rows fetched: out of the collector's sight, as the bench's stages do

        def rebuild_only() -> int:
            for game, seq, c in rows:
                rebuild(game, seq, c)
            return len(rows)

        def rebuild_chain() -> int:
            heads: dict[str, bytes] = {}
            for game, seq, c in rows:
                heads[game] = sha(heads.get(game, genesis) + rebuild(game, seq, c)).digest()
            return len(rows)

        def stored_chain() -> int:
            heads: dict[str, bytes] = {}
            for game, p in payloads:
                heads[game] = sha(heads.get(game, genesis) + p).digest()
            return len(payloads)

        def read_rebuild_chain() -> int:
            heads: dict[str, bytes] = {}
            n = 0
            for r in comp.execute(_compact_query(comp)):
                game = r[0]
                heads[game] = sha(heads.get(game, genesis)
                                  + rebuild(game, r[1], Compact._make(r[2:9]))).digest()
                n += 1
            return n

        def read_stored_chain() -> int:
            heads: dict[str, bytes] = {}
            n = 0
            for game, p in real.execute("SELECT game, payload FROM events ORDER BY pos"):
                heads[game] = sha(heads.get(game, genesis) + p).digest()
                n += 1
            return n

        out = {}
        for key, fn in (("rebuild", rebuild_only), ("rebuild_and_chain", rebuild_chain),
                        ("stored_chain", stored_chain),
                        ("read_rebuild_and_chain", read_rebuild_chain),
                        ("read_stored_chain", read_stored_chain)):
            n, secs = _best(fn, repeat)
            out[key] = n / secs
    finally:
        gc.unfreeze()
        comp.close()
        real.close()
    return out


# ------------------------------------------------------------------ the run


def record_live(lines: list[bytes], path: Path) -> int:
    """Record the games of ``lines`` into a fresh store at ``path`` as a live recorder would:
    one :meth:`jaslog.store.Store.append` per round (a ``dealt`` begins one), the store's clock
    at the round's last ``at``, so each event gets its ``recorded_at`` and each ended round a
    signed head. The events appended."""
    from jaslog.store import open_store
    from jaslog.store.clock import ManualClock, parse_stamp

    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    games: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        e = orjson.loads(line)
        games.setdefault(e["game"], []).append(e)
    clock = ManualClock()
    n = 0
    with open_store(str(path), clock=clock) as store:
        for game, evs in games.items():
            rounds: list[list[dict[str, Any]]] = []
            for e in evs:
                if not rounds or e["type"] == "dealt":
                    rounds.append([])
                rounds[-1].append(e)
            for batch in rounds:
                last_at = next((e["at"] for e in reversed(batch) if e.get("at")), None)
                if last_at is not None:
                    clock.now = parse_stamp(last_at)
                n += store.append(game, batch, expected_seq=batch[0]["seq"]).appended
    return n



def run(games: int, seed: int, workdir: Path, console: Console | None = None,
        timing_repeat: int = 3, live: bool = False) -> dict[str, Any]:
    """The whole measurement in ``workdir``: the workload, the real store (the games imported,
    or with ``live`` recorded round by round: :func:`record_live`), each step's file, its
    sizes, the round trip of every compact layout and the rebuild's rate."""
    console = console or Console(file=io.StringIO())
    work = Work(workdir)
    meta = build_workload(work, games, seed, console)
    lines = work.log.read_bytes().splitlines()
    if live:
        record_live(lines, work.store)
    else:
        summary = import_into_sqlite(lines, work.store)
        if summary.rejected:
            raise RuntimeError(f"the store rejected {len(summary.rejected)} games: "
                               f"{summary.rejected[0]}")
    con = sqlite3.connect(str(work.store))
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        events = con.execute("SELECT count(*) FROM events").fetchone()[0]
    finally:
        con.close()
    files = build_steps(work.store, workdir)
    steps = []
    for step in STEPS:
        m = measure_file(files[step.key], events)
        steps.append({"key": step.key, "label": step.label, "base": step.base, **m})
    current = steps[0]
    con = sqlite3.connect(str(files["current"]))
    try:
        signed = con.execute("SELECT count(*) FROM signatures").fetchone()[0]
    finally:
        con.close()
    signatures = {"rows": signed, "bytes": sum(o["bytes"] for o in current["objects"]
                                               if o["table"] == "signatures")}
    checks = [check(work.store, files[k]) for k in COMPACT_STEPS]
    signature_check = check_signatures(work.store, files["signatures"])
    rates = time_rebuild(work.store, files["game_int"], timing_repeat) \
        if timing_repeat > 0 else {}
    return {"games": games, "seed": seed, "events": events, "live": live,
            "workload": {k: meta.get(k) for k in ("games", "seed", "rulesets", "faults",
                                                  "events", "bytes")},
            "steps": steps, "signatures": signatures, "checks": checks,
            "signature_check": signature_check,
            "rebuild_events_per_s": rates}


def _rate(r: float) -> str:
    return f"{r / 1e6:.2f}M" if r >= 1e6 else f"{r / 1e3:.0f}k"


def _groups(s: dict[str, Any]) -> list[tuple[str, int]]:
    """A step's file in parts: ``events`` and each of its indexes, then each other table with
    its indexes; bytes, largest first."""
    parts: dict[str, int] = {}
    for o in s["objects"]:
        if o["table"] == "events":
            what = "events" if o["type"] == "table" else f"index on events({', '.join(o['columns'])})"
        else:
            what = o["table"] + (" (+ indexes)" if any(x["type"] == "index" and x["table"] ==
                                                      o["table"] for x in s["objects"]) else "")
        parts[what] = parts.get(what, 0) + o["bytes"]
    return sorted(parts.items(), key=lambda kv: -kv[1])


def report(r: dict[str, Any]) -> str:
    """The figures as Markdown tables: the steps, then the current store and the last step
    in parts, the round trips, the rebuild's rate."""
    n = r["events"]
    how = "recorded live, round by round" if r.get("live") else "imported"
    out = [f"{r['games']:,} games, {n:,} events (seed {r['seed']}), {how}; sizes after VACUUM",
           "",
           "| step | file | bytes/event | saved by the step | events table | its indexes "
           "| other tables |", "|---|---|---|---|---|---|---|"]
    by_key = {s["key"]: s for s in r["steps"]}
    prev: dict[str, Any] | None = None
    for s in r["steps"]:
        ev = sum(o["bytes"] for o in s["objects"] if o["type"] == "table"
                 and o["name"] == "events")
        idx = sum(o["bytes"] for o in s["objects"] if o["type"] == "index"
                  and o["table"] == "events")
        other = s["file_bytes"] - ev - idx
        base = by_key[s["base"]] if s.get("base") else prev
        saved = "" if base is None else f"{base['bytes_per_event'] - s['bytes_per_event']:.1f}"
        out.append(f"| {s['label']} | {s['file_bytes'] / 2**20:.1f} MiB | "
                   f"**{s['bytes_per_event']:.1f}** | {saved} | {ev / n:.1f} | {idx / n:.1f} | "
                   f"{other / n:.1f} |")
        prev = s
    for s in (r["steps"][0], r["steps"][-1]):
        out += ["", f"{s['label']}, in parts:", "", "| table or index | bytes/event |",
                "|---|---|"]
        out += [f"| {what} | {size / n:.2f} |" for what, size in _groups(s)]
        ev = next(o for o in s["objects"] if o["name"] == "events")
        data = sum(c["bytes"] for c in s["columns"])
        out += ["", "| events column | bytes/event |", "|---|---|"]
        out += [f"| {c['name']} | {c['bytes_per_event']:.2f} |" for c in s["columns"]]
        out.append(f"| record headers | {(ev['record_bytes'] - data) / n:.2f} |")
        out.append(f"| b-tree cells, pages' free space | "
                   f"{(ev['bytes'] - ev['record_bytes']) / n:.2f} |")
    sig = r.get("signatures")
    if sig and sig["rows"]:
        out += ["", f"signatures: {sig['rows']:,} signed heads, {sig['bytes'] / sig['rows']:.0f} "
                f"bytes each with their indexes ({sig['bytes'] / n:.1f} bytes/event)"]
    out += [""]
    for c in r["checks"]:
        out.append(f"round trip {c['file']}: {c['checked']:,} events checked, "
                   f"{c['byte_mismatches']} byte mismatches, {c['chain_mismatches']} chain "
                   f"mismatches, {c['verbatim_rows']} rows kept verbatim")
        out += [f"  {x}" for x in c["first"]]
    sc = r["signature_check"]
    out.append(f"signed heads in store-signatures.sqlite: {sc['checked']:,} checked, "
               f"{sc['mismatches']} mismatches")
    rates = r["rebuild_events_per_s"]
    if rates:
        out.append(f"rebuild: {_rate(rates['rebuild'])} events/s; rebuild + SHA-256 chain "
                   f"{_rate(rates['rebuild_and_chain'])}/s (the chain over stored payloads "
                   f"{_rate(rates['stored_chain'])}/s); with the fetch from the file: "
                   f"{_rate(rates['read_rebuild_and_chain'])}/s against "
                   f"{_rate(rates['read_stored_chain'])}/s")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m prototypes.store_size",
                                description=__doc__.split("\n\n")[0].strip("`"))
    p.add_argument("--games", type=int, default=500, help="games in the workload (default 500)")
    p.add_argument("--seed", type=int, default=1, help="seed of the workload (default 1)")
    p.add_argument("--json", type=Path, help="write the figures to this JSON file")
    p.add_argument("--work", type=Path, help="keep the workload and the store files in this "
                   "folder (default: a temporary folder, removed)")
    p.add_argument("--live", action="store_true", help="record the games live, one append per "
                   "round (recorded_at on every event, a signed head per round), instead of "
                   "importing them")
    p.add_argument("--repeat", type=int, default=3, help="timing runs of the rebuild, the best "
                   "kept (default 3; 0: no timing)")
    a = p.parse_args(argv)
    if a.games < 1:
        p.error("--games must be at least 1")
    temp = None
    if a.work is None:
        temp = tempfile.mkdtemp(prefix="jaslog-store-size-")
        workdir = Path(temp)
    else:
        workdir = a.work
        workdir.mkdir(parents=True, exist_ok=True)
    try:
        r = run(a.games, a.seed, workdir, Console(stderr=True), a.repeat, a.live)
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
    r["commit"] = _commit()
    r["when"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    print(report(r))
    if a.json:
        a.json.write_text(json.dumps(r, indent=1) + "\n")
    bad = sum(c["mismatches"] for c in r["checks"]) + r["signature_check"]["mismatches"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
