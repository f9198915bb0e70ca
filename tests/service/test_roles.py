"""Who may see and do what: every endpoint with every role, and no leak of hidden cards.

The game under test is played at table 1 by ann, bob, cor and dirk (seats 0-3).
"""

from __future__ import annotations

import contextlib
import queue
import re
import socket
import threading
from typing import Any

import httpx
import orjson
import pytest

from jaslog.cards import CARD_INDEX, CARD_TEXT, cards_of
from jaslog.events import event_from_dict
from jaslog.play.fold import fold
from tests.service.conftest import SEATS, body_of, create, record, sim, timed, unstamped

ROLES = ["admin", "referee", "scorer", "scorer2", "player0", "player1", "player2", "player3",
         "public"]
EXPECTED_VIEW = {"admin": "full", "referee": "full", "scorer": "full", "scorer2": "public",
                 "player0": "seat", "player1": "seat", "player2": "seat", "player3": "seat",
                 "public": "public"}
READS = ["", "/events", "/state", "/replay", "/audit", "/head", "/timing"]


def _live_game(server, gid: str, seed: int, upto: int) -> list[dict[str, Any]]:
    events = timed(sim(gid, seed=seed))
    with server.client("scorer") as c:
        assert create(c, gid, events[0]).status_code == 201
        record(c, gid, events[1:upto])
    return events


def test_no_token_bad_token_revoked_token_are_401(server, gid):
    _live_game(server, gid, 21, 20)
    revoked = server.token("referee")
    with server.client("admin") as c:
        tid = revoked.split("_")[1]
        assert c.delete(f"/api/tokens/{tid}").status_code == 200
        assert c.delete(f"/api/tokens/{tid}").status_code == 404  # already revoked
    calls = [("GET", "/api/whoami"), ("GET", "/api/games"), ("POST", "/api/games"),
             ("POST", "/api/oracle"), ("GET", "/api/tokens"), ("POST", "/api/tokens"),
             ("DELETE", "/api/tokens/0123abcd"), ("GET", "/api/tournaments"),
             ("POST", "/api/tournaments"), ("GET", "/api/tournaments/x"),
             ("POST", "/api/tournaments/x/rounds"), ("POST", f"/api/games/{gid}/events"),
             ("GET", f"/api/games/{gid}/stream")]
    calls += [("GET", f"/api/games/{gid}{p}") for p in READS]
    for headers in ({}, {"Authorization": "Bearer jl_00000000_" + "x" * 32},
                    {"Authorization": f"Bearer {revoked}"}, {"Authorization": "Basic abc"},
                    {"Authorization": f"Bearer {server.tokens['admin']}x"}):
        with httpx.Client(base_url=server.url, headers=headers, timeout=10) as c:
            for method, path in calls:
                r = c.request(method, path, json={} if method == "POST" else None)
                assert r.status_code == 401, (headers, method, path, r.text)
                assert r.json()["code"] in ("no_token", "bad_token")
                assert r.headers["www-authenticate"] == "Bearer"


