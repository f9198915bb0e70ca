"""A stored row that repeats another's fields is read as the event validating it gives: equal,
of the same type, with the same fields set, its lists its own; and a row validation refuses is
refused all the same (:mod:`jaslog.store.row_memo`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection

from jaslog.events import VERSION, Event
from jaslog.events.fast import FastPlay
from jaslog.events.limits import FIELDS_LIMITED, INT_MAX, event_problem
from jaslog.events.registry import models
from jaslog.games import register, unregister
from jaslog.play.sim import Faults, simulate_game, simulated_rulesets
from jaslog.store import open_store, row_check, row_memo
from jaslog.store.codec import UnreadableEvent, decode
from jaslog.store.compact import SECONDS_MAX, UnknownKind
from jaslog.store.row_memo import LAST_MS
from jaslog.store.rows import _model_of, codec, event_select, events_of
from jaslog.store.schema import EVENTS, GAMES
from tests.games.toy import GAME as TOY

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
FAULTS = Faults(revoke_rate=0.02, false_roem_rate=0.1, no_hands_rate=0.2, claim_rate=0.05)


def validating_events_of(conn: Connection, rows: list[Any], game: str | None = None
                         ) -> list[Any]:
    """:func:`events_of` without the kept rows: every row validated (the way it was read
    before rows were kept), each an event or the exception reading it raised."""
    c = codec(conn)
    out: list[Any] = []
    for r in rows:
        if game is None:
            g, seq, _pos, kind, version, eid, at, rec, seat, card, rest, _h = r
        else:
            g = game
            seq, kind, version, eid, at, rec, seat, card, rest = r
        if version == VERSION and kind != 1 and (rest is None or rest[:1] != b"{"):
            e = _model_of(c, g, seq, kind, eid, at, rec, seat, card, rest)
            if e is not None:
                out.append(e)
                continue
        try:
            try:
                payload = c.rebuild(g, seq, version, kind, eid, at, rec, seat, card, rest)
            except (UnknownKind, ValueError, TypeError, IndexError) as x:
                raise UnreadableEvent(f"the stored event cannot be rebuilt: {x}", g, seq) \
                    from None
            out.append(decode(payload, version, g, seq))
        except UnreadableEvent as x:
            out.append(x)
    return out


def read_each(conn: Connection, rows: list[Any], game: str | None = None) -> list[Any]:
    """:func:`events_of` row by row, each an event or the exception reading it raised."""
    out: list[Any] = []
    for r in rows:
        try:
            out.append(events_of(conn, [r], game=game)[0])
        except UnreadableEvent as x:
            out.append(x)
    return out


def assert_same(got: Any, want: Any) -> None:
    """The same event (type, fields, their types, fields set) or the same refusal."""
    if isinstance(want, Exception):
        assert type(got) is type(want) and str(got) == str(want), (got, want)
        return
    assert type(got) is type(want), (got, want)
    assert got == want
    assert list(got.__dict__) == list(want.__dict__)
    for name, v in want.__dict__.items():
        assert type(got.__dict__[name]) is type(v), name
    assert got.__pydantic_fields_set__ == want.__pydantic_fields_set__
    assert got.__pydantic_extra__ == want.__pydantic_extra__
    assert got.__pydantic_private__ == want.__pydantic_private__


@pytest.fixture(scope="module")
def toy() -> Iterator[None]:
    register(TOY)
    yield
    unregister(TOY)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, toy: None) -> Path:
    """A store of the golden replays, simulated games of every game (with faults) and the
    toy game."""
    path = tmp_path_factory.mktemp("memo") / "s.sqlite"
    with open_store(str(path)) as s:
        s.import_files(sorted(REPLAYS.glob("*.jsonl")))
        for i, ruleset in enumerate(simulated_rulesets()):
            for seed in (1, 2):
                gid = f"m-{ruleset}-{seed}"
                s.append(gid, simulate_game(gid, ruleset, seed=seed + 10 * i,  # type: ignore[arg-type]
                                            faults=FAULTS, at="2026-03-01T10:00:00Z"))
        s.append("m-toy", simulate_game("m-toy", "toy", seed=7, bot="random"))  # type: ignore[arg-type]
    return path


def _rows(conn: Connection) -> list[Any]:
    return list(conn.execute(event_select().order_by(GAMES.c.id, EVENTS.c.seq)))


def test_every_stored_event_reads_as_validating_it_gives(corpus: Path) -> None:
    with open_store(str(corpus)) as s, s.engine.connect() as conn:
        rows = _rows(conn)
        c = codec(conn)
        types = {c.names[r.kind & 0xFFFF] for r in rows}
        assert {"game_started", "dealt", "bid", "play", "roem", "double"} <= types, types
        want = validating_events_of(conn, rows)
        row_memo.forget()
        for _ in range(2):  # read once with nothing kept, then with every row kept
            got = events_of(conn, rows)
            assert len(got) == len(want)
            for g, w in zip(got, want, strict=True):
                assert_same(g, w)
            fast = events_of(conn, rows, fast=True)
            for f, w in zip(fast, want, strict=True):
                if isinstance(f, FastPlay):
                    assert w.type == "play" and (f.seat, f.card, f.at) == (w.seat, w.card, w.at)
                else:
                    assert_same(f, w)
        kept = {k[0] for k in row_memo._KEPT}
        assert {"bid", "roem"} <= kept and "game_started" not in kept


def test_a_repeated_row_has_lists_of_its_own(corpus: Path) -> None:
    with open_store(str(corpus)) as s, s.engine.connect() as conn:
        kind = codec(conn).codes["ruling"]
        row = (5, kind, VERSION, None, 1767641455, None, None, None, b'[2,[30,40],"why"]')
        first, second = [e.__dict__ for e in events_of(conn, [row, (6, *row[1:])],
                                                        game="rows-1")]
        assert first["score"] == second["score"] == [30, 40] and second["seq"] == 6
        first["score"].append(1)  # (frozen, but a list in it can be changed)
        third = events_of(conn, [(7, *row[1:])], game="rows-1")[0].__dict__
        assert third["score"] == [30, 40] and second["score"] == [30, 40]
        assert third["score"] is not second["score"]


HANDS = (b'[[["7C","8C","9C","10C","JC","QC","KC","AC"],["7D","8D","9D","10D","JD","QD","KD",'
         b'"AD"],["7H","8H","9H","10H","JH","QH","KH","AH"],["7S","8S","9S","10S","JS","QS","KS",'
         b'"AS"]],1,null,null]')
ODD_GAMES = ("rows-1", "rows-unseen", "..", ".", "bad id!", "x" * 129)
ODD_SEQS = (0, 7, -1, INT_MAX, INT_MAX + 1, True, 3.0)
ODD_TIMES = (None, 0, -1, 1767641455, SECONDS_MAX, SECONDS_MAX + 1, 1767641455123, LAST_MS,
             LAST_MS + 1, "2026-01-05T19:30:55Z", 1.5, True)
ODD_IDS = (None, bytes(range(16)), bytes(15), bytes(17), memoryview(bytes(range(16))), "abc")


def test_a_games_other_rows_read_compiled_as_validating_them_gives(corpus: Path) -> None:
    """A game's rows that are not plays, as the bulk fold reads them (``(seq, kind, version,
    event_id, at, recorded_at, seat, card, rest)``), are taken by
    :func:`row_memo.remembered_rows` (the short way of :func:`events_of`, compiled) from the
    row after the game's first on, as the events validating them gives; it stops at a play
    or whole bytes in ``rest``, which :func:`events_of` reads its own way, to the same
    events."""
    with open_store(str(corpus)) as s, s.engine.connect() as conn:
        c = codec(conn)
        by_game: dict[str, list[tuple[Any, ...]]] = {}
        for r in _rows(conn):
            if c.names[r.kind & 0xFFFF] != "play" and r.version == VERSION:
                by_game.setdefault(r.game, []).append(
                    (r.seq, r.kind, r.version, r.event_id, r.at, r.recorded_at, r.seat, r.card,
                     None if r.rest is None else bytes(r.rest)))
        row_memo.forget()
        taken = 0
        for _ in range(2):  # nothing kept, then every repeated row kept
            for g, rows in by_game.items():
                want = validating_events_of(conn, rows, game=g)
                got: list[Any] = []
                assert row_memo.remembered_rows(c, g, rows, 0, got) == 0  # (game_started: never)
                for x, w in zip(events_of(conn, rows, fast=True, game=g), want, strict=True):
                    assert_same(x, w)
                got = []
                stop = row_memo.remembered_rows(c, g, rows, 1, got)
                taken += stop == len(rows)
                assert stop > 1 and len(got) == stop - 1
                for x, w in zip(got, want[1:stop], strict=True):
                    assert_same(x, w)
        assert taken >= len(by_game)  # (every game's rows, at least once every row is kept)
        some = next(iter(by_game.values()))
        play = (99, c.codes["play"], VERSION, None, None, None, 0, 5, None)
        whole = (*some[1][:8], b'{"odd": 1}')
        for odd in (play, whole):
            got = []
            assert row_memo.remembered_rows(c, "m-toy", [some[1], odd, some[2]], 0, got) == 1
            assert len(got) == 1 and got[0].seq == some[1][0]


def _odd_rows(kind: int, seat: Any, card: Any, rest: bytes | None) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """A row of ``kind`` with these parts, and with each odd envelope value in turn."""
    base = ("rows-1", 7, kind, VERSION, None, 1767641455, None, seat, card, rest)
    yield base[0], base[1:]
    for i, values in ((0, ODD_GAMES), (1, ODD_SEQS), (5, ODD_TIMES), (6, ODD_TIMES),
                      (4, ODD_IDS)):
        for v in values:
            row = list(base)
            row[i] = v
            yield row[0], tuple(row[1:])


def test_a_row_like_a_kept_one_but_odd_is_read_or_refused_as_validating_it(corpus: Path) -> None:
    with open_store(str(corpus)) as s, s.engine.connect() as conn:
        codes = codec(conn).codes
        parts = [("bid", 2, None, b'["pass"]'), ("bid", 7, None, b'["pass"]'),
                 ("bid", True, None, b'["pass"]'), ("bid", 2, None, b'["nope"]'),
                 ("roem", 1, None, b"[20]"), ("roem", 1, None, b"[20.0]"),
                 ("roem", 1, None, b"[100000]"), ("roem", 1, None, b""), ("roem", 1, None, None),
                 ("note", None, None, b'["a note"]'), ("note", None, None, b'["a note",2,3]'),
                 ("correction", None, None, b'[[9223372036854775808],"x"]'),
                 ("correction", None, None, b'[[3,4],"oops"]'),
                 ("irregularity", 0, None, b'["exposed_card",["7C","AS"]]'),
                 ("irregularity", 0, None, b'["exposed_card",["7C","1S"]]'),
                 ("play", 0, 5, b"[]"), ("play", 0, 32, None), ("play", 0, -1, None),
                 ("dealt", None, None, b'[null,2]'), ("dealt", None, None, b'[null,2.0]'),
                 ("dealt", None, None, HANDS), ("dealt", None, None, HANDS.replace(b"7C", b"7c")),
                 ("dealt", None, None, HANDS.replace(b'"7C"', b"7")),
                 ("dealt", None, None, HANDS.replace(b'"7C"', b"null")),
                 ("dealt", None, None, b'[[["7C"],[]],null,"AS",["8C","JD"]]'),
                 ("dealt", None, None, b'[[["7C"],[]],null,"2S",["8C","JD"]]'),
                 ("dealt", None, None, b'[[["7C"],[]],null,null,null,null]'),
                 ("dealt", None, None, b'{"hands":null}'), ("dealt", None, None, b'"AS"'),
                 ("ruling", None, None, b'[2,[30,40,50,60,70],"why"]'),
                 ("ruling", None, None, b'[2,[30,true],"why"]'),
                 ("ruling", None, None, b'[0,[30,40],"why"]'),
                 ("ruling", None, None, b'[2,[30,40],""]'),
                 ("note", None, None, b'["' + b"x" * 10001 + b'"]'),
                 ("round_score", None, None, b'[3,[10,20],1,"H",[1,2],[0,0],"made"]'),
                 ("round_score", None, None, b'[3,[10,20],1,"X",[1,2],[0,0],"made"]'),
                 ("double", 1, None, None)]
        seen = 0
        for name, seat, card, rest in parts:
            odd = list(_odd_rows(codes[name], seat, card, rest))
            want = [validating_events_of(conn, [r], game=g)[0] for g, r in odd]
            row_memo.forget()
            # the game known by a valid event (rows-unseen stays unknown)
            events_of(conn, [(1, codes["note"], VERSION, None, None, None, None, None,
                              b'["known"]')], game="rows-1")
            for _ in range(2):  # nothing kept, then the first row (when valid) kept
                got = [read_each(conn, [r], game=g)[0] for g, r in odd]
                for x, w in zip(got, want, strict=True):
                    assert_same(x, w)
            seen += sum(isinstance(w, Event) for w in want)
        assert seen > 100  # (most rows are valid: the odd values are in one part each)


def test_the_models_check_no_field_against_another(toy: None) -> None:
    """What :mod:`jaslog.store.row_memo` rests on: a field's value is valid or not on its
    own, so a row's parts but the envelope validate the same in every row."""
    def functions(schema: Any) -> Iterator[str]:
        if isinstance(schema, dict):
            if str(schema.get("type", "")).startswith("function"):
                yield str(schema["type"])
            for v in schema.values():
                yield from functions(v)
        elif isinstance(schema, list | tuple):
            for v in schema:
                yield from functions(v)

    assert "double" in models()
    for name, model in models().items():
        model.model_rebuild()
        d = model.__pydantic_decorators__
        assert not (d.validators or d.field_validators or d.root_validators
                    or d.model_validators or d.field_serializers), name
        assert list(functions(model.__pydantic_core_schema__)) == [], name


