"""One set of limits for every reader and writer of ``jaslog/1``: numbers within 64 bits and
finite, free JSON at most 32 levels deep, a line (and a stored event) at most 1 MiB.

``check`` and ``import`` read a log with the same parser: what ``check`` accepts the store
keeps byte for byte (as ``check`` read it), what it refuses ``import`` rejects, game by game,
naming file and line, and the valid games of the file are stored all the same.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.events import (
    MAX_LINE,
    EventError,
    canonical_json,
    event_from_dict,
    parse_event,
    validate_event_json,
)
from jaslog.events.limits import MAX_DEPTH, json_problem
from jaslog.logs import read_line
from jaslog.play.sim import simulate_game
from tests.cli import jaslog

START = (b'{"game":"g","seq":0,"type":"game_started","ruleset":"amsterdam",'
         b'"seats":["a","b","c","d"],"dealer":0,"meta":')

#: meta values (as JSON text) a log may not hold, and what the refusal says
BEYOND = [
    (b'{"x":NaN}', "field 'meta.x': NaN is not a JSON number"),
    (b'{"x":Infinity}', "field 'meta.x': Infinity is not a JSON number"),
    (b'{"x":[1,-Infinity]}', "field 'meta.x[1]': -Infinity is not a JSON number"),
    (b'{"x":1e400}', "field 'meta.x': Infinity is not a JSON number"),
    (b'{"x":1180591620717411303424}',
     "field 'meta.x': 1180591620717411303424 does not fit in 64 bits"),
    (b'{"x":9223372036854775808}', "field 'meta.x': 9223372036854775808 does not fit in 64 bits"),
    (b'{"x":-9223372036854775809}', "does not fit in 64 bits"),
    (b'{"x":' + b"[" * 40 + b"]" * 40 + b"}", "field 'meta.x': nested more than 32 levels deep"),
    (b'{"x":' + b"[" * 300 + b"]" * 300 + b"}", "field 'meta.x': nested more than 32 levels deep"),
    (b'{"x":' + b"[" * 3000 + b"]" * 3000 + b"}", "nested too deeply"),
    (b'{"x":' + b"9" * 5000 + b"}", f"the number at character {len(START) + 6} has 5000 digits: "
                                   "numbers are integers within 64 bits or finite decimals"),
]


@pytest.mark.parametrize(("meta", "says"), BEYOND, ids=range(len(BEYOND)))
def test_every_reader_refuses_what_a_log_may_not_hold(meta: bytes, says: str) -> None:
    line = START + meta + b"}"
    with pytest.raises(EventError) as err:
        parse_event(line)
    assert says in str(err.value)
    assert "nested too deeply?" not in str(err.value)
    ln = read_line(line, "f.jsonl", 7)  # check, replay, export --from and import read so
    assert ln.event is None and ln.game == "g" and says in (ln.error or "")
    with pytest.raises(ValueError):
        validate_event_json(line)  # the import's hot path
    try:  # as a program's dict (the store's Python API, the service): Python's json reads all
        decoded = json.loads(line)
    except (ValueError, RecursionError):
        return
    with pytest.raises(EventError) as err:
        event_from_dict(decoded)
    assert says in str(err.value)


def test_what_is_within_the_limits_is_read_and_written_alike() -> None:
    meta = {"x": [2**63 - 1, -(2**63), 1.5e308, -0.25], "deep": [[[[1]]]], "s": "é\u2028"}
    nested: Any = 1
    for _ in range(MAX_DEPTH - 1):  # meta.nested[0]...[0] holds 1 at depth 32: the most
        nested = [nested]
    meta["nested"] = nested
    assert json_problem({"nested": [nested]}, "meta") == "meta.nested: nested more than 32 levels deep"
    line = START + orjson.dumps(meta) + b"}"
    e = parse_event(line)
    assert canonical_json(e) == line  # the bytes read are the bytes written
    assert json_problem(meta, "meta") is None


def test_seq_and_retracts_are_64_bit_too() -> None:
    big = b"99999999999999999999999"
    for line, field in ((b'{"game":"g","seq":' + big + b',"type":"note","text":"x"}', "'seq'"),
                        (b'{"game":"g","seq":3,"type":"correction","retracts":[' + big +
                         b'],"reason":"x"}', "'retracts.0'")):
        with pytest.raises(EventError, match=f"field {field}: {big.decode()} does not fit"):
            parse_event(line)


def test_an_event_longer_than_a_line_in_its_canonical_text_is_refused() -> None:
    """``1e5`` is written ``100000.0``: a line under 1 MiB may be longer than that once
    written canonically; it is refused when read, so nothing the store would refuse passes."""
    n = MAX_LINE // 8
    line = START + b'{"x":[' + b",".join([b"1e5"] * n) + b"]}}"
    assert len(line) < MAX_LINE
    with pytest.raises(EventError, match=r"bytes long as a jaslog/1 line; the limit is 1048576"):
        parse_event(line)


def _game(gid: str, seed: int) -> list[bytes]:
    return [orjson.dumps(e) for e in simulate_game(gid, seed=seed)]


def _with_meta(lines: list[bytes], meta: bytes) -> list[bytes]:
    first = orjson.loads(lines[0])
    first.pop("meta", None)
    return [orjson.dumps(first)[:-1] + b',"meta":' + meta + b"}", *lines[1:]]


def test_check_and_import_agree_game_by_game(tmp_path: Path) -> None:
    """A file with valid games and games beyond the limits: ``check`` refuses exactly the
    games ``import`` rejects (each named with its file and line), the valid games are stored,
    and each as ``check`` read it, byte for byte (meta numbers included)."""
    good = _with_meta(_game("ok-1", 1), b'{"rate": 1.5e3, "n": -9223372036854775808, "t": "3"}')
    other = _game("ok-2", 2)
    bad = {f"bad-{i}": _with_meta(_game(f"bad-{i}", 10 + i), meta)
           for i, (meta, _) in enumerate(BEYOND[:9])}
    lines = [*good[:5], *bad["bad-0"], *good[5:], *other]
    for b in list(bad.values())[1:]:
        lines += b
    log = tmp_path / "mixed.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")

    checked = [orjson.loads(x) for x in jaslog("check", "--json", str(log)).stdout.splitlines()]
    valid = sorted(g["game"] for g in checked if g["ok"])
    assert valid == ["ok-1", "ok-2"]
    assert sorted(g["game"] for g in checked if not g["ok"]) == sorted(bad)

    db = str(tmp_path / "s.sqlite")
    r = jaslog("import", "--json", "--db", db, str(log))
    assert r.returncode == 2, r.stderr
    summary = orjson.loads(r.stdout)
    assert (summary["games"], sorted(x["game"] for x in summary["rejected"])) == (2, sorted(bad))
    for x in summary["rejected"]:
        first = next(i for i, ln in enumerate(lines, 1)
                     if ln.startswith(b'{"game":"%s"' % x["game"].encode()))
        assert x["reason"].startswith(f"{log}:{first}: game {x['game']}"), x["reason"]
        assert "Traceback" not in x["reason"]
    for gid, src in (("ok-1", good), ("ok-2", other)):
        dumped = jaslog("dump", "--db", db, gid).stdout
        assert dumped == b"".join(canonical_json(parse_event(x)) + b"\n" for x in src)
    assert b'"rate":1500.0,"n":-9223372036854775808' in jaslog("dump", "--db", db, "ok-1").stdout


def test_the_parallel_import_rejects_the_same_games(tmp_path: Path) -> None:
    """Two workers: a game beyond the limits is rejected like any bad game (it once stopped
    the worker with a traceback)."""
    from jaslog.store import open_store

    lines = _game("p-ok", 1) + _with_meta(_game("p-bad", 2), b'{"x":1180591620717411303424}')
    log = tmp_path / "p.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")
    with open_store(str(tmp_path / "p.sqlite")) as store:
        s = store.import_files([log], workers=2)
        assert s.games == 1 and [r.game for r in s.rejected] == ["p-bad"]
        assert "does not fit in 64 bits" in s.rejected[0].reason


def test_dot_and_dot_dot_are_no_game_ids() -> None:
    from jaslog.events.fast import fast_play

    for gid in (b".", b".."):
        line = b'{"game":"' + gid + b'","seq":4,"type":"play","seat":2,"card":"10H"}'
        assert fast_play(line) is None
        with pytest.raises(EventError, match="no URL can name them"):
            parse_event(line)
    assert parse_event(b'{"game":"...","seq":4,"type":"play","seat":2,"card":"10H"}').game == "..."
