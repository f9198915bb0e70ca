"""The canonical-play fast path accepts nothing the models refuse, and reads what they read."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaslog.events import EventError, canonical_json, parse_event
from jaslog.events.fast import FastPlay, fast_event, fast_play
from tests.examples import examples

ROOT = Path(__file__).resolve().parents[1]


def same_as_models(line: bytes) -> bool:
    """fast_play agrees with parse_event on ``line``: None, or the same fields and bytes.
    Returns whether the fast path took the line."""
    fp = fast_play(line)
    if fp is None:
        return False
    e = parse_event(line)  # must not raise: the fast path took a line the models refuse
    assert e.type == "play"
    assert (fp.game, fp.seq, fp.seat, fp.card, fp.at, fp.id) == \
        (e.game, e.seq, e.seat, e.card, e.at, e.id)  # type: ignore[attr-defined]
    assert fp.payload == canonical_json(e)
    return True


def test_every_play_of_the_replays() -> None:
    taken = 0
    for path in sorted((ROOT / "replays").glob("*.jsonl")):
        for line in path.read_bytes().splitlines(keepends=True):
            if b'"type":"play"' in line:
                assert same_as_models(line), line
                taken += 1
    assert taken > 1000


def test_at_and_id_in_canonical_order() -> None:
    line = (b'{"game":"g","seq":7,"type":"play","at":"2026-02-29T20:15:00.5+01:00",'
            b'"id":"0123456789ABCDEF0123456789abcdef","seat":3,"card":"AS"}\r\n')
    assert fast_play(line) is None  # 2026 is no leap year: the models refuse it too
    line = line.replace(b"2026-02-29", b"2028-02-29")
    assert same_as_models(line)


@pytest.mark.parametrize("line", [
    b'{"game":"g","seq":1,"type":"play","seat":4,"card":"AS"}',
    b'{"game":"g","seq":1,"type":"play","seat":1,"card":"1S"}',
    b'{"game":"g","seq":01,"type":"play","seat":1,"card":"AS"}',
    b'{"game":"g","seq":-1,"type":"play","seat":1,"card":"AS"}',
    b'{"game":"g g","seq":1,"type":"play","seat":1,"card":"AS"}',
    b'{"game":"","seq":1,"type":"play","seat":1,"card":"AS"}',
    b'{"game":"g","seq":1,"type":"play","seat":1,"card":"AS","x":1}',
    b'{"game":"g","seq":1,"type":"play","seat":1,"card":"AS"}x',
    b'{"game":"g","seq":1,"type":"play","seat":true,"card":"AS"}',
    b'{"game":"g","seq":1,"type":"play","seat":"1","card":"AS"}',
    b'{"game":"g","seq":1,"type":"play","seat":1.0,"card":"AS"}',
    b'{"game":"\\u0067","seq":1,"type":"play","seat":1,"card":"AS"}',
    b'{"game":"g","seq":1,"type":"play","id":"not-a-uuid","seat":1,"card":"AS"}',
    b'{"game":"g","seq":1,"type":"play","at":"yesterday","seat":1,"card":"AS"}',
    b'{"seq":1,"game":"g","type":"play","seat":1,"card":"AS"}',
    b'{"game":"g","seq":1,"type":"bid","seat":1,"call":"pass"}',
])
def test_refuses_what_is_not_a_canonical_valid_play(line: bytes) -> None:
    assert fast_play(line) is None
    try:
        e = parse_event(line)
    except EventError:
        return  # invalid: the models say why
    assert canonical_json(e) != line or e.type != "play"  # valid, but not in canonical form


def test_declines_trailing_blank_lines() -> None:
    # valid and canonical but for the blank line: the fast path may decline, the models read it
    line = b'{"game":"g","seq":1,"type":"play","seat":1,"card":"AS"}\n\n'
    assert fast_play(line) is None and parse_event(line).type == "play"


_TEXT = st.text(alphabet="gs0123456789AJQKCDHS-_:.\"\\ {},x", max_size=12)


@settings(max_examples=examples(400), deadline=None)
@given(game=st.one_of(st.sampled_from(["g", "sim-1", "a.b:c_d-9"]), _TEXT),
       seq=st.one_of(st.integers(-2, 2**63 - 1), _TEXT), seat=st.one_of(st.integers(-1, 5), _TEXT),
       card=st.one_of(st.sampled_from(["7C", "10H", "AS", "JD", "1H", "10", "Ah"]), _TEXT),
       at=st.one_of(st.none(), st.sampled_from(["2026-11-30T20:15:00Z", "2026-13-01T00:00:00Z",
                                                 "2024-02-29t23:59:59.123-23:59"])),
       spaces=st.booleans(), tail=st.sampled_from([b"", b"\n", b"\r\n", b" ", b"\n\n"]))
def test_mutated_plays_agree_with_the_models(game: object, seq: object, seat: object,
                                             card: object, at: str | None, spaces: bool,
                                             tail: bytes) -> None:
    d: dict[str, object] = {"game": game, "seq": seq, "type": "play"}
    if at is not None:
        d["at"] = at
    d["seat"] = seat
    d["card"] = card
    line = orjson.dumps(d)
    if spaces:
        line = line.replace(b",", b", ")
    same_as_models(line + tail)


def test_a_fast_play_dumps_as_its_model_does() -> None:
    """A reader that writes an event's canonical bytes (the audit's retracted events) gets
    the same from a play read fast as from its model."""
    from jaslog.events import canonical_json, parse_event
    from jaslog.events.fast import fast_play

    line = (b'{"game":"g1","seq":4,"type":"play","at":"2026-12-06T05:00:00Z",'
            b'"id":"0b7c1f5e-2f40-4a55-9c2b-6e0e8d6b2d11","seat":2,"card":"10H"}')
    fast = fast_play(line)
    assert fast is not None
    assert fast.model_dump(exclude_none=True) == parse_event(line).model_dump(exclude_none=True)
    assert canonical_json(fast) == canonical_json(parse_event(line)) == line  # type: ignore[arg-type]


# ------------------------------------------------------------------ any event: fast_event


def same_event(line: bytes) -> bool:
    """fast_event agrees with parse_event on ``line``: None, or the same event (a play: its
    fields and bytes; another event: equal to the model, with the same fields set and in
    the same order). Returns whether the fast path took the line."""
    fe = fast_event(line)
    if fe is None:
        return False
    e = parse_event(line)  # must not raise: the fast path took a line the models refuse
    if isinstance(fe, FastPlay):
        assert fe.model_dump() == e.model_dump()
        return True
    assert type(fe) is type(e) and fe == e
    assert fe.__pydantic_fields_set__ == e.__pydantic_fields_set__
    assert list(fe.__dict__) == list(e.__dict__)
    assert fe.model_dump(exclude_unset=True) == e.model_dump(exclude_unset=True)
    return True


def test_every_line_of_the_replays_of_every_game() -> None:
    kinds = set()
    for path in sorted((ROOT / "replays").glob("*.jsonl")):
        for line in path.read_bytes().splitlines(keepends=True):
            if line.strip():
                assert same_event(line), line  # valid lines: every one taken
                kinds.add(parse_event(line).type)
    assert {"game_started", "dealt", "bid", "play", "roem", "trump_turned", "dix", "bella",
            "partner_call", "knock", "second_deal"} <= kinds


def test_a_body_read_before_takes_the_envelope_of_its_own_line() -> None:
    first = b'{"game":"g","seq":2,"type":"bid","at":"2026-12-06T05:00:00Z","seat":1,"call":"C"}'
    again = b'{"game":"h","seq":9,"type":"bid","id":"0b7c1f5e2f404a559c2b6e0e8d6b2d11","seat":1,"call":"C"}'
    assert same_event(first) and same_event(again)
    e = fast_event(again)
    assert e is not None and (e.game, e.seq, e.at, e.id) == \
        ("h", 9, None, "0b7c1f5e2f404a559c2b6e0e8d6b2d11")


@pytest.mark.parametrize("line", [
    b'{"game":"g","seq":1,"type":"dealt","hands":[["AS","1S"]]}',
    b'{"game":"g","seq":1,"type":"dealt","dealer":4}',
    b'{"game":"g","seq":1,"type":"dealt","hands":null}',
    b'{"game":"g","seq":1,"type":"dealt","dealer":1,"hands":[]}',
    b'{"game":"g","seq":1,"type":"dealt","turn_up":"2S"}',
    b'{"game":"g","seq":1,"type":"bid","seat":1,"call":"pass","seat":2}',
    b'{"game":"g","seq":1,"type":"bid","seat":1,"call":"pass","x":null}',
    b'{"game":"g","seq":1,"type":"bid","seat":1, "call":"pass"}',
    b'{"game":"g","seq":1,"type":"bid","call":"pass","seat":1}',
    b'{"game":"g","seq":1,"type":"roem","seat":1,"points":20.0}',
    b'{"game":"g","seq":1,"type":"roem","seat":1,"points":10001}',
    b'{"game":"g","seq":1,"type":"note","text":"caf\\u00e9"}',
    b'{"game":"g","seq":1,"type":"note","text":""}',
    b'{"game":"g","seq":1,"type":"nope","seat":1}',
    b'{"game":"..","seq":1,"type":"bid","seat":1,"call":"pass"}',
    b'{"game":"g","seq":1,"type":"bid","at":"2026-02-30T00:00:00Z","seat":1,"call":"pass"}',
    b'{"game":"g","seq":0,"type":"game_started","ruleset":"nowhere","seats":["a","b","c","d"],"dealer":0}',
    b'{"game":"g","seq":1,"type":"correction","retracts":[0],"reason":"x"}',
])
def test_refuses_what_is_not_a_canonical_valid_event(line: bytes) -> None:
    for _ in range(2):  # twice: a body that is not canonical is never kept for the next line
        same_event(line)  # (a valid line is its model, read as parse_event reads it)
    try:
        e = parse_event(line)
    except EventError:
        assert fast_event(line) is None
        return
    assert canonical_json(e) != line  # valid, but not in canonical form: read by its model


def test_canonical_deals_of_every_shape() -> None:
    cards = ["7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC"]
    for body in (b"", b',"dealer":2', b',"hands":[]', b',"hands":[[],[]]',
                 b',"hands":' + orjson.dumps([cards, cards[:3]]) + b',"dealer":0,"turn_up":"JS",'
                 b'"stock":' + orjson.dumps(cards)):
        line = b'{"game":"g","seq":1,"type":"dealt","at":"2026-12-06T05:00:00Z"' + body + b"}\n"
        assert same_event(line), line
