"""Faults of the machine, made for real: a read-only store file, a full disk, a PostgreSQL
server that restarts.

Root ignores file modes, so a read-only file is a read-only bind mount of the file onto
itself when the tests run as root (as CI does); a full disk is a small tmpfs, which only
root may mount. Where the machine does not allow the mount, the test says so and skips.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.store.conftest import _Server


def _mount(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", *args], capture_output=True, text=True)


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """The SQLite file ``path`` read-only while inside (its folder stays writable, as for a
    file whose mode is 0444): ``chmod`` for a user, a read-only bind mount of the file onto
    itself for root, whom file modes do not stop."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        try:
            yield
        finally:
            path.chmod(0o644)
        return
    bound = _mount("--bind", str(path), str(path))
    if bound.returncode != 0:
        pytest.skip("running as root, whom a read-only file mode does not stop, and this "
                    f"machine refuses the read-only bind mount that replaces it: {bound.stderr}")
    try:
        ro = _mount("-o", "remount,bind,ro", str(path))
        if ro.returncode != 0:
            pytest.skip(f"cannot remount the bind mount read-only: {ro.stderr}")
        yield
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)  # -l: even if busy


@contextlib.contextmanager
def small_disk(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` at ``where`` (root only: skipped otherwise, with the reason)."""
    if os.geteuid() != 0:
        pytest.skip("a full disk is a small tmpfs, and only root may mount one")
    where.mkdir()
    done = _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where))
    if done.returncode != 0:
        pytest.skip(f"this machine refuses to mount a tmpfs (no CAP_SYS_ADMIN?): {done.stderr}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


@contextlib.contextmanager
def restartable_pg() -> Iterator[_Server]:
    """A PostgreSQL server of the test's own, to stop and start again (a server named by
    ``JASLOG_TEST_PG_URL`` is not the tests' to restart: skipped, saying so)."""
    if os.environ.get("JASLOG_TEST_PG_URL"):
        pytest.skip("JASLOG_TEST_PG_URL names a server the tests may not restart")
    pytest.importorskip("psycopg")
    server = _Server()
    try:
        yield server
    finally:
        server.stop()
