"""Bulk import: whole games per transaction, re-runs store only what is missing."""

from __future__ import annotations

import io
from typing import Any

import orjson
import pytest

from jaslog.events import canonical_json, event_from_dict
from jaslog.play.fold import fold
from jaslog.play.sim import simulate
from jaslog.store import NoSuchGame, Store
from jaslog.store.import_input import read_stream
from jaslog.store.results import stored_standing
from tests.store.conftest import game_events, jsonl


def lines_of(events: list[dict[str, Any]]) -> list[bytes]:
    return [orjson.dumps(e) for e in events]


def test_import_then_reimport_skips_then_extends(store: Store) -> None:
    events = list(simulate(3, seed=5))
    games = sorted({e["game"] for e in events})
    s1 = store.import_lines(lines_of(events), batch_games=2)
    assert (s1.games, s1.events, s1.rejected, s1.already_present) == (3, len(events), [], [])
    s2 = store.import_lines(lines_of(events))
    assert (s2.games, s2.events, s2.already_present, s2.rejected) == (0, 0, games, [])
    # a game stored in part is extended by a longer copy of itself
    part = game_events("x-1", seed=9)
    store.import_lines(lines_of(part[:100]))
    s3 = store.import_lines(lines_of(part))
    assert (s3.games, s3.events, s3.extended) == (0, len(part) - 100, ["x-1"])
    assert store.head("x-1").next_seq == len(part) and store.verify().ok


def test_same_id_different_events_is_rejected(store: Store) -> None:
    a = game_events("x-2", seed=1)
    store.import_lines(lines_of(a))
    b = game_events("x-2", seed=2)  # another game under the same id
    other = game_events("x-3", seed=3)
    s = store.import_lines(lines_of(b) + lines_of(other))
    assert s.games == 1 and [r.game for r in s.rejected] == ["x-2"]
    assert "different event" in s.rejected[0].reason and "[conflict]" in s.rejected[0].reason
    assert len(store.events("x-2")) == len(a)


def test_interleaved_games_and_canonical_dump(store: Store) -> None:
    a, b = game_events("i-a", seed=1), game_events("i-b", seed=2)
    mixed: list[bytes] = []
    for i in range(max(len(a), len(b))):
        for g in (a, b):
            if i < len(g):
                # not canonical on the way in: other key order and spaces
                e = g[i]
                mixed.append(orjson.dumps(dict(reversed(list(e.items())))).replace(b",", b", "))
    s = store.import_lines(mixed)
    assert (s.games, s.events) == (2, len(a) + len(b))
    for gid, evs in (("i-a", a), ("i-b", b)):
        dumped = b"".join(canonical_json(e) + b"\n" for e in store.events(gid))
        assert dumped == b"".join(canonical_json(event_from_dict(e)) + b"\n" for e in evs)


def test_a_bad_line_rejects_its_game_only(store: Store) -> None:
    good, bad = game_events("b-good", seed=1), game_events("b-bad", seed=2)
    lines = lines_of(good) + lines_of(bad)
    k = len(good) + 50
    lines[k] = lines[k].replace(b'"seat":', b'"seat":"x",', 1) if b'"seat":' in lines[k] \
        else b'{"game":"b-bad","seq":"50"}'
    s = store.import_lines(lines, source="mixed.jsonl")
    assert s.games == 1 and [r.game for r in s.rejected] == ["b-bad"]
    assert s.rejected[0].reason.startswith(f"mixed.jsonl:{k + 1}: game b-bad")
    with pytest.raises(NoSuchGame):
        store.events("b-bad")
    assert len(store.events("b-good")) == len(good)


def test_integrity_error_names_file_line_game_seq_rule(store: Store) -> None:
    g = game_events("b-int", seed=3)
    i = next(i for i, e in enumerate(g) if e["type"] == "play")
    g[i] = {**g[i], "seat": (g[i]["seat"] + 1) % 4}
    s = store.import_lines(lines_of(g), source="f.jsonl")
    assert [r.game for r in s.rejected] == ["b-int"]
    reason = s.rejected[0].reason
    assert reason.startswith(f"f.jsonl:{i + 1}: game b-int seq {i}:") and "[not_your_turn]" in reason
    with pytest.raises(NoSuchGame):
        store.head("b-int")


