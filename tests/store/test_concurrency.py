"""Several processes write at once: nothing lost, nothing duplicated, every conflict reported."""

from __future__ import annotations

import multiprocessing as mp
from typing import Any

from jaslog.store import ConflictError, open_store
from tests.store.conftest import game_events

WORKERS = 4
ROUNDS = 8
NOTES = 12


def _race(url: str, worker: int, barrier: Any, out: Any) -> None:
    """Every round, all workers append at the same expected seq: exactly one may win."""
    store = open_store(url)
    wins = conflicts = 0
    try:
        for r in range(ROUNDS):
            barrier.wait()
            seq = 1 + r
            try:
                store.append("shared", [{"type": "note", "text": f"w{worker} r{r}"}],
                             expected_seq=seq)
                wins += 1
            except ConflictError as e:
                assert (e.expected, e.actual) == (seq, seq + 1), (e.expected, e.actual)
                conflicts += 1
            barrier.wait()  # everyone has tried before the next round
        out.put((worker, wins, conflicts, None))
    except Exception as e:  # reported to the parent, which fails the test
        out.put((worker, wins, conflicts, repr(e)))
    finally:
        store.close()


def _writer(url: str, worker: int, barrier: Any, out: Any) -> None:
    """Append notes to the shared game (re-reading the head after each conflict), and a
    whole game of its own in small batches, at the same time as the others."""
    store = open_store(url)
    done: list[str] = []
    conflicts = 0
    try:
        own = game_events(f"own-{worker}", seed=worker)
        barrier.wait()
        i = 0
        for k in range(NOTES):
            while True:
                seq = store.head("shared").next_seq
                try:
                    store.append("shared", [{"type": "note", "text": f"w{worker} n{k}"}],
                                 expected_seq=seq)
                    done.append(f"w{worker} n{k}")
                    break
                except ConflictError:
                    conflicts += 1
            step = len(own) // NOTES + 1
            store.append(f"own-{worker}", own[i:i + step], expected_seq=i)
            i += step
        if i < len(own):
            store.append(f"own-{worker}", own[i:], expected_seq=i)
        out.put((worker, done, conflicts, None))
    except Exception as e:
        out.put((worker, done, conflicts, repr(e)))
    finally:
        store.close()


def _run(target: Any, url: str) -> list[Any]:
    ctx = mp.get_context("fork")
    barrier, out = ctx.Barrier(WORKERS), ctx.Queue()
    procs = [ctx.Process(target=target, args=(url, w, barrier, out)) for w in range(WORKERS)]
    for p in procs:
        p.start()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    assert [r[3] for r in results] == [None] * WORKERS, results
    return results


def test_same_seq_at_once_exactly_one_wins(store_url: str) -> None:
    with open_store(store_url) as s:
        s.new_game("amsterdam", ["ann", "bob", "cor", "dirk"], game="shared")
    results = _run(_race, store_url)
    assert sum(r[1] for r in results) == ROUNDS
    assert sum(r[2] for r in results) == ROUNDS * (WORKERS - 1)
    with open_store(store_url) as s:
        notes = s.events("shared")[1:]
        assert [e.seq for e in notes] == list(range(1, ROUNDS + 1))
        assert s.verify().ok


def test_many_writers_nothing_lost_or_duplicated(store_url: str) -> None:
    with open_store(store_url) as s:
        s.new_game("amsterdam", ["ann", "bob", "cor", "dirk"], game="shared")
    results = _run(_writer, store_url)
    written = sorted(t for r in results for t in r[1])
    assert len(written) == WORKERS * NOTES
    with open_store(store_url) as s:
        stored = s.events("shared")[1:]
        texts = sorted(e.text for e in stored)  # type: ignore[attr-defined]
        assert texts == written, "every successful append is stored once, no failed one is"
        assert [e.seq for e in stored] == list(range(1, WORKERS * NOTES + 1))
        for w in range(WORKERS):
            own = game_events(f"own-{w}", seed=w)
            assert len(s.events(f"own-{w}")) == len(own)
            assert s.fold(f"own-{w}").state.finished
        rep = s.verify()
        assert rep.ok and rep.games == WORKERS + 1


def _opener(url: str, worker: int, barrier: Any, out: Any) -> None:
    try:
        barrier.wait()
        with open_store(url) as s:  # all at once on a database without tables
            s.new_game("amsterdam", ["ann", "bob", "cor", "dirk"], game=f"first-{worker}")
        out.put((worker, None, None, None))
    except Exception as e:
        out.put((worker, None, None, repr(e)))


def test_fresh_store_opened_by_many_at_once(store_url: str) -> None:
    _run(_opener, store_url)
    with open_store(store_url) as s:
        assert sorted(g.game for g in s.games()) == [f"first-{w}" for w in range(WORKERS)]
        assert s.info("first-0").events == 1 and s.verify().ok
