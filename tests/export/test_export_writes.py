"""The export's writes: the error of a write (a full disk) raised in the exporter, nothing
left behind: no staging folder, no traceback for the user."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from jaslog.events import Event
from jaslog.export import export_games
from jaslog.export.schema import SCHEMAS
from jaslog.export.writers import Writers
from tests.conftest import ROOT


def test_a_failed_write_is_raised_in_the_exporter(tmp_path: Path) -> None:
    """A write that fails (here: its folder cannot be made) raises its error in the
    exporter."""
    (tmp_path / "events").write_text("a file where the table's folder goes")
    writers = Writers(tmp_path, 1, row_group_rows=1)
    with pytest.raises(OSError) as raised:  # (one row makes a row group: written at once)
        writers.add("events", "ruleset=x/year=2026",
                    pa.Table.from_pylist([{}], schema=SCHEMAS["events"]))
    assert isinstance(raised.value, FileExistsError | NotADirectoryError)
    writers.abort()


def test_what_runs_while_the_files_close_raises_once_they_are_closed(tmp_path: Path) -> None:
    """:meth:`Writers.close` runs ``meanwhile`` on the calling thread while the files are
    written; its error is raised once every file is written and closed, and the columns
    asked to be kept are kept as the tables were added."""
    writers = Writers(tmp_path, 1, keep={"ratings": ["game", "games"]})
    parts = ["ruleset=a/year=2026", "ruleset=b/year=2026", "ruleset=c/year=2026"]
    for i, part in enumerate(parts):
        writers.add("ratings", part, pa.Table.from_pylist(
            [{"game": f"g-{i}", "kind": "klaverjas", "player": "ann", "at": None, "games": 1,
              "rating": 25.0, "uncertainty": 8.0, "ordinal": 1.0}], schema=SCHEMAS["ratings"]))
    assert [(p, t.to_pylist()) for p, t in writers.kept["ratings"]] == \
        [(p, [{"game": f"g-{i}", "games": 1}]) for i, p in enumerate(parts)]
    ran: list[int] = []

    def meanwhile() -> None:
        ran.append(threading.get_ident())
        raise RuntimeError("the ratings failed")

    with pytest.raises(RuntimeError, match="ratings failed"):
        writers.close(meanwhile=meanwhile)
    assert ran == [threading.get_ident()]
    assert len(writers.done) == 3 and all(f["sha256"] for f in writers.done)
    assert all(pq.ParquetFile(tmp_path / f["path"]).metadata.num_rows == 1
               for f in writers.done)


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
    that fails stops the export with one sentence, no traceback, and
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


def test_an_export_that_fails_leaves_no_staging_folder(tmp_path: Path,
                                               corpus: list[list[Event]]) -> None:
    """The games stop coming with an error after some rows were written: the error is the
    export's, no staging folder is left."""

    def broken() -> Iterator[list[Event]]:
        yield from corpus[:30]
        raise RuntimeError("the store went away")

    out = tmp_path / "ds"
    with pytest.raises(RuntimeError, match="went away"):
        export_games(broken(), out, chunk_games=3, row_group_rows=64)
    assert not list(out.glob(".staging-*")) and not (out / "current").exists()
