"""JSON Schema files for ``jaslog/1``, generated from the event models.

``python -m jaslog.events.schemas`` rewrites ``schemas/jaslog-1/``; a test fails when the files
and the models drift apart. Other schema sets (the Arrow schemas of the export) register a
generator in :data:`GENERATORS`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jaslog.events import EVENT_MODELS, FORMAT, Event

ROOT = Path(__file__).resolve().parents[2] / "schemas"


def event_schemas() -> dict[str, dict[str, Any]]:
    """File name -> schema, one per event type plus the envelope."""
    out: dict[str, dict[str, Any]] = {}
    env = Event.model_json_schema()
    env["$id"] = f"https://jaslog.invalid/schemas/{FORMAT}/envelope.schema.json"
    env["title"] = f"{FORMAT} event envelope"
    # The fields every event shares; each type adds its own (its schema forbids others).
    env["additionalProperties"] = True
    env["properties"]["type"] = {"enum": sorted(EVENT_MODELS), "title": "Type", "type": "string"}
    out["jaslog-1/envelope.schema.json"] = env
    for name, model in EVENT_MODELS.items():
        s = model.model_json_schema()
        s["$id"] = f"https://jaslog.invalid/schemas/{FORMAT}/{name}.schema.json"
        s["title"] = f"{FORMAT} {name}"
        out[f"jaslog-1/{name}.schema.json"] = s
    return out


def arrow_schemas() -> dict[str, dict[str, Any]]:
    """The Arrow schemas of the Parquet export (``schemas/arrow/<table>.json``)."""
    from jaslog.export.schema import arrow_schema_docs

    return arrow_schema_docs()


#: Every schema set: a function giving {relative path: JSON document}.
GENERATORS: list[Callable[[], dict[str, dict[str, Any]]]] = [event_schemas, arrow_schemas]


def render(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def all_schemas() -> dict[str, str]:
    out: dict[str, str] = {}
    for gen in GENERATORS:
        out.update({k: render(v) for k, v in gen().items()})
    return out


def write(root: Path = ROOT) -> list[Path]:
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