def test_lines_naming_no_game_are_reported(store: Store) -> None:
    s = store.import_lines([b"[1, 2, 3]", b"not json at all", *lines_of(game_events("n-1"))])
    assert s.games == 1 and [r.game for r in s.rejected] == [None, None]
    assert "JSON object" in s.rejected[0].reason and "not valid JSON" in s.rejected[1].reason


def test_reader_bounds_huge_lines_and_flags_truncation() -> None:
    huge = b'{"game":"h-1","seq":0,"type":"note","text":"' + b"x" * (3 << 20) + b'"}\n'
    data = huge + b'{"game":"h-2","seq":0,"type":"not' + b"\n" + b'{"game":"h-3","seq":0,"ty'
    out = [ln for ln, _ in read_stream(io.BytesIO(data), "t.jsonl")]
    assert [(ln.number, ln.game) for ln in out] == [(1, "h-1"), (2, "h-2"), (3, "h-3")]
    assert "limit" in (out[0].error or "")
    assert "truncated" not in (out[1].error or "") and "truncated" in (out[2].error or "")
    latin = read_stream(io.BytesIO('{"game":"h-4","seq":0,"type":"note","text":"café"}\n'
                                   .encode("latin-1")), "l.jsonl")
    (ln, _), = list(latin)
    assert ln.game == "h-4" and "not UTF-8" in (ln.error or "")


def test_import_files_streams_with_progress(store: Store, tmp_path: Any) -> None:
    p = tmp_path / "games.jsonl"
    p.write_bytes(jsonl(list(simulate(4, seed=8))))
    seen: list[int] = []
    s = store.import_files([p], batch_games=1, progress=seen.append)
    assert s.games == 4 and seen[-1] == p.stat().st_size and seen == sorted(seen)


@pytest.mark.parametrize(("workers", "how"), [(2, "files"), (1, "files"), (1, "lines"),
                                              (2, "lines"), (0, "lines")])
def test_parallel_import_matches_the_inline_one(store: Store, tmp_path: Any, workers: int,
                                                how: str) -> None:
    events = list(simulate(6, seed=12))
    lines = lines_of(events)
    gids = sorted({e["game"] for e in events})
    size = {g: sum(1 for e in events if e["game"] == g) for g in gids}
    # two games are in the store already, one of them only in part
    store.import_lines([x for x, e in zip(lines, events, strict=True) if e["game"] == gids[0]
                        or (e["game"] == gids[1] and e["seq"] < 100)])
    broken = next(i for i, e in enumerate(events) if e["game"] == gids[2] and e["seq"] == 40)
    lines[broken] = lines[broken][:-5]  # not JSON any more
    f = tmp_path / "p.jsonl"
    f.write_bytes(b"".join(x + b"\n" for x in lines) + b"garbage\n")
    if how == "files":
        s = store.import_files([f], workers=workers, batch_games=2)
    else:  # the same lines given as a list (of bytes and text), blank lines kept
        given: list[bytes | str] = [x.decode() if i % 7 == 0 else x + b"\n"
                                    for i, x in enumerate(f.read_bytes().split(b"\n"))]
        s = store.import_lines(given, source=str(f), workers=workers, batch_games=2)
    assert s.games == 3 and s.events == size[gids[1]] - 100 + sum(size[g] for g in gids[3:])
    assert s.already_present == [gids[0]] and s.extended == [gids[1]]
    by_game = {r.game: r for r in s.rejected}
    assert set(by_game) == {gids[2], None}
    assert by_game[gids[2]].reason.startswith(f"{f}:{broken + 1}: game {gids[2]}")
    assert by_game[None].line == len(lines) + 1 and "not valid JSON" in by_game[None].reason
    assert s.lines == len(lines) + 1
    assert store.verify().ok
    stored = {gid: len(evs) for gid, evs in store.iter_games()}
    assert stored == {g: n for g, n in size.items() if g != gids[2]}


