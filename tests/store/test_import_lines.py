"""The import's block reader (jaslog.store.import_lines): it reads a play from its bytes
exactly as the play's regex does, and a store imported through it holds the same bytes,
the same chain and the same derived rows as one imported line by line the general way."""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime
from hashlib import sha256
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.events import VERSION, EventError, canonical_json, parse_event
from jaslog.events.fast import PLAY_TEXT
from jaslog.games import registry
from jaslog.play.sim import DEFAULT_START, Faults, simulate
from jaslog.store import Store, open_store
from jaslog.store.clock import ManualClock
from jaslog.store.compact import CARD_CODE, time_code
from jaslog.store.import_lines import PlayLines
from jaslog.store.importer import Importer
from jaslog.store.types import ImportSummary
from tests.store.conftest import STORE_TIME

PLAY = b'{"game":"g-1","seq":17,"type":"play","at":"2026-01-05T19:30:55Z","seat":2,"card":"10H"}'


def _variants() -> list[bytes]:
    """Plays of the common form and lines a byte or a field away from one."""
    out = [PLAY, PLAY + b"\n", PLAY + b"\r\n", PLAY + b"\r", PLAY + b" ", b" " + PLAY,
           PLAY.replace(b',"at":"2026-01-05T19:30:55Z"', b""),
           PLAY.replace(b'"seq":17', b'"seq":0'), PLAY.replace(b'"seq":17', b'"seq":017'),
           PLAY.replace(b'"seq":17', b'"seq":' + b"9" * 18),
           PLAY.replace(b'"seq":17', b'"seq":' + b"9" * 19),
           PLAY.replace(b'"seq":17', b'"seq":-1'), PLAY.replace(b'"seq":17', b'"seq":"17"'),
           PLAY.replace(b"g-1", b"."), PLAY.replace(b"g-1", b".."), PLAY.replace(b"g-1", b"..."),
           PLAY.replace(b"g-1", b"a" * 128), PLAY.replace(b"g-1", b"a" * 129),
           PLAY.replace(b"g-1", b""), PLAY.replace(b"g-1", b"g 1"),
           PLAY.replace(b"g-1", b"g\\u002d1"), PLAY.replace(b"g-1", b"A.z:0_9-"),
           PLAY.replace(b'"seat":2', b'"seat":4'), PLAY.replace(b'"seat":2', b'"seat":0'),
           PLAY.replace(b'"seat":2', b'"seat":3'), PLAY.replace(b'"seat":2', b'"seat":22'),
           PLAY.replace(b'"play"', b'"plays"'), PLAY.replace(b'"play"', b'"bid"'),
           PLAY.replace(b'"at":"2026-01-05T19:30:55Z",',
                        b'"at":"2026-01-05T19:30:55Z","id":"0123456789abcdef0123456789abcdef",'),
           PLAY.replace(b'"at":"2026-01-05T19:30:55Z",',
                        b'"at":"2026-01-05T19:30:55Z","recorded_at":"2026-01-05T19:30:55.123Z",'),
           PLAY + PLAY, PLAY[:-1], PLAY + b"}", PLAY.replace(b"}", b" }")]
    for card in ("7C", "8D", "9H", "10S", "JC", "QD", "KH", "AS", "1H", "11H", "100H", "10X",
                 "AX", "aS", "T H", "10"):
        out.append(PLAY.replace(b"10H", card.encode()))
    for at in ("1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "0001-01-01T00:00:00Z",
               "9999-12-31T23:59:59Z", "2024-02-29T12:00:00Z", "2026-02-29T12:00:00Z",
               "2000-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
               "2026-12-31T23:59:59Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
               "2026-01-00T00:00:00Z", "2026-01-05T24:00:00Z", "2026-01-05T23:60:00Z",
               "2026-01-05T23:59:60Z", "2026-01-05t19:30:55Z", "2026-01-05 19:30:55Z",
               "2026-01-05T19:30:55z", "2026-01-05T19:30:55.5Z", "2026-01-05T19:30:55.123Z",
               "2026-01-05T19:30:55+01:00", "2026-01-05T19:30:55", "2026-1-05T19:30:55Z",
               "20260105T193055Z", "2026-01-05T19:30:5Z", "2026-01-05T19:30:55ZZ",
               "2026-01-05X19:30:55Z", "2026/01/05T19:30:55Z", "2026-01-05T19-30:55Z"):
        out.append(PLAY.replace(b"2026-01-05T19:30:55Z", at.encode()))
    rng = random.Random(7)
    out += (_mutated(PLAY, rng, b'0123456789-:TZ".,{}ACDHSJQK\\ \n\r\x00\xff')
            for _ in range(3000))
    return out


