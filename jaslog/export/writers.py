"""The Parquet files an export writes into its staging folder, by (table, partition): row
groups held back until they are large, files closed after so many rows, each closed file
synced and hashed for the manifest (:mod:`jaslog.export.dataset` decides what goes in).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from jaslog.export.schema import DICTIONARY_COLUMNS, SCHEMAS
from jaslog.export.snapshots import sha256_file

ROW_GROUP_ROWS = 131_072      # rows per Parquet row group (Arrow tables are held until then)
PENDING_BYTES = 64 << 20      # Arrow bytes held back for row groups, in all, before writing early
FILE_ROWS = 4_000_000         # a file is closed and the next begun after this many rows
#: Threads that write the last row groups and close the files at the end of an export.
CLOSE_THREADS = min(os.cpu_count() or 1, 4)


class Writers:
    """The Parquet files of one export, by (table, partition).

    Arrow tables added for a (table, partition) are held until they make a row group of
    ``row_group_rows`` rows (or until the held tables pass ``budget`` bytes in all, when the
    largest is written early), so row groups stay large whatever the chunk size. A file is
    closed and the next begun after ``file_rows`` rows.

    The writes are done here, as they are decided (a writer thread behind the exporter
    gained no time an idle machine could measure, and its allocations, in an arena of its
    own, grew the export's memory with the number of games: the memory bound of
    ``tests/export/test_dataset.py``). Only :meth:`close`, once, writes its files side by side.

    ``keep``: for these tables, the columns named are kept as they are added (by
    partition, :attr:`kept`), for what is built from the whole snapshot when it is written
    (the ratings, from the ``games`` and ``players`` rows) without reading the files back.
    """

    def __init__(self, root: Path, version: int, *, file_rows: int = FILE_ROWS,
                 row_group_rows: int = ROW_GROUP_ROWS, budget: int = PENDING_BYTES,
                 keep: dict[str, list[str]] | None = None) -> None:
        self.root, self.version = root, version
        self.keep = keep or {}
        #: the ``keep`` columns of every table added, by table: (partition, columns)
        self.kept: dict[str, list[tuple[str, pa.Table]]] = {t: [] for t in self.keep}
        self.file_rows, self.row_group_rows, self.budget = file_rows, row_group_rows, budget
        self.open: dict[tuple[str, str], dict[str, Any]] = {}  # each open file's entry
        self.counter: dict[tuple[str, str], int] = {}
        self.pending: dict[tuple[str, str], list[pa.Table]] = {}
        self.pending_rows: dict[tuple[str, str], int] = {}
        #: the Arrow bytes held of each (table, partition) (a table's ``nbytes`` walks its
        #: buffers each time it is asked)
        self.pending_key_bytes: dict[tuple[str, str], int] = {}
        self.pending_bytes = 0
        self.done: list[dict[str, Any]] = []
        self.files: dict[tuple[str, str], pq.ParquetWriter] = {}  # the open files' writers

    def add(self, table: str, part: str, t: pa.Table) -> None:
        if t.num_rows == 0:
            return
        if table in self.keep:
            self.kept[table].append((part, t.select(self.keep[table])))
        key = (table, part)
        self.pending.setdefault(key, []).append(t)
        self.pending_rows[key] = self.pending_rows.get(key, 0) + t.num_rows
        nbytes = t.nbytes
        self.pending_key_bytes[key] = self.pending_key_bytes.get(key, 0) + nbytes
        self.pending_bytes += nbytes
        if self.pending_rows[key] >= self.row_group_rows:
            self._write(key)
        while self.pending_bytes > self.budget and self.pending:
            self._write(max(self.pending, key=self.pending_key_bytes.__getitem__))

    def _write(self, key: tuple[str, str]) -> None:
        tables = self.pending.pop(key)
        rows = self.pending_rows.pop(key)
        self.pending_bytes -= self.pending_key_bytes.pop(key)
        new = key not in self.open
        if new:
            self._begin(key)
        entry = self.open[key]
        entry["rows"] += rows
        last = entry["rows"] >= self.file_rows
        if last:
            self.open.pop(key)
            self.done.append(entry)
        self._write_table(key, entry, tables, new, last)

    def _begin(self, key: tuple[str, str]) -> None:
        """The entry of the next file of ``key``, open."""
        n = self.counter.get(key, 0)
        self.counter[key] = n + 1
        table, part = key
        self.open[key] = {"path": f"{table}/{part}/part-{self.version:06d}-{n:04d}.parquet",
                          "table": table, "partition": part, "version": self.version,
                          "rows": 0}

    def _write_table(self, key: tuple[str, str], entry: dict[str, Any], tables: list[pa.Table],
                     new: bool, last: bool) -> None:
        """Write ``tables`` as one row group of the file of ``key``
        (begun first when ``new``; closed after when ``last``)."""
        t = pa.concat_tables(tables)
        del tables[:]
        if new:
            path = self.root / entry["path"]
            path.parent.mkdir(parents=True, exist_ok=True)
            table = entry["table"]
            self.files[key] = pq.ParquetWriter(path, SCHEMAS[table], compression="zstd",
                                               use_dictionary=DICTIONARY_COLUMNS[table] or False,
                                               write_statistics=True)
        self.files[key].write_table(t, row_group_size=max(t.num_rows, 1))
        if last:
            self._close_file(key, entry)

    def _close_file(self, key: tuple[str, str], entry: dict[str, Any]) -> None:
        """Close the file of ``key``, sync it, and note its size and
        SHA-256 in ``entry``."""
        self.files.pop(key).close()
        path = self.root / entry["path"]
        with open(path, "rb") as f:
            os.fsync(f.fileno())
        entry["bytes"] = path.stat().st_size
        entry["sha256"] = sha256_file(path)

    def close(self, meanwhile: Callable[[], None] | None = None) -> list[dict[str, Any]]:
        """Write what is held back and close every file: the files side by side, on
        :data:`CLOSE_THREADS` threads (Arrow encodes and compresses a row group, and the file
        is synced and hashed, with Python's lock let go). Each file is written by one
        thread, as it would be here: the same bytes. ``meanwhile`` runs on this thread while
        they are written (after them, without threads): its error is raised once they are."""
        jobs: list[tuple[tuple[str, str], dict[str, Any], list[pa.Table], bool]] = []
        for key in [*self.pending, *(k for k in self.open if k not in self.pending)]:
            tables = self.pending.pop(key, [])
            self.pending_bytes -= self.pending_key_bytes.pop(key, 0)
            new = key not in self.open
            if new:
                self._begin(key)
            entry = self.open.pop(key)
            entry["rows"] += self.pending_rows.pop(key, 0)
            self.done.append(entry)
            jobs.append((key, entry, tables, new))

        def finish(job: tuple[tuple[str, str], dict[str, Any], list[pa.Table], bool]) -> None:
            key, entry, tables, new = job
            if tables:
                self._write_table(key, entry, tables, new, True)
            else:
                self._close_file(key, entry)

        if len(jobs) > 1 and CLOSE_THREADS > 1:
            with ThreadPoolExecutor(min(CLOSE_THREADS, len(jobs))) as pool:
                closing = [pool.submit(finish, job) for job in jobs]
                if meanwhile is not None:
                    meanwhile()  # (an error of it raised once every file is done)
            for f in closing:
                f.result()
        else:
            for job in jobs:
                finish(job)
            if meanwhile is not None:
                meanwhile()
        return self.done

    def abort(self) -> None:
        self.pending.clear()
        self.pending_key_bytes.clear()
        for w in self.files.values():
            with contextlib.suppress(pa.ArrowException, OSError):  # the file is thrown away
                w.close()
        self.files.clear()
        self.open.clear()
