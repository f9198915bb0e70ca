"""The Parquet dataset on disk: snapshots, atomic swap, incremental batches, manifest.

Layout of an export folder ``OUT``::

    OUT/current -> snapshots/v000003          (a symlink, swapped atomically)
    OUT/snapshots/v000003/manifest.json       (row counts, SHA-256 per file, cursor)
    OUT/snapshots/v000003/<table>/ruleset=<r>/year=<y>/part-<version>-<n>.parquet
    OUT/.lock                                 (one export at a time)

An export writes into ``OUT/.staging-*``: new files for the new or changed games, and hard
links to every file of the previous snapshot that is still valid (so an incremental export
adds files and never rewrites one). When everything is written and synced, the staging
folder is renamed to ``snapshots/v<N>`` and ``current`` is re-pointed in one rename. An
export that fails midway leaves ``current`` where it was; readers that opened the previous
snapshot keep reading it (the last ``keep`` snapshots are kept).

A game that received events after it was exported is replaced: the files of the batch that
held it are rewritten without it (into the new snapshot; the old files stay untouched in the
old snapshot) and the game is written again whole. All rows of one game always live in the
files of one (export version, partition) group, which is what makes this cheap to find.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import shutil
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from jaslog.analysis.rounds import Solved
from jaslog.events import Event
from jaslog.export.columnar import ValueBeyondColumn, partition_tables
from jaslog.export.par import Known, forget_families
from jaslog.export.plays import columns_for
from jaslog.export.ratings import outcomes, rate, ratings_tables
from jaslog.export.rows import Partition, Rows, build_game
from jaslog.export.schema import (
    DERIVED_TABLES,
    GAME_TABLES,
    LAYOUT,
    SCHEMAS,
    TABLES,
    fingerprint,
)
from jaslog.export.snapshots import MANIFEST, ExportError, load_manifest, table_files
from jaslog.export.writers import FILE_ROWS, ROW_GROUP_ROWS, Writers
from jaslog.store.collector import collector_paused

NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"
#: Tracked objects more alive at the end of a chunk than after the last sweep before the
#: young generation is swept (:func:`build_chunks`): the export's own live objects (a batch
#: read, a chunk's rows) stay well below it, the cycles of a few hundred broken games not.
COLLECT_AFTER = 200_000
DEFAULT_CHUNK = 200           # games whose rows are built (as Python lists) before Arrow takes them
PAR_CHUNK = 20                # ...when every round is solved (par): minutes of work, for a worker
HISTORY_KEEP = 100


@dataclass
class ExportResult:
    """What an export did."""

    path: Path                         # the snapshot now current
    version: int
    changed: bool                      # False: nothing new, no new snapshot was made
    games_added: int = 0
    games_replaced: int = 0
    games_unchanged: int = 0
    files_added: int = 0
    files_linked: int = 0
    rows_added: dict[str, int] = field(default_factory=dict)
    rows_total: dict[str, int] = field(default_factory=dict)
    cursor: int | None = None
    #: a sentence for each stored game that could not be read, and so was not exported
    unreadable: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"path": str(self.path), "version": self.version, "changed": self.changed,
                "games_added": self.games_added, "games_replaced": self.games_replaced,
                "games_unchanged": self.games_unchanged, "files_added": self.files_added,
                "files_linked": self.files_linked, "rows_added": self.rows_added,
                "rows_total": self.rows_total, "cursor": self.cursor,
                **({"unreadable": self.unreadable} if self.unreadable else {})}


# ------------------------------------------------------------------ writing

def partition_path(part: Partition) -> str:
    ruleset, year = part
    return (f"ruleset={ruleset if ruleset is not None else NULL_PARTITION}/"
            f"year={year if year is not None else NULL_PARTITION}")


def _link(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:  # a file system without hard links: copy (the old file stays as it was)
        shutil.copy2(src, dst)


@contextlib.contextmanager
def _lock(out: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    fd = os.open(out / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ExportError(f"{out}: another export is writing this folder; "
                              "try again when it is done") from None
        yield
    finally:
        os.close(fd)


#: What an export folder holds; anything else means the folder is not one.
OURS = ("current", "snapshots", ".lock")


def _check_folder(out: Path) -> None:
    """Refuse to write into a folder that holds other things than an export."""
    if not out.exists():
        return
    if not out.is_dir():
        raise ExportError(f"{out} is a file; give the export a folder")
    if (out / MANIFEST).is_file():
        raise ExportError(f"{out} is a snapshot; export into the folder that holds "
                          "`current` and `snapshots`")
    stray = sorted(p.name for p in out.iterdir()
                   if p.name not in OURS and not p.name.startswith((".staging-", ".current-")))
    if stray:
        raise ExportError(f"{out} is not an export folder (it holds {', '.join(stray[:3])}"
                          f"{'...' if len(stray) > 3 else ''}); export into a new or empty folder")


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def usable_previous(manifest: dict[str, Any] | None, source: str | None,
                    filters: dict[str, Any] | None, par: bool = False) -> bool:
    """Whether a new export may build on this snapshot: same layout, schemas, source, filters,
    and analysis columns computed or not (``par``: a snapshot with par and one without do
    not mix; a manifest that does not say was written without).

    >>> m = {"layout": LAYOUT, "source": "files", "filters": {}, "par": True,
    ...      "tables": {t: {"fingerprint": fingerprint(t)} for t in TABLES}}
    >>> usable_previous(m, "files", {}, par=True), usable_previous(m, "files", {})
    (True, False)
    """
    if manifest is None or manifest.get("layout") != LAYOUT:
        return False
    if any(manifest["tables"].get(t, {}).get("fingerprint") != fingerprint(t) for t in TABLES):
        return False
    return manifest.get("source") == source and (manifest.get("filters") or {}) == (filters or {}) \
        and bool(manifest.get("par", False)) == par


def read_columns(path: Path, columns: list[str]) -> pa.Table:
    """``columns`` of one Parquet file of a snapshot (read as a file: ``pq.read_table`` would
    load Arrow's dataset layer, a twentieth of a second, to read one file)."""
    return pq.ParquetFile(path).read(columns=columns)


def _previous_index(snap: Path, manifest: dict[str, Any]) -> dict[str, int]:
    """game -> last seq of every game in the snapshot (from the ``games`` table)."""
    out: dict[str, int] = {}
    for p in table_files(snap, manifest, "games"):
        t = read_columns(p, ["game", "last_seq"])
        out.update(zip(t.column("game").to_pylist(), t.column("last_seq").to_pylist(), strict=True))
    return out


def _carry_over(snap: Path, manifest: dict[str, Any], replaced: set[str], staging: Path,
                writers: Writers) -> list[dict[str, Any]]:
    """Link the previous snapshot's files into staging; rewrite the groups holding ``replaced``."""
    affected: set[tuple[int, str]] = set()
    gone = pa.array(sorted(replaced), pa.string())
    if replaced:
        for f in manifest["files"]:
            if f["table"] == "games":
                t = read_columns(snap / f["path"], ["game"])
                if pc.any(pc.is_in(t.column("game"), value_set=gone)).as_py():
                    affected.add((f["version"], f["partition"]))
    kept = []
    for f in manifest["files"]:
        if f["table"] in DERIVED_TABLES:  # rebuilt whole from the new snapshot
            continue
        if (f["version"], f["partition"]) in affected:
            pf = pq.ParquetFile(snap / f["path"])
            for i in range(pf.num_row_groups):
                t = pf.read_row_group(i)
                keep = pc.invert(pc.is_in(t.column("game"), value_set=gone))
                writers.add(f["table"], f["partition"],
                              t.filter(keep).cast(SCHEMAS[f["table"]]))
        else:
            _carry(snap / f["path"], staging / f["path"], f)
            kept.append(dict(f))
    return kept


def _carry(src: Path, dst: Path, entry: dict[str, Any]) -> None:
    """Carry a file of the previous snapshot into the new one, after a cheap check that it
    is still the file the manifest describes (its size; ``--verify`` rereads its SHA-256):
    a truncated or missing file is not passed on into every later snapshot."""
    try:
        size = src.stat().st_size
    except FileNotFoundError:
        size = None
    if size != entry["bytes"]:
        what = "is missing" if size is None else f"has {size} bytes"
        raise ExportError(f"{src}: {what}, the manifest says {entry['bytes']}: the previous "
                          "snapshot is damaged; nothing was exported (`--verify` lists the "
                          "damage, `--full` exports everything afresh)")
    _link(src, dst)


def _swap(out: Path, staging: Path, version: int, keep: int) -> Path:
    snaps = out / "snapshots"
    snaps.mkdir(exist_ok=True)
    final = snaps / f"v{version:06d}"
    os.rename(staging, final)
    _fsync_dir(snaps)
    tmp = out / f".current-{uuid.uuid4().hex[:8]}"
    os.symlink(os.path.join("snapshots", final.name), tmp)
    os.replace(tmp, out / "current")
    _fsync_dir(out)
    old = sorted(p for p in snaps.iterdir() if p.is_dir() and p.name.startswith("v")
                 and p != final)
    for p in old[:max(0, len(old) - max(keep - 1, 0))]:
        shutil.rmtree(p, ignore_errors=True)
    return final


@dataclass
class Chunk:
    """The rows of a chunk of games as Arrow tables, in the order they are written, and what
    became of each game read."""

    tables: list[tuple[str, str, pa.Table]] = field(default_factory=list)  # (table, part, rows)
    added: int = 0
    replaced: list[str] = field(default_factory=list)
    unchanged: int = 0
    seen: int = 0
    unreadable: list[str] = field(default_factory=list)  # games that could not be read
    #: the rounds solved for the chunk (``par``), as (game, last seq, solved round), for
    #: the store to keep (:func:`jaslog.export.par.game_par`)
    solved: list[tuple[str, int, Solved]] = field(default_factory=list)


class Prebuilt:
    """A game read as columns (:class:`jaslog.export.stored.StoredExport`): its id, last seq,
    ``build(rows_for)`` (its rows, False when it is not a game built that way) and its
    events (for :func:`~jaslog.export.rows.build_game` then)."""

    __slots__ = ()

    @property
    def game(self) -> str:
        raise NotImplementedError

    @property
    def last(self) -> int:
        raise NotImplementedError

    def build(self, rows_for: Callable[[Partition], Rows]) -> bool:
        raise NotImplementedError

    def events(self) -> list[Event]:
        raise NotImplementedError


def build_chunks(games: Iterable[Sequence[Event] | Prebuilt], index: dict[str, int], chunk_games: int,
                 progress: Callable[[int], None] | None = None, *,
                 par: bool = False,
                 known_pars: Callable[[str], Known | None] | None = None,
                 columnar: bool = True) -> Iterator[Chunk]:
    """Fold and build the rows of ``games``, ``chunk_games`` built games to a chunk (and a last,
    maybe empty, chunk). A game in ``index`` (game -> last seq exported) with the same last seq
    or an earlier one is left out (unchanged: the dataset already holds as many of its events,
    or more); with a later one (more events) it replaces its old rows. ``progress`` is called
    with the number of games read so far, game by game. ``par``: fill the analysis columns
    (:func:`jaslog.export.rows.build_game`); ``known_pars(game)``: the game's rounds solved
    before (the store's), which are not solved again; the others solved are in
    :attr:`Chunk.solved`; ``columnar``: as there.

    The rows of a chunk are millions of small objects: the cyclic garbage collector would walk
    them again and again (half the export's time), so it is paused here. A chunk makes next
    to no reference cycles (none of its rows, folds or tables; an integrity error kept with
    its traceback does), so the young objects are swept at the end of a chunk only once
    :data:`COLLECT_AFTER` more of them are alive than after the last sweep: the cycles of
    many broken games, not a chunk's live objects, each time.
    """
    buffers: dict[Partition, Rows] = {}

    def rows_for(part: Partition) -> Rows:
        b = buffers.get(part)
        if b is None:
            b = buffers[part] = {t: columns_for(t) for t in GAME_TABLES}
        return b

    def take() -> Chunk:
        out = chunk
        for part, rows in buffers.items():
            ppath = partition_path(part)
            try:
                built = partition_tables(rows, rows["events"].columnar)
            except ValueBeyondColumn as e:  # a number beyond a column
                raise ExportError(
                    f"{e.table} ({ppath}): a stored value does not fit the dataset's "
                    f"column ({e.error}); events written before jaslog bounded its numbers "
                    "(roem 0-10000, rulings 0-10000, rounds 1-9999) cannot be exported"
                ) from None
            for table in GAME_TABLES:
                if table in built:
                    out.tables.append((table, ppath, built[table]))
        buffers.clear()
        if gc.get_count()[0] >= COLLECT_AFTER:
            gc.collect(1)  # the garbage cycles of the chunks so far, while the heap is small
        return out

    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        chunk = Chunk()
        seen = 0
        for item in games:
            chunk.seen += 1
            seen += 1
            if progress is not None:
                progress(seen)
            stored = item if isinstance(item, Prebuilt) else None
            events: Sequence[Event] = () if isinstance(item, Prebuilt) else item
            if stored is not None:
                gid, last = stored.game, stored.last
            elif not events:
                continue
            else:
                gid, last = events[0].game, events[-1].seq
            known = index.get(gid)
            if known is not None:
                if last <= known:  # the dataset holds as much of the game or more: kept
                    chunk.unchanged += 1
                    continue
                chunk.replaced.append(gid)
            else:
                chunk.added += 1
            solved: list[Solved] = []
            if stored is not None:
                if not par and columnar and stored.build(rows_for):
                    if chunk.added + len(chunk.replaced) >= chunk_games:
                        yield take()
                        chunk = Chunk()
                    continue
                events = stored.events()
            build_game(events, rows_for, par=par, solved=solved, columnar=columnar,
                       stored_par=known_pars(gid) if par and known_pars is not None else None)
            if solved:
                chunk.solved += [(gid, last, x) for x in solved]
            if chunk.added + len(chunk.replaced) >= chunk_games:
                yield take()
                chunk = Chunk()
        yield take()
    finally:
        if gc_was_on:
            gc.enable()
        if par:  # the solvers kept for deals played again: not past the games built here
            forget_families()


#: The columns of the ``games`` and ``players`` rows the ratings read (:func:`outcomes`).
OUTCOME_COLUMNS: dict[str, list[str]] = {
    "games": ["game", "kind", "finished", "error", "first_at", "last_at"],
    "players": ["game", "player", "seat", "team", "score"],
}


def _write_ratings(staging: Path, version: int, tables: dict[str, pa.Table], *,
                   file_rows: int, row_group_rows: int) -> list[dict[str, Any]]:
    """Write the ``ratings`` table of the snapshot in ``staging``: ``tables``, by
    partition (:func:`ratings_of`)."""
    writers = Writers(staging, version, file_rows=file_rows, row_group_rows=row_group_rows)
    try:
        for part, t in sorted(tables.items()):
            writers.add("ratings", part, t)
        return writers.close()
    except BaseException:
        writers.abort()
        raise


def ratings_of(games: pa.Table, players: pa.Table, parts: dict[str, str]
               ) -> dict[str, pa.Table]:
    """The ``ratings`` rows, by partition, rebuilt from every game's ``games`` and
    ``players`` rows (:func:`outcome_tables`)."""
    return ratings_tables(rate(outcomes(games, players, parts)))


def outcome_tables(snap: Path, files: list[dict[str, Any]], writers: Writers
                   ) -> tuple[pa.Table, pa.Table, dict[str, str]]:
    """The ``games`` and ``players`` rows the ratings need, of the snapshot in ``snap``: of
    its ``files`` carried over, read from them, and of those ``writers`` writes, as they
    were added (:attr:`Writers.kept`); and each game's partition."""
    games, players, parts = read_outcome_tables(snap, files)
    gs, ps = [games], [players]
    for part, t in writers.kept["games"]:
        gs.append(t)
        parts.update(dict.fromkeys(t.column("game").to_pylist(), part))
    ps += (t for _part, t in writers.kept["players"])
    return _same_columns("games", gs), _same_columns("players", ps), parts


def _same_columns(table: str, tables: list[pa.Table]) -> pa.Table:
    """``tables``' rows as one table of ``table``'s :data:`OUTCOME_COLUMNS` (as the schema
    has them: a file read back may say less of its columns than the schema does)."""
    schema = pa.schema([SCHEMAS[table].field(c) for c in OUTCOME_COLUMNS[table]])
    return pa.concat_tables([t.cast(schema) for t in tables])


def read_outcome_tables(snap: Path, files: list[dict[str, Any]]
                        ) -> tuple[pa.Table, pa.Table, dict[str, str]]:
    """The ``games`` and ``players`` rows the ratings need, from the snapshot's files, and
    each game's partition."""
    gcols, pcols = OUTCOME_COLUMNS["games"], OUTCOME_COLUMNS["players"]
    games, players, parts = [], [], {}
    for f in files:
        if f["table"] == "games":
            t = read_columns(snap / f["path"], gcols)
            games.append(t)
            parts.update(dict.fromkeys(t.column("game").to_pylist(), f["partition"]))
        elif f["table"] == "players":
            players.append(read_columns(snap / f["path"], pcols))
    g = pa.concat_tables(games) if games else SCHEMAS["games"].empty_table().select(gcols)
    p = pa.concat_tables(players) if players else SCHEMAS["players"].empty_table().select(pcols)
    return g, p, parts


def export_games(games: Iterable[Sequence[Event] | Prebuilt], out_dir: str | Path, *,
                 cursor: int | None = None,
                 source: str | None = None, filters: dict[str, Any] | None = None,
                 chunk_games: int = DEFAULT_CHUNK, full: bool = False, keep: int = 2,
                 file_rows: int = FILE_ROWS, row_group_rows: int = ROW_GROUP_ROWS,
                 progress: Callable[[int], None] | None = None,
                 par: bool = False) -> ExportResult:
    """Export games (each a list of its events in seq order) into the dataset at ``out_dir``.

    Streaming: the rows of ``chunk_games`` games at a time are built, turned into Arrow and
    held until they make a row group of ``row_group_rows`` rows per table and partition (or
    until the held data pass a fixed byte budget), so memory does not grow with the number
    of games.
    Incremental: a game already in the current snapshot with the same last seq is skipped, a
    game with more events replaces its old rows, a new game is added; files of the previous
    snapshot are carried over by hard links. ``full`` starts a fresh dataset (as does a
    previous snapshot of another ``source``, other ``filters`` or an older layout).
    ``cursor`` is stored in the manifest for the next incremental run (the store's write
    position). ``progress`` is called with the number of games read so far.
    ``par``: fill the analysis columns (``rounds.par``, ``rounds.par_result``,
    ``plays.loss``) by solving every round whose hands are known, which costs far more than
    the rest of the export (:mod:`jaslog.export.par`); the manifest records it, and a snapshot
    written the other way is not built on (everything is exported afresh).
    """
    if chunk_games < 1:
        raise ValueError("chunk_games must be at least 1")
    return export_chunks(lambda index: build_chunks(games, index, chunk_games, progress, par=par),
                         out_dir, cursor=cursor, source=source, filters=filters,
                         chunk_games=chunk_games, full=full, keep=keep, file_rows=file_rows,
                         row_group_rows=row_group_rows, par=par)


def export_chunks(make_chunks: Callable[[dict[str, int]], Iterable[Chunk]], out_dir: str | Path,
                  *, cursor: int | None = None, source: str | None = None,
                  filters: dict[str, Any] | None = None, chunk_games: int = DEFAULT_CHUNK,
                  full: bool = False, keep: int = 2, file_rows: int = FILE_ROWS,
                  row_group_rows: int = ROW_GROUP_ROWS,
                  progress: Callable[[int], None] | None = None,
                  par: bool = False) -> ExportResult:
    """:func:`export_games` from chunks already built: ``make_chunks(index)`` gives them, in
    order, for the games to export (``index``: game -> last seq in the previous snapshot).
    Whoever builds the chunks (this process or workers), the files are written here, in
    chunk order, so the same chunks make the same bytes. ``progress`` is called with the
    number of games read so far, chunk by chunk. ``par``: the chunks hold the analysis
    columns (recorded in the manifest; a snapshot written the other way is not built on)."""
    out = Path(out_dir)
    _check_folder(out)
    out.mkdir(parents=True, exist_ok=True)
    # the collector paused for the whole export, as for an import: the export leaves caches
    # behind (rows met, time texts) that an automatic collection in its last steps would
    # walk whole, for no cycle (build_chunks sweeps what cycles its chunks make)
    with _lock(out), collector_paused():
        loaded = load_manifest(out)
        prev_snap, prev = loaded if loaded is not None else (None, None)
        base = not full and usable_previous(prev, source, filters, par)
        index = _previous_index(prev_snap, prev) if base and prev_snap and prev else {}
        version = (int(prev["version"]) + 1) if prev else 1
        for stale in out.glob(".staging-*"):  # left by an export that died (we hold the lock)
            shutil.rmtree(stale, ignore_errors=True)
        staging = out / f".staging-v{version:06d}-{uuid.uuid4().hex[:8]}"
        staging.mkdir()
        writers = Writers(staging, version, file_rows=file_rows, row_group_rows=row_group_rows,
                          keep=OUTCOME_COLUMNS)
        result = ExportResult(path=staging, version=version, changed=True, cursor=cursor)
        added: dict[str, int] = dict.fromkeys(TABLES, 0)
        chunks = iter(make_chunks(index))
        try:
            replaced: set[str] = set()
            seen = 0
            for chunk in chunks:
                for table, ppath, t in chunk.tables:
                    added[table] += t.num_rows
                    writers.add(table, ppath, t)
                result.games_added += chunk.added
                result.games_replaced += len(chunk.replaced)
                result.games_unchanged += chunk.unchanged
                replaced.update(chunk.replaced)
                result.unreadable += chunk.unreadable
                seen += chunk.seen
                if progress is not None:
                    progress(seen)
            nothing_new = not any(added.values()) and not replaced
            if nothing_new and prev is not None and prev_snap is not None and base \
                    and prev.get("cursor") == cursor:
                writers.abort()
                shutil.rmtree(staging, ignore_errors=True)
                return ExportResult(path=prev_snap, version=int(prev["version"]), changed=False,
                                    games_unchanged=result.games_unchanged, cursor=cursor,
                                    rows_total={t: prev["tables"][t]["rows"] for t in TABLES},
                                    unreadable=result.unreadable)
            kept: list[dict[str, Any]] = []
            if base and prev is not None and prev_snap is not None:
                kept = _carry_over(prev_snap, prev, replaced, staging, writers)
            # the ratings, from every game's rows (those written now kept as they were added),
            # rated on this thread while the files close on theirs
            outcome = outcome_tables(staging, kept, writers)
            rated: dict[str, pa.Table] = {}
            new_files = writers.close(meanwhile=lambda: rated.update(ratings_of(*outcome)))
            derived = _write_ratings(staging, version, rated, file_rows=file_rows,
                                     row_group_rows=row_group_rows)
            added.update({t: sum(f["rows"] for f in derived if f["table"] == t)
                          for t in DERIVED_TABLES})
            new_files += derived
            result.files_added = len(new_files)
            result.files_linked = len(kept)
            files = sorted(kept + new_files, key=lambda f: f["path"])
            result.rows_added = added
            result.rows_total = {t: sum(f["rows"] for f in files if f["table"] == t) for t in TABLES}
            now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            history = list(prev.get("history", [])) if base and prev else []
            history.append({"version": version, "created_at": now, "cursor": cursor,
                            "games_added": result.games_added,
                            "games_replaced": result.games_replaced,
                            "games_unchanged": result.games_unchanged,
                            "files_added": result.files_added, "files_linked": result.files_linked})
            manifest = {
                "layout": LAYOUT,
                "version": version,
                "created_at": now,
                "source": source,
                "filters": filters or {},
                "cursor": cursor,
                "chunk_games": chunk_games,
                "par": par,
                "partitioning": ["ruleset", "year"],
                "tables": {t: {"rows": result.rows_total[t], "fingerprint": fingerprint(t),
                               "files": sum(1 for f in files if f["table"] == t)} for t in TABLES},
                "files": files,
                "history": history[-HISTORY_KEEP:],
            }
            with open(staging / MANIFEST, "w") as fh:
                fh.write(json.dumps(manifest, indent=1) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            result.path = _swap(out, staging, version, keep)
            return result
        except BaseException:  # whatever stops it, Ctrl-C too: no half-written snapshot stays
            writers.abort()
            shutil.rmtree(staging, ignore_errors=True)
            # and the chunks' builders stop now (workers, the files they hand chunks back
            # through), not when the traceback that holds them is dropped
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
            raise
