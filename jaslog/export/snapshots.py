"""A written Parquet dataset read back: its current snapshot, its manifest, its files, and
the check of every file against the manifest (``jaslog export --verify``); the folder's
layout is :mod:`jaslog.export.dataset`'s."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from jaslog.errors import JaslogError

#: The manifest of a snapshot: row counts, SHA-256 of each file, the cursor.
MANIFEST = "manifest.json"


class ExportError(JaslogError):
    """An export that cannot run (locked, unreadable previous snapshot...): a full sentence."""

    code = "export_failed"


def snapshot_dir(out: str | Path) -> Path | None:
    """The current snapshot of an export folder (or ``out`` itself when it is a snapshot)."""
    out = Path(out)
    if (out / MANIFEST).is_file():
        return out
    cur = out / "current"
    if cur.is_symlink() or cur.exists():
        target = cur.resolve()
        if (target / MANIFEST).is_file():
            return target
    return None


def load_manifest(out: str | Path) -> tuple[Path, dict[str, Any]] | None:
    """(snapshot folder, manifest) of the current snapshot, or None when there is none."""
    snap = snapshot_dir(out)
    if snap is None:
        return None
    try:
        return snap, json.loads((snap / MANIFEST).read_text())
    except (OSError, ValueError) as e:
        raise ExportError(f"{snap / MANIFEST}: unreadable manifest ({e})") from None


def table_files(snap: Path, manifest: dict[str, Any], table: str) -> list[Path]:
    return [snap / f["path"] for f in manifest["files"] if f["table"] == table]


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def verify_dataset(out: str | Path) -> list[str]:
    """Recheck a snapshot against its manifest: every file present with its size, SHA-256
    and row count, and no file the manifest does not list. Returns the problems (none: ok).

    A missing folder, or one that holds no export, is not damage: :class:`ExportError`."""
    path = Path(out)
    if not path.exists():
        raise ExportError(f"{out}: no such folder; give the folder an export was written to")
    if not path.is_dir():
        raise ExportError(f"{out} is a file, not an export folder")
    loaded = load_manifest(out)
    cur = path / "current"
    if loaded is None and (cur.is_symlink() or cur.exists()):  # an export was here: damage
        return [f"current: points to {cur.resolve()}, which holds no {MANIFEST}"]
    if loaded is None:
        raise ExportError(f"{out}: no export here (no current snapshot with a manifest.json); "
                          f"write one with `jaslog export {out}`")
    snap, man = loaded
    problems: list[str] = []
    listed = set()
    for f in man["files"]:
        p = snap / f["path"]
        listed.add(p)
        if not p.is_file():
            problems.append(f"{f['path']}: missing")
            continue
        if p.stat().st_size != f["bytes"]:
            problems.append(f"{f['path']}: {p.stat().st_size} bytes, the manifest says {f['bytes']}")
        digest = sha256_file(p)
        if digest != f["sha256"]:
            problems.append(f"{f['path']}: SHA-256 {digest[:16]}..., the manifest says "
                            f"{f['sha256'][:16]}...")
            continue
        rows = pq.ParquetFile(p).metadata.num_rows
        if rows != f["rows"]:
            problems.append(f"{f['path']}: {rows} rows, the manifest says {f['rows']}")
    for p in sorted(snap.rglob("*.parquet")):
        if p not in listed:
            problems.append(f"{p.relative_to(snap)}: not in the manifest")
    for table, info in man["tables"].items():
        n = sum(f["rows"] for f in man["files"] if f["table"] == table)
        if n != info["rows"]:
            problems.append(f"table {table}: files hold {n} rows, the manifest says {info['rows']}")
    return problems
