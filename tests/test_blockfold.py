"""``check``'s compiled reading (:mod:`jaslog.play.blockfold`) takes a play from its bytes
exactly when the regex of the import's fast path does (:func:`jaslog.events.fast.fast_play`),
with the same fields and bytes; any other line goes the models' way, with the same error."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from jaslog.events import AT_PATTERN, UUID_PATTERN, EventError, canonical_json, parse_event
from jaslog.events.fast import fast_play
from jaslog.events.limits import MAX_LINE
from jaslog.events.line_bytes import time_end, uuid_end
from jaslog.games import PRESETS
from jaslog.logs import LogFiles
from jaslog.play.blockfold import BlockFolder
from jaslog.play.fold import FileGame, fold_lines
from jaslog.play.logfold import fold_log
from jaslog.play.sim import Faults, simulate_game
from tests.examples import examples
from tests.test_logfold import read

ROOT = Path(__file__).resolve().parents[1]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))
FIELDS = ("game", "seq", "type", "seat", "card", "at", "id", "recorded_at")


def taken_alike(line: bytes, folder: BlockFolder | None = None) -> bool:
    """The byte reader and fast_play agree on ``line`` (with its line break, if any): both
    refuse it, or both take it with the same fields and canonical bytes. Returns whether
    they took it."""
    ended = line.endswith(b"\n")
    fp = fast_play(line)
    bp = (folder or BlockFolder("x", {}, {})).play(line[:-1] if ended else line, ended)
    assert (bp is None) == (fp is None), line
    if fp is None or bp is None:
        return False
    assert [getattr(bp, f) for f in FIELDS] == [getattr(fp, f) for f in FIELDS], line
    assert bp.payload == fp.payload
    return True


def test_every_play_of_the_replays_is_read_from_its_bytes() -> None:
    folder = BlockFolder("x", {}, {})  # (one reader: the game's line start is kept)
    taken = lines = 0
    for path in REPLAYS:
        for line in path.read_bytes().splitlines(keepends=True):
            lines += 1
            took = taken_alike(line, folder)
            taken += took
            # the same as a file's last line (no line break), and with CRLF
            assert taken_alike(line.rstrip(b"\r\n")) == took
            assert taken_alike(line.rstrip(b"\r\n") + b"\r\n") == took
    assert taken > 1000 and taken < lines


@pytest.mark.parametrize("line", [
    b'{"game":"g","seq":7,"type":"play","at":"2028-02-29T20:15:00.5+01:00",'
    b'"id":"0123456789ABCDEF0123456789abcdef","seat":3,"card":"AS"}\r\n',
    b'{"game":"g","seq":7,"type":"play","at":"2026-02-29T20:15:00Z","seat":3,"card":"AS"}\n',
    b'{"game":"g","seq":7,"type":"play","at":"1900-02-29T20:15:00Z","seat":3,"card":"AS"}\n',
    b'{"game":"g","seq":7,"type":"play","at":"2000-02-29t20:15:00z","seat":3,"card":"10S"}',
    b'{"game":"g","seq":7,"type":"play","at":"0000-01-01T00:00:00Z","seat":3,"card":"AS"}',
    b'{"game":"g","seq":7,"type":"play","at":"2026-01-01 23:59:59-23:59","seat":0,"card":"7C"}',
    b'{"game":"g","seq":7,"type":"play","at":"2026-01-01T23:59:59+23:60","seat":0,"card":"7C"}',
    b'{"game":"g","seq":7,"type":"play","at":"2026-01-01T23:59:59+22:99","seat":0,"card":"7C"}',
    b'{"game":"g","seq":7,"type":"play","at":"2026-01-01T24:00:00Z","seat":0,"card":"7C"}',
    b'{"game":"g","seq":7,"type":"play","at":"2026-01-01T23:59:60Z","seat":0,"card":"7C"}',
    b'{"game":"g","seq":7,"type":"play","at":"2026-04-31T23:59:59Z","seat":0,"card":"7C"}',
    b'{"game":"g","seq":7,"type":"play","at":"2026-01-01T00:00:00.Z","seat":0,"card":"7C"}',
    b'{"game":"g","seq":7,"type":"play","recorded_at":"2026-01-01T00:00:00Z","seat":0,"card":"QH"}',
    b'{"game":"g","seq":7,"type":"play","id":"01234567-89ab-cdef-0123-456789abcdef",'
    b'"recorded_at":"2026-12-31T00:00:00.000001-00:30","seat":2,"card":"KD"}\n',
    b'{"game":"g","seq":7,"type":"play","id":"01234567-89ab-cdef-0123-456789abcde","seat":2,'
    b'"card":"KD"}',
    b'{"game":"g","seq":7,"type":"play","id":"01234567--89ab-cdef-0123-456789abcdef","seat":2,'
    b'"card":"KD"}',
    b'{"game":"g","seq":0,"type":"play","seat":1,"card":"9H"}\r',
    b'{"game":"g","seq":01,"type":"play","seat":1,"card":"9H"}',
    b'{"game":"g","seq":123456789012345678,"type":"play","seat":1,"card":"9H"}',
    b'{"game":"g","seq":1234567890123456789,"type":"play","seat":1,"card":"9H"}',
    b'{"game":".","seq":1,"type":"play","seat":1,"card":"9H"}',
    b'{"game":"..","seq":1,"type":"play","seat":1,"card":"9H"}',
    b'{"game":"...","seq":1,"type":"play","seat":1,"card":"9H"}',
    b'{"game":"' + b"x" * 128 + b'","seq":1,"type":"play","seat":1,"card":"9H"}',
    b'{"game":"' + b"x" * 129 + b'","seq":1,"type":"play","seat":1,"card":"9H"}',
    b'{"game":"g","seq":1,"type":"play","seat":4,"card":"AS"}',
    b'{"game":"g","seq":1,"type":"play","seat":1,"card":"1S"}',
    b'{"game":"g","seq":1,"type":"play","seat":1,"card":"10"}',
    b'{"game":"g","seq":1,"type":"play","seat":1,"card":"100S"}',
    b'{"game":"g","seq":1,"type":"play","seat":1,"card":"AS"} ',
    b'{"game":"g","seq":1,"type":"play","seat":1,"card":"AS","x":1}',
    b'{"game":"g","seq":1,"type":"play","seat":11,"card":"AS"}',
])
def test_edges_of_every_field(line: bytes) -> None:
    taken_alike(line)


_PLAY = (b'{"game":"g-1","seq":12,"type":"play","at":"2026-01-05T19:30:55.25+01:00",'
         b'"id":"0123456789abcdef0123456789abcdef","recorded_at":"2026-01-05T19:30:56Z",'
         b'"seat":2,"card":"10H"}\n')


#: The property tests below try a few hundred examples in ``make test`` (a fifth of that in
#: the quick loop and the pure run) and their ``_many`` twins, marked ``soak``, thousands.
PLAY_PROPERTY = given(st.integers(0, len(_PLAY) - 1), st.binary(max_size=3), st.integers(0, 3))


def _play_changed(at: int, put: bytes, cut: int) -> None:
    taken_alike(_PLAY[:at] + put + _PLAY[at + cut:])


@settings(max_examples=examples(300), deadline=None)
@PLAY_PROPERTY
@example(0, b"", 0)
def test_a_play_changed_anywhere_is_taken_as_the_regex_takes_it(at: int, put: bytes,
                                                                 cut: int) -> None:
    """Any bytes put in place of any few bytes of a play: taken alike, or refused alike."""
    _play_changed(at, put, cut)


@pytest.mark.soak
@settings(max_examples=3000, deadline=None)
@PLAY_PROPERTY
def test_a_play_changed_anywhere_is_taken_as_the_regex_takes_it_many(at: int, put: bytes,
                                                                      cut: int) -> None:
    _play_changed(at, put, cut)


_AT = re.compile(AT_PATTERN.encode())
_UUID = re.compile(UUID_PATTERN.encode())
TIME_PROPERTY = given(st.from_regex(_AT, fullmatch=True) | st.from_regex(
    rb"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?([Zz]|[+-][0-9]{2}:"
    rb"[0-9]{2})", fullmatch=True))
ID_PROPERTY = given(st.from_regex(_UUID, fullmatch=True) | st.from_regex(rb"[0-9a-fA-F-]{28,40}",
                                                                         fullmatch=True))


def _time_taken(t: bytes) -> None:
    raw = t + b'"'
    assert (time_end(raw, 0, len(raw)) == len(t)) == bool(_AT.fullmatch(t)), t


def _id_taken(u: bytes) -> None:
    raw = u + b'"'
    assert (uuid_end(raw, 0, len(raw)) == len(u)) == bool(_UUID.fullmatch(u)), u


@settings(max_examples=examples(400), deadline=None)
@TIME_PROPERTY
@example(b"2000-02-29T00:00:00Z")
@example(b"2100-02-29T00:00:00Z")
@example(b"2400-02-29T00:00:00+23:59")
@example(b"2026-02-29T00:00:00Z")
@example(b"2026-04-31T23:59:59+01:00")
@example(b"2026-01-01T24:00:00Z")
@example(b"2026-01-01T23:59:59.Z")
def test_a_time_is_taken_as_the_models_pattern_takes_it(t: bytes) -> None:
    _time_taken(t)


@pytest.mark.soak
@settings(max_examples=4000, deadline=None)
@TIME_PROPERTY
def test_a_time_is_taken_as_the_models_pattern_takes_it_many(t: bytes) -> None:
    _time_taken(t)


@settings(max_examples=examples(200), deadline=None)
@ID_PROPERTY
@example(b"01234567-89ab-cdef-0123-456789abcdef")
@example(b"01234567-89ab-cdef-0123-456789abcde")
def test_an_id_is_taken_as_the_models_pattern_takes_it(u: bytes) -> None:
    _id_taken(u)


@pytest.mark.soak
@settings(max_examples=1000, deadline=None)
@ID_PROPERTY
def test_an_id_is_taken_as_the_models_pattern_takes_it_many(u: bytes) -> None:
    _id_taken(u)


def _lines(paths: list[Path]) -> list[tuple[str, str | None, list[tuple[str, int]]]]:
    with contextlib.ExitStack() as stack:
        log = LogFiles(paths, stack)
        return [(g.game, str(g.error), list(g.lines)) if isinstance(g, FileGame) else ("bare", str(g), [])
                for g in fold_log(log)]


def test_games_mixed_line_by_line_and_one_going_on_in_the_next_file(tmp_path: Path) -> None:
    """Two games' lines alternating, then one of them going on in a second file: handed on
    where the reading line by line hands them on."""
    a, b = (REPLAYS[0].read_bytes().splitlines(keepends=True),
            REPLAYS[1].read_bytes().splitlines(keepends=True))
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(b"".join(x for pair in zip(a, b, strict=False) for x in pair)
                      + b"".join(a[len(b):] + b[len(a):]))
    again = tmp_path / "again.jsonl"
    again.write_bytes(b"".join(a[:3]))
    assert read([mixed, again], fast=True) == read([mixed, again], fast=False)
    with contextlib.ExitStack() as stack:
        log = LogFiles([mixed, again], stack)
        slow = [g.game if isinstance(g, FileGame) else "bare"
                for g in fold_lines(log.lines(), log.is_last)]
    assert [g[0] for g in _lines([mixed, again])] == slow and len(slow) == 2


def test_the_cycle_collector_is_as_found_once_the_reading_ends_or_stops() -> None:
    """fold_log pauses the collector while a log is read: on again after the last game, and
    after a reader that stops early closes it; left off when it was off."""
    import gc

    assert gc.isenabled()
    with contextlib.ExitStack() as stack:
        games: Any = fold_log(LogFiles(REPLAYS[:2], stack))  # (a generator: it closes)
        next(games)
        assert not gc.isenabled()
        games.close()
        assert gc.isenabled()
        assert len(list(fold_log(LogFiles(REPLAYS[:2], stack)))) == 2
        assert gc.isenabled()
        gc.disable()
        try:
            list(fold_log(LogFiles(REPLAYS[:2], stack)))
            assert not gc.isenabled()
        finally:
            gc.enable()


# ------------------------------------------------------------------ deals, bids, roem claims


def modelled_alike(line: bytes) -> str | None:
    """The byte reader's model of ``line`` (a deal, a bid or a roem claim in canonical text)
    is the model's own: the same class, fields in the same order, the same fields given,
    the same canonical bytes; or the byte reader leaves the line to the models (always when
    they refuse it). Returns the type it took, or None."""
    ended = line.endswith(b"\n")
    raw = line[:-1] if ended else line
    folder = BlockFolder("x", {}, {})
    assert folder.scan(raw, ended) < 0 or b'"type":"play"' in raw  # (it reads the game first)
    m = folder.model(raw, ended)
    try:
        e = parse_event(line)
    except EventError:
        assert m is None, line
        return None
    if m is None:
        return None
    assert type(m) is type(e) and m == e, line
    assert list(m.__dict__.items()) == list(e.__dict__.items()), line
    assert m.model_fields_set == e.model_fields_set, line
    assert (m.__pydantic_extra__, m.__pydantic_private__) == (e.__pydantic_extra__,
                                                              e.__pydantic_private__)
    assert canonical_json(m) == canonical_json(e) == line.rstrip(b"\r\n"), line
    return m.type


def _simulated_lines() -> list[bytes]:
    """Every preset of every game, one simulated game each, with faults, as canonical lines."""
    out = []
    for i, preset in enumerate(sorted(PRESETS)):
        events = simulate_game(f"s{i}", preset, seed=i, bot="random",
                               faults=Faults(revoke_rate=0.2, no_hands_rate=0.3),
                               at="2026-01-05T19:30:00Z")
        out += [orjson.dumps(e) + b"\n" for e in events]
    return out


def test_every_deal_bid_and_roem_claim_of_the_replays_and_the_games_is_read_from_its_bytes(
        ) -> None:
    lines = _simulated_lines() + [x for path in REPLAYS
                                  for x in path.read_bytes().splitlines(keepends=True)]
    taken: dict[str | None, int] = {}
    for line in lines:
        for variant in (line, line.rstrip(b"\r\n"), line.rstrip(b"\r\n") + b"\r\n"):
            kind = modelled_alike(variant)
            taken[kind] = taken.get(kind, 0) + 1
    assert taken.get("dealt", 0) > 100 and taken.get("bid", 0) > 100 and \
        taken.get("roem", 0) > 10, taken


_HAND = b'["7C","8C","9C","10C","JC","QC","KC","AC"]'


@pytest.mark.parametrize("line", [
    b'{"game":"g","seq":1,"type":"bid","seat":3,"call":"pass"}',
    b'{"game":"g","seq":1,"type":"bid","at":"2026-01-05T19:30:55Z","id":"0123456789abcdef01234'
    b'56789abcdef","recorded_at":"2026-01-05T19:30:56.5+01:00","seat":0,"call":"schmeiss"}\n',
    b'{"game":"g","seq":1,"type":"bid","seat":3,"call":"Pass"}',
    b'{"game":"g","seq":1,"type":"bid","seat":3,"call":""}',
    b'{"game":"g","seq":1,"type":"bid","seat":3,"call":"C"} ',
    b'{"game":"g","seq":1,"type":"bid","seat":4,"call":"C"}',
    b'{"game":"g","seq":1,"type":"bid","seat":33,"call":"C"}',
    b'{"game":"g","seq":1,"type":"bid","seat":3}',
    b'{"game":"g","seq":1,"type":"bid","call":"C","seat":3}',
    b'{"game":"g","seq":1,"type":"bid","seat":3,"call":"\\u0043"}',
    b'{"game":"g","seq":1,"type":"bid","seat":3,"call":"C","x":1}',
    b'{"game":"g","seq":01,"type":"bid","seat":3,"call":"C"}',
    b'{"game":"g","seq":1,"type":"bid","at":"2026-02-29T19:30:55Z","seat":3,"call":"C"}',
    b'{"game":"g","seq":1,"type":"roem","seat":1,"points":0}\r\n',
    b'{"game":"g","seq":1,"type":"roem","seat":1,"points":10000}',
    b'{"game":"g","seq":1,"type":"roem","seat":1,"points":10001}',
    b'{"game":"g","seq":1,"type":"roem","seat":1,"points":020}',
    b'{"game":"g","seq":1,"type":"roem","seat":1,"points":-0}',
    b'{"game":"g","seq":1,"type":"roem","seat":1,"points":20.0}',
    b'{"game":"g","seq":1,"type":"roem","seat":1,"points":123456789012345678901}',
    b'{"game":"g","seq":1,"type":"roem","seat":1,"points":true}',
    b'{"game":"g","seq":1,"type":"dealt"}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[]}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[[]]}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[[],[]],"dealer":2}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[' + b",".join([_HAND] * 4) + b']}\n',
    b'{"game":"g","seq":1,"type":"dealt","hands":[' + _HAND + b'],"dealer":3,"turn_up":"10D",'
    b'"stock":["7D","AS"]}',
    b'{"game":"g","seq":1,"type":"dealt","turn_up":"JD","stock":[]}',
    b'{"game":"g","seq":1,"type":"dealt","dealer":4}',
    b'{"game":"g","seq":1,"type":"dealt","turn_up":"2D"}',
    b'{"game":"g","seq":1,"type":"dealt","turn_up":"1D"}',
    b'{"game":"g","seq":1,"type":"dealt","hands":null}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[["7C",]]}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[["7C"],]}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[["7C"]],}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[["7C" ]]}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[["7C"]]',
    b'{"game":"g","seq":1,"type":"dealt","hands":[["7C"]]}}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[["11C"]]}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[[7]]}',
    b'{"game":"g","seq":1,"type":"dealt","stock":["7D"],"turn_up":"JD"}',
    b'{"game":"g","seq":1,"type":"dealt","dealer":1,"hands":[]}',
    b'{"game":"..","seq":1,"type":"dealt"}',
    b'{"game":"g","seq":1,"type":"game_started","ruleset":"amsterdam","seats":["a","b","c","d"],'
    b'"dealer":0}',
])
def test_edges_of_a_deal_a_bid_and_a_roem_claim(line: bytes) -> None:
    kind = modelled_alike(line)
    assert (kind is not None) == (line in TAKEN), line


#: The lines of :func:`test_edges_of_a_deal_a_bid_and_a_roem_claim` read from their bytes.
TAKEN = {
    b'{"game":"g","seq":1,"type":"bid","seat":3,"call":"pass"}',
    b'{"game":"g","seq":1,"type":"bid","at":"2026-01-05T19:30:55Z","id":"0123456789abcdef01234'
    b'56789abcdef","recorded_at":"2026-01-05T19:30:56.5+01:00","seat":0,"call":"schmeiss"}\n',
    b'{"game":"g","seq":1,"type":"roem","seat":1,"points":0}\r\n',
    b'{"game":"g","seq":1,"type":"roem","seat":1,"points":10000}',
    b'{"game":"g","seq":1,"type":"dealt"}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[]}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[[]]}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[[],[]],"dealer":2}',
    b'{"game":"g","seq":1,"type":"dealt","hands":[' + b",".join([_HAND] * 4) + b']}\n',
    b'{"game":"g","seq":1,"type":"dealt","hands":[' + _HAND + b'],"dealer":3,"turn_up":"10D",'
    b'"stock":["7D","AS"]}',
    b'{"game":"g","seq":1,"type":"dealt","turn_up":"JD","stock":[]}',
}


def test_a_line_past_the_limit_is_left_to_the_models() -> None:
    """The longest line (:data:`jaslog.events.limits.MAX_LINE`, its line break counted) is
    read from its bytes; a longer one is left to the models, which refuse it."""
    head, tail = b'{"game":"g","seq":1,"type":"dealt","stock":["AS"', b"]}"
    cards = (MAX_LINE - len(head) - len(tail)) // 5
    line = head + b',"AS"' * cards + tail
    line = line.replace(b'"stock":["AS"', b'"stock":["10S"', MAX_LINE - len(line))
    folder = BlockFolder("x", {}, {})
    folder.scan(line, False)
    assert len(line) == MAX_LINE and folder.model(line, False) is not None
    assert folder.model(line, True) is None  # (with its line break: one byte too long)
    with pytest.raises(EventError):
        parse_event(line + b"\n")


_DEAL = (b'{"game":"g-1","seq":1,"type":"dealt","at":"2026-01-05T19:30:55Z","hands":['
         + b",".join([_HAND] * 2) + b'],"dealer":1,"turn_up":"10D","stock":["7D","AS"]}\n')
_BID = (b'{"game":"g-1","seq":12,"type":"bid","id":"0123456789abcdef0123456789abcdef",'
        b'"seat":2,"call":"accept"}\n')
_ROEM = (b'{"game":"g-1","seq":12,"type":"roem","recorded_at":"2026-01-05T19:30:56Z","seat":2,'
         b'"points":50}\n')


OTHER_PROPERTY = given(st.sampled_from([_DEAL, _BID, _ROEM]), st.integers(0, 400),
                       st.binary(max_size=3), st.integers(0, 3))


def _other_changed(line: bytes, at: int, put: bytes, cut: int) -> None:
    at %= len(line)
    modelled_alike(line[:at] + put + line[at + cut:])


@settings(max_examples=examples(300), deadline=None)
@OTHER_PROPERTY
def test_a_deal_bid_or_roem_claim_changed_anywhere_is_read_as_the_models_read_it(
        line: bytes, at: int, put: bytes, cut: int) -> None:
    """Any bytes put in place of any few bytes: the same model, or left to the models."""
    _other_changed(line, at, put, cut)


@pytest.mark.soak
@settings(max_examples=1500, deadline=None)
@OTHER_PROPERTY
def test_a_deal_bid_or_roem_claim_changed_anywhere_is_read_as_the_models_read_it_many(
        line: bytes, at: int, put: bytes, cut: int) -> None:
    _other_changed(line, at, put, cut)
