"""The scorer's pad's routes, in process on a real SQLite store: whose turn and what is legal,
the recorder's words and its questions, who appended (beside the events, outside the hash),
and each refusal with nothing stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jaslog.store import open_store
from tests.service.inprocess import HANDS, Live, live_service

SEATS = ["ann", "bob", "cor", "dirk"]


@pytest.fixture
def live(tmp_path: Path) -> Any:
    with live_service(tmp_path, players=["ann"]) as lv:
        svc = lv.app.state.service
        lv.tokens["scorer"] = svc.tokens.create("scorer", table="1", label="tablet at table 1")[0]
        lv.tokens["scorer2"] = svc.tokens.create("scorer", table="2")[0]
        yield lv


def start(lv: Live, gid: str, ruleset: str = "amsterdam", seats: list[str] | None = None) -> None:
    r = lv.post("/api/games", {"game": gid, "ruleset": ruleset, "seats": seats or SEATS,
                               "dealer": 3, "meta": {"table": "1"}}, role="scorer")
    assert r.status_code == 201, r.text


def words(lv: Live, gid: str, text: str, answers: list[str] | None = None,
          role: str = "scorer") -> Any:
    return lv.post(f"/api/games/{gid}/pad/words", {"text": text, "answers": answers or []},
                   role=role)


def send(lv: Live, gid: str, events: list[dict[str, Any]], role: str = "scorer") -> Any:
    head = lv.get(f"/api/games/{gid}/head")
    return lv.post(f"/api/games/{gid}/pad/events",
                   {"expected_seq": head["next_seq"], "events": events}, role=role)


def record(lv: Live, gid: str, text: str, answers: list[str] | None = None) -> list[dict[str, Any]]:
    r = words(lv, gid, text, answers)
    assert r.status_code == 200 and "events" in r.json(), r.text
    evs = r.json()["events"]
    assert send(lv, gid, evs).status_code == 200
    return list(evs)


def test_turn_says_whose_turn_and_what_is_legal(live: Live) -> None:
    start(live, "t1")
    t = live.get("/api/games/t1/turn", role="scorer")
    assert (t["expects"], t["turn"], t["may_record"], len(t["pack"])) == ("deal", 3, True, 32)
    hands = [" ".join(h) for h in HANDS[:3]]
    deal = words(live, "t1", "deal", hands[:1]).json()
    assert "hand of seat 1" in deal["ask"]  # the recorder asks the next hand back
    record(live, "t1", "deal", hands)
    t = live.get("/api/games/t1/turn", role="scorer")
    assert t["expects"] == "bid" and t["turn"] == 0
    assert {a["call"] for a in t["actions"]} == {"pass", "C", "D", "H", "S"}
    assert any(x.startswith("a bid for seat 0 (ann)") for x in t["accepted"]), t["accepted"]
    assert t["recent"][-1]["by"] == "tablet at table 1"
    record(live, "t1", "h")  # seat 0 names hearts
    t = live.get("/api/games/t1/turn", role="scorer")
    assert t["expects"] == "play" and t["legal"] == t["hands"][0] and t["actions"] == []
    # a seat sees its own hand only, and no actions; the public is refused
    ann = live.get("/api/games/t1/turn", role="ann")
    assert ann["hands"][1] is None and ann["may_record"] is False and ann["certificate"] is None
    assert live.client.get("/api/games/t1/turn", headers=live.as_("public")).status_code == 403


def test_a_revoke_is_asked_and_stored_as_the_fact_it_is(live: Live) -> None:
    start(live, "t2")
    record(live, "t2", "deal", [" ".join(h) for h in HANDS[:3]])
    record(live, "t2", "c")
    record(live, "t2", HANDS[0][0].lower())  # 7C led
    due = live.get("/api/games/t2/turn", role="scorer")
    off = next(c for c in due["hands"][1] if c not in due["legal"])
    asked = words(live, "t2", off.lower()).json()
    assert "record it anyway" in asked["ask"] and any("breaks a rule" in s for s in asked["shown"])
    assert words(live, "t2", off.lower(), ["n"]).json() == {
        "game": "t2", "events": [], "shown": asked["shown"] + ["not recorded"], "declined": True}
    evs = record(live, "t2", off.lower(), ["y"])
    assert evs[0]["card"] == off
    audit = live.get("/api/games/t2/audit")
    assert audit["violations"][0]["card"] == off


def test_fix_says_what_it_retracts_and_the_certificate_ignores_who_wrote(live: Live, tmp_path: Path) -> None:
    start(live, "t3")
    record(live, "t3", "deal random 5")
    record(live, "t3", "pass")
    asked = words(live, "t3", "fix").json()
    assert asked["ask"] == "retract it? [y/N]> " and "seat 0 (ann) passed" in asked["shown"][0]
    fix = record(live, "t3", "fix", ["y"])
    assert fix[0]["type"] == "correction" and fix[0]["retracts"] == [2]
    t = live.get("/api/games/t3/turn", role="scorer")
    assert [e["retracted"] for e in t["recent"]] == [False, True, False]
    # the events the pad stored, imported into another store, give the same certificate:
    # who appended is not in the hashed bytes
    import orjson

    stored = live.get("/api/games/t3/events")["events"]
    other = open_store(str(tmp_path / "other.sqlite"))
    other.import_lines([orjson.dumps(e).decode() for e in stored])
    assert other.head("t3").certificate == t["certificate"]
    other.close()


@pytest.mark.parametrize("role, code", [("scorer2", "other_table"), ("public", "forbidden"),
                                        ("ann", "forbidden")])
def test_refusals_store_nothing(live: Live, role: str, code: str) -> None:
    start(live, "t4")
    before = live.get("/api/games/t4/head")["next_seq"]
    assert words(live, "t4", "deal random 1", role=role).status_code == 403
    r = send(live, "t4", [{"type": "dealt", "id": "6f2d6a4e-8a63-4a83-8f7e-3c0f1e1a9b11"}], role=role)
    assert r.status_code == 403 and r.json()["code"] == code
    assert live.get("/api/games/t4/head")["next_seq"] == before
    assert live.get("/api/games/t4/turn", role="scorer")["recent"] == []


def test_a_game_over_takes_no_card(live: Live) -> None:
    from jaslog.play.sim import simulate_game

    events = simulate_game("t5", "amsterdam", None, seed=3, seats=SEATS)
    lv = live
    r = lv.post("/api/games", {"game": "t5", "ruleset": "amsterdam", "seats": SEATS,
                               "dealer": events[0]["dealer"], "meta": {"table": "1"}}, role="scorer")
    assert r.status_code == 201
    body = [{k: v for k, v in e.items() if k not in ("game", "seq", "at")} for e in events[1:]]
    assert lv.post("/api/games/t5/pad/events", {"expected_seq": 1, "events": body},
                   role="scorer").status_code == 200
    t = lv.get("/api/games/t5/turn", role="scorer")
    assert t["expects"] == "over" and t["finished"] and len(t["sheet"]) == 16
    before = t["next_seq"]
    r = words(lv, "t5", "7c")
    assert r.status_code == 422
    r = send(lv, "t5", [{"type": "play", "seat": 0, "card": "7C"}])
    assert r.status_code == 422
    assert lv.get("/api/games/t5/head")["next_seq"] == before


def test_a_retry_is_stored_once(live: Live) -> None:
    start(live, "t6")
    evs = words(live, "t6", "deal random 9").json()["events"]
    for _ in range(2):
        r = live.post("/api/games/t6/pad/events", {"expected_seq": 1, "events": evs}, role="scorer")
        assert r.status_code == 200
    assert r.json()["already_stored"] == 1 and r.json()["next_seq"] == 2
    stale = live.post("/api/games/t6/pad/events", {"expected_seq": 1, "events": [
        {"type": "note", "text": "late", "id": "0b7e0f64-5a77-4e5e-9f0f-0e0f64b3c1d2"}]},
        role="scorer")
    assert stale.status_code == 409 and (stale.json()["expected"], stale.json()["actual"]) == (1, 2)


def test_who_appended_is_kept_once_and_filled_in_on_a_retry(live: Live) -> None:
    start(live, "t7")
    deal = words(live, "t7", "deal random 4").json()["events"]
    # stored through the plain API: no one is named
    assert live.post("/api/games/t7/events", {"expected_seq": 1, "events": deal}).status_code == 200
    assert live.get("/api/games/t7/turn", role="scorer")["recent"][0]["by"] is None
    # the pad sends it again (its first answer lost): stored once, and now named
    for _ in range(2):
        r = live.post("/api/games/t7/pad/events", {"expected_seq": 1, "events": deal},
                      role="scorer")
        assert r.status_code == 200 and r.json()["already_stored"] == 1
    t = live.get("/api/games/t7/turn", role="scorer")
    assert [(e["seq"], e["by"]) for e in t["recent"]] == [(1, "tablet at table 1")]
    # a retry of an old batch, after the game moved on, names the events where they are
    bid = words(live, "t7", "pass").json()["events"]
    assert live.post("/api/games/t7/events", {"expected_seq": 2, "events": bid}).status_code == 200
    assert send(live, "t7", [{"type": "note", "text": "new pack",
                              "id": "5d0c8f1e-2b7a-4c55-9a8e-1f2e3d4c5b6a"}]).status_code == 200
    r = live.post("/api/games/t7/pad/events", {"expected_seq": 2, "events": bid}, role="scorer")
    assert r.status_code == 200 and r.json()["already_stored"] == 1
    t = live.get("/api/games/t7/turn", role="scorer")
    assert [(e["seq"], e["by"]) for e in t["recent"]] == [
        (1, "tablet at table 1"), (2, "tablet at table 1"), (3, "tablet at table 1")]
