"""The schema files in ``schemas/``: the event format's JSON Schemas and the export's Arrow
schemas, generated from the code.

``python -m jaslog.schemas`` (``make schemas``) rewrites the files that changed; a test fails
when the files and the code drift apart.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jaslog.events.schemas import event_schemas
from jaslog.export.schema import arrow_schema_docs

ROOT = Path(__file__).resolve().parent.parent / "schemas"

#: Every schema set: a function giving {relative path: JSON document}.
GENERATORS: list[Callable[[], dict[str, dict[str, Any]]]] = [event_schemas, arrow_schema_docs]


def render(doc: dict[str, Any]) -> str:
    """A schema file's text: sorted keys, two-space indents, a final newline."""
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def all_schemas() -> dict[str, str]:
    """Every schema file's text, by path relative to ``schemas/``."""
    out: dict[str, str] = {}
    for gen in GENERATORS:
        out.update({k: render(v) for k, v in gen().items()})
    return out


def write(root: Path = ROOT) -> list[Path]:
    """Write the schema files under ``root`` that differ from the code; the files written."""
    written = []
    for rel, text in all_schemas().items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists() or p.read_text() != text:
            p.write_text(text)
            written.append(p)
    return written


if __name__ == "__main__":
    for p in write(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT):
        print(f"wrote {p}")
