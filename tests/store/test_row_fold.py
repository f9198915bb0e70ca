"""A stored deal, bid or roem claim folded as its row (``GameFold.apply_row``): the bulk fold
of a SQLite store (``Store.fold_games``) hands a Klaverjas fold those rows as their parts, the
log keeping each row until it is read, and gives the folds, logs, reports and errors a fold
of the events gives, corrections and odd rows included."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import orjson
import pytest
from sqlalchemy import text

from jaslog.engine.fold import FoldError, GameFold, Handlers
from jaslog.events import Bid, Dealt, event_from_dict
from jaslog.games.klaverjas.fold import CALLS, deal_masks, roem_points
from jaslog.play.audit import game_report
from jaslog.play.fold import start_fold
from jaslog.play.sim import Faults
from jaslog.store import Store, open_store
from jaslog.store.fold_read import fold_one
from tests.store.conftest import game_events
from tests.store.test_tamper import disable_triggers

#: Klaverjas games (which take rows) beside the games that take none (every row their event).
RULESETS = {"a-0": "amsterdam", "r-1": "rotterdam", "k-2": "klaberjass-2p", "p-3": "kloepper"}
#: The rows a Klaverjas fold takes as they are.
TAKEN = frozenset({"dealt", "bid", "roem"})


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(str(tmp_path / "rows.sqlite"))
    yield s
    s.close()


def sql(store: Store, statement: str, **params: Any) -> list[Any]:
    """Run SQL behind the store's back."""
    with store.engine.connect() as conn, conn.begin():
        res = conn.execute(text(statement), params)
        return list(res) if res.returns_rows else []


def corrected(gid: str, ruleset: str, seed: int) -> list[dict[str, Any]]:
    """A simulated game with the second round's deal and the two events after it retracted
    and recorded again, the last of them retracted alone and recorded again, an
    irregularity and a note."""
    events = game_events(gid, ruleset, seed=seed,
                         faults=Faults(revoke_rate=0.05, false_roem_rate=0.3))
    k = [i for i, e in enumerate(events) if e["type"] == "dealt"][1]  # (the second round)
    again = events[k:k + 3]
    fixed = [*events[:k + 3],
             {"type": "correction", "retracts": [e["seq"] for e in again], "reason": "misdeal"},
             {"type": "irregularity", "kind": "exposed_card", "seat": 1},
             *again,
             {"type": "note", "text": "the last one again"}]
    fixed += [{"type": "correction", "retracts": [len(fixed) - 2], "reason": "misheard"},
              again[-1], *events[k + 3:]]
    return [{**e, "game": gid, "seq": seq} for seq, e in enumerate(fixed)]


def stored(store: Store, imported: bool) -> dict[str, list[Any]]:
    """The games of :data:`RULESETS`, each with corrections (:func:`corrected`), appended or
    imported: each game's events as parsed."""
    out: dict[str, list[Any]] = {}
    for i, (gid, ruleset) in enumerate(RULESETS.items()):
        events = corrected(gid, ruleset, seed=i + 5)
        if imported:
            assert store.import_lines([orjson.dumps(e) for e in events]).events == len(events)
        else:
            store.append(gid, events)
        out[gid] = [event_from_dict(e) for e in events]
    return out


def seen(folded: GameFold | FoldError) -> Any:
    """What a reader sees of a fold: its report, log, next seq and last time (or the error)."""
    if isinstance(folded, FoldError):
        return str(folded), folded.seq, folded.seat, folded.card, folded.code
    return (orjson.dumps(game_report(folded.game_id, folded, None)),
            [e.model_dump() for e in folded.log], folded.next_seq, folded.last_at,
            [e.seq for e in folded.openers])


@pytest.mark.parametrize("imported", [False, True], ids=["appended", "imported"])
def test_a_replayed_fold_is_the_fold_of_the_parsed_events(sqlite_store: Store,
                                                          imported: bool) -> None:
    """Every game, with its corrections: the bulk fold's report, log (event by event), last
    time and round openers are those of a fold of the events the store reads back, which
    are (imported) the parsed events; a Klaverjas fold kept its deals, bids
    and roem claims as their rows until its log was read, the other games none."""
    parsed = stored(sqlite_store, imported)
    folds = dict(sqlite_store.fold_games())
    read = dict(sqlite_store.iter_games(fast=True))
    assert list(folds) == list(RULESETS)
    for gid, folded in folds.items():
        assert isinstance(folded, GameFold)
        rows = [i for i, x in enumerate(folded.entries) if type(x) is tuple]
        kinds = {folded.log[i].type for i in rows}
        if RULESETS[gid] in ("amsterdam", "rotterdam"):
            assert kinds == TAKEN, kinds
            assert len(rows) > 50 and len(folded.retracted) == 4
        else:
            assert rows == []
        assert all(type(x) is not tuple for x in folded.entries)  # (read, once)
        assert seen(folded) == seen(fold_one(gid, read[gid]))
        if imported:  # (an appended event has the time it was recorded)
            assert seen(folded) == seen(fold_one(gid, parsed[gid]))


