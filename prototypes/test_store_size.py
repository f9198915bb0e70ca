"""The compact store layout of ``prototypes.store_size`` loses nothing and is smaller.

On 20 simulated games imported into a real store: every event's canonical bytes rebuilt from
its compact row equal the stored payload and the SHA-256 chain recomputes to the stored
hashes, each design step's file is smaller than the one it builds on, and a changed compact
row is caught; on 3 games recorded live (``recorded_at``, a signed head per round) too. Then
the encoding's odd cases, one event each: ids, times of other forms, cards a column cannot
hold, free text, optional fields, older formats.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from jaslog.events import parse_event
from jaslog.store.codec import canonical
from prototypes.store_size import (
    CODE,
    SPILLED,
    STEPS,
    check,
    encode,
    rebuild,
    run,
    time_code,
    time_text,
)


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    work = tmp_path_factory.mktemp("store-size")
    return work, run(20, 1, work, timing_repeat=0)


def test_every_event_comes_back_exactly(measured: tuple[Path, dict[str, Any]]) -> None:
    _, r = measured
    assert r["events"] > 20 * 500
    assert [c["file"] for c in r["checks"]] == ["store-typed.sqlite", "store-rowid_pos.sqlite",
                                                "store-game_int.sqlite", "store-signatures.sqlite"]
    for c in r["checks"]:
        assert c["checked"] == r["events"], c
        assert (c["byte_mismatches"], c["chain_mismatches"], c["first"]) == (0, 0, []), c
        assert c["verbatim_rows"] == 0, c  # every simulated event fits the typed columns
    assert r["signature_check"] == {"checked": 20, "mismatches": 0}  # one per imported game


def test_live_games_come_back_exactly(tmp_path: Path) -> None:
    r = run(3, 2, tmp_path, timing_repeat=0, live=True)
    assert r["live"] and r["events"] > 3 * 500
    for c in r["checks"]:
        assert (c["checked"], c["mismatches"], c["verbatim_rows"]) == (r["events"], 0, 0), c
    assert r["signature_check"]["checked"] == r["signatures"]["rows"] >= 3 * 16  # every round
    assert r["signature_check"]["mismatches"] == 0
    typed = next(s for s in r["steps"] if s["key"] == "typed")
    # recorded_at in its column, 6 bytes (milliseconds since 1970), on every event
    assert next(c for c in typed["columns"] if c["name"] == "recorded_at")["bytes_per_event"] == 6


def test_each_step_is_smaller_than_the_one_it_builds_on(
        measured: tuple[Path, dict[str, Any]]) -> None:
    _, r = measured
    size = {s["key"]: s["bytes_per_event"] for s in r["steps"]}
    assert list(size) == [s.key for s in STEPS]
    assert size["current"] > size["raw_digests"] > size["chain_hash"] > size["typed"] \
        > size["game_int"] > size["signatures"]
    # the digests as 32 raw bytes: 64 bytes saved on each of the two, per event, at least
    assert size["current"] - size["raw_digests"] >= 64
    assert size["typed"] < size["current"] / 2
    current = next(s for s in r["steps"] if s["key"] == "current")
    assert {c["name"] for c in current["columns"]} >= {"payload", "prev_hash", "hash"}
    assert next(c for c in current["columns"] if c["name"] == "hash")["bytes_per_event"] == 64


def test_a_changed_compact_row_is_caught(measured: tuple[Path, dict[str, Any]],
                                         tmp_path: Path) -> None:
    work, _ = measured
    changed = tmp_path / "changed.sqlite"
    shutil.copy(work / "store-game_int.sqlite", changed)
    con = sqlite3.connect(str(changed))
    with con:
        n = con.execute("UPDATE events SET card = (card + 1) % 32 WHERE pos = "
                        "(SELECT min(pos) FROM events WHERE kind = ?)", (CODE["play"],)).rowcount
    con.close()
    assert n == 1
    c = check(work / "store.sqlite", changed)
    assert c["byte_mismatches"] == 1
    assert c["chain_mismatches"] >= 1  # that event and every later one of its game
    assert c["mismatches"] == c["byte_mismatches"] + c["chain_mismatches"]


def _canonical(line: bytes) -> bytes:
    return canonical(parse_event(line))


CASES = {
    "play": b'{"game":"g","seq":5,"type":"play","seat":3,"card":"10H"}',
    "id and live times": b'{"game":"g","seq":5,"type":"play","at":"2026-12-01T20:15:00.125Z",'
                         b'"id":"7f1c2a9e-1b2c-4d5e-8f90-123456789abc",'
                         b'"recorded_at":"2026-12-01T20:15:01.000Z","seat":0,"card":"AS"}',
    "id in capitals": b'{"game":"g","seq":5,"type":"bid","id":"7F1C2A9E-1B2C-4D5E-8F90-123456789ABC",'
                      b'"seat":1,"call":"pass"}',
    "at with an offset": b'{"game":"g","seq":5,"type":"play","at":"2026-12-01T21:15:00+01:00",'
                         b'"seat":1,"card":"7C"}',
    "at in whole seconds and milliseconds .000": b'{"game":"g","seq":5,"type":"roem",'
                                                 b'"at":"2026-12-01T20:15:00.000Z","seat":2,"points":50}',
    "a turned card no column holds": b'{"game":"g","seq":2,"type":"trump_turned","card":"2C"}',
    "free text": b'{"game":"g","seq":9,"type":"note",'
                 b'"text":"th\\u00e9 \\"quoted\\" \\ud83c\\udccf","round":2}',
    "game started": b'{"game":"g.1:x","seq":0,"type":"game_started","at":"2026-12-01T20:00:00Z",'
                    b'"ruleset":"rotterdam","options":{"roem":"claimed"},"seats":["a","b","c","d"],'
                    b'"dealer":3,"meta":{"table":7,"tournament":"Zomer","rate":1.5}}',
    "a deal": b'{"game":"g","seq":1,"type":"dealt","hands":[["7C","8C","9C","10C","JC","QC","KC",'
              b'"AC"],["7D","8D","9D","10D","JD","QD","KD","AD"],["7H","8H","9H","10H","JH","QH",'
              b'"KH","AH"],["7S","8S","9S","10S","JS","QS","KS","AS"]],"dealer":1}',
    "a round's score": b'{"game":"g","seq":40,"type":"round_score","round":1,"score":[0,182],'
                       b'"trump":"H","roem":[0,20]}',
}


@pytest.mark.parametrize("name", list(CASES))
def test_odd_events_come_back_exactly(name: str) -> None:
    payload = _canonical(CASES[name])
    c = encode(payload)
    assert c.rest is None or c.rest[:1] == b"[", c  # held in columns, not kept verbatim
    assert rebuild("g.1:x" if name == "game started" else "g", parse_event(payload).seq, c) \
        == payload


def test_the_columns_hold_the_hot_fields() -> None:
    c = encode(_canonical(CASES["id and live times"]))
    assert (c.kind, c.seat, c.card, c.rest) == (CODE["play"], 0, 31, None)
    assert c.event_id is not None and len(c.event_id) == 16
    assert (time_text(c.at or 0), time_text(c.recorded_at or 0)) == (
        "2026-12-01T20:15:00.125Z", "2026-12-01T20:15:01.000Z")
    # a value its column cannot hold exactly goes to ``rest``, flagged
    for name in ("id in capitals", "at with an offset"):
        spilled = encode(_canonical(CASES[name]))
        assert spilled.kind & SPILLED and spilled.rest is not None, name
    assert encode(_canonical(CASES["a turned card no column holds"])).card is None


def test_what_no_column_can_rebuild_is_kept_whole() -> None:
    old = b'{"game":"g","seq":3,"type":"play","seat":1,"card":"TH"}'
    assert encode(old, version=0).rest == old
    assert rebuild("g", 3, encode(old, version=0)) == old
    unknown = b'{"game":"g","seq":3,"type":"shuffle","seat":1}'
    assert encode(unknown).kind == 0 and rebuild("g", 3, encode(unknown)) == unknown
    # keys out of the model's order: the columns would rebuild other bytes
    shuffled = b'{"seq":3,"game":"g","type":"play","seat":1,"card":"10H"}'
    assert encode(shuffled).rest == shuffled
    assert rebuild("g", 3, encode(shuffled)) == shuffled


@pytest.mark.parametrize(("text", "code"), [
    ("2026-01-05T19:30:55Z", 1767641455), ("2026-01-05T19:30:55.120Z", 1767641455120),
    ("9999-12-31T23:59:59Z", 253402300799), ("1978-01-12T00:00:00.001Z", 253411200001),
    # a millisecond time whose code would read as seconds, other forms: not held
    ("1975-01-01T00:00:00.000Z", None), ("2026-01-05T19:30:55.1Z", None),
    ("2026-01-05 19:30:55Z", None), ("1969-12-31T23:59:59Z", None),
    ("2026-02-30T00:00:00Z", None), ("2026-01-05T19:30:60Z", None)])
def test_a_time_code_gives_its_text_back_or_is_none(text: str, code: int | None) -> None:
    assert time_code(text) == code
    if code is not None:
        assert time_text(code) == text
