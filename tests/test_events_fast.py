"""The canonical-play fast path accepts nothing the models refuse, and reads what they read."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaslog.events import EventError, canonical_json, parse_event
from jaslog.events.fast import PLAY_TEXT, FastPlay, fast_play
from tests.examples import examples

ROOT = Path(__file__).resolve().parents[1]


def same_as_text_pattern(line: bytes) -> None:
    """The import's reader (:data:`PLAY_TEXT` on the line's Latin-1 text) takes exactly the
    lines fast_play takes, with the same fields and the same bytes for the payload."""
    fp = fast_play(line)
    m = PLAY_TEXT.fullmatch(line.decode("latin-1"))
    assert (m is None) == (fp is None), line
    if m is not None and fp is not None:
        _, game, seq, at, eid, rec, seat, card = m.groups()
        assert (game, int(seq), at, eid, rec, int(seat), card) == \
            (fp.game, fp.seq, fp.at, fp.id, fp.recorded_at, fp.seat, fp.card)
        assert line[:m.end(1)] == fp.payload


def same_as_models(line: bytes) -> bool:
    """fast_play agrees with parse_event on ``line``: None, or the same fields and bytes
    (and so does the import's reader). Returns whether the fast path took the line."""
    same_as_text_pattern(line)
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
    b'{"game":"g\xc3\xa9","seq":1,"type":"play","seat":1,"card":"AS"}',
    b'{"game":"g","seq":1,"type":"play","seat":1,"card":"AS"}\xff',
    b'{"game":"g","seq":\xd9\xa1,"type":"play","seat":1,"card":"AS"}',
    b'{"game":"g","seq":1,"type":"play","id":"not-a-uuid","seat":1,"card":"AS"}',
    b'{"game":"g","seq":1,"type":"play","at":"yesterday","seat":1,"card":"AS"}',
    b'{"seq":1,"game":"g","type":"play","seat":1,"card":"AS"}',
    b'{"game":"g","seq":1,"type":"bid","seat":1,"call":"pass"}',
])
def test_refuses_what_is_not_a_canonical_valid_play(line: bytes) -> None:
    assert fast_play(line) is None
    same_as_text_pattern(line)
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


def test_a_fast_play_reads_its_fields_as_plain_attributes() -> None:
    """A FastPlay has no ``__getattr__`` hook (with one, Python reads every field of it, the
    fold's and the import's, the slow way, about four times as long): the payload of a play
    made from its fields is a cached property, written when first asked for and kept."""
    assert "__getattr__" not in vars(FastPlay)
    p = FastPlay("g1", 4, 2, "10H", "2026-01-05T19:30:55Z", None, None)
    assert "payload" not in p.__dict__
    assert p.payload == b'{"game":"g1","seq":4,"type":"play","at":"2026-01-05T19:30:55Z",' \
                        b'"seat":2,"card":"10H"}'
    assert p.__dict__["payload"] is p.payload
    with pytest.raises(AttributeError):
        getattr(p, "hands")  # noqa: B009
