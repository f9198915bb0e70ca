"""The jaslog/1 event format: models, JSON Lines reading and writing, upcasters."""

from __future__ import annotations

import io
from typing import Any

import orjson
import pytest

from jaslog.events import (
    EVENT_MODELS,
    MAX_LINE,
    Bid,
    Dealt,
    EventError,
    GameStarted,
    Play,
    canonical_json,
    event_from_dict,
    parse_event,
    upcast,
    write_events,
)
from jaslog.logs import read_lines

HANDS = [["JH", "9H", "AH", "JC", "8C", "AS", "10S", "7D"]] * 4

GOOD: list[dict[str, Any]] = [
    {"game": "g1", "seq": 0, "type": "game_started", "ruleset": "amsterdam",
     "seats": ["ann", "bob", "cor", "dirk"], "dealer": 3},
    {"game": "g1", "seq": 0, "type": "game_started", "ruleset": "rotterdam",
     "options": {"tie_is_failure": False}, "seats": ["a@b.nl", "x:1", "y.2", "z-3"], "dealer": 0,
     "meta": {"event": "club night", "table": 3}, "at": "2026-11-20T19:30:00Z",
     "id": "0d1b6a8e-3f0c-4f4e-9b7a-2a8f0e1c9d33"},
    {"game": "g1", "seq": 1, "type": "dealt", "hands": HANDS},
    {"game": "g1", "seq": 1, "type": "dealt"},
    {"game": "g1", "seq": 1, "type": "dealt", "dealer": 2},
    {"game": "g1", "seq": 2, "type": "trump_turned", "card": "4H"},
    {"game": "g1", "seq": 2, "type": "trump_turned", "card": "10D"},
    {"game": "g1", "seq": 3, "type": "bid", "seat": 0, "call": "pass"},
    {"game": "g1", "seq": 3, "type": "bid", "seat": 3, "call": "accept"},
    {"game": "g1", "seq": 3, "type": "bid", "seat": 1, "call": "S"},
    {"game": "g1", "seq": 4, "type": "play", "seat": 2, "card": "10H"},
    {"game": "g1", "seq": 5, "type": "roem", "seat": 2, "points": 20},
    {"game": "g1", "seq": 6, "type": "ruling", "round": 1, "score": [0, 262], "reason": "revoke"},
    {"game": "g1", "seq": 7, "type": "note", "text": "seat 1 left the table", "seat": 1, "round": 1},
    {"game": "a.B_c:d-9", "seq": 123456, "type": "note", "text": "ok",
     "at": "2026-11-20 19:30:00.25+01:00"},
]


@pytest.mark.parametrize("raw", GOOD, ids=[f"{g['type']}-{i}" for i, g in enumerate(GOOD)])
def test_good_events_parse_and_round_trip(raw: dict[str, Any]) -> None:
    line = orjson.dumps(raw)
    e = parse_event(line)
    assert type(e) is EVENT_MODELS[raw["type"]]
    assert e == event_from_dict(raw) == parse_event(line.decode())
    assert orjson.loads(canonical_json(e)) == raw
    assert parse_event(canonical_json(e)) == e


def test_canonical_json_field_order_and_absent_fields() -> None:
    e = parse_event(b'{"card":"10H","seat":2,"type":"play","seq":4,"game":"g1"}')
    assert canonical_json(e) == b'{"game":"g1","seq":4,"type":"play","seat":2,"card":"10H"}'
    assert b'"at"' not in canonical_json(e) and b'"id"' not in canonical_json(e)


def test_models_are_frozen() -> None:
    e = parse_event(b'{"game":"g1","seq":4,"type":"play","seat":2,"card":"10H"}')
    assert isinstance(e, Play)
    with pytest.raises(ValueError):
        e.seat = 3  # type: ignore[misc]


def bad(overrides: dict[str, Any], base: int = 10, drop: str | None = None) -> dict[str, Any]:
    raw = {**GOOD[base], **overrides}
    if drop:
        raw.pop(drop)
    return raw


