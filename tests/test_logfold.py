"""``jaslog check``'s reading (:func:`jaslog.play.logfold.fold_log`) gives, game for game, what
the reading line by line through the models gives: the same folds, errors and places."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.engine.fold import FoldError
from jaslog.logs import LogFiles
from jaslog.play.audit import game_report
from jaslog.play.fold import FileGame, fold_lines
from jaslog.play.logfold import fold_log
from jaslog.play.sim import simulate_game

ROOT = Path(__file__).resolve().parents[1]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))


def read(paths: list[Path], fast: bool) -> list[Any]:
    """What check reports of each game of ``paths``: read by fold_log (``fast``) or line by
    line through the models."""
    out: list[Any] = []
    with contextlib.ExitStack() as stack:
        log = LogFiles(paths, stack)
        games = fold_log(log) if fast else fold_lines(log.lines(), log.is_last)
        for g in games:
            if isinstance(g, FoldError):
                out.append(("bare", str(g)))
                continue
            assert isinstance(g, FileGame)
            out.append((g.game, None if g.error is None else str(g.error), list(g.lines),
                        json.dumps(game_report(g.game, g.fold, g.error), sort_keys=True)))
    return out


def spaced(line: bytes) -> bytes:
    """The same event, not in canonical form (spaces after the separators)."""
    return json.dumps(orjson.loads(line)).encode() + b"\n"


@pytest.mark.parametrize("path", REPLAYS, ids=[p.name for p in REPLAYS])
def test_a_canonical_log_and_its_spaced_twin_fold_alike(path: Path, tmp_path: Path) -> None:
    twin = tmp_path / path.name
    twin.write_bytes(b"".join(spaced(ln) for ln in path.read_bytes().splitlines() if ln.strip()))
    fast = read([path], fast=True)
    assert fast == read([path], fast=False)
    twin_fast = read([twin], fast=True)
    assert twin_fast == read([twin], fast=False)
    # the same games, folds and reports; only the file named in each place differs
    assert [(g[0], g[1], [n for _, n in g[2]], g[3]) for g in fast] == \
        [(g[0], g[1], [n for _, n in g[2]], g[3]) for g in twin_fast]


def _game(gid: str, seed: int) -> list[bytes]:
    return [orjson.dumps(e) + b"\n" for e in simulate_game(gid, seed=seed)[:30]]


BAD = {  # a bad line in place of seq 5, and the error check gives for it
    "seat": (b'{"game":"g","seq":5,"type":"play","seat":4,"card":"AS"}\n',
             "bad.jsonl:36: game g seq 5: field 'seat': Input should be less than or equal to 3 "
             "(got 4) [bad_event]"),
    "card": (b'{"game":"g","seq":5,"type":"play","seat":1,"card":"1S"}\n',
             "bad.jsonl:36: game g seq 5: field 'card': '1S' is not a card (canonical text: "
             "10H, JC, AS) [bad_event]"),
    "call": (b'{"game":"g","seq":5,"type":"bid","seat":1,"call":"nope"}\n', None),
    "type": (b'{"game":"g","seq":5,"type":"nope","seat":1}\n', None),
    "gap": (b'{"game":"g","seq":7,"type":"bid","seat":1,"call":"pass"}\n',
            "bad.jsonl:36: game g seq 7: seq 7 is a gap before the expected seq 5 [seq_gap]"),
    "json": (b'{"game":"g","seq":5,"type":"bid",\n', None),
    "nogame": (b'{"seq":5,"type":"bid","seat":1,"call":"pass"}\n', None),
    "rules": (b'{"game":"g","seq":5,"type":"play","seat":0,"card":"7C"}\n', None),
}


@pytest.mark.parametrize("kind", list(BAD))
def test_a_bad_line_gives_the_same_error_where_it_stands(kind: str, tmp_path: Path) -> None:
    line, said = BAD[kind]
    lines = _game("g", 3)
    lines[5] = line
    other = _game("h", 4)
    path = tmp_path / "bad.jsonl"  # game h within game g: the bad line is line 36
    path.write_bytes(b"".join(lines[:3] + other + lines[3:]))
    fast = read([path], fast=True)
    assert fast == read([path], fast=False)
    errors = [g[1] for g in fast if g[0] == "bare" or g[1] is not None]
    assert errors, fast
    if said is not None:
        assert errors == [said.replace("bad.jsonl", str(path))]


def test_a_correction_reads_the_plays_kept_as_their_lines(tmp_path: Path) -> None:
    """A play read from its bytes is kept in its game's log as its line until the log is
    read: a correction that retracts plays (which reads the log) and the report of what
    it retracted say what the models' reading says, in the middle of a game and at its
    end."""
    events = simulate_game("g", seed=3)
    plays = [e for e in events if e["type"] == "play"]
    a, b = plays[5]["seq"], plays[6]["seq"]  # a trick's second and third cards
    fixed = [*events[:b + 1], {"game": "g", "type": "correction", "retracts": [b, a],
                               "reason": "misheard"}, *events[a:]]  # then played again
    fixed = [{**e, "seq": seq} for seq, e in enumerate(fixed)]
    path = tmp_path / "fixed.jsonl"
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in fixed))
    fast = read([path], fast=True)
    assert fast == read([path], fast=False)
    rep = json.loads(fast[0][3])
    assert fast[0][1] is None and rep["finished"] and not rep["violations"]
    assert [(r["seq"], r["event"]) for r in rep["retracted"]] == [(a, plays[5]), (b, plays[6])]


def test_a_last_line_cut_short_and_a_notation_text_read_alike(tmp_path: Path) -> None:
    cut = tmp_path / "cut.jsonl"
    lines = _game("g", 5)
    cut.write_bytes(b"".join(lines[:-1]) + lines[-1][:20])
    text = tmp_path / "game.jtxt"
    text.write_text('[Game "t"]\n[Ruleset "amsterdam"]\n[Seats "a b c d"]\n[Dealer 0]\n'
                    '[Seq 1]\nDeal\n', encoding="utf-8")
    fast = read([cut, text], fast=True)
    assert fast == read([cut, text], fast=False)
    assert fast[0][1] is not None and "truncated" in fast[0][1]
    assert [g[0] for g in fast] == ["g", "t"]


def test_a_games_openers_leave_its_plays_kept_as_their_lines(tmp_path: Path) -> None:
    """Reading a fold's round openers (as the audit and the store's round facts do) reads
    no play: the plays a check keeps as their lines stay lines until the log is read."""
    events = simulate_game("g", seed=5)
    path = tmp_path / "g.jsonl"
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    with contextlib.ExitStack() as stack:
        (g,) = list(fold_log(LogFiles([path], stack)))
    assert isinstance(g, FileGame) and g.fold is not None
    openers = g.fold.openers
    assert [e.type for e in openers] == ["dealt"] * len(openers) and openers
    assert sum(isinstance(x, bytes) for x in g.fold.entries) > 100
    assert [e.seq for e in g.fold.openers] == [e["seq"] for e in events if e["type"] == "dealt"]


def _folds(paths: list[Path], fast: bool) -> list[FileGame]:
    with contextlib.ExitStack() as stack:
        log = LogFiles(paths, stack)
        games = fold_log(log) if fast else fold_lines(log.lines(), log.is_last)
        return [g for g in games if isinstance(g, FileGame)]


def _timed(events: list[dict[str, Any]], last: str) -> list[dict[str, Any]]:
    """``events`` each with a time (a second apart, in canonical order) up to the last of
    type ``last``, none after it."""
    k = max(i for i, e in enumerate(events) if e["type"] == last)
    start = datetime(2026, 1, 5, 19, 30, tzinfo=UTC)
    out = []
    for i, e in enumerate(events):
        head = {x: e[x] for x in ("game", "seq", "type")}
        if i <= k:
            head["at"] = (start + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        out.append(head | {x: v for x, v in e.items() if x not in head})
    return out


@pytest.mark.parametrize("last", ["play", "bid", "roem", "dealt"])
def test_a_folds_last_time_is_its_last_timed_events(last: str, tmp_path: Path) -> None:
    """A play's time goes into its fold once, at the game's end or before any other event
    is folded into it: each fold's ``last_at`` is the time of its last event that has one,
    a play, a bid, a roem claim or a deal, also with another game between and a game going
    on in a second file, and with a play out of its place and a CRLF line among them."""
    a = _timed(simulate_game("a", seed=3), last)
    b = _timed(simulate_game("b", seed=4), last)
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    lines = [orjson.dumps(e) + b"\n" for e in a]
    lines[20] = lines[20].replace(b"\n", b"\r\n")
    one.write_bytes(b"".join(lines[:40] + [orjson.dumps(e) + b"\n" for e in b]
                             + lines[40:-10]))
    two.write_bytes(b"".join(lines[-10:]))
    fast, slow = _folds([one, two], True), _folds([one, two], False)
    assert [(g.game, g.error) for g in fast] == [(g.game, g.error) for g in slow]
    assert [g.fold.last_at for g in fast if g.fold] == [g.fold.last_at for g in slow if g.fold]
    assert [g.fold.last_at for g in fast if g.fold] == \
        [next(e["at"] for e in reversed(x) if "at" in e) for x in (b, a)]


def test_a_bid_and_a_roem_claim_are_kept_as_their_lines_until_the_log_is_read(
        tmp_path: Path) -> None:
    """A canonical bid or roem claim in its place goes to its game's fold as the stored row
    it would be, its line kept in the log: the log, when read, holds the events the models
    read, and the game's lines, folds and reports are those of the reading line by line."""
    events = simulate_game("g", seed=5)
    path = tmp_path / "g.jsonl"
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    (fast,), (slow,) = _folds([path], True), _folds([path], False)
    assert fast.fold is not None and slow.fold is not None
    kinds = {e["type"] for e, x in zip(events, fast.fold.entries, strict=True)
             if isinstance(x, tuple)}
    assert kinds == {"bid", "roem"}
    assert [e.model_dump() for e in fast.fold.log] == [e.model_dump() for e in slow.fold.log]
    assert [e.model_fields_set for e in fast.fold.log if e.type != "play"] == \
        [e.model_fields_set for e in slow.fold.log if e.type != "play"]
    assert fast.lines == slow.lines and len(fast.lines) == len(events)
    assert json.dumps(game_report("g", fast.fold)) == json.dumps(game_report("g", slow.fold))


@pytest.mark.parametrize("seq, line", [
    (3, b'{"game":"g","seq":3,"type":"bid","at":"2026-01-05T19:31:00Z","seat":3,"call":"pass"}\n'),
    (1, b'{"game":"g","seq":1,"type":"roem","seat":2,"points":20}\n'),
])
def test_a_bid_or_roem_claim_the_rules_refuse_gives_the_models_error(
        seq: int, line: bytes, tmp_path: Path) -> None:
    """A bid or roem claim folded as its row that the rules refuse (a bid once the trumps
    are chosen, roem before the first deal) stops its game with the error its event gives,
    at its line."""
    lines = _game("g", 3)
    lines[seq] = line
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"".join(lines[:seq + 1]))
    fast = read([path], fast=True)
    assert fast == read([path], fast=False)
    assert fast[0][1] is not None and f"{path}:{seq + 1}: game g seq {seq}: " in fast[0][1]
