"""Someone with database access changes rows behind jaslog's back: verify names each change.

The attacker first disables the append-only triggers, as anyone owning the database could.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.store import Store
from jaslog.store.codec import link
from jaslog.store.schema import SCHEMA_VERSION
from tests.store.conftest import game_events


def disable_triggers(store: Store, raw_sql: Callable[..., Any]) -> None:
    if store.dialect == "postgresql":
        for t in ("events", "games", "game_players"):
            raw_sql(f"ALTER TABLE {t} DISABLE TRIGGER USER")
    else:
        for t in ("events", "games", "game_players"):
            for op in ("update", "delete"):
                raw_sql(f"DROP TRIGGER {t}_no_{op}")


@pytest.fixture
def two_games(store: Store, raw_sql: Callable[..., Any]) -> Store:
    store.append("t-1", game_events("t-1", seed=21))
    store.append("t-2", game_events("t-2", seed=22))
    assert store.verify().ok
    disable_triggers(store, raw_sql)
    return store


def only_problem(store: Store) -> Any:
    rep = store.verify()
    assert not rep.ok
    per_game = [p for p in rep.problems if p.game != "(store)"]
    assert len(per_game) == 1, rep.problems
    return per_game[0]


def payload_of(raw_sql: Callable[..., Any], seq: int, game: str = "t-1") -> bytes:
    """The bytes an event's row gives back (rebuilt by the store from its parts)."""
    store: Store = raw_sql.store  # type: ignore[attr-defined]
    return store.stored_events(game)[seq].payload


def code_of(raw_sql: Callable[..., Any], name: str) -> int:
    return int(raw_sql("SELECT code FROM event_types WHERE name = :n", n=name)[0][0])


#: An event's row in parts, after its game and seq (the bytes are rebuilt from them).
PARTS = "kind, version, event_id, at, recorded_at, seat, card, rest, hash"


def test_edited_payload(two_games: Store, raw_sql: Callable[..., Any]) -> None:
    old = payload_of(raw_sql, 40)
    e = orjson.loads(old)
    e["seat"] = (e.get("seat", 0) + 2) % 4
    # bytes whole in ``rest`` are what the row gives back
    raw_sql("UPDATE events SET rest = :p WHERE game = (SELECT pos FROM games WHERE id = 't-1') "
            "AND seq = 40", p=orjson.dumps(e))
    p = only_problem(two_games)
    assert (p.game, p.seq, p.kind) == ("t-1", 40, "changed")
    assert "no longer match its hash" in p.message
    assert two_games.verify("t-2").ok


def test_edited_and_rehashed(two_games: Store, raw_sql: Callable[..., Any]) -> None:
    prev = raw_sql("SELECT hash FROM events WHERE game = (SELECT pos FROM games WHERE id = 't-1') "
                   "AND seq = 39")[0][0]
    e = orjson.loads(payload_of(raw_sql, 40))
    e["type"] = "note"
    e["text"] = "forged"
    for k in ("seat", "card", "call", "points", "hands"):
        e.pop(k, None)
    new = orjson.dumps(e)
    raw_sql("UPDATE events SET rest = :p, kind = :k, hash = :h WHERE game = "
            "(SELECT pos FROM games WHERE id = 't-1') AND seq = 40", p=new,
            k=code_of(raw_sql, "note"), h=link(bytes(prev), new))
    # seq 40 holds together now; seq 41 still links to the original
    p = only_problem(two_games)
    assert (p.game, p.seq, p.kind) == ("t-1", 41, "changed")
    assert "rewritten and rehashed" in p.message


def test_deleted_event(two_games: Store, raw_sql: Callable[..., Any]) -> None:
    assert raw_sql("DELETE FROM events WHERE game = (SELECT pos FROM games WHERE id = 't-1') "
                   "AND seq = 77") == 1
    p = only_problem(two_games)
    assert (p.game, p.seq, p.kind) == ("t-1", 77, "removed")
    store_level = [q for q in two_games.verify().problems if q.game == "(store)"]
    assert store_level and "position" in store_level[0].message


def test_deleted_event_renumbered(two_games: Store, raw_sql: Callable[..., Any]) -> None:
    n = two_games.head("t-1").next_seq
    raw_sql("DELETE FROM events WHERE game = (SELECT pos FROM games WHERE id = 't-1') AND seq = 50")
    for s in range(51, n):
        raw_sql("UPDATE events SET seq = :a WHERE game = (SELECT pos FROM games WHERE id = 't-1') "
                "AND seq = :b", a=s - 1, b=s)
    # a row's seq is part of the bytes it gives back: seq 51's event renumbered 50 is not
    # the event its hash covers
    p = only_problem(two_games)
    assert (p.game, p.seq, p.kind) == ("t-1", 50, "changed")
    assert "no longer match its hash" in p.message


