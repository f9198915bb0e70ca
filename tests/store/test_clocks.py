"""Two clocks (rule book 9.1, decision 14), on SQLite and on PostgreSQL alike: the store stamps
every event it appends live with ``recorded_at`` from its own clock, refuses a client's
``recorded_at`` and an ``at`` far ahead of its clock; an import keeps what the file says."""

from __future__ import annotations

import io
import uuid
from typing import Any

import orjson
import pytest

from jaslog.events import event_from_dict, write_events
from jaslog.play.sim import simulate_game
from jaslog.store import ConflictError, RejectedError, Store, open_store
from jaslog.store.clock import ManualClock
from jaslog.store.codec import canonical
from jaslog.store.stamps import stamped
from tests.store.conftest import STORE_TIME, game_events, jsonl


def with_ids(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{e['game']}/{e['seq']}"))}
            for e in events]


def stored_stamps(store: Store, game: str) -> list[str | None]:
    """The ``recorded_at`` of each stored event, read from its stored bytes."""
    return [orjson.loads(r.payload).get("recorded_at") for r in store.stored_events(game)]


def dump(store: Store, game: str) -> bytes:
    """What ``jaslog dump`` writes for ``game``."""
    out = io.BytesIO()
    write_events(store.events(game), out)
    return out.getvalue()


def test_every_live_append_is_stamped_by_the_store_clock(store: Store) -> None:
    clock = store.clock
    assert isinstance(clock, ManualClock)
    events = game_events("k-1", seed=1)
    store.append("k-1", events[:5])
    clock.advance(31.5)
    store.append("k-1", events[5:9], expected_seq=5)
    clock.advance(0.25)
    store.append("k-1", [{"type": "note", "text": "tea"}], expected_seq=9)
    assert stored_stamps(store, "k-1") == [STORE_TIME] * 5 + \
        ["2026-12-01T20:00:31.500Z"] * 4 + ["2026-12-01T20:00:31.750Z"]
    # part of the event: read back, in its canonical bytes, in the hash chain
    back = store.events("k-1")
    assert back[7].recorded_at == "2026-12-01T20:00:31.500Z"
    first = store.stored_events("k-1")[0].payload
    assert first.startswith(b'{"game":"k-1","seq":0,"type":"game_started",'
                            b'"recorded_at":"2026-12-01T20:00:00.000Z","ruleset":"amsterdam"')
    assert store.verify("k-1").ok
    assert b'"recorded_at":"2026-12-01T20:00:31.750Z"' in dump(store, "k-1").splitlines()[-1]


def test_new_game_takes_its_at_and_recorded_at_from_the_store_clock(store_url: str) -> None:
    with open_store(store_url, clock=ManualClock("2026-12-24T18:00:00Z")) as s:
        gid = s.new_game("amsterdam", ["a", "b", "c", "d"])
        assert gid.startswith("20261224-")
        e = s.events(gid)[0]
        assert (e.at, e.recorded_at) == ("2026-12-24T18:00:00.000Z", "2026-12-24T18:00:00.000Z")
        assert s.info(gid).created_at.startswith("2026-12-24T18:00:00")


@pytest.mark.parametrize("at_end", [False, True])
def test_a_client_recorded_at_is_refused_and_nothing_written(store: Store, at_end: bool) -> None:
    events = game_events("k-2", seed=2)
    store.append("k-2", events[:5])
    batch = [{k: v for k, v in e.items() if k != "seq"} for e in events[5:8]]
    batch[1] = {**batch[1], "recorded_at": "2026-12-01T19:59:00Z"}
    with pytest.raises(RejectedError) as info:
        if at_end:
            store.append("k-2", batch, at_end=True)
        else:
            store.append("k-2", batch, expected_seq=5)
    err = info.value
    assert err.code == "recorded_at_given"
    assert "event 2 of the batch" in str(err)
    assert "recorded_at is set by the store's own clock; leave it out" in str(err)
    assert str(err).endswith("nothing was written")
    assert store.head("k-2").next_seq == 5
    # a model carrying it is refused alike, a first event too
    with pytest.raises(RejectedError, match="recorded_at is set by the store") as first:
        store.append("k-3", [event_from_dict({**game_events("k-3")[0],
                                              "recorded_at": "2026-12-01T19:59:00Z"})])
    assert first.value.code == "recorded_at_given"
    assert [g.game for g in store.games()] == ["k-2"]