def test_every_endpoint_with_every_role(server, gid):
    events = _live_game(server, gid, 22, 40)  # round 2 is being played
    nxt, k = 40, 40  # the next seq, the next simulated event (notes come in between)
    with server.client("admin") as c:
        tour = c.post("/api/tournaments", json={
            "name": "roles", "players": [f"r{gid[-6:]}{i}".replace("-", "x") for i in range(4)]})
        assert tour.status_code == 201, tour.text
        tour_id = tour.json()["id"]
    for role in ROLES:
        with server.client(role) as c:
            who = c.get("/api/whoami")
            assert who.status_code == 200
            assert who.json()["role"] == role.rstrip("0123456789")
            assert c.get("/api/games").status_code == 200
            # newest first: the game made above is on the first page, however many games the
            # tests before this one left on the server
            listed = {g["game"]: g for g in c.get("/api/games", params={"order": "newest"}).json()}
            assert listed[gid]["view"] == EXPECTED_VIEW[role]
            for p in READS:
                r = c.get(f"/api/games/{gid}{p}")
                assert r.status_code == 200, (role, p, r.text)
                if p in ("", "/events", "/state", "/replay"):
                    assert r.json()["view"] == EXPECTED_VIEW[role], (role, p)
            with c.stream("GET", f"/api/games/{gid}/stream", params={"since": 0}) as s:
                assert s.status_code == 200
                assert s.headers["content-type"].startswith("text/event-stream")
                for line in s.iter_lines():
                    if line.startswith("data:"):
                        break
            assert c.post("/api/oracle", json={"op": "winner", "trump": "S",
                                               "trick": ["AS", "JS"]}).json() == {"winner": 1}
            # creating games
            r = c.post("/api/games", json={"game": f"{gid}-{role}", "ruleset": "amsterdam",
                                            "seats": SEATS, "dealer": 0})
            if role in ("admin", "scorer", "scorer2"):
                assert r.status_code == 201, (role, r.text)
                want = {"scorer": "1", "scorer2": "2"}.get(role)
                assert r.json()["table"] == want
            else:
                assert r.status_code == 403 and r.json()["code"] == "forbidden", role
            # appending the next event of the game at table 1
            r = c.post(f"/api/games/{gid}/events",
                       json={"expected_seq": nxt, "events": body_of(events[k:k + 1])})
            if role in ("admin", "scorer"):
                assert r.status_code == 200, (role, r.text)
                nxt, k = nxt + 1, k + 1
            else:
                assert r.status_code == 403, (role, r.text)
            # notes and rulings
            r = c.post(f"/api/games/{gid}/events", json={"expected_seq": nxt, "events": [
                {"type": "note", "text": f"a note by the {role}"}]})
            if role in ("admin", "scorer", "referee"):
                assert r.status_code == 200, (role, r.text)
                nxt += 1
            else:
                assert r.status_code == 403, role
            # tokens and tournaments: admin only
            for method, path, body in (("GET", "/api/tokens", None),
                                       ("POST", "/api/tokens", {"role": "public"}),
                                       ("DELETE", "/api/tokens/0123abcd", None),
                                       ("POST", "/api/tournaments",
                                        {"name": "x", "players": ["a", "b", "c", "d"]}),
                                       ("POST", f"/api/tournaments/{tour_id}/rounds", None)):
                r = c.request(method, path, json=body)
                if role == "admin":
                    assert r.status_code in (200, 201, 404, 409), (method, path, r.text)
                else:
                    assert r.status_code == 403 and r.json()["code"] == "forbidden", (role, path)
            assert c.get("/api/tournaments").status_code == 200
            assert c.get(f"/api/tournaments/{tour_id}").status_code == 200
    # what got through is exactly what was allowed
    with server.client("referee") as c:
        evs = c.get(f"/api/games/{gid}/events").json()["events"]
    notes = [e["text"] for e in evs if e["type"] == "note"]
    assert notes == ["a note by the admin", "a note by the referee", "a note by the scorer"]
    assert [e["seq"] for e in evs] == list(range(nxt))


def test_scorer_and_referee_limits(server, gid):
    events = _live_game(server, gid, 23, 60)
    with server.client("scorer2") as c:
        r = c.post(f"/api/games/{gid}/events",
                   json={"expected_seq": 60, "events": body_of(events[60:61])})
        assert r.status_code == 403 and r.json()["code"] == "other_table"
        r = c.post("/api/games", json={"ruleset": "amsterdam", "seats": SEATS,
                                       "meta": {"table": "1"}})
        assert r.status_code == 403 and r.json()["code"] == "other_table"
    ruling = {"type": "ruling", "round": 1, "score": [0, 162], "reason": "revoke seen by all"}
    with server.client("scorer") as c:
        r = c.post(f"/api/games/{gid}/events", json={"expected_seq": 60, "events": [ruling]})
        assert r.status_code == 403 and r.json()["code"] == "referee_only"
    with server.client("referee") as c:
        r = c.post(f"/api/games/{gid}/events",
                   json={"expected_seq": 60, "events": body_of(events[60:61])})
        assert r.status_code == 403 and r.json()["code"] == "scorer_only"
        r = c.post(f"/api/games/{gid}/events", json={"expected_seq": 60, "events": [ruling]})
        assert r.status_code == 200, r.text
        audit = c.get(f"/api/games/{gid}/audit").json()
        assert audit["rounds"][0]["ruling"]["score"] == [0, 162]


# ---------------------------------------------------------------------- leaks

CARD_RE = re.compile(r"(?<![0-9A-Za-z])(10|[789JQKA])([CDHS♣♦♥♠])(?![A-Za-z0-9])")
SYMBOL = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}


def cards_in(text: str) -> set[str]:
    return {r + SYMBOL.get(s, s) for r, s in CARD_RE.findall(text)}


#: Seconds without a line after which a stream that has sent every event the token may read
#: is taken to be done: it sends what there is at once, then only a ping every 15 seconds.
QUIET = 2.0


