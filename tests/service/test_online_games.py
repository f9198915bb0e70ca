"""Online games of every kind played to the end from their seat tokens, through the API
alone (rule book 9.3): each seat asks ``GET /turn`` what it may do, sends its nonce when a
round is committed, makes the first call ``turn.calls`` offers or plays the first legal card;
the server deals every round. And ``turn.calls`` holds the calls the rules take, no other."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest

from jaslog.events import EVENT_MODELS
from jaslog.play.fairdeal import check_deals
from jaslog.service import create_app
from jaslog.service.online import online_of
from jaslog.store.clock import ManualClock, stamp, system_clock

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[TestClient, Any, str]]:
    app = create_app(str(tmp_path / "online.sqlite"),
                     clock=ManualClock(stamp(system_clock())))
    app.state.online_every = 0
    svc = app.state.service
    with TestClient(app) as client:
        yield client, svc, svc.tokens.create("admin")[0]


def _h(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _create(client: TestClient, admin: str, ruleset: str, seats: list[str],
            options: dict[str, Any]) -> tuple[str, list[str]]:
    r = client.post("/api/games", json={"online": True, "ruleset": ruleset, "seats": seats,
                                        "clock": 600, "options": options}, headers=_h(admin))
    assert r.status_code == 201, r.text
    return r.json()["game"], [s["token"] for s in r.json()["seat_tokens"]]


def _seat_moves(client: TestClient, game: str, seat: int, token: str) -> str:
    """One look of ``seat`` at the game and its move, if it has one: what it did."""
    t = client.get(f"/api/games/{game}/turn", headers=_h(token)).json()
    if t["finished"]:
        return "over"
    if t["expects"] == "deal":
        o = client.get(f"/api/games/{game}/online", headers=_h(token)).json()
        n = max((int(r) for r in o["commits"]), default=0)
        if n and str(n) not in o["reveals"] and [n, seat] not in o["nonces"]:
            r = client.post(f"/api/games/{game}/events", headers=_h(token), json={
                "events": [{"type": "nonce", "round": n, "seat": seat, "nonce": f"s{seat}r{n}"}]})
            assert r.status_code == 200, r.text
            return "nonce"
        return ""
    if t["turn"] != seat:
        assert t["calls"] == []  # only the seat due is offered calls
        return ""
    if t["calls"]:  # a call that plays the round (a pass, again and again, deals anew)
        event = next((c for c in t["calls"] if c.get("call") not in ("pass", "schmeiss")),
                     t["calls"][0])
    elif t["expects"] == "play" and t["legal"]:
        event = {"type": "play", "seat": seat, "card": t["legal"][0]}
    else:
        return ""
    r = client.post(f"/api/games/{game}/events", headers=_h(token),
                    json={"expected_seq": t["next_seq"], "events": [event]})
    if event["type"] == "play" and r.status_code == 409:
        # the page showed the seat to lead while another's call is awaited (the rules keep
        # who makes it from the others): the refusal says nothing of whose turn it is
        assert r.json()["code"] == "not_your_turn", r.text
        assert f"seat {seat} now" in r.json()["message"] and "expect" not in r.json()["message"]
        return ""
    assert r.status_code == 200, (event, r.text)
    return str(event["type"])


def _play_out(client: TestClient, svc: Any, game: str, tokens: list[str]) -> list[str]:
    """Every seat plays from its token until the game is over; what they did."""
    done: list[str] = []
    for _ in range(3000):
        did = [_seat_moves(client, game, s, tok) for s, tok in enumerate(tokens)]
        if "over" in did:
            return done
        done += [d for d in did if d]
        if not any(did):  # nothing to do for anyone: the server owes a deal
            assert online_of(svc).step(game), f"the game is stuck after {done[-8:]}"
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(("ruleset", "seats", "options", "calls"), [
    ("kloepper", ["ann", "bob", "cor", "dirk"], {"target": 1}, "partner_call"),
    ("klaberjass-2p", ["ann", "bob"], {"target": 1}, "bid"),
    ("klaverjas-online-501", ["ann", "bob", "cor", "dirk"],
     {"game_end": {"type": "deals", "count": 1}}, "bid"),
])
def test_an_online_game_is_played_to_the_end_from_its_seat_tokens(
        app: tuple[TestClient, Any, str], ruleset: str, seats: list[str],
        options: dict[str, Any], calls: str) -> None:
    client, svc, admin = app
    game, tokens = _create(client, admin, ruleset, seats, options)
    done = _play_out(client, svc, game, tokens)
    assert done.count("nonce") >= len(seats) and "play" in done
    events = client.get(f"/api/games/{game}/events", headers=_h(admin)).json()["events"]
    types = [e["type"] for e in events]
    assert types.count("deal_revealed") == types.count("deal_committed") >= 1
    assert check_deals(game, events).problems == []
    audit = client.get(f"/api/games/{game}/audit", headers=_h(admin)).json()
    assert audit["finished"] and audit["violations"] == []
    assert "timeout" not in types  # every move came from a seat


def test_turn_offers_a_seat_the_calls_the_rules_take_and_no_other(
        app: tuple[TestClient, Any, str]) -> None:
    client, svc, admin = app
    game, tokens = _create(client, admin, "klaverjas-online-501", ["ann", "bob", "cor", "dirk"],
                           {"game_end": {"type": "deals", "count": 1}})
    for seat, tok in enumerate(tokens):
        assert _seat_moves(client, game, seat, tok) == "nonce"
    t = next(t for t in (client.get(f"/api/games/{game}/turn", headers=_h(tok)).json()
                         for tok in tokens) if t["turn"] == t["seat"])
    seat, tok = t["seat"], tokens[t["seat"]]
    offered = {c["call"] for c in t["calls"]}
    words = set(get_args(EVENT_MODELS["bid"].model_fields["call"].annotation))
    assert t["expects"] == "bid" and offered and offered < words
    assert all(c == {"type": "bid", "seat": seat, "call": c["call"]} for c in t["calls"])
    for word in sorted(words - offered):  # every word not offered is refused, nothing stored
        r = client.post(f"/api/games/{game}/events", headers=_h(tok), json={
            "expected_seq": t["next_seq"], "events": [{"type": "bid", "seat": seat,
                                                        "call": word}]})
        assert r.status_code in (409, 422), (word, r.text)
    r = client.post(f"/api/games/{game}/events", headers=_h(tok),
                    json={"expected_seq": t["next_seq"], "events": [t["calls"][0]]})
    assert r.status_code == 200, r.text
    assert svc.timeline(game)[0].next_seq == t["next_seq"] + 1


def test_four_seats_sending_their_nonces_at_once_are_all_stored(
        app: tuple[TestClient, Any, str]) -> None:
    """A nonce is sent without expected_seq: when another seat's nonce moved the head
    between the check and the write, it is checked again at the new head, not refused
    (before: three of four refused as conflicts, and the round dealt without them)."""
    import threading

    client, svc, admin = app
    online_of(svc).nonce_wait = 60  # the deal waits for all four
    game, tokens = _create(client, admin, "klaverjas-online-501", ["ann", "bob", "cor", "dirk"],
                           {"game_end": {"type": "deals", "count": 1}})
    go = threading.Barrier(4)
    codes: list[int] = []

    def send(seat: int) -> None:
        go.wait()
        r = client.post(f"/api/games/{game}/events", headers=_h(tokens[seat]), json={
            "events": [{"type": "nonce", "round": 1, "seat": seat, "nonce": f"n{seat}x"}]})
        codes.append(r.status_code)

    threads = [threading.Thread(target=send, args=(s,)) for s in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert codes == [200] * 4
    types = [e["type"] for e in client.get(f"/api/games/{game}/events",
                                           headers=_h(admin)).json()["events"]]
    assert types[:7] == ["game_started", "deal_committed", *["nonce"] * 4, "dealt"]