def _mutated(line: bytes, rng: random.Random, alphabet: bytes) -> bytes:
    """``line`` with one byte changed (to one of ``alphabet``), dropped or doubled."""
    b = bytearray(line)
    k = rng.randrange(len(b))
    what = rng.randrange(3)
    if what == 0:
        b[k] = rng.choice(alphabet)
    elif what == 1:
        del b[k]
    else:
        b.insert(k, b[k])
    return bytes(b)


def test_the_reader_takes_exactly_the_common_plays_the_regex_takes() -> None:
    """A line it reads is one the play's regex matches, with the same fields, the same
    canonical bytes, and the time and card codes the store's codec gives; every line it
    leaves goes the general way (which then reads it as before)."""
    r = PlayLines(True)
    taken = 0
    for raw in _variants():
        got = r.read(raw)
        m = PLAY_TEXT.fullmatch(raw.decode("latin-1"))
        if not got:
            continue
        taken += 1
        assert m is not None, raw
        _, gid, seq, at, eid, rec, seat, card = m.groups()
        assert (eid, rec) == (None, None), raw
        assert (r.gid, r.seq, r.seat, r.card, r.at) == (gid, int(seq), int(seat), card, at), raw
        assert r.end == m.end(1), raw
        assert r.card_code == CARD_CODE[card]
        assert r.at_code == (-1 if at is None else time_code(at)), raw
    assert taken > 40
    # the common forms are all read: with and without a time, any line break, any card
    for raw in (PLAY, PLAY + b"\n", PLAY + b"\r\n", PLAY.replace(b"g-1", b"a" * 128),
                PLAY.replace(b',"at":"2026-01-05T19:30:55Z"', b"")):
        assert r.read(raw), raw
    # and so is every play of a simulated game, its times included
    lines = [orjson.dumps(e) for e in simulate(2, seed=4, start=DEFAULT_START)]
    plays = [x for x in lines if b'"type":"play"' in x]
    assert plays and all(r.read(x) for x in plays)
    assert not any(r.read(x) for x in lines if x not in plays)


def _others() -> list[bytes]:
    """The deals, bids and roem claims of simulated games of every preset, and lines a
    field or a byte away from one of them."""
    lines = [orjson.dumps(e) for e in simulate(6, list(registry.rulesets()), seed=9,
                                               start=DEFAULT_START)]
    out = [x for x in lines if b'"type":"play"' not in x and b'"type":"game_started"' not in x]
    bid = next(x for x in out if b'"type":"bid"' in x)
    roem = next(x for x in out if b'"type":"roem"' in x)
    dealt = next(x for x in out if b'"type":"dealt"' in x)
    at = orjson.loads(bid)["at"].encode()
    for x in (bid, roem, dealt):
        out += [x + b"\n", x + b"\r\n", x + b"\r", x + b" ", x.replace(b",", b", ", 1),
                x.replace(at, b"2026-01-05T19:30:55.123Z"), x.replace(at, b"2026-01-05T19:30:55.5Z"),
                x.replace(at, b"2026-01-05T19:30:55+01:00"), x.replace(at, b"1969-12-31T23:59:59Z"),
                x.replace(at, at + b'","id":"0123abcd-0123-4567-89ab-0123456789ab'),
                x.replace(at, at + b'","id":"0123ABCD-0123-4567-89AB-0123456789AB'),
                x.replace(at, at + b'","recorded_at":"2026-01-05T19:30:55.250Z'),
                x.replace(b',"at":"' + at + b'"', b""), x.replace(b'"seq":', b'"seq":0'),
                x.replace(b'"seq":', b'"seq":' + b"9" * 18, 1)]
    out += [bid.replace(b'"call":"', b'"call":"x'), bid.replace(b'"seat":', b'"seat":4'),
            bid.replace(b'"seat":', b'"seat":"'), roem.replace(b'"points":', b'"points":9999'),
            roem.replace(b'"points":', b'"points":-'), roem.replace(b'"points":', b'"points":0'),
            dealt.replace(b'"7C"', b'"7X"'), dealt.replace(b']]', b'],[]]'),
            dealt.replace(b'}', b',"dealer":2}'), dealt.replace(b'}', b',"turn_up":"10H"}'),
            dealt.replace(b'}', b',"dealer":1,"stock":["7C","8C"]}'),
            dealt.replace(b'}', b',"stock":[]}'), dealt.replace(b'}', b',"dealer":9}')]
    rng = random.Random(11)
    out += (_mutated(x, rng, b'0123456789-:TZ".,{}[]ACDHSJQK\\ \n\r\x00\xff')
            for x in (bid, roem, dealt) * 300)  # a byte changed, dropped or doubled anywhere
    return out