def test_an_at_more_than_5_minutes_ahead_is_refused(store: Store) -> None:
    events = game_events("k-4", seed=4)
    store.append("k-4", events[:3])
    ahead_6 = "2026-12-01T20:06:00Z"
    batch = [{**events[3], "at": "2026-12-01T20:01:00Z"}, {**events[4], "at": ahead_6}]
    with pytest.raises(RejectedError) as info:
        store.append("k-4", batch, expected_seq=3)
    err = info.value
    assert (err.code, err.game, err.seq) == ("at_in_future", "k-4", 4)
    assert str(err) == (
        "game k-4 seq 4: at 2026-12-01T20:06:00Z is more than 5 minutes ahead of the store's "
        "clock (2026-12-01T20:00:00.000Z): a table's time may be ahead of the store's by at "
        "most 5 minutes (is the device's clock right?); nothing was written")
    assert store.head("k-4").next_seq == 3  # nothing of the batch, not even its first event
    # an offset is a time like any other: 21:06+01:00 is 20:06Z
    with pytest.raises(RejectedError, match="seq 3: at 2026-12-01T21:06:00"):
        store.append("k-4", [{**events[3], "at": "2026-12-01T21:06:00+01:00"}], expected_seq=3)
    # 4 minutes ahead, and exactly 5, are accepted; the past always is
    store.append("k-4", [{**events[3], "at": "2026-12-01T20:04:00Z"},
                         {**events[4], "at": "2026-12-01T20:05:00Z"},
                         {**events[5], "at": "2025-06-01T12:00:00Z"}], expected_seq=3)
    got = store.events("k-4")[3:]
    assert [(e.at, e.recorded_at) for e in got] == [
        ("2026-12-01T20:04:00Z", STORE_TIME), ("2026-12-01T20:05:00Z", STORE_TIME),
        ("2025-06-01T12:00:00Z", STORE_TIME)]
    # the clock moves on: what was too far ahead is fine a minute later
    store.clock.advance(60)  # type: ignore[attr-defined]
    store.append("k-4", [{**events[6], "at": ahead_6}], expected_seq=6)
    assert store.head("k-4").next_seq == 7


def test_an_at_ahead_in_milliseconds_is_refused_whatever_its_separator(store: Store) -> None:
    """The check reads a stamp like the store's own (``T``, milliseconds, ``Z``) by its text;
    an ``at`` written otherwise (a space for the ``T``, which sorts before it) is read in
    full, and refused when it is ahead."""
    events = game_events("k-4b", seed=4)
    store.append("k-4b", events[:3])
    for ahead in ("2026-12-01T20:05:00.001Z", "2026-12-01 23:59:59.000Z",
                  "2026-12-01t20:06:00.000Z", "2026-12-01T20:05:01Z", "2026-12-01 20:06:00Z"):
        with pytest.raises(RejectedError) as info:
            store.append("k-4b", [{**events[3], "at": ahead}], expected_seq=3)
        assert (info.value.code, info.value.seq) == ("at_in_future", 3)
    store.append("k-4b", [{**events[3], "at": "2026-12-01T20:05:00.000Z"},
                          {**events[4], "at": "2026-12-01 19:59:59.999Z"},
                          {**events[5], "at": "2026-12-01T20:05:00Z"}], expected_seq=3)
    assert store.head("k-4b").next_seq == 6


@pytest.mark.parametrize("ruleset", ["amsterdam", "klaberjass-2p", "kloepper"])
def test_a_stamped_event_is_the_model_copy_of_it(ruleset: str) -> None:
    """What the store stamps is what ``model_copy(update=...)`` would make of each event: the
    same class, fields, fields given and canonical bytes; the event itself untouched."""
    now = ManualClock("2026-12-01T20:00:31.5Z")()
    note = {"game": "k-s", "seq": 999, "type": "note", "text": "tea",
            "at": "2026-12-01T20:00:00Z", "id": str(uuid.uuid4())}
    events = [event_from_dict(e) for e in [*simulate_game("k-s", ruleset, seed=3), note]]
    for e, s in zip(events, stamped(events, now), strict=True):
        copy = e.model_copy(update={"recorded_at": "2026-12-01T20:00:31.500Z"})
        assert type(s) is type(copy)
        assert (s.__dict__, s.model_fields_set) == (copy.__dict__, copy.model_fields_set)
        assert canonical(s) == canonical(copy)
        assert e.recorded_at is None and "recorded_at" not in e.model_fields_set


class TickingClock(ManualClock):
    """A clock that moves a millisecond every time it is read."""

    def __call__(self) -> Any:
        self.advance(0.001)
        return self.now


