"""Online games played from the seats through the API (rule book 9.3, decisions 18-21), on a
real SQLite file: the server deals (commit, nonces, reveal), each seat token appends only its
own seat's legal actions in turn, the clock plays for a seat out of time, every stored event
says who appended it, the seed is nowhere before the round ends, and the game verifies."""

from __future__ import annotations

import asyncio
import json
import logging
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from jaslog.cards import CARD_TEXT, cards_of
from jaslog.service import create_app, db
from jaslog.service.api_online import wait_for_seat
from jaslog.service.move_clock import autoplay_event
from jaslog.service.online import online_of
from jaslog.store.clock import ManualClock, stamp, system_clock
from tests.cli import jaslog

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient

SEATS = ["ann", "bob", "cor", "dirk"]
SHORT = {"game_end": {"type": "deals", "count": 1}}


@dataclass
class Room:
    client: TestClient
    svc: Any
    clock: ManualClock
    db: Path
    admin: str
    game: str = ""
    seats: list[str] = field(default_factory=list)

    def h(self, token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    def events(self) -> list[dict[str, Any]]:
        r = self.client.get(f"/api/games/{self.game}/events", headers=self.h(self.admin))
        assert r.status_code == 200, r.text
        return list(r.json()["events"])

    def head(self) -> int:
        return int(self.client.get(f"/api/games/{self.game}/head",
                                   headers=self.h(self.admin)).json()["next_seq"])

    def send(self, seat: int, events: list[dict[str, Any]], expected: int | None = None,
             token: str | None = None) -> Any:
        body: dict[str, Any] = {"events": events}
        if expected is not None:
            body["expected_seq"] = expected
        return self.client.post(f"/api/games/{self.game}/events", json=body,
                                headers=self.h(token or self.seats[seat]))

    def due(self) -> tuple[str, int | None, dict[str, Any] | None]:
        """What the rules expect now, of which seat, and a legal move for it."""
        _, tl = self.svc.timeline(self.game)
        kind, seat = tl.fold.state.expected()
        move = autoplay_event(tl.fold, kind, seat) if seat is not None else None
        return kind, seat, move

    def authors(self) -> dict[int, str]:
        with self.svc.engine.connect() as c:
            rows = c.execute(select(db.event_authors.c.seq, db.event_authors.c.by).where(
                db.event_authors.c.game == self.game)).all()
        return {int(s): str(b) for s, b in rows}

    def seed(self, round_no: int) -> str:
        with self.svc.engine.connect() as c:
            return str(c.execute(select(db.deal_seeds.c.seed).where(
                db.deal_seeds.c.game == self.game, db.deal_seeds.c.round == round_no)).scalar())


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    path = tmp_path / "online.sqlite"
    clock = ManualClock(stamp(system_clock()))
    app = create_app(str(path), clock=clock)
    app.state.move_clock_every = 0
    app.state.online_every = 0
    svc = app.state.service
    admin = svc.tokens.create("admin")[0]
    with TestClient(app) as client:
        yield Room(client, svc, clock, path, admin)


def start(room: Room, options: dict[str, Any] | None = None, nonces: bool = True) -> None:
    r = room.client.post("/api/games", json={
        "online": True, "ruleset": "klaverjas-online-501", "seats": SEATS, "clock": 30,
        **({"options": options} if options else {})}, headers=room.h(room.admin))
    assert r.status_code == 201, r.text
    out = r.json()
    room.game, room.seats = out["game"], [s["token"] for s in out["seat_tokens"]]
    assert out["clock"] == 30
    assert [(s["seat"], s["player"]) for s in out["seat_tokens"]] == list(enumerate(SEATS))
    assert out["seat_tokens"][2]["link"] == f"/play/{room.game}#token={room.seats[2]}"
    if nonces:
        for seat in range(4):
            assert room.send(seat, [{"type": "nonce", "round": 1, "seat": seat,
                                     "nonce": f"n{seat}"}]).status_code == 200


def test_the_server_commits_waits_for_the_nonces_then_deals(room: Room) -> None:
    start(room, nonces=False)
    assert [e["type"] for e in room.events()] == ["game_started", "deal_committed"]
    for seat in (0, 1, 2):
        assert room.send(seat, [{"type": "nonce", "round": 1, "seat": seat,
                                 "nonce": f"lucky {seat}"}]).status_code == 200
    assert room.events()[-1]["type"] == "nonce"  # one seat still to send
    online_of(room.svc).step(room.game)
    assert room.events()[-1]["type"] == "nonce"  # not 5 s yet
    room.clock.advance(6)
    online_of(room.svc).step(room.game)
    types = [e["type"] for e in room.events()]
    assert types == ["game_started", "deal_committed", "nonce", "nonce", "nonce", "dealt"]
    by = room.authors()
    assert by[1] == "server" and by[2] == "0" and by[4] == "2" and by[5] == "server"
    assert by[0] == "admin"


def test_a_seat_appends_only_its_own_legal_moves_in_turn(room: Room) -> None:
    start(room)
    kind, seat, move = room.due()
    assert kind == "bid" and seat is not None and move is not None
    other = (seat + 1) % 4
    before = room.head()
    # another seat's action
    r = room.send(other, [move])
    assert r.status_code == 403 and r.json()["code"] == "not_your_seat"
    # the seat not due
    r = room.send(other, [{**move, "seat": other}])
    assert r.status_code == 409 and r.json()["code"] == "not_your_turn"
    # a type a seat does not append
    r = room.send(seat, [{"type": "note", "text": "hi", "seat": seat}])
    assert r.status_code == 403 and r.json()["code"] == "not_your_seat"
    # the server's own events
    r = room.send(seat, [{"type": "deal_revealed", "round": 1, "seed": "00" * 32}])
    assert r.status_code == 403
    assert room.head() == before
    assert room.send(seat, [move]).status_code == 200
    # play until a card is due, then try an illegal one
    while room.due()[0] != "play":
        _, s, m = room.due()
        assert s is not None and room.send(s, [m]).status_code == 200  # type: ignore[list-item]
    _, s, m = room.due()
    assert s is not None and m is not None
    assert room.send(s, [m]).status_code == 200  # the lead: every card is legal
    while True:
        _, s2, m2 = room.due()
        assert s2 is not None
        _, tl = room.svc.timeline(room.game)
        legal = {CARD_TEXT[c] for c in cards_of(tl.fold.state.legal_plays())}
        hand = [CARD_TEXT[c] for c in cards_of(tl.fold.state.rounds[-1].hands[s2])]
        bad = [c for c in hand if c not in legal]
        if bad:
            before = room.head()
            r = room.send(s2, [{"type": "play", "seat": s2, "card": bad[0]}])
            assert r.status_code == 422, r.text
            assert r.json()["code"] == "illegal_play"
            assert room.head() == before
            break
        assert room.send(s2, [m2]).status_code == 200  # type: ignore[list-item]


def test_a_token_of_another_game_is_refused(room: Room) -> None:
    start(room)
    first = room.game
    start(room)  # a second game: room.seats are its tokens now
    room.game = first
    _, seat, move = room.due()
    assert seat is not None and move is not None
    before = room.head()
    r = room.send(seat, [move], token=room.seats[seat])  # the second game's token, same seat
    assert r.status_code == 403 and r.json()["code"] == "other_game"
    assert room.head() == before


def test_two_tokens_of_one_seat_race_for_one_turn(room: Room) -> None:
    start(room)
    _, seat, move = room.due()
    assert seat is not None and move is not None
    twin = room.svc.tokens.create("seat", game=room.game, seat=seat)[0]
    at = room.head()
    a = room.send(seat, [move], expected=at)
    b = room.send(seat, [move], expected=at, token=twin)
    assert sorted([a.status_code, b.status_code]) == [200, 409]
    assert room.head() == at + 1


def test_a_move_after_its_timeout_is_too_late(room: Room) -> None:
    start(room)
    _, seat, move = room.due()
    assert seat is not None and move is not None
    at = room.head()
    room.clock.advance(31)
    online_of(room.svc).step(room.game)
    evs = room.events()
    assert evs[at]["type"] == "timeout" and evs[at]["seat"] == seat
    assert room.authors()[at] == "server" and room.authors()[at + 1] == "server"
    before = room.head()
    r = room.send(seat, [move], expected=at)
    assert r.status_code == 409 and r.json()["code"] == "too_late"
    r = room.send(seat, [move])
    assert r.status_code == 409 and r.json()["code"] == "too_late"
    assert room.head() == before


def play_out(room: Room) -> None:
    """Every seat plays the lowest legal card (or passes) from its own token."""
    for _ in range(2000):
        kind, seat, move = room.due()
        if kind == "over":
            return
        if kind == "deal":
            n = sum(1 for e in room.events() if e["type"] == "deal_committed")
            for s in range(4):
                room.send(s, [{"type": "nonce", "round": n, "seat": s, "nonce": f"r{n}s{s}"}])
            continue
        assert seat is not None and move is not None
        r = room.send(seat, [move])
        assert r.status_code == 200, r.text
    raise AssertionError("the game did not end")


def test_a_whole_online_game_verifies_and_the_seed_stays_secret(
        room: Room, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    start(room, options={"game_end": {"type": "deals", "count": 2}})
    secret = room.seed(1)
    # nothing shows round 1's seed while it is played: no view, no error, no log line
    public = room.svc.tokens.create("public")[0]
    seen = []
    for token in [*room.seats, public]:
        for url in ("events", "state", "turn", "replay", "audit"):
            r = room.client.get(f"/api/games/{room.game}/{url}", headers=room.h(token))
            seen.append(r.text)
    r = room.send(0, [{"type": "deal_revealed", "round": 1, "seed": secret}])
    seen.append(r.text)
    r = room.client.post(f"/api/games/{room.game}/events", headers=room.h(room.admin),
                         json={"events": [{"type": "play", "seat": 0, "card": "ZZ"}]})
    seen.append(r.text)
    assert all(secret not in text for text in seen)
    play_out(room)
    assert not any(secret in rec.getMessage() for rec in caplog.records)
    types = [e["type"] for e in room.events()]
    rounds = types.count("dealt")  # two deals, and one more for each the game was played on
    assert rounds >= 2
    assert types.count("deal_committed") == types.count("deal_revealed") == rounds
    evs = room.events()
    assert next(e for e in evs if e["type"] == "deal_revealed")["seed"] == secret
    by = room.authors()
    assert len(by) == len(evs)
    assert {by[e["seq"]] for e in evs if e["type"] == "play"} <= {"0", "1", "2", "3"}
    assert {by[e["seq"]] for e in evs if e["type"] in ("dealt", "deal_revealed")} == {"server"}
    # in this process: verify's real process is tested with the store's commands
    cmd = ["verify", "--deals", "--db", str(room.db)]
    out = jaslog(*cmd, env={"JASLOG_DB": str(room.db)}, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"{rounds} deals by the server checked, every one fair" in out.stdout
    # a reveal that is not the committed seed is caught
    r = room.client.post(f"/api/games/{room.game}/events", headers=room.h(room.admin),
                         json={"expected_seq": room.head(),
                               "events": [{"type": "deal_revealed", "round": 2,
                                           "seed": "ab" * 32}]})
    assert r.status_code == 200, r.text
    again = jaslog(*cmd, env={"JASLOG_DB": str(room.db)}, text=True)
    assert again.returncode == 1
    assert "deal_not_fair" in again.stdout and "round 2" in again.stdout


def test_the_seed_is_not_in_a_seats_dump(room: Room) -> None:
    start(room)
    secret = room.seed(1)
    for seat in range(4):
        # in this process: dump's real process is tested with the store's commands
        out = jaslog("dump", room.game, "--seat", str(seat), "--db", str(room.db), text=True)
        assert out.returncode == 0, out.stderr
        assert "deal_committed" in out.stdout and secret not in out.stdout


def test_a_seat_sees_its_own_hand_and_the_clock_and_the_play_page_is_served(room: Room) -> None:
    start(room)
    turn = room.client.get(f"/api/games/{room.game}/turn", headers=room.h(room.seats[1])).json()
    assert turn["seat"] == 1 and len(turn["hands"][1]) == 8
    assert not any(turn["hands"][s] for s in (0, 2, 3))
    o = room.client.get(f"/api/games/{room.game}/online", headers=room.h(room.seats[1])).json()
    assert o["clock"] == 30 and o["seat"] == 1 and o["wait_since"]
    assert o["deals"] == {"checked": [], "pending": [1], "problems": []}
    assert sorted(o["nonces"]) == [[1, s] for s in range(4)]
    page = room.client.get(f"/play/{room.game}")
    assert page.status_code == 200 and "/static/play.js" in page.text


def test_jaslog_table_new_online_makes_the_game_and_its_seat_links(tmp_path: Path) -> None:
    path = tmp_path / "cli.sqlite"
    args = ["--seats", "ann,bob,cor,dirk", "--clock", "20", "--db", str(path), "--json"]
    # in this process: the console script's real process is tested with the store's commands
    out = jaslog("table", "new", "--online", *args, text=True)
    assert out.returncode == 0, out.stderr
    made = json.loads(out.stdout)
    assert made["clock"] == 20 and len(made["seat_tokens"]) == 4
    link = made["seat_tokens"][3]["link"]
    assert link.startswith("http://localhost:8000/play/" + made["game"] + "#token=jl_")
    app = create_app(str(path))
    app.state.online_every = 0
    with TestClient(app) as client:
        token = made["seat_tokens"][3]["token"]
        o = client.get(f"/api/games/{made['game']}/online",
                       headers={"Authorization": f"Bearer {token}"}).json()
        assert o["seat"] == 3 and o["clock"] == 20 and 1 in map(int, o["commits"])
    refused = jaslog("table", "new", *args, text=True)  # without --online
    assert refused.returncode == 2
    assert refused.stderr.startswith("jaslog: table new makes online tables: give --online")


def test_a_seat_token_does_not_use_the_scorers_pad(room: Room) -> None:
    start(room)
    _, seat, _ = room.due()
    assert seat is not None
    r = room.client.post(f"/api/games/{room.game}/pad/words", json={"text": "pass"},
                         headers=room.h(room.seats[seat]))
    assert r.status_code == 403 and r.json()["code"] == "not_your_seat"
    turn = room.client.get(f"/api/games/{room.game}/turn", headers=room.h(room.seats[seat]))
    assert turn.json()["may_record"] is False and turn.json()["actions"] == []


def test_an_online_klaberjass_game_gets_its_second_deal_from_the_deck(room: Room) -> None:
    r = room.client.post("/api/games", json={
        "online": True, "ruleset": "klaberjass-2p", "seats": ["ann", "bob"],
        "options": {"target": 1}}, headers=room.h(room.admin))
    assert r.status_code == 201, r.text
    room.game, room.seats = r.json()["game"], [s["token"] for s in r.json()["seat_tokens"]]
    online_of(room.svc).nonce_wait = 0
    online_of(room.svc).step(room.game)
    for _ in range(400):
        kind, seat, move = room.due()
        if kind in ("over", "deal"):
            break
        assert seat is not None
        if kind == "bid":  # take the turn-up's suit, so that a second deal follows
            for call in ("accept", "take", "play", "pass"):
                if room.send(seat, [{"type": "bid", "seat": seat, "call": call}]).status_code \
                        == 200:
                    break
            continue
        assert move is not None
        assert room.send(seat, [move]).status_code == 200, move
    online_of(room.svc).step(room.game)
    types = [e["type"] for e in room.events()]
    assert "second_deal" in types and types.count("deal_revealed") >= 1, " ".join(types[:40])
    by = room.authors()
    assert by[types.index("second_deal")] == "server"
    from jaslog.play.fairdeal import check_deals
    report = check_deals(room.game, room.events())
    assert report.problems == [] and 1 in report.checked


class ReadCount:
    """Counts the service's reads of a game at its head (``Service.timeline``), passing each
    on to the real method."""

    def __init__(self, svc: Any) -> None:
        self.svc, self.real, self.n = svc, svc.timeline, 0

    def __enter__(self) -> ReadCount:
        def counted(game: str) -> Any:
            self.n += 1
            return self.real(game)
        self.svc.timeline = counted
        return self

    def __exit__(self, *exc: object) -> None:
        del self.svc.timeline


def test_a_step_with_nothing_owed_reads_the_game_once(room: Room) -> None:
    start(room)
    kind, seat, _ = room.due()
    assert kind == "bid" and seat is not None  # dealt: a seat's move is due, nothing owed
    with ReadCount(room.svc) as reads:
        assert online_of(room.svc).step(room.game) is False
    assert reads.n == 1  # the move clock looks at the game as the step read it


def test_the_seats_woken_by_one_append_read_the_game_once(room: Room) -> None:
    start(room)
    _, due, move = room.due()
    assert due is not None and move is not None
    others = [s for s in range(4) if s != due]
    who = {s: room.svc.tokens.authenticate(room.seats[s]) for s in others}
    head = room.head()
    room.svc.timeline(room.game)  # the timeline kept is at the head: waiting reads nothing

    async def three_wait_then_one_moves() -> int:
        waits = [asyncio.create_task(wait_for_seat(room.svc, who[s], room.game, 10, head))
                 for s in others]
        await asyncio.sleep(0.2)
        assert not any(w.done() for w in waits)  # nothing moved: all three wait
        with ReadCount(room.svc) as reads:
            await asyncio.to_thread(room.svc.append, room.game, [move], head)
            room.svc.notifier.publish(room.game)
            await asyncio.wait_for(asyncio.gather(*waits), 5)
        return reads.n

    portal = room.client.portal  # the loop the app serves on
    assert portal is not None and portal.call(three_wait_then_one_moves) == 1


def test_a_seat_to_act_that_waits_after_the_head_waits_until_the_game_moves(room: Room) -> None:
    """The seat's page long-polls with the ``next_seq`` it has: its seat being to act there
    is no news, so the answer waits (a page answered at once would redraw without end); the
    same seat asking without ``after`` is answered at once."""
    start(room)
    _, due, _ = room.due()
    assert due is not None
    who = room.svc.tokens.authenticate(room.seats[due])
    head = room.head()

    async def waits() -> tuple[bool, bool]:
        held = asyncio.create_task(wait_for_seat(room.svc, who, room.game, 10, head))
        fresh = asyncio.create_task(wait_for_seat(room.svc, who, room.game, 10))
        await asyncio.sleep(0.3)
        out = (held.done(), fresh.done())
        held.cancel()
        return out

    portal = room.client.portal
    assert portal is not None and portal.call(waits) == (False, True)
