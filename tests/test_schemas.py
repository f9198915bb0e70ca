"""JSON Schemas: generated from the code (no drift), and every sample replay validates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator

from jaslog.events import EVENT_MODELS
from jaslog.schemas import ROOT as SCHEMAS
from jaslog.schemas import all_schemas, write

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))


def test_schemas_do_not_drift(tmp_path: Path) -> None:
    written = write(tmp_path)
    generated = {p.relative_to(tmp_path).as_posix(): p.read_text() for p in written}
    assert set(generated) == set(all_schemas())
    stored = {p.relative_to(SCHEMAS).as_posix(): p.read_text()
              for p in SCHEMAS.rglob("*.json")}
    missing = sorted(set(generated) - set(stored))
    extra = sorted(set(stored) - set(generated))
    changed = sorted(k for k in set(generated) & set(stored) if generated[k] != stored[k])
    assert (missing, extra, changed) == ([], [], []), \
        "schemas/ is out of date: run `python -m jaslog.schemas`"


def test_write_is_idempotent(tmp_path: Path) -> None:
    assert write(tmp_path)
    assert write(tmp_path) == []


def load(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / "jaslog-1" / name).read_text())  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def validators() -> dict[str, Draft202012Validator]:
    out = {name: Draft202012Validator(load(f"{name}.schema.json")) for name in EVENT_MODELS}
    out["envelope"] = Draft202012Validator(load("envelope.schema.json"))
    for v in out.values():
        Draft202012Validator.check_schema(v.schema)
    return out


def test_there_are_samples() -> None:
    assert len(REPLAYS) >= 4


@pytest.mark.parametrize("path", REPLAYS, ids=[p.name for p in REPLAYS])
def test_every_sample_event_validates(path: Path, validators: dict[str, Draft202012Validator]) -> None:
    types = set()
    for n, line in enumerate(path.read_bytes().splitlines(), 1):
        if not line.strip():
            continue
        e = orjson.loads(line)
        errors = [*validators["envelope"].iter_errors(e), *validators[e["type"]].iter_errors(e)]
        assert not errors, f"{path.name}:{n}: {errors[0].message}"
        types.add(e["type"])
    assert {"game_started", "dealt", "play"} <= types


@pytest.mark.parametrize("event, schema", [
    ({"game": "g", "seq": 3, "type": "play", "seat": 0, "card": "TH"}, "play"),
    ({"game": "g", "seq": 3, "type": "play", "seat": 4, "card": "10H"}, "play"),
    ({"game": "g", "seq": 3, "type": "play", "seat": 0, "card": "10H", "x": 1}, "play"),
    ({"game": "g", "seq": -1, "type": "play", "seat": 0, "card": "10H"}, "play"),
    ({"game": "g g", "seq": 3, "type": "play", "seat": 0, "card": "10H"}, "envelope"),
    ({"game": "g", "seq": 3, "type": "plya"}, "envelope"),
    ({"game": "g", "seq": 3}, "envelope"),
    ({"game": "g", "seq": 3, "type": "bid", "seat": 0, "call": "hearts"}, "bid"),
    ({"game": "g", "seq": 3, "type": "trump_turned", "card": "1H"}, "trump_turned"),
    ({"game": "g", "seq": 3, "type": "ruling", "round": 1, "score": [1], "reason": "x"}, "ruling"),
    ({"game": "g", "seq": 0, "type": "game_started", "ruleset": "paris", "seats": ["a", "b"],
      "dealer": 0}, "game_started"),
])
def test_schemas_refuse_bad_events(event: dict[str, Any], schema: str,
                                   validators: dict[str, Draft202012Validator]) -> None:
    assert list(validators[schema].iter_errors(event))


def test_envelope_accepts_every_event_type(validators: dict[str, Draft202012Validator]) -> None:
    for t in EVENT_MODELS:
        assert not list(validators["envelope"].iter_errors({"game": "g", "seq": 1, "type": t,
                                                             "anything": 1}))
