"""The store's contract, on SQLite and on PostgreSQL alike (see conftest.store_url)."""

from __future__ import annotations

import uuid
from typing import Any

import orjson
import pytest
from sqlalchemy.exc import DBAPIError

from jaslog.events import VERSION, canonical_json, event_from_dict, parse_event
from jaslog.events.fast import FastPlay
from jaslog.play.sim import Faults
from jaslog.store import (
    GENESIS,
    ConflictError,
    NoSuchGame,
    RejectedError,
    Store,
    StoreError,
    certificate,
    open_store,
)
from jaslog.store.codec import canonical, link
from tests.store.conftest import STORE_TIME, game_events


def with_ids(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{e['game']}/{e['seq']}"))}
            for e in events]


def test_append_in_batches_reads_back_and_dumps_canonically(store: Store) -> None:
    events = game_events("c-1", seed=3)
    r1 = store.append("c-1", events[:1])
    assert (r1.appended, r1.already_stored, r1.head.next_seq) == (1, 0, 1)
    r2 = store.append("c-1", events[1:100], expected_seq=1)
    assert r2.head.next_seq == 100
    store.append("c-1", events[100:])
    back = store.events("c-1")
    # each stored as sent, stamped with the store's clock (recorded_at)
    assert [canonical_json(e) for e in back] == \
        [canonical_json(event_from_dict({**e, "recorded_at": STORE_TIME})) for e in events]
    assert store.head("c-1").next_seq == len(events)
    assert store.events("c-1", upto=9)[-1].seq == 9
    assert [e.seq for e in store.events_since("c-1", 100)] == list(range(100, len(events)))
    assert store.events_since("c-1", len(events)) == [] == store.events_since("no-such", 0)
    f = store.fold("c-1")
    assert f.state.finished
    # the chain: seq 0 links to GENESIS, every hash is sha256(prev + canonical bytes)
    rows = store.stored_events("c-1")
    prev = bytes.fromhex(GENESIS)
    for row in rows:
        assert row.prev_hash == prev.hex() and row.version == VERSION
        prev = link(prev, row.payload)
        assert row.hash == prev.hex()
    assert store.head("c-1").hash == rows[-1].hash
    assert store.head("c-1").certificate == certificate(rows[-1].hash)
    assert store.verify("c-1", certificate=certificate(rows[-1].hash)).ok


def test_conflict_names_expected_and_actual_and_writes_nothing(store: Store) -> None:
    events = game_events("c-2", seed=4)
    store.append("c-2", events[:20])
    with pytest.raises(ConflictError) as info:
        store.append("c-2", events[15:25], expected_seq=15)
    assert (info.value.expected, info.value.actual) == (15, 20)
    assert "expected to append at seq 15" in str(info.value) and "next seq is 20" in str(info.value)
    with pytest.raises(ConflictError) as gap:
        store.append("c-2", events[22:25])
    assert (gap.value.expected, gap.value.actual) == (22, 20)
    assert store.head("c-2").next_seq == 20
    # events without a seq get the expected one
    note = {"type": "note", "text": "coffee break"}
    with pytest.raises(ConflictError):
        store.append("c-2", [note], expected_seq=19)
    assert store.append("c-2", [note], expected_seq=20).head.next_seq == 21
    assert store.events("c-2")[-1].text == "coffee break"  # type: ignore[attr-defined]


def test_retries_by_event_id_are_no_ops(store: Store) -> None:
    events = with_ids(game_events("c-3", seed=5))
    store.append("c-3", events[:10])
    again = store.append("c-3", events[:10], expected_seq=0)
    assert (again.appended, again.already_stored, again.head.next_seq) == (0, 10, 10)
    # a retry that overlaps what is stored and goes on: the stored part is skipped
    more = store.append("c-3", events[5:15], expected_seq=5)
    assert (more.appended, more.already_stored, more.head.next_seq) == (5, 5, 15)
    assert len(store.events("c-3")) == 15
    # the same id with other content at that position is a conflict, not a retry
    changed = {**events[14], "seat": (events[14].get("seat", 0) + 1) % 4}
    with pytest.raises(ConflictError):
        store.append("c-3", [changed])
    # an id already stored at another seq is refused
    moved = {**events[15], "id": events[3]["id"]}
    with pytest.raises(RejectedError) as info:
        store.append("c-3", [moved])
    assert info.value.code == "duplicate_id" and "seq 3" in str(info.value)
    # without ids, a repeated batch is a conflict (nothing says it is a retry)
    plain = game_events("c-3b", seed=5)
    store.append("c-3b", plain[:5])
    with pytest.raises(ConflictError):
        store.append("c-3b", plain[:5])
    assert store.head("c-3").next_seq == 15 and store.head("c-3b").next_seq == 5