def test_deleted_tail_is_found_by_positions_and_certificate(two_games: Store,
                                                           raw_sql: Callable[..., Any]) -> None:
    cert = two_games.head("t-1").certificate
    last = two_games.head("t-1").seq
    raw_sql("DELETE FROM events WHERE game = (SELECT pos FROM games WHERE id = 't-1') AND seq = :s", s=last)
    rep = two_games.verify()
    assert not rep.ok
    assert any(q.game == "(store)" and q.kind == "removed" for q in rep.problems)
    one = two_games.verify("t-1", certificate=cert)
    # the game's end was signed: the signature outlives the event and names it
    assert [(q.kind, q.seq) for q in one.problems] == [("signature", last)]
    assert "removed after they were signed" in one.problems[0].message


def test_swapped_rows(two_games: Store, raw_sql: Callable[..., Any]) -> None:
    raw_sql("UPDATE events SET seq = -1 WHERE game = (SELECT pos FROM games WHERE id = 't-1') AND seq = 60")
    raw_sql("UPDATE events SET seq = 60 WHERE game = (SELECT pos FROM games WHERE id = 't-1') AND seq = 61")
    raw_sql("UPDATE events SET seq = 61 WHERE game = (SELECT pos FROM games WHERE id = 't-1') AND seq = -1")
    p = only_problem(two_games)
    assert (p.game, p.seq, p.kind) == ("t-1", 60, "changed")


def test_swapped_contents(two_games: Store, raw_sql: Callable[..., Any]) -> None:
    rows = raw_sql(f"SELECT seq, {PARTS} FROM events WHERE game = "
                   "(SELECT pos FROM games WHERE id = 't-1') AND seq IN (30, 31) ORDER BY seq")
    names = PARTS.split(", ")
    for (seq, *_), (_, *parts) in zip(rows, reversed(rows), strict=True):
        raw_sql(f"UPDATE events SET {', '.join(f'{n} = :{n}' for n in names)} WHERE game = "
                "(SELECT pos FROM games WHERE id = 't-1') AND seq = :s", s=seq,
                **dict(zip(names, parts, strict=True)))
    # the row at seq 30 rebuilds the bytes of seq 31's event written as seq 30: not its hash
    p = only_problem(two_games)
    assert (p.game, p.seq, p.kind) == ("t-1", 30, "changed")


def test_event_moved_to_another_game(two_games: Store, raw_sql: Callable[..., Any]) -> None:
    raw_sql("UPDATE events SET game = (SELECT pos FROM games WHERE id = 't-2'), seq = 100000 "
            "WHERE game = (SELECT pos FROM games WHERE id = 't-1') AND seq = 5")
    rep = two_games.verify()
    kinds = {(q.game, q.seq, q.kind) for q in rep.problems}
    assert ("t-1", 5, "removed") in kinds
    assert any(g == "t-2" and k == "removed" for g, _, k in kinds)


def test_edited_header(two_games: Store, raw_sql: Callable[..., Any]) -> None:
    raw_sql("UPDATE games SET ruleset = 'rotterdam' WHERE id = 't-2'")
    p = only_problem(two_games)
    assert (p.game, p.seq, p.kind) == ("t-2", 0, "header")
    raw_sql("UPDATE games SET ruleset = 'amsterdam' WHERE id = 't-2'")
    raw_sql("UPDATE game_players SET player = 'mallory' WHERE game = 't-2' AND seat = 1")
    p = only_problem(two_games)
    assert (p.game, p.kind) == ("t-2", "header") and "game_players" in p.message


def test_whole_game_deleted(two_games: Store, raw_sql: Callable[..., Any]) -> None:
    raw_sql("DELETE FROM events WHERE game = (SELECT pos FROM games WHERE id = 't-1')")
    p = only_problem(two_games)
    assert (p.game, p.kind) == ("t-1", "removed")
    raw_sql("DELETE FROM game_players WHERE game = 't-1'")
    raw_sql("DELETE FROM games WHERE id = 't-1'")
    rep = two_games.verify()
    # its signatures stay, and say which game was there; event and game positions have holes
    assert [(q.game, q.kind) for q in rep.problems] == [("t-1", "removed"), ("(store)", "removed"),
                                                        ("(store)", "removed")]


