"""The export's writer thread (:mod:`jaslog.export.behind`): the Parquet writes done behind
the exporter in the order given, the error of a write (a full disk) raised in the exporter,
nothing left behind: no thread, no staging folder, no traceback for the user."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import orjson
import pyarrow as pa
import pytest

from jaslog.events import Event
from jaslog.export import export_games
from jaslog.export.behind import WriteBehind
from jaslog.export.dataset import _Writers
from jaslog.export.schema import SCHEMAS
from tests.conftest import ROOT


def _writers_alive() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "jaslog-parquet-writer"]


def test_jobs_run_in_order_within_the_bound() -> None:
    """Jobs run one at a time in the order given; the exporter waits while those held would
    pass the bound (a job alone may pass it)."""
    done: list[int] = []
    held: list[int] = []
    behind = WriteBehind(most=10)
    release = threading.Event()

    def held_up() -> None:  # the writer is held up: the next job of 8 must wait for it
        release.wait()

    behind.put(held_up, 8)
    waiter = threading.Thread(target=behind.put, args=(lambda: done.append(1), 8))
    waiter.start()
    waiter.join(0.2)
    assert waiter.is_alive()  # 8 + 8 > 10: the exporter waits
    held.append(behind._held)
    release.set()
    waiter.join()
    for i in range(2, 6):
        behind.put(partial(done.append, i), 1)
    behind.join()
    assert done == [1, 2, 3, 4, 5] and held == [8]
    assert not _writers_alive()


def test_a_failed_write_is_raised_in_the_exporter(tmp_path: Path) -> None:
    """A write that fails (here: its folder cannot be made) raises the same error where
    the exporter waits for the writes; the writes after it are not done."""
    (tmp_path / "events").write_text("a file where the table's folder goes")
    writers = _Writers(tmp_path, 1, row_group_rows=1)
    writers.add("events", "ruleset=x/year=2026", pa.Table.from_pylist([{}],
                                                                       schema=SCHEMAS["events"]))
    with pytest.raises(OSError) as raised:
        writers.close()
    assert isinstance(raised.value, FileExistsError | NotADirectoryError)
    writers.abort()
    assert not _writers_alive()


FULL_DISK = """
import resource, sys
from jaslog.cli import main
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # no file grows past it: EFBIG
sys.argv = ["jaslog", *sys.argv[2:]]
main()
"""


def test_a_full_disk_stops_the_export_without_a_traceback(tmp_path: Path,
                                                          corpus: list[list[Event]]) -> None:
    """Files may not grow past 16 KiB (the disk is full, as the export sees it): the write
    that fails on the writer thread stops the export with one sentence, no traceback, and
    the staging folder thrown away; no snapshot is made."""
    log = tmp_path / "games.jsonl"
    with open(log, "wb") as f:
        for g in corpus[:40]:
            f.writelines(orjson.dumps(e.model_dump(exclude_none=True)) + b"\n" for e in g)
    out = tmp_path / "ds"
    _soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    assert hard == resource.RLIM_INFINITY or hard > 16 << 10
    proc = subprocess.run([sys.executable, "-c", FULL_DISK, str(16 << 10), "export", str(out),
                           "--from", str(log)], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT),
                               "PYTHONDONTWRITEBYTECODE": "1"}, check=False)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert "File too large" in proc.stderr, proc.stderr
    assert not list(out.glob(".staging-*"))
    assert not (out / "current").exists()


def test_an_export_that_fails_leaves_no_writer(tmp_path: Path,
                                               corpus: list[list[Event]]) -> None:
    """The games stop coming with an error after some rows were given to the writer: the
    error is the export's, the writer is stopped and joined, no staging folder is left."""

    def broken() -> Iterator[list[Event]]:
        yield from corpus[:30]
        assert _writers_alive()  # rows of the first chunks are being written behind
        raise RuntimeError("the store went away")

    out = tmp_path / "ds"
    with pytest.raises(RuntimeError, match="went away"):
        export_games(broken(), out, chunk_games=3, row_group_rows=64)
    assert not _writers_alive()
    assert not list(out.glob(".staging-*")) and not (out / "current").exists()