@pytest.mark.parametrize("raw, message", [
    (bad({"type": "plya"}), "unknown event type 'plya'"),
    (bad({}, drop="type"), "field 'type' is missing"),
    (bad({}, drop="card"), "field 'card' is missing"),
    (bad({"extra": 1}), "unknown field 'extra' for a play event"),
    (bad({"card": "TH"}), "field 'card': 'TH' is not a card"),
    (bad({"card": "10h"}), "'10h' is not a card"),
    (bad({"card": "2H"}), "'2H' is not a card"),
    (bad({"seat": 4}), "field 'seat'"),
    (bad({"seat": -1}), "field 'seat'"),
    (bad({"seat": True}), "field 'seat'"),
    (bad({"seat": "2"}), "field 'seat'"),
    (bad({"seq": -1}), "field 'seq'"),
    (bad({"seq": 1.0}), "field 'seq'"),
    (bad({"seq": "4"}), "field 'seq'"),
    (bad({"game": "g 1"}), "'g 1' is not a valid game id: ' ' is not allowed"),
    (bad({"game": "x" * 200}), "is 200 characters long: a game id has at most 128"),
    (bad({"game": ""}), "field 'game'"),
    (bad({"game": "x" * 129}), "field 'game'"),
    (bad({"at": "yesterday"}), "not an RFC 3339 time"),
    (bad({"at": "2026-02-30T10:00:00Z"}), "not a real date"),
    (bad({"at": "2026-11-20T19:30:00"}), "not an RFC 3339 time"),
    (bad({"id": "not-a-uuid"}), "field 'id': 'not-a-uuid' is not a UUID (32 hex digits"),
    (bad({"call": "hearts"}, base=7), "field 'call'"),
    (bad({"card": "1H"}, base=5), "'1H' is not a card (2-10"),
    (bad({"points": -20}, base=11), "field 'points'"),
    (bad({"score": [1]}, base=12), "field 'score'"),
    (bad({"score": [1, -1]}, base=12), "field 'score"),
    (bad({"reason": ""}, base=12), "field 'reason'"),
    (bad({"round": 0}, base=12), "field 'round'"),
    # numbers beyond any game, which no integer column of the store or the export could hold
    (bad({"points": 3_000_000_000}, base=11), "field 'points': Input should be less than or "
                                              "equal to 10000 (got 3000000000)"),
    (bad({"score": [3_000_000_000, 1]}, base=12), "field 'score.0': Input should be less than"),
    (bad({"round": 10_000}, base=12), "field 'round': Input should be less than or equal to 9999"),
    (bad({"round": 2**62}, base=13), "field 'round'"),
    (bad({"text": ""}, base=13), "field 'text'"),
    (bad({"ruleset": "paris"}, base=0), "field 'ruleset'"),
    (bad({"seats": ["a"]}, base=0), "field 'seats'"),
    (bad({"seats": ["a b", "c", "d", "e"]}, base=0), "'a b' is not a valid player id"),
    (bad({"seats": ["ánn", "c", "d", "e"]}, base=0), "'á' is not allowed (ASCII letters"),
    (bad({"dealer": 4}, base=0), "field 'dealer'"),
    (bad({"options": []}, base=0), "field 'options'"),
    (bad({"hands": [["TH"]]}, base=2), "field 'hands.0.0': 'TH' is not a card"),
    (bad({"hands": "JH"}, base=2), "field 'hands'"),
])
def test_bad_events_say_which_field_and_why(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(EventError) as err:
        event_from_dict(raw)
    assert message in str(err.value)
    with pytest.raises(EventError) as err2:
        parse_event(orjson.dumps(raw))
    assert str(err2.value) == str(err.value)


@pytest.mark.parametrize("line, message", [
    (b'{"game":"g1","seq":4,', "not valid JSON"),
    (b"", "not valid JSON"),
    (b"[1, 2]", "an event is a JSON object, not an array"),
    (b'"play"', "an event is a JSON object, not a string"),
    (b"null", "an event is a JSON object, not null"),
])
def test_unreadable_lines(line: bytes, message: str) -> None:
    with pytest.raises(EventError, match=message):
        parse_event(line)


def test_too_long_line_is_refused_before_parsing() -> None:
    line = b'{"game":"g1","seq":1,"type":"note","text":"' + b"x" * MAX_LINE + b'"}'
    with pytest.raises(EventError, match="limit"):
        parse_event(line)


def test_read_lines_numbers_lines_and_never_raises() -> None:
    data = (orjson.dumps(GOOD[0]) + b"\n\n   \n"
            + b'{"game":"g1","seq":1,"type":"dealt","hands":[["TH"]]}\n'
            + b"not json\n"
            + b'{"game":"g2","seq":0,"type":"bogus"}\n'
            + b'{"game":"g1","seq":1,"type":"note","text":"\xff"}\n'
            + orjson.dumps(GOOD[10]))                      # no final newline
    lines = list(read_lines(io.BytesIO(data), "f.jsonl"))
    assert [ln.number for ln in lines] == [1, 4, 5, 6, 7, 8]
    assert all(ln.source == "f.jsonl" for ln in lines)
    assert isinstance(lines[0].event, GameStarted) and lines[0].error is None
    assert lines[1].event is None and "'TH' is not a card" in (lines[1].error or "")
    assert (lines[1].game, lines[1].seq) == ("g1", 1)           # peeked for the message
    assert (lines[2].game, lines[2].seq) == (None, None)
    assert (lines[3].game, lines[3].seq) == ("g2", 0)
    assert lines[4].event is None and "not UTF-8" in (lines[4].error or "")
    assert isinstance(lines[5].event, Play)


def test_write_events_round_trip() -> None:
    events = [parse_event(orjson.dumps(g)) for g in GOOD]
    out = io.BytesIO()
    assert write_events(events, out) == len(GOOD)
    back = [ln.event for ln in read_lines(io.BytesIO(out.getvalue()), "x")]
    assert back == events
    assert out.getvalue().count(b"\n") == len(GOOD)


def test_upcast_v0() -> None:
    raw = {"game": "g", "seq": 3, "type": "play", "player": 1, "card": "TH"}
    assert upcast(raw, 0) == {"game": "g", "seq": 3, "type": "play", "seat": 1, "card": "10H"}
    assert raw["card"] == "TH"   # the input is not changed
    dealt = {"game": "g", "seq": 1, "type": "dealt", "hands": [["TH", "JH"], ["TS"]]}
    assert upcast(dealt, 0)["hands"] == [["10H", "JH"], ["10S"]]
    assert isinstance(event_from_dict(upcast(raw, 0)), Play)
    assert upcast(raw, 1) is raw


def test_upcast_refuses_a_newer_version() -> None:
    with pytest.raises(EventError, match="newer"):
        upcast({}, 2)


def test_bid_and_dealt_models() -> None:
    b = event_from_dict({"game": "g", "seq": 2, "type": "bid", "seat": 0, "call": "accept"})
    assert isinstance(b, Bid) and b.call == "accept"
    d = event_from_dict({"game": "g", "seq": 1, "type": "dealt"})
    assert isinstance(d, Dealt) and d.hands is None and d.dealer is None
