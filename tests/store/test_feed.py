"""The feed of every event in store order (``jaslog.store.feed``): gap-free and in order on
both backends, also while eight writers append."""

from __future__ import annotations

import threading

import pytest

from jaslog.play.sim import simulate_game
from jaslog.store import open_store
from jaslog.store.feed import events_after, games_after, games_after_on

WRITERS = 8


def test_the_feed_read_while_eight_writers_append_gives_every_event_once_in_order(
        store_url: str) -> None:
    games = {f"feed-{i}": simulate_game(f"feed-{i}", "amsterdam" if i % 2 else "klaberjass-2p",
                                        seed=i)[:60] for i in range(WRITERS)}
    total = sum(len(evs) for evs in games.values())
    start = threading.Barrier(WRITERS + 1)
    errors: list[BaseException] = []

    def write(gid: str) -> None:
        try:
            s = open_store(store_url)
            try:
                start.wait()
                evs = games[gid]
                for k in range(0, len(evs), 3):  # three events a transaction
                    s.append(gid, evs[k:k + 3], expected_seq=k)
            finally:
                s.close()
        except BaseException as e:  # the test fails with it below
            errors.append(e)

    reader = open_store(store_url)
    threads = [threading.Thread(target=write, args=(g,)) for g in games]
    for t in threads:
        t.start()
    start.wait()
    seen: list[tuple[int, str, int]] = []
    after = pages = 0
    try:
        while len(seen) < total:
            page = events_after(reader, after, 7)
            pages += 1
            seen.extend((r.pos, r.game, r.seq) for r in page)
            if page:
                after = page[-1].pos
            assert pages < 100_000, "the feed stopped short of the events written"
            if errors:
                break
    finally:
        for t in threads:
            t.join()
        reader.close()
    assert not errors, errors[0]
    assert [p for p, _, _ in seen] == list(range(1, total + 1))  # every pos once, in order
    assert len({(g, s) for _, g, s in seen}) == total  # every event once
    for gid, evs in games.items():  # each game's events in its own order
        assert [s for _, g, s in seen if g == gid] == list(range(len(evs)))
    assert pages > total // 7  # read while the writers wrote, page by page


def test_a_page_after_the_last_event_is_empty_and_limits_are_checked(store_url: str) -> None:
    s = open_store(store_url)
    try:
        evs = simulate_game("one", seed=1)[:10]
        s.append("one", evs)
        rows = events_after(s, 0, 100)
        assert [r.seq for r in rows] == list(range(10))
        assert rows[3].event().model_dump(exclude_none=True)["type"] == evs[3]["type"]
        assert events_after(s, rows[-1].pos, 100) == []
        assert [r.seq for r in events_after(s, rows[4].pos, 2)] == [5, 6]
        with pytest.raises(ValueError, match="limit"):
            events_after(s, 0, 0)
    finally:
        s.close()


def test_the_games_after_a_pos_are_the_feed_without_its_payloads(store_url: str) -> None:
    """What a watch of the store reads (:func:`games_after`): each event's pos and game, as
    the feed has them, page by page."""
    s = open_store(store_url)
    try:
        for g in ("one", "two"):
            s.append(g, simulate_game(g, seed=1)[:4])
        s.append("one", simulate_game("one", seed=1)[4:6], expected_seq=4)
        feed = [(r.pos, r.game) for r in events_after(s, 0, 100)]
        assert games_after(s, 0) == feed and [g for _, g in feed[-2:]] == ["one", "one"]
        assert games_after(s, feed[3][0], 3) == feed[4:7]
        assert games_after(s, feed[-1][0]) == []
        with pytest.raises(ValueError, match="limit"):
            games_after(s, 0, 1001)
    finally:
        s.close()


def test_a_watch_s_own_connection_reads_the_same_games_after_a_pos(pg_url: str) -> None:
    """On PostgreSQL a watch reads the games after a pos on its own connection (the one it
    listens on, in autocommit mode): the same rows as through the store, page by page."""
    import psycopg

    from jaslog.service.processes import postgres_dsn

    s = open_store(pg_url)
    try:
        for g in ("one", "two"):
            s.append(g, simulate_game(g, seed=1)[:4])
        s.append("one", simulate_game("one", seed=1)[4:6], expected_seq=4)
        feed = games_after(s, 0)
        dsn = postgres_dsn(pg_url)
        assert dsn is not None and len(feed) == 10
        with psycopg.connect(dsn, autocommit=True) as conn:
            assert games_after_on(conn, 0) == feed
            assert games_after_on(conn, feed[3][0], 3) == feed[4:7]
            assert games_after_on(conn, feed[-1][0]) == []
            with pytest.raises(ValueError, match="limit"):
                games_after_on(conn, 0, 1001)
    finally:
        s.close()