def test_integrity_error_rejects_whole_batch(store: Store) -> None:
    events = game_events("c-4", seed=6)
    store.append("c-4", events[:3])
    plays = [i for i, e in enumerate(events) if e["type"] == "play"]
    first = plays[0]
    batch = [dict(e) for e in events[3:first + 3]]
    bad = batch[-1]
    assert bad["type"] == "play"
    bad["seat"] = (bad["seat"] + 1) % 4  # not this seat's turn
    with pytest.raises(RejectedError) as info:
        store.append("c-4", batch)
    e = info.value
    assert e.code == "not_your_turn" and e.seq == bad["seq"] and e.game == "c-4"
    assert f"seq {bad['seq']}" in str(e) and "nothing was written" in str(e)
    assert store.head("c-4").next_seq == 3
    with pytest.raises(RejectedError) as card:
        store.append("c-4", [{**events[3], "type": "play", "seat": 0, "card": "TH"}])
    assert card.value.code == "bad_event" and "not a card" in str(card.value)
    with pytest.raises(RejectedError):
        store.append("c-4", [events[3], events[5]])  # a gap inside the batch
    with pytest.raises(RejectedError):
        store.append("other", [events[3]])  # an event of another game
    assert store.head("c-4").next_seq == 3
    # a game must start with game_started
    with pytest.raises(RejectedError) as start:
        store.append("c-5", [{**events[1], "game": "c-5", "seq": 0}])
    assert start.value.code == "no_game_started"
    with pytest.raises(NoSuchGame):
        store.head("c-5")


def test_violations_are_stored_unless_revoke_is_reject(store: Store) -> None:
    faulty = game_events("c-6", seed=7, faults=Faults(revoke_rate=0.2))
    store.append("c-6", faulty)
    assert store.fold("c-6").state.violations, "the simulated revokes are stored as facts"
    strict = [{**e, "game": "c-7"} for e in faulty]
    strict[0] = {**strict[0], "options": {**(strict[0].get("options") or {}), "revoke": "reject"}}
    with pytest.raises(RejectedError) as info:
        store.append("c-7", strict)
    assert info.value.code in ("must_follow_suit", "must_trump", "must_overtrump", "no_undertrump")
    assert "revoke: reject" in str(info.value)
    with pytest.raises(NoSuchGame):
        store.events("c-7")


@pytest.mark.parametrize("table,sql", [
    ("events", "UPDATE events SET kind = 2 WHERE seq = 1"),
    ("event_types", "UPDATE event_types SET name = 'note' WHERE code = 1"),
    ("event_types", "DELETE FROM event_types"),
    ("events", "DELETE FROM events WHERE seq = 2"),
    ("games", "UPDATE games SET ruleset = 'rotterdam'"),
    ("games", "DELETE FROM games"),
    ("game_players", "UPDATE game_players SET player = 'mallory'"),
    ("game_players", "DELETE FROM game_players"),
])
def test_the_database_refuses_update_and_delete(store: Store, raw_sql: Any, table: str,
                                               sql: str) -> None:
    store.append("c-8", game_events("c-8", seed=8)[:5])
    with pytest.raises(DBAPIError) as info:
        raw_sql(sql)
    assert f"{table} is append-only" in str(info.value)
    assert len(store.events("c-8")) == 5 and store.verify().ok


def test_truncate_refused_on_postgresql(pg_url: str) -> None:
    from sqlalchemy import text

    with open_store(pg_url) as s:
        s.append("c-9", game_events("c-9", seed=9)[:5])
        with pytest.raises(DBAPIError, match="append-only"), s.engine.begin() as conn:
            conn.execute(text("TRUNCATE events"))
        assert len(s.events("c-9")) == 5