def test_spawned_workers_import_as_forked_ones_do(tmp_path: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Where this process runs other threads (a server, a Dask client, an earlier test's),
    the workers are spawned, not forked: they start, open the semaphores they share with
    this process by name, and import what forked workers import."""
    from jaslog.store import open_store, parallel

    monkeypatch.setattr(parallel, "start_method", lambda: "spawn")
    events = list(simulate(4, seed=3))
    f = tmp_path / "g.jsonl"
    f.write_bytes(b"".join(x + b"\n" for x in lines_of(events)))
    with open_store(str(tmp_path / "spawned.sqlite")) as store:
        s = store.import_files([f], workers=2, batch_games=1)
        assert (s.games, s.events, s.rejected) == (4, len(events), [])
        assert store.verify().ok


def test_lines_go_to_the_worker_of_their_game() -> None:
    from jaslog.store.parallel import worker_of

    canonical = b'{"game":"g-7","seq":3,"type":"play","seat":1,"card":"AS"}'
    for n in (2, 3, 5):
        k = worker_of(canonical, n)
        # the same game written otherwise, or with "game" in a value, goes to the same worker
        for other in (b'{"seq":3,"game":"g-7","type":"play","seat":1,"card":"AS"}',
                      b'{"game":"g\\u002d7","seq":3,"type":"play","seat":1,"card":"AS"}',
                      b'{"game":"g-7","seq":4,"type":"note","text":"\\"game\\":\\"x\\""}',
                      b'{"game":"g-7","seq":4,"type":"note","text":"game","meta":{"game":"x"}}'):
            assert worker_of(other, n) == k, other
    # a line that names its game twice is routed by the value the parser keeps
    twice = b'{"game":"x","seq":3,"type":"play","game":"g-7","seat":1,"card":"AS"}'
    assert all(worker_of(twice, n) == worker_of(canonical, n) for n in (2, 3, 5))
    assert worker_of(b"not json", 3) == 0


def test_the_router_sends_each_line_where_worker_of_does() -> None:
    """The router's shortcut (same game id prefix as the line before) never changes a line's
    worker: ids that are prefixes of others, escapes, a second "game" key, interleaved games."""
    from jaslog.store.parallel import Router, worker_of

    ids = ["g-1", "g-10", "g-100", "g-2", "g\\u002d1", "x"]
    lines = []
    for i in range(60):
        gid = ids[(i * 7) % len(ids)] if i % 3 else ids[i % len(ids)]
        lines.append(b'{"game":"%s","seq":%d,"type":"play","seat":1,"card":"AS"}'
                     % (gid.encode(), i))
        lines.append(b'{"game":"%s","seq":%d,"type":"play","game":"g-10","seat":1,"card":"AS"}'
                     % (gid.encode(), i))
        lines.append(b'{"game":"%s","seq":%d,"type":"note","text":"x"}' % (gid.encode(), i + 1))
        lines.append(b'{"game":"%s' % gid.encode())  # cut short
    for n in (2, 3, 5):
        route = Router(n)
        got = [route(raw) for raw in lines]
        assert got == [worker_of(raw, n) for raw in lines]
        assert len(set(got)) > 1


@pytest.mark.parametrize("workers", [0, 1])
def test_a_truncated_last_line_is_named_so(store: Store, tmp_path: Any, workers: int) -> None:
    lines = lines_of(game_events("t-1"))
    f = tmp_path / "cut.jsonl"
    f.write_bytes(b"".join(x + b"\n" for x in lines[:-1]) + lines[-1][:-7])  # no newline
    s = store.import_files([f], workers=workers)
    (r,) = s.rejected
    assert r.game == "t-1" and r.line == len(lines)
    assert "the file ends in the middle of a line" in r.reason, r.reason


def _unfinished(gid: str, seed: int, n: int = 12) -> list[dict[str, Any]]:
    return game_events(gid, seed=seed)[:n]  # a deal under way: the game never ends


def test_a_game_is_forgotten_at_its_last_line_finished_or_not(store: Store, tmp_path: Any) -> None:
    """The import reads the files twice, as check does: a game is written and forgotten at its
    last line, so memory holds the games under way at a point of the files, not every game
    that never finished (each held its fold to the end of the import, about 20 KB)."""
    from jaslog.store.import_input import game_ends
    from jaslog.store.importer import Importer

    games = [_unfinished(f"u-{i}", seed=i) for i in range(60)]
    f = tmp_path / "unfinished.jsonl"
    f.write_bytes(b"".join(jsonl(g) for g in games))
    imp = Importer(store, batch_games=10)
    [ends] = game_ends([f])
    assert len(ends) == 60
    imp.feed_file(f, ends=ends)
    assert len(imp.validator.pending) <= 10  # the games of the batch not written yet
    s = imp.finish()
    assert (s.games, s.events, s.rejected) == (60, 60 * 12, [])
    assert {g: len(e) for g, e in store.iter_games()} == {f"u-{i}": 12 for i in range(60)}


def test_a_game_waiting_for_its_batch_holds_no_fold(store: Store, tmp_path: Any) -> None:
    """A game whose last line is read waits for its batch with its rows and where it stands
    only: its fold (every event again, as a model) is let go of at once, so a batch of
    finished games holds what it writes and no more."""
    from jaslog.store.import_input import game_ends
    from jaslog.store.importer import Importer
    from jaslog.store.results import standing

    games = [game_events(f"w-{i}", seed=i) for i in range(6)]
    f = tmp_path / "finished.jsonl"
    f.write_bytes(b"".join(jsonl(g) for g in games))
    imp = Importer(store, batch_games=100)
    [ends] = game_ends([f])
    imp.feed_file(f, ends=ends)
    waiting = imp.validator.pending
    assert sorted(waiting) == [f"w-{i}" for i in range(6)]  # none written yet
    assert all(p.ready and p.fold is None and p.standing is not None for p in waiting.values())
    s = imp.finish()
    assert (s.games, s.rejected) == (6, [])
    for g in games:
        with store.engine.connect() as conn:
            assert stored_standing(conn, g[0]["game"]) == \
                standing(fold(event_from_dict(e) for e in g))


@pytest.mark.parametrize("workers", [0, 2])
def test_games_that_run_on_into_the_next_file_are_whole(store: Store, tmp_path: Any,
                                                        workers: int) -> None:
    """Where a game ends is looked for in all the files: a game that goes on in the next file
    (or an unfinished game whose lines are spread) is stored whole, once."""
    a, b = game_events("span-a", seed=1), _unfinished("span-b", seed=2, n=30)
    first, second = tmp_path / "1.jsonl", tmp_path / "2.jsonl"
    first.write_bytes(jsonl(a[:200]) + jsonl(b[:10]))
    second.write_bytes(jsonl(b[10:]) + jsonl(a[200:]))
    s = store.import_files([first, second], workers=workers, batch_games=1)
    assert (s.games, s.events, s.rejected, s.extended) == (2, len(a) + len(b), [], [])
    assert len(store.events("span-a")) == len(a) and len(store.events("span-b")) == len(b)
    assert store.verify().ok


def test_the_import_chains_raw_digests_and_stores_the_chain_exactly(store: Store) -> None:
    """The validator hands its writer each event's link and hash as raw 32-byte digests (no
    hex text per event), the part's head in hex; what the store holds then links exactly:
    each hash is sha256(previous hash + canonical bytes), and verify says so."""
    from hashlib import sha256

    from jaslog.store.import_writer import Part
    from jaslog.store.importer import Validator

    events = game_events("x-40", seed=40)
    parts: list[Part] = []

    def sink(batch: list[Part]) -> set[str]:
        parts.extend(batch)
        return {p.game for p in batch}

    v = Validator(store, sink, lambda *a: None, lambda r: None)
    for n, line in enumerate(lines_of(events), 1):
        v.take_bytes(line, "<test>", n)
    v.flush_all()
    rows = [r for p in parts for r in p.rows]
    assert len(rows) == len(events)
    prev = bytes(32)
    for line, r in zip(lines_of(events), rows, strict=True):  # (seq, hash, ...) each
        assert r[1] == sha256(prev + canonical_json(event_from_dict(orjson.loads(line)))).digest()
        assert len(r[1]) == 32
        prev = r[1]
    assert parts[-1].head == prev.hex()
    assert store.import_lines(lines_of(events)).events == len(events)
    stored = store.stored_events("x-40")
    assert [bytes.fromhex(s.hash) for s in stored] == [r[1] for r in rows]
    assert [bytes.fromhex(s.prev_hash) for s in stored] == [bytes(32)] + [r[1] for r in rows[:-1]]
    assert store.verify("x-40").ok


def test_the_import_reads_times_to_columns_as_the_slow_parse_does() -> None:
    """:func:`time_code`'s fast way (a time in whole seconds by its minute) takes exactly the
    texts the full parse takes, to the same number, and refuses the rest."""
    import random

    from jaslog.store.compact import parse_time_code, time_code

    rng = random.Random(7)
    texts = ["2026-01-05T19:30:55Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
             "9999-12-31T23:59:59Z", "2026-02-30T10:00:00Z", "2024-02-29T12:00:00Z",
             "2023-02-29T12:00:00Z", "2026-01-05T24:00:00Z", "2026-01-05T19:30:60Z",
             "2026-01-05t19:30:55Z", "2026-01-05T19:30:5aZ", "x" * 20, "0000-01-01T00:00:00Z"]
    texts += [f"{rng.randint(1960, 2100):04d}-{rng.randint(0, 13):02d}-{rng.randint(0, 32):02d}"
              f"T{rng.randint(0, 25):02d}:{rng.randint(0, 61):02d}:{rng.randint(0, 61):02d}Z"
              for _ in range(5000)]
    took = [t for t in texts if time_code(t) is not None]
    assert [time_code(t) for t in texts] == [parse_time_code(t) for t in texts]
    assert 1000 < len(took) < len(texts)


def test_a_stamp_in_milliseconds_is_read_to_its_column_as_the_slow_parse_reads_it() -> None:
    """:func:`time_code`'s way for a stamp (``...:55.123Z``, by its minute, seconds and
    milliseconds) takes exactly the texts the full parse takes, to the same number: a
    millisecond before 1970-01-01T00:16:40 (not a time in milliseconds), a second or a day
    that does not exist, a digit of another script, a comma are refused as it refuses them."""
    import random

    from jaslog.store.compact import parse_time_code, time_code

    rng = random.Random(11)
    texts = ["2026-12-06T08:01:02.123Z", "1970-01-01T00:00:00.001Z", "1970-01-01T00:16:40.000Z",
             "1970-01-01T00:16:40.001Z", "1969-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z",
             "2026-02-30T08:01:02.123Z", "2026-12-06T08:01:60.123Z", "2026-12-06T08:01:02.12aZ",
             "2026-12-06T08:01:02,123Z", "2026-12-06T08:01:02.123z", "2026-12-06T24:00:02.123Z",
             "2026-12-06T08:01:02.\u0663\u0663\u0663Z", "2026-12-06 08:01:02.123Z", "y" * 24]
    texts += [f"{rng.randint(1960, 2100):04d}-{rng.randint(0, 13):02d}-{rng.randint(0, 32):02d}"
              f"T{rng.randint(0, 25):02d}:{rng.randint(0, 61):02d}:{rng.randint(0, 61):02d}"
              f".{rng.randint(0, 999):03d}Z" for _ in range(5000)]
    took = [t for t in texts if time_code(t) is not None]
    assert [time_code(t) for t in texts] == [parse_time_code(t) for t in texts]
    assert time_code("2026-12-06T08:01:02.123Z") == 1796544062123
    assert 1000 < len(took) < len(texts)


def test_the_import_collects_young_objects_between_batches_not_in_them(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the cycle collector paused, the import collects the young generations itself,
    right after a batch is written (its rows and folds let go of), never in the middle of one,
    where it would scan every event the batch holds."""
    import gc

    from jaslog.store import importer
    from jaslog.store.importer import Importer

    monkeypatch.setattr(importer, "_COLLECT_EVERY", 500)
    games = [game_events(f"gc-{i}", seed=i) for i in range(8)]
    imp = Importer(store, batch_games=2)
    held: list[int] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 1:
            held.append(imp.validator.pending_events)

    gc.callbacks.append(watch)
    try:
        imp.feed(lines_of([e for g in games for e in g]))
        s = imp.finish()
    finally:
        gc.callbacks.remove(watch)
    assert (s.games, s.rejected) == (8, [])
    assert len(held) >= 3  # one a batch of 2 games (about 570 events each) or so
    assert max(held) <= 1, held  # the next game's first event at most