def bodies(c: httpx.Client, gid: str, upto: int) -> dict[str, str]:
    """Every response body a token can get about the game (and the lists)."""
    out = {p or "/": c.get(f"/api/games/{gid}{p}").text for p in READS}
    for seq in range(upto):
        r = c.get(f"/api/games/{gid}/state", params={"seq": seq})
        out[f"/state?seq={seq}"] = r.text
    out["/games"] = c.get("/api/games").text
    out["/tournaments"] = c.get("/api/tournaments").text
    out["/events?since"] = c.get(f"/api/games/{gid}/events", params={"since": upto // 2}).text
    visible = orjson.loads(out["/events"]).get("events") or []
    out["/stream"] = stream_text(c, gid, upto, visible[-1]["seq"] if visible else None)
    return out


def stream_text(c: httpx.Client, gid: str, upto: int, last_visible: int | None) -> str:
    """The game's event stream from seq 0 as the token reads it, up to the end of the message
    of seq ``upto - 1``, or a ping (nothing more is coming), or :data:`QUIET` seconds without
    a line once the last event the token may read (``last_visible``, from ``/events``; None:
    none) has come."""
    lines: queue.Queue[str | None] = queue.Queue()
    seen: list[str] = []
    failed: list[Exception] = []
    done = threading.Event()
    with c.stream("GET", f"/api/games/{gid}/stream", params={"since": 0}) as s:

        def read() -> None:
            try:
                for line in s.iter_lines():
                    lines.put(line)
            except Exception as e:
                if not done.is_set():  # not the stream this test closed when done reading
                    failed.append(e)
            finally:
                lines.put(None)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        last = False
        have_all = last_visible is None
        while True:
            try:
                line = lines.get(timeout=QUIET if have_all else 60)
            except queue.Empty:
                break
            if line is None:
                break
            seen.append(line)
            if line.startswith("id:"):
                last |= int(line[3:]) >= upto - 1
                have_all |= last_visible is not None and int(line[3:]) >= last_visible
            if (last and not line) or line.startswith(":") or len(seen) > 5 * upto + 10:
                break  # the last event, or a ping (nothing more is coming)
        done.set()
        # wake the reader up from its wait for the next ping (closing alone may not)
        with contextlib.suppress(OSError):
            s.extensions["network_stream"].get_extra_info("socket").shutdown(socket.SHUT_RDWR)
    reader.join(10)
    if failed:
        raise failed[0]
    return "\n".join(seen)


@pytest.mark.parametrize("upto", [2, 5, 11, 23])
def test_no_response_holds_another_seats_cards_during_the_first_round(server, gid, upto):
    """Round 1 is live: a player's responses never name a card another seat still holds;
    the public's name no card at all."""
    events = _live_game(server, gid, 24, upto)
    g = fold(event_from_dict(e) for e in events[:upto])
    r = g.state.rounds[0]
    assert not r.closed
    for seat in range(4):
        secret = {CARD_TEXT[c] for s in range(4) if s != seat for c in cards_of(r.hands[s])}
        own = {CARD_TEXT[c] for c in cards_of(r.hands[seat])}
        with server.client(f"player{seat}") as c:
            got = bodies(c, gid, upto)
        seen_own = False
        for where, text in got.items():
            leaked = cards_in(text) & secret
            assert not leaked, f"seat {seat} sees {sorted(leaked)} in {where}"
            seen_own |= bool(cards_in(text) & own)
        assert seen_own  # the scan finds cards where they are allowed
    with server.client("public") as c:
        for where, text in bodies(c, gid, 1).items():
            assert not cards_in(text), f"the public sees cards of the live round in {where}"
        r2 = c.get(f"/api/games/{gid}/state", params={"seq": upto - 1})
        assert r2.status_code == 403 and r2.json()["code"] == "not_visible"
    with server.client("referee") as c:  # the check can fail: the referee sees them all
        assert secret <= cards_in(c.get(f"/api/games/{gid}/replay").text)


def test_no_response_holds_the_unplayed_cards_of_a_round_ruled_mid_play(server, gid):
    """A referee's ruling ends round 1 in trick 3: the round is over but its unplayed cards
    stay secret. A player's responses name no card another seat did not play; the public's
    name no unplayed card; the referee still sees them all."""
    upto = 13
    events = _live_game(server, gid, 24, upto)
    ruling = {"game": gid, "seq": upto, "type": "ruling", "round": 1, "score": [0, 0],
              "reason": "cards exposed: the round is thrown in", "at": events[upto]["at"]}
    with server.client("referee") as c:
        record(c, gid, [ruling], start=upto)
    g = fold(event_from_dict(e) for e in [*events[:upto], ruling])
    r = g.state.rounds[0]
    assert r.closed and not r.over and len(g.state.rounds) == 1
    left = [{CARD_TEXT[c] for c in cards_of(r.hands[s])} for s in range(4)]  # not played
    assert all(left)
    for seat in range(4):
        secret = set().union(*(left[s] for s in range(4) if s != seat))
        with server.client(f"player{seat}") as c:
            got = bodies(c, gid, upto + 1)
        for where, text in got.items():
            leaked = cards_in(text) & secret
            assert not leaked, f"seat {seat} sees {sorted(leaked)} of the ruled round in {where}"
        assert any(cards_in(t) & left[seat] for t in got.values())  # its own hand is there
    with server.client("public") as c:
        for where, text in bodies(c, gid, upto + 1).items():
            leaked = cards_in(text) & set().union(*left)
            assert not leaked, f"the public sees {sorted(leaked)} of the ruled round in {where}"
    with server.client("referee") as c:  # the check can fail: the referee sees them all
        assert set().union(*left) <= cards_in(c.get(f"/api/games/{gid}/replay").text)
        stored = c.get(f"/api/games/{gid}/head").json()
    assert stored["hash"] and stored["certificate"]
    # the head hash covers the unplayed cards (few enough to find by trying every deal)
    for role in ("player0", "public"):
        with server.client(role) as c:
            head = c.get(f"/api/games/{gid}/head").json()
        assert head["hash"] is None and head["certificate"] is None, role
        assert "round 1 ended with cards unplayed" in head["note"]
        assert head["next_seq"] == stored["next_seq"]


def _swap_hidden(events: list[dict[str, Any]], upto: int, seat: int) -> list[dict[str, Any]] | None:
    """The same record with two cards still hidden from ``seat`` swapped between two other
    seats in the live round's deal, when every play so far stays as it was (same
    violations); None when no such swap exists."""
    deal = max(i for i in range(upto) if events[i]["type"] == "dealt")
    played = {e["card"] for e in events[deal:upto] if e["type"] == "play"}
    hands = events[deal]["hands"]
    others = [s for s in range(4) if s != seat]
    base = fold(event_from_dict(e) for e in events[:upto]).state.violations
    for a in others:
        for b in others:
            if a >= b:
                continue
            for ca in hands[a]:
                for cb in hands[b]:
                    if ca in played or cb in played:
                        continue
                    new = [list(h) for h in hands]
                    new[a][new[a].index(ca)] = cb
                    new[b][new[b].index(cb)] = ca
                    new = [sorted(h, key=CARD_INDEX.__getitem__) for h in new]
                    evs = [dict(e) for e in events[:upto]]
                    evs[deal] = {**evs[deal], "hands": new}
                    try:
                        vs = fold(event_from_dict(e) for e in evs).state.violations
                    except ValueError:
                        continue
                    if [(v.rule, v.seq) for v in vs] == [(v.rule, v.seq) for v in base]:
                        return evs
    return None


@pytest.mark.parametrize("seat", [0, 3])
def test_a_player_learns_nothing_from_the_hidden_hands(server, gid, seat):
    """Non-interference: two games that differ only in cards hidden from ``seat`` (swapped
    between other seats in the live round 2) give that seat identical responses."""
    upto = 58
    events = timed(sim(gid, seed=25))
    other = _swap_hidden(events, upto, seat)
    assert other is not None
    gid_b = gid[:-1] + "x"
    other = [{**e, "game": gid_b} for e in other]
    with server.client("scorer") as c:
        for g, evs in ((gid, events[:upto]), (gid_b, other)):
            assert create(c, g, evs[0]).status_code == 201
            record(c, g, evs[1:])
    with server.client(f"player{seat}") as c:
        a = bodies(c, gid, upto)
        b = bodies(c, gid_b, upto)
    for where in a:
        if where == "/games":
            continue
        assert unstamped(a[where].replace(gid, "G")) == \
            unstamped(b[where].replace(gid_b, "G")), where
    with server.client("referee") as c:  # the games do differ
        assert c.get(f"/api/games/{gid}/replay").text.replace(gid, "G") != \
            c.get(f"/api/games/{gid_b}/replay").text.replace(gid_b, "G")


def test_a_token_of_the_wrong_shape_is_told_apart_from_a_revoked_one(server, gid):
    """A pasted token cut short (not jl_<id>_<secret>) is refused with what a token looks
    like; a well-formed unknown or revoked one keeps its own message."""
    for token, says in (("jl_0123", "not a jaslog token"), ("hello", "not a jaslog token"),
                        ("jl_00000000_" + "x" * 32, "unknown or has been revoked")):
        with httpx.Client(base_url=server.url, timeout=10,
                          headers={"Authorization": f"Bearer {token}"}) as c:
            r = c.get("/api/whoami")
        assert r.status_code == 401 and r.json()["code"] == "bad_token", r.text
        assert says in r.json()["message"], (token, r.text)