def test_column_edit_outside_the_payload(two_games: Store, raw_sql: Callable[..., Any]) -> None:
    raw_sql("UPDATE events SET at = 915148800 WHERE game = (SELECT pos FROM games WHERE id = 't-2') "
            "AND seq = 12")
    p = only_problem(two_games)
    assert (p.game, p.seq, p.kind) == ("t-2", 12, "changed")


# ---------------------------------------------------------------------- a game cut back


#: Every table of the store that is append-only and holds a game's rows.
GAME_TABLES = ("events", "games", "game_players", "signatures", "game_results", "game_winners",
               "game_places", "verified_heads")


def disable_every_trigger(store: Store, raw_sql: Callable[..., Any]) -> None:
    for t in GAME_TABLES:
        if store.dialect == "postgresql":
            raw_sql(f"ALTER TABLE {t} DISABLE TRIGGER USER")
        else:
            for op in ("update", "delete"):
                raw_sql(f"DROP TRIGGER {t}_no_{op}")


def renumber(raw_sql: Callable[..., Any], table: str, key: str) -> None:
    """Close the holes in ``table``'s positions, as a careful forger would (the rows keep
    their order)."""
    rows = raw_sql(f"SELECT {key}, pos FROM {table} ORDER BY pos")
    raw_sql(f"UPDATE {table} SET pos = -pos")
    cols = key.split(", ")
    where = " AND ".join(f"{c} = :k{i}" for i, c in enumerate(cols))
    for n, r in enumerate(rows, 1):
        raw_sql(f"UPDATE {table} SET pos = :n WHERE {where}", n=n,
                **{f"k{i}": v for i, v in enumerate(r[:-1])})


def cut_back(raw_sql: Callable[..., Any], game: str, after: int) -> None:
    """Cut ``game`` back to seq ``after`` with plain SQL: its later events and signatures,
    its results and winners, its verified heads and its later round facts go, and the
    positions are renumbered."""
    raw_sql("DELETE FROM events WHERE game = (SELECT pos FROM games WHERE id = :g) "
            "AND seq > :s", g=game, s=after)
    raw_sql("DELETE FROM round_facts WHERE game = (SELECT pos FROM games WHERE id = :g) "
            "AND seq > :s", g=game, s=after)
    raw_sql("DELETE FROM signatures WHERE game = :g AND seq > :s", g=game, s=after)
    for t in ("game_winners", "game_results", "verified_heads"):
        raw_sql(f"DELETE FROM {t} WHERE game = :g", g=game)
    renumber(raw_sql, "events", "game, seq")
    renumber(raw_sql, "signatures", "game, seq, key_id")


