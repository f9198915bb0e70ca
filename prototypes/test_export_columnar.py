"""The column-at-a-time export prototype (``prototypes/export_columnar.py``) builds the same
``plays``, ``tricks`` and ``events`` tables as the real export, value for value.

Simulated Klaverjas games of both rulesets, with revokes, false roem claims, rounds dealt
without hands and a few claims of the rest (games the prototype leaves to the real row
builder), are imported into a real SQLite store and exported by ``export_store``; the
prototype reads the same store (both ways it fetches) and the verdicts of the fold, and
every value of its tables is compared with the export's, read back from the Parquet files.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from benchmarks.export_perf import arrow_tables
from benchmarks.store_perf import import_into_sqlite
from jaslog.cards import CARD_TEXT
from jaslog.events import Event, canonical_json, parse_event
from jaslog.export import export_store
from jaslog.export.schema import SCHEMAS
from jaslog.play.sim import DEFAULT_START, Faults, simulate, to_jsonl
from jaslog.store import open_store
from prototypes.export_columnar import (
    BUILT,
    FETCHES,
    _payload_fields,
    columnar_export,
    compare,
    fold_verdicts,
)

FAULTS = Faults(revoke_rate=0.02, false_roem_rate=0.06, no_hands_rate=0.15, claim_rate=0.004)
GAMES = 20


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, pa.Table], list]:
    """(store, the real export's tables, the parsed games) of 20 simulated games."""
    d = tmp_path_factory.mktemp("columnar")
    lines = [line.rstrip(b"\n") for line in to_jsonl(simulate(
        GAMES, ["amsterdam", "rotterdam"], seed=5, prefix="col", faults=FAULTS,
        start=DEFAULT_START))]
    summary = import_into_sqlite(lines, d / "store.sqlite", workers=0)
    assert summary.games == GAMES and not summary.rejected
    with open_store(str(d / "store.sqlite")) as store:
        export_store(store, d / "parquet", workers=0)
    games: dict[str, list] = {}
    for line in lines:
        e = parse_event(line)
        games.setdefault(e.game, []).append(e)
    return d / "store.sqlite", arrow_tables(d / "parquet"), list(games.values())


@pytest.mark.parametrize("how", sorted(FETCHES))
def test_every_value_matches_the_real_export(workload, how: str) -> None:
    store, real, games = workload
    built, ours = columnar_export(FETCHES[how](store), fold_verdicts(games))
    assert built.games > 0 and built.fallback  # both paths are exercised
    assert set(built.fallback.values()) <= {"events claim"}
    eq = compare(ours, real)
    assert eq.columns == sum(len(SCHEMAS[t]) for t in BUILT) == 53
    assert eq.rows["plays"][0] == real["plays"].num_rows > 0
    assert eq.total_differing == 0, eq.to_json()["differing_by_column"]


def test_a_wrong_value_is_counted(workload) -> None:
    """The comparison can fail: one verdict dropped makes one play's ``legal`` and ``rule``
    differ."""
    store, real, games = workload
    verdicts = fold_verdicts(games)
    gid, v = next((g, v) for g, v in verdicts.items() if not isinstance(v, str) and v.rules)
    v.rules.pop()
    _, ours = columnar_export(FETCHES["bulk"](store), verdicts)
    eq = compare(ours, real)
    assert {k: n for k, n in eq.differing.items() if n} == {"plays.legal": 1, "plays.rule": 1}, gid


def test_the_export_corpus_matches_too(tmp_path: Path, corpus: list[list[Event]]) -> None:
    """The export tests' corpus (other presets, trump selections and options, a game cut in
    the middle of a round dealt without hands, rulings): what the prototype builds matches,
    and what it cannot build goes the real way."""
    lines = [canonical_json(e) for events in corpus for e in events]
    assert not import_into_sqlite(lines, tmp_path / "store.sqlite", workers=0).rejected
    with open_store(str(tmp_path / "store.sqlite")) as store:
        export_store(store, tmp_path / "parquet", workers=0)
    built, ours = columnar_export(FETCHES["rows"](tmp_path / "store.sqlite"),
                                  fold_verdicts(corpus))
    assert built.games >= 10 and len(built.fallback) >= 10
    assert "t-unfinished" not in built.fallback and "t-ruled" in built.fallback
    eq = compare(ours, arrow_tables(tmp_path / "parquet"))
    assert eq.total_differing == 0, eq.to_json()["differing_by_column"]


def test_plays_off_their_bytes_and_the_rest_by_the_expression() -> None:
    """A canonical play's seat and card are read at fixed places from its end (``10H`` one
    byte longer); a play in another form, a bid and a roem claim by the regular expression."""
    payloads = [b'{"game":"g","seq":3,"type":"play","at":"2026-01-05T19:30:55Z","seat":2,'
                b'"card":"7C"}',
                b'{"game":"g","seq":4,"type":"play","seat":3,"card":"10H"}',
                b'{"seat":1,"card":"AS"}',  # too short to be read at fixed places
                b'{"game":"g","seq":6,"type":"bid","seat":0,"call":"pass"}',
                b'{"game":"g","seq":7,"type":"roem","seat":1,"points":20}',
                b'{"game":"g","seq":0,"type":"game_started","seats":["a","b","c","d"]}']
    is_play = np.array([True, True, True, False, False, False])
    is_other = np.array([False, False, False, True, True, False])
    seat, card, call, points = _payload_fields(pa.array(payloads, pa.large_binary()), is_play,
                                               is_other)
    assert seat.tolist() == [2, 3, 1, 0, 1, -1]
    assert [CARD_TEXT[c] if c >= 0 else None for c in card] == ["7C", "10H", "AS", None, None,
                                                                None]
    assert call.to_pylist() == [None, None, None, "pass", None, None]
    assert points.to_pylist() == [None, None, None, None, 20, None]
