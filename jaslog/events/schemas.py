"""JSON Schemas of ``jaslog/1``, generated from the event models.

:mod:`jaslog.schemas` (``python -m jaslog.schemas``) writes them to ``schemas/jaslog-1/``
with the export's Arrow schemas; a test fails when the files and the models drift apart.
"""

from __future__ import annotations

from typing import Any

from jaslog.events import EVENT_MODELS, FORMAT, Event


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