def played_side_by_side(store: Store) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Two games recorded at the same time, a batch of each in turn: the first one finished,
    the second one a few rounds on."""
    a, b = game_events("cut-a", seed=31), game_events("cut-b", seed=32)
    b = b[:len(b) // 2]
    for i in range(0, max(len(a), len(b)), 9):
        for gid, evs in (("cut-a", a), ("cut-b", b)):
            if evs[i:i + 9]:
                store.append(gid, evs[i:i + 9])
    return a, b


def test_a_finished_game_cut_back_fails_every_verify(store: Store,
                                                     raw_sql: Callable[..., Any]) -> None:
    from jaslog.store.verify import verify_store

    played_side_by_side(store)
    club = store.signing_key()
    assert store.fold("cut-a").state.finished
    assert verify_store(store).ok  # a clean run: every game's head is recorded as verified
    # cut back to a signed round end, removing a signature that one of the other game follows
    last_b = max(s["pos"] for s in store.signatures("cut-b"))
    before = [s["seq"] for s in store.signatures("cut-a") if s["pos"] < last_b]
    keep = before[-2]
    disable_every_trigger(store, raw_sql)
    cut_back(raw_sql, "cut-a", keep)
    assert not store.fold("cut-a").state.finished
    for rep in (store.verify(), store.verify(keys=[club]), verify_store(store),
                verify_store(store, full=True)):
        assert not rep.ok
        kinds = {(p.game, p.kind) for p in rep.problems}
        assert ("cut-b", "signature") in kinds, rep.problems
        assert any("rows stored before it (events or signatures) were removed and the "
                   "positions renumbered" in p.message for p in rep.problems)


def test_a_cut_left_unrenumbered_leaves_holes(store: Store, raw_sql: Callable[..., Any]) -> None:
    played_side_by_side(store)
    signed = [s["seq"] for s in store.signatures("cut-a")]
    disable_every_trigger(store, raw_sql)
    raw_sql("DELETE FROM events WHERE game = (SELECT pos FROM games WHERE id = 'cut-a') "
            "AND seq > :s", s=signed[1])
    raw_sql("DELETE FROM signatures WHERE game = 'cut-a' AND seq > :s", s=signed[1])
    rep = store.verify()
    store_wide = " ".join(p.message for p in rep.problems if p.game == "(store)")
    assert "events were deleted from the store" in store_wide
    assert "signatures were deleted from the store" in store_wide


# ---------------------------------------------------------------------- the derived tables


@pytest.fixture
def won_and_live(store: Store, raw_sql: Callable[..., Any]) -> Store:
    """A finished game (``w-1``, won by team 1) and one being played (``w-2``), verified
    clean, with every trigger off."""
    store.append("w-1", game_events("w-1", seed=0))
    live = game_events("w-2", seed=1)
    store.append("w-2", live[:len(live) // 2])
    assert store.verify().ok
    disable_every_trigger(store, raw_sql)
    return store


def derived_problems(store: Store, full: bool = True) -> list[tuple[str, int | None, str]]:
    from jaslog.store.verify import verify_store

    rep = verify_store(store, full=full, record=False) if not full else store.verify()
    assert not rep.ok
    return [(p.game, p.seq, p.kind) for p in rep.problems]


def test_a_forged_winner_row_fails_verify(won_and_live: Store,
                                          raw_sql: Callable[..., Any]) -> None:
    from jaslog.store.verify import verify_store

    ((seq, winner),) = raw_sql("SELECT seq, winner FROM game_results WHERE game = 'w-1'")
    assert winner == "1"
    raw_sql("INSERT INTO game_winners (game, seq, player) VALUES ('w-1', :s, 'mallory')", s=seq)
    assert [i.game for _, i in won_and_live.game_page(limit=10, winner="mallory")] == ["w-1"]
    for rep in (won_and_live.verify(), won_and_live.verify("w-1"), verify_store(won_and_live),
                verify_store(won_and_live, full=True)):
        assert [(p.game, p.seq, p.kind) for p in rep.problems] == [("w-1", seq, "derived")]
        assert "game_winners names" in rep.problems[0].message
        assert "mallory" in rep.problems[0].message


def test_a_game_being_played_forged_as_won_fails_verify(won_and_live: Store,
                                                       raw_sql: Callable[..., Any]) -> None:
    head = won_and_live.head("w-2").seq
    raw_sql("INSERT INTO game_results (game, seq, finished, winner) VALUES "
            "('w-2', :s, :f, '0')", s=head, f=True)
    p = only_problem(won_and_live)
    assert (p.game, p.seq, p.kind) == ("w-2", head, "derived")
    assert f"game_results says that at seq {head} the game was won by 0, but its events say it " \
           "is not over" in p.message


def test_a_removed_result_fails_verify(won_and_live: Store, raw_sql: Callable[..., Any]) -> None:
    raw_sql("DELETE FROM game_winners WHERE game = 'w-1'")
    raw_sql("DELETE FROM game_results WHERE game = 'w-1'")
    p = only_problem(won_and_live)
    assert (p.game, p.kind) == ("w-1", "derived")
    assert "the game was won by 1 by its events, but game_results has no row" in p.message


def test_an_edited_place_fails_verify(won_and_live: Store, raw_sql: Callable[..., Any]) -> None:
    raw_sql("UPDATE game_places SET tournament = 'cup' WHERE game = 'w-2'")
    for full in (True, False):
        assert derived_problems(won_and_live, full) == [("w-2", 0, "derived")]
    assert "game_places says table None, tournament 'cup', but its game_started says table " \
           "None, tournament None" in only_problem(won_and_live).message


def test_an_unreadable_format_version_fails_verify(won_and_live: Store,
                                                   raw_sql: Callable[..., Any]) -> None:
    raw_sql("UPDATE events SET version = 7 WHERE game = (SELECT pos FROM games WHERE id = 'w-1') "
            "AND seq = 12")
    p = only_problem(won_and_live)
    assert (p.game, p.seq, p.kind) == ("w-1", 12, "version")
    assert "its format version column says 7, in which its hashed bytes do not read" in p.message


def test_derived_rows_of_no_game_fail_verify(won_and_live: Store,
                                             raw_sql: Callable[..., Any]) -> None:
    raw_sql("INSERT INTO game_places (game, table_id, tournament) VALUES ('ghost', '3', NULL)")
    rep = won_and_live.verify()
    assert [(p.game, p.kind) for p in rep.problems] == [("ghost", "derived")]
    assert "game_places has rows of a game the store does not have" in rep.problems[0].message


def test_an_unreadable_schema_version_fails_verify_and_refuses_writes(
        won_and_live: Store, raw_sql: Callable[..., Any]) -> None:
    from jaslog.store import StoreError, open_store
    from jaslog.store.verify import verify_store

    raw_sql("UPDATE jaslog_meta SET value = 'five' WHERE key = 'schema_version'")
    with open_store(won_and_live.url, create=False) as reader:
        rep = verify_store(reader)
    assert [(p.game, p.kind) for p in rep.problems] == [("(store)", "derived")]
    assert "jaslog_meta records the schema version 'five', which is not a version (the " \
           f"store's tables are those of version {SCHEMA_VERSION})" in rep.problems[0].message
    with pytest.raises(StoreError) as err:
        open_store(won_and_live.url)
    assert err.value.code == "unreadable_schema_version"
    raw_sql("UPDATE jaslog_meta SET value = '3' WHERE key = 'schema_version'")
    assert "jaslog_meta records schema version 3, but the store's tables are those of " \
           f"version {SCHEMA_VERSION}" in won_and_live.verify().problems[0].message


# ---------------------------------------------------------------------- the store's end


def test_a_cut_at_the_stores_end_needs_the_anchor(store: Store,
                                                  raw_sql: Callable[..., Any]) -> None:
    """Cut back after its newest signature, a store looks like itself a little earlier: the
    key alone cannot tell. The anchor a clean run gave (kept outside the store) does, and
    so it does when the store was written again after the cut."""
    from jaslog.store.verify import verify_store

    _, b = played_side_by_side(store)
    rest = game_events("cut-b", seed=32)[len(b):]
    for i in range(0, len(rest), 9):  # b ends last, a round at a time
        store.append("cut-b", rest[i:i + 9])
    clean = verify_store(store)
    assert clean.ok and clean.anchor is not None
    anchor = clean.anchor
    assert verify_store(store, anchor=anchor).ok
    # back to a round end of the events appended last, after every row of the other game
    keep = min(s["seq"] for s in store.signatures("cut-b") if s["seq"] >= len(b))
    assert keep < store.head("cut-b").seq
    disable_every_trigger(store, raw_sql)
    cut_back(raw_sql, "cut-b", keep)
    assert verify_store(store).ok  # what the key alone cannot show
    rep = verify_store(store, anchor=anchor)
    assert [(p.game, p.kind) for p in rep.problems] == [("(store)", "anchor")]
    assert "the store was cut back at its end" in rep.problems[0].message
    # written again after the cut (a note first, then the same cards): the anchor's position
    # holds another signature
    store.append("cut-b", [{"type": "note", "text": "resumed"}], expected_seq=keep + 1)
    again = [dict(e, seq=e["seq"] + 1) for e in game_events("cut-b", seed=32)[keep + 1:]]
    for i in range(0, len(again), 9):
        store.append("cut-b", again[i:i + 9])
    assert verify_store(store).ok
    rep = verify_store(store, anchor=anchor)
    assert [(p.game, p.kind) for p in rep.problems] == [("(store)", "anchor")]
    assert "was cut back and written again after it" in rep.problems[0].message
    with pytest.raises(ValueError, match="not an anchor"):
        verify_store(store, anchor="12:abc")


def test_verify_prints_the_anchor_and_checks_it(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from jaslog.cli import app
    from jaslog.store import open_store

    db = tmp_path / "anchor.sqlite"
    with open_store(str(db)) as s:
        s.append("a-1", game_events("a-1", seed=5))
    monkeypatch.setenv("JASLOG_DB", str(db))
    out = CliRunner().invoke(app, ["verify"])
    assert out.exit_code == 0, out.output
    line = next(ln for ln in out.stdout.splitlines() if ln.strip().startswith("anchor "))
    anchor = line.split()[1]
    js = orjson.loads(CliRunner().invoke(app, ["verify", "--json"]).stdout)
    assert js["signatures"]["anchor"] == anchor
    assert CliRunner().invoke(app, ["verify", "--anchor", anchor]).exit_code == 0
    pos, cert = anchor.split(":")
    gone = CliRunner().invoke(app, ["verify", "--anchor", f"{int(pos) + 5}:{cert}"])
    assert gone.exit_code == 1 and "the store was cut back at its end" in gone.stdout
    bad = CliRunner().invoke(app, ["verify", "--anchor", "soon"])
    assert bad.exit_code == 2 and "is not an anchor" in bad.output
