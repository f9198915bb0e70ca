"""The ``events`` rows the export builds of a stored batch from its columns (no model read
for a row, :mod:`jaslog.export.other_rows`) are those the row builder writes from the same
games' events: every column, every event type with a payload, times in seconds and in
milliseconds, ids and ``recorded_at`` on other events, and values changed behind the store's
back."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest

from jaslog.events import EVENT_MODELS, event_from_dict
from jaslog.export.other_rows import _seat_pieces, kind_spec, time_texts
from jaslog.export.plays import columns_for
from jaslog.export.rows import build_game
from jaslog.export.schema import GAME_TABLES
from jaslog.export.stored import BatchRows, StoredExport, store_games
from jaslog.play.sim import Faults, simulate_game
from jaslog.store import Store, open_store
from jaslog.store.compact import time_text
from tests.test_fairdeal import fair_log

TEXT = 'tab\t, "quoted" \\ é€😀 \u2028 \x01 end'


def _renumbered(game: str, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [dict(e, game=game, seq=i) for i, e in enumerate(events)]


def _inserted(events: list[dict[str, Any]], at: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, e in enumerate(events):
        if i in at:
            out.append(at[i])
        out.append(e)
    return out


def _klaverjas() -> list[dict[str, Any]]:
    """A Klaverjas game with claims, deals with and without hands (and dealer), false roem,
    and a note,
    an irregularity, a timeout (with an id and a recorded time), a bid with its time in
    milliseconds, two rulings and a correction."""
    g = simulate_game("x", "amsterdam", seed=11, at="2026-03-03T20:00:00Z",
                      faults=Faults(claim_rate=0.05, no_hands_rate=0.3, false_roem_rate=0.2))
    deals = [i for i, e in enumerate(g) if e["type"] == "dealt"]
    bid = next(i for i, e in enumerate(g) if e["type"] == "bid" and i > deals[4])
    g[bid] = dict(g[bid], at=g[bid]["at"][:19] + ".070Z", id="5d0f7a0e-8d2b-4f5e-9b41-0c2a9e1f3b77")
    # a deal without its hands but with its dealer (the second of its fields in rest), and
    # one with both (two given: written row by row)
    blind = next(i for i in deals[1:] if "hands" not in g[i])
    g[blind] = dict(g[blind], dealer=(g[0]["dealer"] + deals.index(blind)) % 4)
    g[deals[1]] = dict(g[deals[1]], dealer=(g[0]["dealer"] + 1) % 4)
    g = _inserted(g, {
        deals[1] + 2: {"type": "note", "text": TEXT, "seat": 2, "round": 2,
                       "at": "2026-03-03T20:31:00.250Z"},
        deals[1] + 3: {"type": "note", "text": "no round, no seat"},
        deals[2] + 3: {"type": "irregularity", "kind": "exposed_card", "seat": 1,
                       "cards": ["7C", "AH"], "text": TEXT, "at": "2026-03-03T20:45:10Z"},
        deals[3] + 1: {"type": "timeout", "seat": 1, "seconds": 30,
                       "id": "0b4f9a56-59a1-4f53-9a0c-3c1e2d3f4a5b",
                       "recorded_at": "2026-03-03T20:40:00.120Z", "at": "2026-03-03T20:40:00Z"},
    })
    g.append({"type": "ruling", "round": 2, "score": [0, 162], "reason": TEXT,
              "at": "2026-03-03T23:59:00Z"})
    mistake = next(i for i, e in enumerate(g) if e["type"] == "play" and i > deals[5] + 8)
    g[mistake + 1:mistake + 1] = [{"type": "correction", "retracts": [mistake],
                                   "reason": "recorded by mistake"}, dict(g[mistake])]
    return _renumbered("x-klaverjas", g)


def _score_only() -> list[dict[str, Any]]:
    """A game recorded by its rounds' scores alone (the points per team: not a roem's)."""
    start = {"type": "game_started", "ruleset": "amsterdam", "seats": ["a", "b", "c", "d"],
             "dealer": 0, "meta": {"event": TEXT, "table": 3}, "at": "2026-04-04T20:00:00Z"}
    rounds = [{"type": "round_score", "round": 1, "score": [110, 72], "chooser": 0, "trump": "H",
               "points": [90, 72], "roem": [20, 0], "result": "made"},
              {"type": "round_score", "round": 2, "score": [0, 182],
               "at": "2026-04-04T20:10:00.999Z"}]
    return _renumbered("x-score", [start, *rounds])


def _games() -> list[list[dict[str, Any]]]:
    return [
        _klaverjas(),
        _score_only(),
        _renumbered("x-klaberjass", simulate_game("k", "klaberjass-2p", seed=5, seats=["a", "b"],
                                                  at="2026-02-02T20:00:00Z")),
        _renumbered("x-kloepper", simulate_game("k", "kloepper", seed=500,
                                                faults=Faults(revoke_rate=0.05))),
        _renumbered("x-kloepper-call", simulate_game("k", "kloepper", seed=0)),
        _renumbered("x-turned", simulate_game("k", "rotterdam", {"trump_selection": "random"},
                                              seed=3, at="2025-05-05T20:00:00Z")),
        _renumbered("x-fair", fair_log("klaverjas", rounds=1)),
    ]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("other") / "s.sqlite"
    with open_store(str(path)) as store:
        lines = [orjson.dumps(event_from_dict(e).model_dump(exclude_none=True)) + b"\n"
                 for g in _games() for e in g]
        summary = store.import_lines(lines, source="archive")
        assert summary.ok, summary.rejected[:3]
    return path


def _compare(store: Store) -> Counter[str]:
    """Each game's ``events`` rows built from the batch's columns against the row builder's
    from its events (a game with a retracted event: its rounds and retractions the row
    builder's alone); the types compared."""
    seen: Counter[str] = Counter()
    read = list(store_games(store, since=None, ruleset=None, after=None, until=store.cursor(),
                            batch=3, unreadable=lambda e: None))
    assert read
    for g in read:
        assert isinstance(g, StoredExport)
        built = g.stored.batch.table
        assert isinstance(built, BatchRows)
        got = built.events.slice(g.stored.lo, len(g.stored)).to_pydict()
        rows = {t: columns_for(t) for t in GAME_TABLES}
        events = g.events()
        build_game(events, lambda part, rows=rows: rows)  # type: ignore[misc]
        want = rows["events"].to_table().to_pydict()
        retracted = any(want["retracted"])
        for column, values in want.items():
            if retracted and column in ("round", "retracted", "retracted_by"):
                continue
            assert got[column] == values, (g.game, column)
        seen.update(want["type"])
    return seen


def test_every_type_builds_the_row_builders_rows(stored: Path) -> None:
    with open_store(str(stored)) as store:
        seen = _compare(store)
    payload_types = {n for n in EVENT_MODELS if n != "play"}
    assert payload_types <= set(seen), payload_types - set(seen)


@pytest.mark.parametrize(("where", "change"), [
    ("type = 'bid'", "at = -5"),                      # a time before 1970
    ("type = 'roem'", "at = 253402300799999 + 1"),    # beyond any time written
    ("type = 'dealt'", "at = 1767641455120"),         # milliseconds
    ("type = 'bid'", "card = 40"),                    # a column the type has none of
    ("type = 'bid'", "rest = CAST('[ \"pass\" ]' AS BLOB)"),  # not as orjson writes it
    ("type = 'roem'", "rest = CAST('[20,3]' AS BLOB)"),      # more than its fields
    ("type = 'claim'", "rest = CAST('[]' AS BLOB)"),          # nothing, not NULL
    ("type = 'note'", "version = 0"),                 # an older format
    ("type = 'timeout'", "seat = 7"),                  # a seat out of the rules' range
    ("type = 'dealt'", "seat = 2"),                    # a column the type has no field in
    ("type = 'bid'", "card = 5"),
    ("type = 'knock'", "card = 3"),
])
def test_rows_changed_behind_the_stores_back_build_as_their_events(
        stored: Path, tmp_path: Path, where: str, change: str) -> None:
    import shutil
    import sqlite3

    path = tmp_path / "s.sqlite"
    shutil.copy(stored, path)
    con = sqlite3.connect(path)
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        con.execute(f"DROP TRIGGER {name}")
    code = "(SELECT code FROM event_types WHERE " + where.replace("type", "name") + ")"
    changed = con.execute(f"UPDATE events SET {change} WHERE (game, seq) = (SELECT game, seq "
                          f"FROM events WHERE kind = {code} AND seq > 3 ORDER BY game, seq "
                          "LIMIT 1)").rowcount
    con.commit()
    con.close()
    assert changed == 1
    with open_store(str(path)) as store:
        assert sum(_compare(store).values()) > 100


def test_the_kinds_are_declared_by_their_fields() -> None:
    """A type whose fields with a column come first is joined by Arrow (a row with one
    field given in ``rest`` at most); one with a field in ``rest`` before a column, row by
    row."""
    bid, note, dealt, knock = (kind_spec(n) for n in ("bid", "note", "dealt", "knock"))
    assert bid is not None and bid.joined and bid.rest_names == ("call",)
    assert bid.read_at == (0, -1, -1, -1)
    assert note is not None and not note.joined and note.read_at == (-1, -1, 1, -1)
    assert dealt is not None and dealt.joined and dealt.read_at == (-1, -1, -1, 0)
    assert dealt.rest_names == ("hands", "dealer", "turn_up", "stock")
    assert knock is not None and knock.joined and knock.rest_names == ()
    assert kind_spec("no_such_type") is None


def test_time_texts_are_the_stores_own() -> None:
    codes = np.array([1767641455, 0, 86399, 253_402_300_799, 253_402_300_800,
                      1767641455120, 1767641455000, 7], np.int64)
    null = np.zeros(len(codes), bool)
    null[-1] = True
    assert time_texts(codes, null).to_pylist() == [
        *(time_text(int(c)) for c in codes[:-1]), None]


@pytest.mark.parametrize("spread", [3 * 86_400, 86_400 << 17])  # days counted; days sorted
def test_time_texts_between_pieces_are_the_stores_own(spread: int) -> None:
    rng = np.random.default_rng(4)
    codes = 1_700_000_000 + rng.integers(0, spread, 500)
    codes[::7] = codes[::7] * 1000 + 120    # some in milliseconds
    null = rng.random(500) < 0.1
    got = time_texts(codes, null, ',"at":"', '"').to_pylist()
    assert got == [None if no else f',"at":"{time_text(int(c))}"'
                   for c, no in zip(codes.tolist(), null.tolist(), strict=True)]


def test_seat_pieces_beyond_the_table_are_written_too() -> None:
    seats = np.array([0, 3, 7, 1], np.int64)
    null = np.array([False, False, False, True])
    assert _seat_pieces(seats, null).to_pylist() == [',"seat":0', ',"seat":3', ',"seat":7',
                                                     None]
    far = np.array([2, 40, 1234567], np.int64)
    assert _seat_pieces(far, np.zeros(3, bool)).to_pylist() == [
        ',"seat":2', ',"seat":40', ',"seat":1234567']