def test_players_table_is_editable_outside_the_chains(store: Store, raw_sql: Any) -> None:
    events = game_events("c-10", seed=10)
    store.append("c-10", events)
    seat0 = events[0]["seats"][0]
    head = store.head("c-10").hash
    store.set_player(seat0, "Ann de Vries")
    store.set_player(seat0, "Ann V.")
    assert store.players() == {seat0: "Ann V."}
    assert [g.game for g in store.games(player="ann v.")] == ["c-10"]
    assert raw_sql("UPDATE players SET name = 'A.' WHERE id = :p", p=seat0) == 1
    assert store.players()[seat0] == "A."
    assert store.erase_player(seat0) and not store.erase_player(seat0)
    assert store.players() == {}
    assert store.head("c-10").hash == head and store.verify().ok
    assert all(b"de Vries" not in r.payload for r in store.stored_events("c-10"))


def test_v0_event_is_read_through_the_upcaster(store: Store, raw_sql: Any) -> None:
    events = game_events("c-11", seed=11)
    first_play = next(i for i, e in enumerate(events) if e["type"] == "play")
    store.append("c-11", events[:first_play - 1])  # up to the dealt ... bids
    # the next event written by hand in format v0: 'player' for 'seat', 'T' for ten
    play = events[first_play - 1]
    v0 = dict(play)
    if "seat" in v0:
        v0["player"] = v0.pop("seat")
    if v0.get("card", "").startswith("10"):
        v0["card"] = "T" + v0["card"][2:]
    payload = orjson.dumps(v0)
    head = store.head("c-11")
    h = link(bytes.fromhex(head.hash), payload)
    pos = store.cursor() + 1
    # an event of an older format is stored whole: its bytes in ``rest``
    raw_sql("INSERT INTO events (game, seq, pos, kind, version, rest, hash) VALUES "
            "((SELECT pos FROM games WHERE id = :g), :s, :p, "
            "(SELECT code FROM event_types WHERE name = :t), 0, :pl, :h)",
            g="c-11", s=play["seq"], p=pos, t=play["type"], pl=payload, h=h)
    back = store.events("c-11")[-1]
    assert canonical_json(back) == canonical_json(event_from_dict(play))
    assert store.stored_events("c-11")[-1].version == 0
    assert store.verify("c-11").ok
    store.append("c-11", events[first_play:])  # the fold goes on over the upcast event
    assert store.fold("c-11").state.finished


def test_fast_streaming_gives_the_same_events(store: Store, raw_sql: Any) -> None:
    """``iter_games(fast=True)``: canonical plays come as FastPlay with the stored bytes, every
    other event (and a play stored in an old format) as the model ``fast=False`` gives."""
    events = game_events("c-12", seed=12)
    store.append("c-12", events)
    plain = dict(store.iter_games())["c-12"]
    fast = dict(store.iter_games(fast=True))["c-12"]
    stored = store.stored_events("c-12")
    assert len(fast) == len(plain) == len(stored)
    kinds = set()
    for f, p, row in zip(fast, plain, stored, strict=True):
        kinds.add(type(f).__name__)
        if isinstance(f, FastPlay):
            assert f.payload == row.payload == canonical_json(p)
            assert (f.game, f.seq, f.type, f.seat, f.card, f.at, f.id) == \
                (p.game, p.seq, p.type, p.seat, p.card, p.at, p.id)  # type: ignore[attr-defined]
        else:
            assert f == p
    assert "FastPlay" in kinds and "Play" not in kinds and len(kinds) > 2


