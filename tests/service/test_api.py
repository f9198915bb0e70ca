"""The API over real HTTP: create, append (conflicts, refusals, retries), read, oracle."""

from __future__ import annotations

import uuid

from jaslog.events import event_from_dict
from jaslog.play.audit import game_report
from jaslog.play.fold import fold
from jaslog.play.oracle import answer
from jaslog.play.sim import Faults
from jaslog.play.views import FULL, frames, timeline
from jaslog.store import open_store
from tests.service.conftest import as_sent, body_of, create, record, sim, timed


def _strip_at(evs: list[dict]) -> list[dict]:
    return [as_sent(e, "at") for e in evs]


def test_record_a_whole_game_and_read_it_back(server, gid):
    events = sim(gid, seed=11, faults=Faults(revoke_rate=0.05, false_roem_rate=0.2))
    with server.client("admin") as c:
        r = create(c, gid, events[0])
        assert r.status_code == 201, r.text
        assert r.json()["game"] == gid and r.json()["view"] == "full"
        record(c, gid, events[1:])

        got = c.get(f"/api/games/{gid}/events").json()
        assert got["view"] == "full"
        assert _strip_at(got["events"]) == events  # every event, in order, as sent
        assert all(e["at"].endswith("Z") for e in got["events"])  # stamped on arrival

        audit = c.get(f"/api/games/{gid}/audit").json()
        assert audit == game_report(gid, fold(event_from_dict(e) for e in events))
        assert audit["finished"] and audit["violations"]  # the faults were recorded as facts

        head = c.get(f"/api/games/{gid}/head").json()
        with open_store(str(server.db)) as s:
            stored = s.head(gid)
            signed = s.signature(gid)
            assert s.verify(gid).ok
        assert signed is not None and signed["seq"] == len(events) - 1  # the end, signed
        assert head == {"game": gid, "seq": len(events) - 1, "next_seq": len(events),
                        "hash": stored.hash, "certificate": stored.certificate, "note": None,
                        "signature": signed}

        detail = c.get(f"/api/games/{gid}").json()
        assert detail["finished"] and detail["totals"] == audit["totals"]
        assert detail["violations"] == len(audit["violations"]) and detail["live_round"] is None
        assert gid in [g["game"] for g in c.get("/api/games", params={"order": "newest"}).json()]


def test_state_at_any_seq_is_the_fold_at_that_seq(server, gid):
    events = sim(gid, seed=12)[:80]
    with server.client("admin") as c:
        create(c, gid, events[0])
        record(c, gid, events[1:])
        local = frames(timeline(event_from_dict(e) for e in events), FULL)
        for seq in (0, 1, 5, 33, 34, 60, 79):
            st = c.get(f"/api/games/{gid}/state", params={"seq": seq}).json()
            want = {k: v for k, v in local[seq].items() if k != "at"}
            assert {k: v for k, v in st.items() if k in want and k != "at"} == want
            assert st["seq"] == seq
        assert c.get(f"/api/games/{gid}/state").json()["seq"] == 79
        r = c.get(f"/api/games/{gid}/state", params={"seq": 80})
        assert r.status_code == 404 and r.json()["code"] == "no_such_seq"
        rep = c.get(f"/api/games/{gid}/replay").json()
        assert [f["seq"] for f in rep["frames"]] == list(range(80))


def test_a_conflict_is_409_with_the_actual_seq_and_writes_nothing(server, gid):
    events = sim(gid, seed=13)
    with server.client("admin") as c:
        create(c, gid, events[0])
        record(c, gid, events[1:10])
        r = c.post(f"/api/games/{gid}/events",
                   json={"expected_seq": 5, "events": body_of(events[5:7])})
        assert r.status_code == 409
        assert r.json()["code"] == "conflict"
        assert r.json()["expected"] == 5 and r.json()["actual"] == 10
        assert "expected to append at seq 5" in r.json()["message"]
        r = c.post(f"/api/games/{gid}/events",
                   json={"expected_seq": 12, "events": body_of(events[12:13])})
        assert r.status_code == 409 and r.json()["actual"] == 10
        assert c.get(f"/api/games/{gid}/head").json()["next_seq"] == 10