def test_the_reader_takes_a_deal_bid_or_roem_claim_as_the_models_and_the_codec_do(
        tmp_path: Path) -> None:
    """A deal, bid or roem claim it reads from its bytes is the event the models read, its
    payload the event's canonical bytes and its row the one the codec writes of them; every
    line it leaves goes the general way. It reads every one of a simulated game."""
    with open_store(str(tmp_path / "s.sqlite")) as store:
        codec = Importer(store).validator.codec
    r = PlayLines(True)
    taken = 0
    for raw in _others():
        assert not r.read(raw)
        e = r.model(raw, codec)
        if e is None:
            continue
        taken += 1
        want = parse_event(raw)
        assert type(e) is type(want) and e.__dict__ == want.__dict__, raw
        assert e.model_fields_set == want.model_fields_set, raw
        assert r.payload == canonical_json(want), raw
        row = codec.encode(r.payload, codec.codes[want.type], None)
        assert r.tail == (row[0], VERSION, *row[1:]), raw
    assert taken > 100
    lines = [orjson.dumps(e) for e in simulate(6, list(registry.rulesets()), seed=3,
                                               start=DEFAULT_START)]
    others = [x for x in lines
              if any(t in x for t in (b'"type":"bid"', b'"type":"roem"', b'"type":"dealt"'))]
    assert others and all(r.read(x) is False and r.model(x, codec) is not None for x in others)


def _lines() -> list[bytes]:
    """Interleaved games (runs of one to eight lines) with every kind of line the import
    meets: the common plays, plays with an id, a recorded_at, a time in milliseconds or in
    tenths, line breaks of both kinds, text that is not canonical, a bad line, an illegal play
    in the middle of a run of plays, a bid after a gap, a duplicate seq, lines naming no
    game."""
    events = list(simulate(5, ["amsterdam", "rotterdam"], seed=21, start=DEFAULT_START,
                           faults=Faults(revoke_rate=0.01, no_hands_rate=0.2)))
    rng = random.Random(3)
    by_game: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        by_game.setdefault(e["game"], []).append(e)
    mixed: list[dict[str, Any]] = []
    while by_game:
        gid = rng.choice(sorted(by_game))
        run = rng.randint(1, 8)
        mixed += by_game[gid][:run]
        del by_game[gid][:run]
        if not by_game[gid]:
            del by_game[gid]
    out: list[bytes] = []
    for i, e in enumerate(mixed):
        raw = orjson.dumps(e)
        gid = e["game"]
        if e["type"] == "play" and gid.endswith("1") and i % 5 == 0:
            raw = orjson.dumps({**e, "id": f"{i:032x}"})
        elif e["type"] == "play" and gid.endswith("2") and i % 3 == 0:
            stamp = datetime.fromisoformat(e["at"]).astimezone(UTC)
            raw = orjson.dumps({**e, "recorded_at": stamp.strftime("%Y-%m-%dT%H:%M:%S.250Z")})
        elif e["type"] == "play" and gid.endswith("3") and i % 4 == 0:
            raw = orjson.dumps({**e, "at": e["at"].replace("Z", ".500Z")})
        elif e["type"] == "play" and gid.endswith("3") and i % 4 == 2:  # kept in the rest
            raw = orjson.dumps({**e, "at": e["at"].replace("Z", ".5Z")})
        elif i % 11 == 0:
            raw = raw.replace(b",", b", ")
        out.append(raw + rng.choice([b"", b"\n", b"\r\n"]))
    plays = [i for i, x in enumerate(out) if b'"type":"play"' in x and b"-000004" in x]
    bad = plays[60]
    out[bad] = out[bad].replace(b'"seat":', b'"seat":5,"x":', 1)  # a bad line: rejects game 4
    illegal = [i for i, x in enumerate(out) if b'"type":"play"' in x and b"-000000" in x][90]
    e = orjson.loads(out[illegal])
    out[illegal] = orjson.dumps({**e, "seat": (e["seat"] + 1) % 4})  # not their turn
    bid = [i for i, x in enumerate(out) if b'"type":"bid"' in x and b"-000003" in x][5]
    e = orjson.loads(out[bid])
    out[bid] = orjson.dumps({**e, "seq": e["seq"] + 1})  # a bid after a gap
    again = [i for i, x in enumerate(out) if b'"type":"play"' in x and b"-000002" in x][200]
    out.insert(again + 1, out[again])  # a play twice
    out[300:300] = [b"", b"   \n", b"not json\n", b"[1,2]\n"]
    return out