def test_a_group_stamps_its_events_with_one_reading_of_the_clock(store_url: str) -> None:
    """A group's appends are committed together: the clock is read once for them all, at
    its first append, and every event of the group has that ``recorded_at``."""
    clock = TickingClock(STORE_TIME)
    with open_store(store_url, clock=clock) as s:
        evs = {g: game_events(g, seed=i) for i, g in enumerate(("k-g1", "k-g2"))}
        s.append("k-g1", evs["k-g1"][:4])  # a read: 20:00:00.001
        s.append("k-g2", evs["k-g2"][:4])  # 20:00:00.002
        with s.group() as g:  # the group's one read: 20:00:00.003
            g.append("k-g1", evs["k-g1"][4:6], expected_seq=4)
            g.append("k-g2", evs["k-g2"][4:5], expected_seq=4)
            g.append("k-g1", evs["k-g1"][6:7], expected_seq=6)
        s.append("k-g2", evs["k-g2"][5:6], expected_seq=5)  # 20:00:00.004
        assert stored_stamps(s, "k-g1") == ["2026-12-01T20:00:00.001Z"] * 4 + \
            ["2026-12-01T20:00:00.003Z"] * 3
        assert stored_stamps(s, "k-g2") == ["2026-12-01T20:00:00.002Z"] * 4 + \
            ["2026-12-01T20:00:00.003Z", "2026-12-01T20:00:00.004Z"]
        assert s.verify("k-g1").ok and s.verify("k-g2").ok


def test_a_retry_is_recognised_after_the_store_stamped_it(store: Store) -> None:
    events = with_ids(game_events("k-5", seed=5))
    store.append("k-5", events[:10])
    before = store.head("k-5")
    store.clock.advance(90)  # type: ignore[attr-defined]
    # the same events again (the client never saw the stamps): nothing new, nothing refused
    again = store.append("k-5", events[:10])
    assert (again.appended, again.already_stored, again.head) == (0, 10, before)
    part = store.append("k-5", events[5:15], expected_seq=5)
    assert (part.appended, part.already_stored) == (5, 5)
    # a batch sent again at the end of the game (no seqs): placed where it is stored
    tail = [{k: v for k, v in e.items() if k != "seq"} for e in events[10:15]]
    at_end = store.append("k-5", tail, at_end=True)
    assert (at_end.appended, at_end.already_stored) == (0, 5)
    assert stored_stamps(store, "k-5") == [STORE_TIME] * 10 + ["2026-12-01T20:01:30.000Z"] * 5
    # the same id with other content is still no retry
    changed = {**events[3], "at": "2026-12-01T19:00:00Z"}
    with pytest.raises(ConflictError, match="with other content"):
        store.append("k-5", [changed], expected_seq=3)
    with pytest.raises(RejectedError) as dup:
        store.append("k-5", [{k: v for k, v in changed.items() if k != "seq"}], at_end=True)
    assert dup.value.code == "duplicate_id"


def test_import_keeps_recorded_at_and_does_not_check_at(store: Store) -> None:
    events = game_events("k-6", seed=6, at="2031-01-01T10:00:00Z")  # ahead of the store clock
    events = [{**e, "recorded_at": f"2031-01-01T10:00:{i % 60:02d}.000Z"} if i % 3 else e
              for i, e in enumerate(events)]
    summary = store.import_lines(jsonl(events).splitlines(keepends=True), source="archive.jsonl")
    assert (summary.ok, summary.games, summary.events) == (True, 1, len(events))
    assert stored_stamps(store, "k-6") == [e.get("recorded_at") for e in events]
    assert dump(store, "k-6") == b"".join(
        orjson.dumps(event_from_dict(e).model_dump(exclude_none=True)) + b"\n" for e in events)


def test_dump_then_import_is_byte_identical(store: Store, tmp_path: Any) -> None:
    clock = store.clock
    events = game_events("k-7", seed=7)
    for i in range(0, len(events), 40):
        store.append("k-7", events[i:i + 40])
        clock.advance(7.125)  # type: ignore[attr-defined]
    first = dump(store, "k-7")
    assert first.count(b'"recorded_at"') == len(events)
    with open_store(str(tmp_path / "other.sqlite"), clock=ManualClock("2030-01-01T00:00:00Z")) \
            as other:
        other.import_lines(first.splitlines(keepends=True), source="dump.jsonl")
        assert dump(other, "k-7") == first
        assert other.head("k-7") == store.head("k-7")
        assert other.verify("k-7").ok
        # importing the same dump again finds it stored
        again = other.import_lines(first.splitlines(keepends=True), source="dump.jsonl")
        assert again.already_present == ["k-7"]