def test_a_kept_row_is_read_after_the_store_is_closed(tmp_path: Path) -> None:
    path = str(tmp_path / "closed.sqlite")
    with open_store(path) as store:
        parsed = stored(store, imported=True)
        folds = dict(store.fold_games())
    folded = folds["a-0"]
    assert isinstance(folded, GameFold)
    assert any(type(x) is tuple for x in folded.entries)
    assert seen(folded) == seen(fold_one("a-0", parsed["a-0"]))


#: Changes behind the store's back to a row of game a-0 (SQL ``SET`` clauses, then the
#: type of the row changed and which one: ``first``, ``last`` or ``middle``).
ODD_ROWS = {
    "a call no bid makes": ("rest = CAST('[\"bogus\"]' AS BLOB)", "bid", "middle"),
    "a bid out of turn": ("seat = (seat + 1) % 4", "bid", "middle"),
    "a bid with a card": ("card = 3", "bid", "first"),
    "a bid by no seat": ("seat = 4", "bid", "last"),
    "a bid in milliseconds with an id": (
        "at = 1767641455120, event_id = x'00112233445566778899aabbccddeeff'", "bid", "middle"),
    "a bid in a time past 9999": ("at = 253402300800000", "bid", "middle"),
    "a bid as text": ("rest = CAST(rest AS TEXT)", "bid", "middle"),
    "a rest of whole bytes": ("rest = x'7b2261223a317d'", "bid", "middle"),
    "roem below nothing": ("rest = CAST('[-10]' AS BLOB)", "roem", "middle"),
    "roem as a truth": ("rest = CAST('[true]' AS BLOB)", "roem", "middle"),
    "roem of a thousand": ("rest = CAST('[1000]' AS BLOB)", "roem", "middle"),
    "roem by another seat": ("seat = (seat + 1) % 4", "roem", "last"),
    "a deal with a card twice": (
        "rest = CAST(replace(CAST(rest AS TEXT), '\"AS\"', '\"KS\"') AS BLOB)", "dealt",
        "middle"),
    "a deal with a turn-up": (
        "rest = CAST(substr(CAST(rest AS TEXT), 1, length(rest) - 1) || ',null,\"7C\"]' "
        "AS BLOB)", "dealt", "middle"),
    "a deal of seven cards": (
        "rest = CAST(replace(CAST(rest AS TEXT), ',\"AS\"', '') AS BLOB)", "dealt", "last"),
    "a deal by another dealer": (
        "rest = CAST(substr(CAST(rest AS TEXT), 1, length(rest) - 1) || ',3]' AS BLOB)",
        "dealt", "middle"),
    "a deal of a card no deck has": (
        "rest = CAST(replace(CAST(rest AS TEXT), '\"AS\"', '\"1S\"') AS BLOB)", "dealt",
        "middle"),
    "a deal's card as a number": (
        "rest = CAST(replace(CAST(rest AS TEXT), '\"AS\"', '31') AS BLOB)", "dealt", "middle"),
    "a deal not seen": ("rest = NULL", "dealt", "middle"),
}