def test_fast_streaming_makes_plays_from_their_columns(store: Store) -> None:
    """``iter_games(fast=True)`` on a game imported (its plays in their columns alone) and one
    recorded live (an id and ``recorded_at`` on every event): the events the models give,
    each play's canonical bytes written only when asked (a fold never asks); ``until`` cuts
    a game where it says."""
    imported, live = game_events("c-20", seed=20), game_events("c-21", seed=21)
    assert store.import_lines([orjson.dumps(e) for e in imported]).games == 1
    store.append("c-21", live)
    plain = dict(store.iter_games())
    fast = dict(store.iter_games(fast=True))
    for gid in ("c-20", "c-21"):
        assert len(fast[gid]) == len(plain[gid])
        plays = 0
        for f, p in zip(fast[gid], plain[gid], strict=True):
            if isinstance(f, FastPlay):
                plays += 1
                assert "payload" not in f.__dict__
                assert (f.game, f.seq, f.seat, f.card, f.at, f.id, f.recorded_at) == \
                    (p.game, p.seq, p.seat, p.card, p.at, p.id, p.recorded_at)  # type: ignore[attr-defined]
                assert f.payload == canonical_json(p) == f.__dict__["payload"]
            else:
                assert f == p
        assert plays == sum(e["type"] == "play" for e in (imported if gid == "c-20" else live))
    first = store.cursor() - len(live)  # the imported game's last position
    cut = dict(store.games_by_id(["c-20", "c-21"], until=first - 10, fast=True))
    assert list(cut) == ["c-20"] and [e.seq for e in cut["c-20"]] == \
        [e.seq for e in plain["c-20"][:-10]]


def test_games_listing_filters_and_streaming(store: Store) -> None:
    a = game_events("g-a", seed=1, seats=["ann", "bob", "cor", "dirk"],
                    at="2026-03-01T19:00:00Z")
    a[0] = {**a[0], "at": "2026-03-01T20:00:00+01:00"}  # stored as UTC
    b = game_events("g-b", "rotterdam", seed=2, seats=["eva", "bob", "gijs", "hanna"],
                    at="2026-03-05T20:00:00Z")
    store.append("g-a", a)
    c0 = store.cursor()
    assert c0 == len(a)
    store.append("g-b", b)
    rows = store.games()
    assert [g.game for g in rows] == ["g-a", "g-b"]
    assert rows[0].events == len(a) and rows[0].seats == ["ann", "bob", "cor", "dirk"]
    assert rows[0].created_at == "2026-03-01T19:00:00Z"
    assert rows[1].head_hash == store.head("g-b").hash
    assert [g.game for g in store.games(player="bob")] == ["g-a", "g-b"]
    assert [g.game for g in store.games(player="ann")] == ["g-a"]
    assert [g.game for g in store.games(ruleset="rotterdam")] == ["g-b"]
    assert [g.game for g in store.games(since="2026-03-02")] == ["g-b"]
    assert [g.game for g in store.games(limit=1)] == ["g-a"]
    streamed = list(store.iter_games(batch=1))
    assert [(g, len(ev)) for g, ev in streamed] == [("g-a", len(a)), ("g-b", len(b))]
    assert [g for g, _ in store.iter_games(ruleset="amsterdam")] == ["g-a"]
    # incremental: only what changed after a cursor, up to a snapshot
    assert [g for g, _ in store.iter_games(after=c0)] == ["g-b"]
    c1 = store.cursor()
    store.append("g-a", [{"type": "note", "text": "late note"}], expected_seq=len(a))
    later = list(store.iter_games(after=c1))
    assert [(g, len(ev)) for g, ev in later] == [("g-a", len(a) + 1)]
    snap = list(store.iter_games(after=0, until=c1))
    assert [(g, len(ev)) for g, ev in snap] == [("g-a", len(a)), ("g-b", len(b))]
    # a snapshot alone: the games that existed at c0, as they were then
    assert [(g, len(ev)) for g, ev in store.iter_games(until=c0)] == [("g-a", len(a))]
    with pytest.raises(Exception, match="not a date"):
        store.games(since="last tuesday")


def test_new_game(store: Store) -> None:
    gid = store.new_game("amsterdam", ["ann", "bob", "cor", "dirk"], dealer=3,
                         options={"revoke": "reject"})
    started = store.events(gid)[0]
    assert started.type == "game_started" and started.dealer == 3  # type: ignore[attr-defined]
    assert started.options == {"revoke": "reject"}  # type: ignore[attr-defined]
    assert started.at is not None
    with pytest.raises(ConflictError):
        store.new_game("amsterdam", ["ann", "bob", "cor", "dirk"], game=gid)
    with pytest.raises(RejectedError) as info:
        store.new_game("amsterdam", ["ann", "bob", "cor", "dirk"], options={"nonsense": 1})
    assert info.value.code == "bad_options"
    with pytest.raises(RejectedError):
        store.new_game("amsterdam", ["ann", "ann", "cor", "dirk"])