def test_event_problem_reads_no_field_of_a_type_not_limited(toy: None) -> None:
    """What :func:`row_check.fields_pass` rests on: of a type not in
    :data:`FIELDS_LIMITED`, :func:`event_problem` reads the game and the seq alone (a field
    it read would trip), so a row's fields that pass their checks make an event it keeps."""
    class Tripwire:
        def __getattribute__(self, name: str) -> Any:
            raise AssertionError(f"event_problem read a field's {name}")

    seen = 0
    for name, model in models().items():
        if name in FIELDS_LIMITED:
            continue
        fields: dict[str, Any] = {f: Tripwire() for f in list(model.model_fields)[6:]}
        e = model.model_construct(game="g", seq=1, type=name, **fields)
        assert event_problem(e) is None, name
        seen += bool(fields)
    assert seen > 10


def test_a_long_rows_fields_pass_as_checking_them_into_an_event(corpus: Path) -> None:
    """:func:`row_check.fields_pass` (the check of a row too long to keep, with no event
    built) says of every row of the corpus and of odd deals what :func:`checked_event`
    says, for the types it is asked of; and :func:`row_memo.known_rows` stops at the same
    rows either way."""
    with open_store(str(corpus)) as s, s.engine.connect() as conn:
        c = codec(conn)
        rows = [(c.names[r.kind & 0xFFFF], r.seat, r.card,
                 None if r.rest is None else bytes(r.rest))
                for r in _rows(conn) if r.version == VERSION]
        for odd in (HANDS, HANDS.replace(b"7C", b"7c"), HANDS.replace(b'"7C"', b"7"),
                    HANDS.replace(b'"7C"', b"null"), HANDS[:-1], HANDS + b" ",
                    b'[[["7C"],[]],null,"AS",["8C","JD"]]', b'[[["7C"],[]],null,null,null,null]',
                    b'{"hands":null}', b'"AS"', b"[]", b"[null]"):
            rows.append(("dealt", None, None, odd))
            rows.append(("dealt", 2, 40, odd))
        passed = 0
        for name, seat, card, rest in rows:
            plan = c.plan(c.codes[name])
            tp = None if plan is None else row_check.type_plan(name, plan)
            if tp is None or name in FIELDS_LIMITED:
                continue
            want = row_check.checked_event(tp, name, "rows-1", 7, None, None, None, seat,
                                           card, rest) is not None
            assert row_check.fields_pass(tp, seat, card, rest) == want, (name, rest)
            passed += want
        assert passed > 100
        deals = [(k, c.codes["dealt"], VERSION, None, 1767641455, None, None, None, rest)
                 for k, rest in enumerate((HANDS, HANDS, HANDS.replace(b"7C", b"7c"), HANDS),
                                          start=1)]
        row_memo.forget()
        events_of(conn, [(0, c.codes["note"], VERSION, None, None, None, None, None,
                          b'["known"]')], game="rows-1")
        assert row_memo.known_rows(c, "rows-1", deals, 0) == 2
        assert row_memo.known_rows(c, "rows-1", deals, 3) == 4