def test_a_rule_refusal_is_422_with_the_rule_code_and_sentence(server, gid):
    events = sim(gid, seed=14, options={"revoke": "reject"})
    with server.client("admin") as c:
        create(c, gid, events[0])
        # find a play that would be a revoke: a card the player holds but may not play
        g = fold(event_from_dict(e) for e in events[:1])
        n = 1
        while True:
            e = events[n]
            st = g.state
            if e["type"] == "play":
                r = st.current_round
                legal = st.legal_plays()
                hand = r.hands[e["seat"]]
                if hand & ~legal:
                    break
            g.apply(event_from_dict(e))
            n += 1
        record(c, gid, events[1:n])
        from jaslog.cards import CARD_TEXT, cards_of

        illegal = CARD_TEXT[next(iter(cards_of(hand & ~legal)))]
        bad = {**events[n], "card": illegal}
        r = c.post(f"/api/games/{gid}/events", json={"expected_seq": n, "events": body_of([bad])})
        assert r.status_code == 422, r.text
        body = r.json()
        assert body["code"] in ("must_follow_suit", "must_trump", "must_overtrump", "no_undertrump")
        assert body["seq"] == n and body["seat"] == bad["seat"] and body["card"] == illegal
        assert f"seat {bad['seat']}" in body["message"] and "revoke: reject" in body["message"]
        # integrity errors are refused the same way, with their code
        wrong_seat = {**events[n], "seat": (events[n]["seat"] + 1) % 4}
        r = c.post(f"/api/games/{gid}/events",
                   json={"expected_seq": n, "events": body_of([wrong_seat])})
        assert r.status_code == 422 and r.json()["code"] in ("not_your_turn", "card_not_held")
        bad_event = {"type": "play", "seat": 9, "card": "ZZ"}
        r = c.post(f"/api/games/{gid}/events", json={"expected_seq": n, "events": [bad_event]})
        assert r.status_code == 422 and r.json()["code"] == "bad_event"
        assert "not a card" in r.json()["message"] or "seat" in r.json()["message"]
        # a batch with one bad event stores nothing
        r = c.post(f"/api/games/{gid}/events",
                   json={"expected_seq": n, "events": body_of([events[n], wrong_seat])})
        assert r.status_code == 422
        assert c.get(f"/api/games/{gid}/head").json()["next_seq"] == n


def test_violations_are_stored_as_facts_and_reported_by_the_append(server, gid):
    events = sim(gid, seed=15, faults=Faults(revoke_rate=0.3))
    report = game_report(gid, fold(event_from_dict(e) for e in events))
    first = report["violations"][0]
    with server.client("admin") as c:
        create(c, gid, events[0])
        record(c, gid, events[1:first["seq"]])
        r = c.post(f"/api/games/{gid}/events", json={"expected_seq": first["seq"],
                                                      "events": body_of([events[first["seq"]]])})
        assert r.status_code == 200
        assert r.json()["violations"] == [first]


def test_retries_with_event_ids_are_idempotent(server, gid):
    events = sim(gid, seed=16)
    for e in events[1:]:
        e["id"] = str(uuid.uuid4())
    with server.client("admin") as c:
        create(c, gid, events[0])
        batch = {"expected_seq": 1, "events": body_of(events[1:4])}  # no `at`: stamped
        first = c.post(f"/api/games/{gid}/events", json=batch)
        assert first.status_code == 200 and first.json()["appended"] == 3
        again = c.post(f"/api/games/{gid}/events", json=batch)
        assert again.status_code == 200, again.text
        assert again.json()["appended"] == 0 and again.json()["already_stored"] == 3
        assert again.json()["head_hash"] == first.json()["head_hash"]
        # a retry that overlaps: two stored, one new
        more = c.post(f"/api/games/{gid}/events",
                      json={"expected_seq": 2, "events": body_of(events[2:5])})
        assert more.status_code == 200, more.text
        assert (more.json()["appended"], more.json()["already_stored"]) == (1, 2)
        # with explicit times, the same
        t = timed(events[5:7])
        for _ in range(2):
            r = c.post(f"/api/games/{gid}/events", json={"expected_seq": 5, "events": body_of(t)})
            assert r.status_code == 200
        assert r.json()["already_stored"] == 2
        # the same id with other content is a conflict, not a retry
        other = {**body_of(events[5:6])[0], "at": "2020-01-01T00:00:00Z"}
        r = c.post(f"/api/games/{gid}/events", json={"expected_seq": 5, "events": [other]})
        assert r.status_code == 409
        got = c.get(f"/api/games/{gid}/events").json()["events"]
        assert [e["seq"] for e in got] == list(range(7))
        assert [e.get("id") for e in got[1:]] == [e["id"] for e in events[1:7]]


def test_the_rules_oracle_over_http(server):
    queries = [
        {"op": "legal", "ruleset": "amsterdam", "trump": "H", "trick": ["AS", "7S"],
         "hand": ["7H", "AD", "KC"]},
        {"op": "winner", "ruleset": "rotterdam", "trump": "H", "trick": ["AS", "7H", "10S", "KS"]},
        {"op": "roem", "trump": "H", "trick": ["KH", "QH", "JH", "7C"]},
        {"op": "points", "trump": "H", "trick": ["JH", "9H", "AS", "10S"], "last": True},
        {"op": "score", "ruleset": "amsterdam", "points": [70, 92], "roem": [20, 0],
         "tricks": [4, 4], "chooser_team": 0, "revoke_team": None},
    ]
    with server.client("public") as c:
        for q in queries:
            r = c.post("/api/oracle", json=q)
            assert r.status_code == 200
            assert r.json() == answer(q)
        r = c.post("/api/oracle", json={"op": "legal", "trump": "X"})
        assert r.status_code == 422 and r.json()["code"] == "bad_query"
        assert "trump" in r.json()["message"]
        r = c.post("/api/oracle", json={"op": "fly"})
        assert r.status_code == 422 and "unknown op" in r.json()["message"]


