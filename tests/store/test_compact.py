"""An event's row in parts gives its canonical bytes back exactly, whatever the event: odd ids
and times, free text, a type no model knows, and a game's own event registered after the store
was made (the toy game's ``double``), on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from sqlalchemy import text

from jaslog.events import canonical_json, event_from_dict
from jaslog.games import register, unregister
from jaslog.play.sim import simulate_game
from jaslog.store import Store
from jaslog.store.compact import SPILLED, Codec, first_codes
from tests.games.toy import GAME

CODEC = Codec(first_codes())
ID = "5f0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b"


def round_trip(payload: bytes) -> tuple[int, ...]:
    d = orjson.loads(payload)
    kind = CODEC.codes.get(d["type"], 999)
    row = CODEC.encode(payload, kind)
    if kind != 999:
        assert CODEC.rebuild(d["game"], d["seq"], 1, *row) == payload
    return row  # type: ignore[return-value]


@pytest.mark.parametrize("event", [
    {"game": "g", "seq": 5, "type": "play", "at": "2026-01-05T19:30:55Z", "id": ID, "seat": 2,
     "card": "10H"},
    {"game": "g", "seq": 5, "type": "play", "at": "2026-01-05T19:30:55.120Z",
     "recorded_at": "2026-01-05T19:30:56.001Z", "seat": 0, "card": "AS"},
    {"game": "g", "seq": 1, "type": "note", "text": "Ré: \"roem\" – ✓ 'ok'\nline two"},
    {"game": "g", "seq": 0, "type": "game_started", "ruleset": "amsterdam",
     "seats": ["a", "b", "c", "d"], "dealer": 3, "meta": {"table": 7, "tournament": "cup"}},
])
def test_an_event_is_rebuilt_exactly_from_its_parts(event: dict[str, Any]) -> None:
    payload = canonical_json(event_from_dict(event))
    row = round_trip(payload)
    rest = row[-1]
    assert rest is None or rest[:1] == b"["  # type: ignore[index]  # in parts, not kept whole


def test_a_value_no_column_holds_exactly_goes_into_the_rest() -> None:
    # an id in upper case, a time with an offset: the columns would write them otherwise
    odd = (b'{"game":"g","seq":5,"type":"play","at":"2026-01-05T20:30:55+01:00",'
           b'"id":"' + ID.upper().encode() + b'","seat":2,"card":"7C"}')
    row = round_trip(odd)
    assert row[0] & SPILLED and row[2] is None and row[4] == 2 and row[5] == 0
    assert row[1] == bytes.fromhex(ID.replace("-", ""))  # the index keys the id all the same


def test_bytes_the_parts_would_not_give_back_are_kept_whole() -> None:
    spaced = b'{"game": "g", "seq": 5, "type": "play", "seat": 2, "card": "7C"}'
    assert round_trip(spaced)[-1] == spaced
    unknown = b'{"game":"g","seq":5,"type":"juggle","balls":3}'
    row = CODEC.encode(unknown, 200)
    assert row[-1] == unknown and CODEC.rebuild("g", 5, 1, *row) == unknown
    old_format = b'{"game":"g","seq":5,"type":"play","player":2,"card":"TC"}'
    row = CODEC.encode(old_format, CODEC.codes["play"], version=0)
    assert row[-1] == old_format


@pytest.fixture
def toy() -> Iterator[None]:
    register(GAME)
    yield
    unregister(GAME)


def test_a_game_registered_later_gets_codes_for_its_own_events(store: Store, toy: None) -> None:
    events = simulate_game("toy-s", "toy", seed=7, bot="random")
    assert any(e["type"] == "double" for e in events)
    with store.engine.connect() as conn:
        before = {r[1]: r[0] for r in conn.execute(text("SELECT code, name FROM event_types"))}
    assert "double" not in before
    # imported: stored as given (an append would add the store's recorded_at)
    summary = store.import_lines([orjson.dumps(e) for e in events])
    assert summary.events == len(events) and not summary.rejected
    with store.engine.connect() as conn:
        after = {r[1]: r[0] for r in conn.execute(text("SELECT code, name FROM event_types"))}
    assert after["double"] == max(before.values()) + 1 and after.items() >= before.items()
    stored = store.stored_events("toy-s")
    assert [r.payload for r in stored] == [canonical_json(event_from_dict(e)) for e in events]
    assert store.verify("toy-s").ok


@pytest.mark.parametrize("at", ["2026-01-05T19:30:55Z", "2026-01-05T20:30:55+01:00", None,
                                "2026-01-05T19:30:55.120Z"])
def test_an_imported_play_gets_the_row_its_model_would(store: Store, at: str | None) -> None:
    """A canonical play as the import reads it (by its regex, not a model) goes to the row the
    same play as a model gets from the codec: its time in its column, or in ``rest`` when the
    column cannot hold its text (an offset); its bytes come back exactly."""
    from jaslog.events import parse_event

    game = simulate_game("p-1", seed=3)
    i = next(k for k, e in enumerate(game) if e["type"] == "play")
    game[i] = {k: v for k, v in {**game[i], "at": at}.items() if v is not None}
    lines = [canonical_json(event_from_dict(e)) for e in game]
    assert store.import_lines(lines).events == len(game)
    with store.engine.connect() as conn:
        row = conn.execute(text("SELECT kind, event_id, at, recorded_at, seat, card, rest FROM "
                                "events WHERE seq = :s"), {"s": i}).one()
    codec = Codec(first_codes())
    assert (*row[:6], row[6] and bytes(row[6])) == \
        codec.encode(lines[i], 1, parse_event(lines[i]).__dict__)
    assert (row[2] is None) == (at is None or at.endswith("+01:00"))
    assert store.stored_events("p-1")[i].payload == lines[i]


@pytest.mark.parametrize("at", ["2026-01-05T20:30:55+01:00", "2026-01-05T19:30:55.5Z",
                                "2026-01-05t19:30:55Z", "1969-07-20T20:17:40Z"])
def test_a_time_kept_in_the_rest_is_the_events_time_and_verifies(store: Store, at: str) -> None:
    """A valid ``at`` the column cannot hold exactly (an offset, a tenth of a second, a
    lower-case t, a time before 1970) is kept in ``rest``: the stored event says that time,
    and ``verify`` finds nothing wrong with it (it compared the empty column with the bytes)."""
    game = simulate_game("t-1", seed=3)
    for kind in ("play", "bid"):
        i = next(k for k, e in enumerate(game) if e["type"] == kind)
        game[i] = {**game[i], "at": at}
    assert store.import_lines([canonical_json(event_from_dict(e)) for e in game]).events == \
        len(game)
    stored = store.stored_events("t-1")
    assert [r.at for r in stored] == [e.get("at") for e in game]
    assert store.verify().ok


def _events_of_every_game() -> list[dict[str, Any]]:
    games = [simulate_game("k-1", "amsterdam", seed=11), simulate_game("r-1", "rotterdam", seed=12),
             simulate_game("b-1", "klaberjass-2p", seed=13), simulate_game("p-1", "kloepper", seed=14)]
    odd = [
        {"game": "g", "seq": 1, "type": "note", "text": "Ré: \"roem\" \\ – ✓\n\t\u2028 ok",
         "seat": 2, "round": 3, "id": ID, "recorded_at": "2026-01-05T19:30:56.001Z"},
        {"game": "g", "seq": 0, "type": "game_started", "ruleset": "amsterdam",
         "seats": ["a", "b", "c", "d"], "dealer": 3, "at": "2026-01-05T20:30:55+01:00",
         "options": {"rounds": 8}, "meta": {"table": 7, "x": [1.5, -0.0, 1e16, None, True],
                                            "big": 2**63 - 1, "ünï": {"a": "\u0000"}}},
        {"game": "g", "seq": 9, "type": "ruling", "round": 2, "score": [81, 81],
         "reason": "the ruling's \"reason\"", "id": ID.upper()},
    ]
    return [e for g in games for e in g if e["type"] != "play"] + odd


def test_a_row_from_an_events_fields_is_the_row_its_rebuild_proves() -> None:
    """The codec takes an event's row from the fields the import read (without writing its
    bytes back to compare): the very row the general way proves by rebuilding the bytes."""
    events = _events_of_every_game()
    assert {"dealt", "bid", "roem", "game_started", "note", "ruling"} <= {e["type"] for e in events}
    quick = 0
    for event in events:
        e = event_from_dict(event)
        payload, kind = canonical_json(e), CODEC.codes[e.type]
        row = CODEC.encode(payload, kind, e.__dict__)
        assert row == CODEC.encode(payload, kind), event  # the general way: fields from the bytes
        assert CODEC.rebuild(e.game, e.seq, 1, *row) == payload
        quick += CODEC._row_of(payload, kind, e.__dict__) is not None
    assert quick >= len(events) - 2  # all but the spilled id and time


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 1.5])
def test_a_float_in_the_rest_is_proven_by_its_rebuild(value: float) -> None:
    """NaN is written ``null`` and read back as no value at all: a float in ``rest`` is never
    taken on trust, its row is the one whose rebuild gives the bytes back."""
    fields = {"game": "g", "seq": 1, "type": "note", "text": "t", "seat": None, "round": value}
    payload = orjson.dumps({k: v for k, v in fields.items() if v is not None})
    kind = CODEC.codes["note"]
    assert CODEC._row_of(payload, kind, fields) is None
    row = CODEC.encode(payload, kind, fields)
    assert CODEC.rebuild("g", 1, 1, *row) == payload


def test_fields_that_do_not_write_the_bytes_get_no_row_of_their_own() -> None:
    """Fields the caller has that are not the bytes' (another text, a field the type has
    not) give no row from the fields: the bytes are what is stored."""
    payload = b'{"game":"g","seq":2,"type":"bid","at":"2026-01-05T19:30:49Z","seat":2,"call":"C"}'
    kind = CODEC.codes["bid"]
    other = {"game": "g", "seq": 2, "type": "bid", "at": "2026-01-05T19:30:49Z", "seat": 2,
             "call": "D"}
    assert CODEC._row_of(payload, kind, other) is None
    assert CODEC.rebuild("g", 2, 1, *CODEC.encode(payload, kind, other)) == payload
    extra = {**other, "call": "C", "flair": "x"}
    assert CODEC._row_of(orjson.dumps(extra), kind, extra) is None
    assert CODEC.rebuild("g", 2, 1, *CODEC.encode(orjson.dumps(extra), kind, extra)) == \
        orjson.dumps(extra)