def test_a_reader_does_not_create_a_store(store_url: str) -> None:
    """``open_store(url, create=False)`` (what commands that only read use) refuses a missing
    store in a sentence and creates nothing; a writer's open creates it."""
    with pytest.raises(StoreError, match=r"^no (jaslog )?store at .*import games first"):
        open_store(store_url, create=False)
    with pytest.raises(StoreError):  # still nothing there
        open_store(store_url, create=False)
    open_store(store_url).close()
    with open_store(store_url, create=False) as s:
        assert s.games() == []


def test_reopen_keeps_everything(store_url: str) -> None:
    with open_store(store_url) as s:
        s.append("r-1", game_events("r-1", seed=12))
        head = s.head("r-1")
    with open_store(store_url) as s:
        assert s.head("r-1") == head and s.verify().ok


def test_fast_canonical_matches_canonical_json(root: Any) -> None:
    n = 0
    for path in sorted((root / "replays").glob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            if line.strip():
                e = parse_event(line)
                assert canonical(e) == canonical_json(e)
                n += 1
    assert n > 1000


def test_a_batch_sent_again_at_the_end_is_a_no_op(store: Store) -> None:
    """``at_end`` (what ``jaslog append`` without ``--expect`` uses): events without a seq go
    at the end; a batch sent again whose ids are stored is recognised where it is stored
    and appends nothing, even after other events followed it; an id reused for another
    event is refused in a sentence."""
    store.append("c-end", game_events("c-end", seed=7)[:10])
    ids = [str(uuid.uuid5(uuid.NAMESPACE_URL, f"c-end/note/{i}")) for i in range(3)]
    note = {"type": "note", "text": "table 3 starts", "id": ids[0]}
    first = store.append("c-end", [note], at_end=True)
    assert (first.appended, first.already_stored, first.head.next_seq) == (1, 0, 11)
    again = store.append("c-end", [note], at_end=True)
    assert (again.appended, again.already_stored, again.head) == (0, 1, first.head)
    pair = [{"type": "note", "text": f"n{i}", "id": ids[i]} for i in (1, 2)]
    assert store.append("c-end", pair, at_end=True).head.next_seq == 13
    store.append("c-end", [{"type": "note", "text": "no id"}], at_end=True)  # another writer
    retry = store.append("c-end", pair, at_end=True)
    assert (retry.appended, retry.already_stored, retry.head.next_seq) == (0, 2, 14)
    # the same id for another event: refused, naming the id, where it is stored and why
    with pytest.raises(RejectedError) as other:
        store.append("c-end", [{**note, "text": "table 4 starts"}], at_end=True)
    assert other.value.code == "duplicate_id" and other.value.seq == 10
    assert f"event id {ids[0]} is already stored at seq 10" in str(other.value)
    assert "other content" in str(other.value) and "nothing was written" in str(other.value)
    with pytest.raises(RejectedError, match="for a note event, not this play"):
        store.append("c-end", [{"type": "play", "seat": 1, "card": "JH", "id": ids[0]}],
                     at_end=True)
    # a stored id after a new event: not a retry of a stored batch, refused
    with pytest.raises(RejectedError, match=f"event id {ids[1]} is already stored at seq 11"):
        store.append("c-end", [{"type": "note", "text": "new"}, pair[0]], at_end=True)
    # without ids nothing says a batch is sent again: it is appended again
    assert store.append("c-end", [{"type": "note", "text": "no id"}], at_end=True).appended == 1
    assert store.head("c-end").next_seq == 15
    assert [e.text for e in store.events("c-end")[10:]] == [  # type: ignore[attr-defined]
        "table 3 starts", "n1", "n2", "no id", "no id"]
    with pytest.raises(ValueError):
        store.append("c-end", [note], expected_seq=10, at_end=True)