def test_bad_requests_say_what_is_wrong(server, gid):
    with server.client("admin") as c:
        r = c.post("/api/games", json={"ruleset": "amsterdam"})
        assert r.status_code == 422 and r.json()["code"] == "bad_request"
        assert "seats" in r.json()["message"]
        r = c.post("/api/games", json={"ruleset": "paris", "seats": ["a", "b", "c", "d"]})
        assert r.status_code == 422 and "ruleset" in r.json()["message"]
        r = c.post("/api/games", json={"ruleset": "amsterdam", "seats": ["a", "a", "c", "d"]})
        assert r.status_code == 422 and r.json()["code"] == "bad_seats"
        r = c.get("/api/games/no-such-game/audit")
        assert r.status_code == 404 and r.json()["code"] == "no_such_game"
        r = c.get("/api/games/bad%20id/audit")
        assert r.status_code == 422
        r = c.post("/api/games/no-such-game/events", json={"events": [{"type": "note", "text": "x"}]})
        assert r.status_code == 404
        create(c, gid, sim(gid)[0])
        r = create(c, gid, sim(gid)[0])
        assert r.status_code == 409 and r.json()["code"] == "game_exists"
        r = c.post(f"/api/games/{gid}/events", json={"events": []})
        assert r.status_code == 422 and r.json()["code"] == "bad_request"
        r = c.post(f"/api/games/{gid}/events", json={"events": [{"type": "note", "text": "x"}]})
        assert r.status_code == 422 and "seq" in r.json()["message"]
        r = c.post(f"/api/games/{gid}/events", content=b"{not json", headers={
            "content-type": "application/json"})
        assert r.status_code == 422
        r = c.post(f"/api/games/{gid}/events",
                   json={"events": [{"game": "other", "seq": 1, "type": "note", "text": "x"}]})
        assert r.status_code == 422 and r.json()["code"] == "wrong_game"


def test_numbers_a_log_cannot_hold_are_refused(server, gid):
    """JSON bodies may hold numbers beyond 64 bits, NaN or deep nesting; jaslog/1 logs may not."""
    seats = ["a1", "b1", "c1", "d1"]
    with server.client("admin") as c:
        big = b'{"ruleset": "amsterdam", "seats": ["a1", "b1", "c1", "d1"], ' \
              b'"meta": {"x": {"y": 32589158477190044730}}}'
        for body, says in ((big, "meta.x.y: 32589158477190044730 does not fit in 64 bits"),
                           (big.replace(b"32589158477190044730", b"NaN"), "is not a JSON number"),
                           (b'{"ruleset": "amsterdam", "seats": ["a1", "b1", "c1", "d1"], '
                            b'"meta": ' + b'{"a": ' * 40 + b"1" + b"}" * 41, "levels deep")):
            r = c.post("/api/games", content=body, headers={"content-type": "application/json"})
            assert r.status_code == 422 and says in r.json()["message"], r.text
        assert c.post("/api/games", json={"game": gid, "ruleset": "amsterdam",
                                          "seats": seats}).status_code == 201
        r = c.post(f"/api/games/{gid}/events", content=b'{"expected_seq": 1, "events": '
                   b'[{"type": "note", "text": "x", "round": 100000000000000000000000}]}',
                   headers={"content-type": "application/json"})
        assert r.status_code == 422 and "events[0].round" in r.json()["message"]
        r = c.post("/api/oracle", content=b"[" * 60000, headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["code"] == "bad_body"
        r = c.post("/api/games", content=b'{"ruleset": "amsterdam \xe9"}',
                   headers={"content-type": "application/json"})  # Latin-1, not UTF-8
        assert r.status_code == 400 and r.json() == {
            "code": "bad_body", "message": "the request body is not UTF-8 (byte 0xe9 at 23): "
                                           "send JSON in UTF-8"}, r.text
        for body in (b'{"events": [{"type": "note", "text": "\xe9"}]}', b"\xff\xfe{}"):
            r = c.post(f"/api/games/{gid}/events", content=body,
                       headers={"content-type": "application/json"})
            assert r.status_code == 400 and r.json()["code"] == "bad_body", r.text
            assert r.json()["message"].startswith("the request body is not UTF-8 (byte 0x")
        assert c.get(f"/api/games/{gid}/head").json()["next_seq"] == 1