def changed(store: Store, change: str, kind: str, which: str) -> None:
    """``SET change`` on a row of type ``kind`` of game a-0 behind the store's back."""
    key = "(SELECT pos FROM games WHERE id = 'a-0')"
    code = f"(SELECT code FROM event_types WHERE name = '{kind}')"
    pick = {"first": "min(seq)", "last": "max(seq)"}.get(which, "min(seq) + (max(seq) - "
                                                         "min(seq)) / 2")
    seqs = sql(store, f"SELECT seq FROM events WHERE game = {key} AND kind = {code} "
               "ORDER BY seq")
    assert seqs
    seq = seqs[len(seqs) // 2][0] if which == "middle" else \
        sql(store, f"SELECT {pick} FROM events WHERE game = {key} AND kind = {code}")[0][0]
    sql(store, f"UPDATE events SET {change} WHERE game = {key} AND seq = {seq}")


def by_events(store: Store) -> tuple[list[tuple[str, Any]], list[str]]:
    bad: list[str] = []
    got = [(gid, seen(fold_one(gid, evs))) for gid, evs in store.iter_games(
        fast=True, unreadable=lambda e: bad.append(str(e)))]
    return got, bad


@pytest.mark.parametrize("odd", list(ODD_ROWS), ids=list(ODD_ROWS))
def test_an_odd_row_folds_as_its_events_fold(sqlite_store: Store, odd: str) -> None:
    """A deal, bid or roem claim changed behind the store's back into what the model, the
    rules or the columns do not take as usual: the same folds, errors (seq, seat, card,
    rule) and unreadable games as the events iter_games reads give."""
    stored(sqlite_store, imported=True)
    disable_triggers(sqlite_store, lambda q, **p: sql(sqlite_store, q, **p))
    changed(sqlite_store, *ODD_ROWS[odd])
    bad: list[str] = []
    got = [(gid, seen(f)) for gid, f in sqlite_store.fold_games(unreadable=lambda e: bad.append(
        str(e)))]
    want, want_bad = by_events(sqlite_store)
    assert (got, bad) == (want, want_bad)
    assert len(got) + len(bad) == len(RULESETS)


def test_an_unreadable_row_after_a_refused_one_is_the_games_error(sqlite_store: Store) -> None:
    """A bid out of turn early in the game, a call no bid makes later: the game is
    unreadable (every row is read before the fold's error stands), as when read as events."""
    stored(sqlite_store, imported=True)
    disable_triggers(sqlite_store, lambda q, **p: sql(sqlite_store, q, **p))
    changed(sqlite_store, "seat = (seat + 1) % 4", "bid", "first")
    changed(sqlite_store, "rest = CAST('[\"bogus\"]' AS BLOB)", "bid", "last")
    bad: list[str] = []
    got = [gid for gid, _ in sqlite_store.fold_games(unreadable=lambda e: bad.append(str(e)))]
    want, want_bad = by_events(sqlite_store)
    assert (got, bad) == ([g for g, _ in want], want_bad)
    assert "a-0" not in got and len(bad) == 1 and bad[0].startswith("game a-0 seq ")


def test_the_rows_a_klaverjas_fold_reads_as_they_are() -> None:
    """The parts of a stored row a Klaverjas fold reads without the event: exactly the
    forms the store writes of values the model takes."""
    assert CALLS[b'["pass"]'] == "pass" and set(CALLS.values()) >= {"accept", "H", "play"}
    assert b'["PASS"]' not in CALLS and b'[ "pass"]' not in CALLS
    assert [roem_points(r) for r in (b"[0]", b"[10000]", b"[10001]", b"[20.0]", b"[20,1]",
                                     b"20", b"[null]")] == [0, 10_000, None, None, None, None,
                                                             None]
    hands = [["7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC"],
             ["7D", "8D", "9D", "10D", "JD", "QD", "KD", "AD"],
             ["7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH"],
             ["7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS"]]
    deal = deal_masks(orjson.dumps([hands, 1]))
    assert deal is not None
    masks, dealer = deal
    assert masks is not None and dealer == 1 and len(masks) == 4
    assert [bin(m).count("1") for m in masks] == [8] * 4 and sum(masks) == (1 << 32) - 1
    assert deal_masks(orjson.dumps([hands])) == (masks, None)
    assert deal_masks(None) == (None, None) and deal_masks(b"[null,2]") == (None, 2)
    for odd in ([hands[:3]], [[*hands[:3], hands[3][:7]]], [hands, 4], [hands, True],
                [hands, None, "7C"], [[*hands[:3], [*hands[3][:7], "KS"]]],
                [[*hands[:3], [*hands[3][:7], "1S"]]], [[*hands[:3], [*hands[3][:7], 31]]]):
        assert deal_masks(orjson.dumps(odd)) is None, odd
    assert deal_masks(b"[") is None and deal_masks(b'{"hands":null}') is None


def test_a_fold_takes_only_the_rows_its_own_handlers_take() -> None:
    """A Klaverjas fold takes a deal and a bid as their rows; a fold class that takes bids
    by a handler of its own takes the deal and leaves the bid to its event (nothing
    changed); a game's fold that declares no rows (Kloepper) takes none."""
    events = [event_from_dict(e) for e in game_events("h-1", "amsterdam", seed=2)]
    deal, bid = events[1], events[2]
    assert isinstance(deal, Dealt) and isinstance(bid, Bid)
    dealt_rest = orjson.dumps([deal.hands, deal.dealer])
    bid_rest = orjson.dumps([bid.call])
    f = start_fold(events[0])
    cls: Any = type(f)

    class OwnBids(cls):  # type: ignore[misc,valid-type]
        handlers: ClassVar[Handlers] = {Bid: "own_bid"}

        def own_bid(self, e: Bid) -> None:
            self.game_state().bid(e.seat, e.call, e.seq)

    g = OwnBids(f.started, f.options)
    for fold in (f, g):
        assert fold.apply_row("dealt", None, None, dealt_rest, (1, "row")) is True
        assert fold.next_seq == 2 and fold.opened == [1] and fold.entries[1] == (1, "row")
    assert f.apply_row("bid", bid.seat, None, bid_rest, (2, "row")) is True and f.next_seq == 3
    assert g.apply_row("bid", bid.seat, None, bid_rest, (2, "row")) is False
    assert g.next_seq == 2 and len(g.entries) == 2
    g.apply(bid)  # (its own handler)
    assert g.next_seq == 3 and g.entries[2] is bid
    other = [event_from_dict(e) for e in game_events("h-2", "kloepper", seed=2)]
    k = start_fold(other[0])
    assert isinstance(other[1], Dealt)
    assert k.apply_row("dealt", None, None, orjson.dumps([other[1].hands]), (1, "row")) is False
    assert k.next_seq == 1 and k.entries == [other[0]]