def _import(store: Store, lines: list[bytes], how: str, path: Path) -> ImportSummary:
    """Import ``lines`` into ``store``: ``one by one`` through the general way of every line
    (:meth:`~jaslog.store.importer.Validator.take_bytes`), or as the store does (blocks)."""
    if how == "one by one":
        imp = Importer(store, batch_games=2)
        for number, raw in enumerate(lines, 1):
            imp.validator.take_bytes(raw, "in.jsonl", number)
        return imp.finish()
    if how == "files":
        path.write_bytes(b"".join(x if x.endswith(b"\n") else x + b"\n" for x in lines))
        return store.import_files([path], batch_games=2, workers=0)
    workers = 2 if how == "lines, 2 workers" else 0
    return store.import_lines(lines, source="in.jsonl", batch_games=2, workers=workers)


def _stored(store: Store) -> dict[str, Any]:
    """What a store holds of each game: its canonical bytes, its head, where it stands."""
    out: dict[str, Any] = {}
    for gid, events in store.iter_games():
        h = store.head(gid)
        out[gid] = (b"".join(canonical_json(e) + b"\n" for e in events), (h.next_seq, h.hash))
    return out


def _expected(lines: list[bytes], games: set[str]) -> dict[str, Any]:
    """What :func:`_stored` says of ``games`` when each holds the events its lines give,
    read by the models: their canonical bytes, and the head of their chain linked here."""
    by_game: dict[str, list[bytes]] = {}
    for raw in lines:
        try:
            e = parse_event(raw)
        except EventError:
            continue
        if e.game in games:
            by_game.setdefault(e.game, []).append(canonical_json(e))
    out: dict[str, Any] = {}
    for gid, payloads in by_game.items():
        h = bytes(32)
        for b in payloads:
            h = sha256(h + b).digest()
        out[gid] = (b"".join(b + b"\n" for b in payloads), (len(payloads), h.hex()))
    return out


def _tables(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of an SQLite store, but the signatures (each signs with a
    key of its own store) and when a game was stored (the time of the write)."""
    con = sqlite3.connect(path)
    try:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                           "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        out = {}
        for t in names:
            if "sign" in t or "key" in t:
                continue
            cols = [r[1] for r in con.execute(f"PRAGMA table_info({t})") if r[1] != "stored_at"]
            out[t] = con.execute(f"SELECT {', '.join(cols)} FROM {t} ORDER BY 1, 2").fetchall()
        return out
    finally:
        con.close()


@pytest.mark.parametrize("how", ["lines", "files", "lines, 2 workers"])
def test_a_store_imported_in_blocks_is_the_one_imported_line_by_line(
        tmp_path: Path, how: str) -> None:
    lines = _lines()
    old = [orjson.dumps(e) for e in simulate(1, seed=5, start=DEFAULT_START, prefix="old")]
    stores = {}
    summaries = {}
    for way in ("one by one", how):
        path = tmp_path / f"{way.replace(' ', '-').replace(',', '')}.sqlite"
        with open_store(str(path), clock=ManualClock(STORE_TIME)) as store:
            # a game stored in part before: the import extends it
            store.import_lines(old[:50])
            summaries[way] = _import(store, lines + old, way, tmp_path / f"{way}.jsonl")
            assert store.verify().ok
            stores[way] = _stored(store)
        if how == "lines":  # written in the same batches: the same rows, at the same places
            stores[way + " tables"] = _tables(path)
    one, blocks = summaries["one by one"], summaries[how]
    assert (blocks.games, blocks.events, blocks.lines, blocks.extended) == \
        (one.games, one.events, one.lines, one.extended)
    assert one.games == 1 and one.extended == ["old-amsterdam-000000"]
    reasons = sorted((r.game or "", r.reason) for r in one.rejected)
    if how == "files":  # the file's name in every sentence, and its lines all end with a break
        reasons = [(g, x.replace("in.jsonl", str(tmp_path / f"{how}.jsonl"))) for g, x in reasons]
    assert sorted((r.game or "", r.reason) for r in blocks.rejected) == reasons
    assert "[not_your_turn]" in str(reasons) and "seq_duplicate" in str(reasons)
    assert "[seq_gap]" in str(reasons)
    assert stores[how] == stores["one by one"] == _expected(lines + old, set(stores[how]))
    if how == "lines":
        assert stores[how + " tables"] == stores["one by one tables"]


def test_blocks_import_into_each_backend_as_line_by_line(store: Store, tmp_path: Path) -> None:
    """The same on PostgreSQL: the bytes and chain heads of every game as an SQLite store
    imported line by line holds them."""
    lines = _lines()
    with open_store(str(tmp_path / "one.sqlite")) as one:
        _import(one, lines, "one by one", tmp_path)
        want = _stored(one)
    s = _import(store, lines, "lines", tmp_path)
    assert s.games == 1 and store.verify().ok
    assert _stored(store) == want == _expected(lines, set(want))
