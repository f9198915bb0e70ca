"""What-if on the service (``?as=PRESET`` and ``?o=KEY=VALUE``, repeated) on the game endpoints
that fold: the audit, the state and the replay under other rules, with ``what_if`` (the
comparison), as each token may see it; the stored game is never written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

import jaslog.play.whatif
from jaslog.events import event_from_dict
from jaslog.play.audit import game_report
from jaslog.play.fold import fold
from jaslog.play.sim import Faults, simulate_game
from jaslog.play.views import timeline
from jaslog.play.whatif import what_if
from jaslog.service.deps import api_words
from tests.service.conftest import SEATS
from tests.service.inprocess import Live, live_service


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with live_service(tmp_path_factory.mktemp("whatif"), players=SEATS) as lv:
        yield lv


def store(live: Live, gid: str, events: list[dict[str, Any]]) -> None:
    s = events[0]
    r = live.post("/api/games", {"game": gid, "ruleset": s["ruleset"], "seats": s["seats"],
                                 "dealer": s["dealer"], **({"options": s["options"]}
                                                           if s.get("options") else {})})
    assert r.status_code in (200, 201), r.text
    body = [{k: v for k, v in e.items() if k not in ("game", "seq")} for e in events[1:]]
    r = live.post(f"/api/games/{gid}/events", {"expected_seq": 1, "events": body})
    assert r.status_code == 200, r.text


def get(live: Live, url: str, role: str = "admin", status: int = 200) -> Any:
    r = live.client.get(url, headers=live.as_(role))
    assert r.status_code == status, r.text
    return r.json()


@pytest.fixture(scope="module")
def finished(live: Live) -> tuple[str, list[dict[str, Any]]]:
    events = simulate_game("wf", "amsterdam", seed=4, seats=SEATS, faults=Faults(revoke_rate=0.05))
    store(live, "wf", events)
    return "wf", events


def stored(live: Live, gid: str) -> list[Any]:
    return [event_from_dict(e) for e in get(live, f"/api/games/{gid}/events")["events"]]


def test_the_audit_as_rotterdam_is_the_game_folded_under_rotterdam(live: Live, finished: Any) -> None:
    gid, _ = finished
    head = get(live, f"/api/games/{gid}/head")
    evs = stored(live, gid)
    got = get(live, f"/api/games/{gid}/audit?as=rotterdam")
    w = what_if(evs, "rotterdam")
    assert got.pop("what_if") == orjson.loads(orjson.dumps(w.to_dict()))
    assert got == orjson.loads(orjson.dumps(game_report(gid, w.as_if)))
    assert got["ruleset"] == "rotterdam"
    # without as: the audit as before, with no what_if
    assert "what_if" not in get(live, f"/api/games/{gid}/audit")
    # the store was not written
    assert get(live, f"/api/games/{gid}/head") == head
    assert stored(live, gid) == evs


def test_options_are_repeated_o_and_replace_the_game_s_own(live: Live, finished: Any) -> None:
    gid, _ = finished
    d = get(live, f"/api/games/{gid}/audit?o=revoke=ignore&o=pit_bonus=50")["what_if"]
    assert d["as"] == {"ruleset": "amsterdam", "options": {"revoke": "ignore", "pit_bonus": 50}}
    assert [x["option"] for x in d["options_differ"]] == ["pit_bonus", "revoke"]
    assert d == orjson.loads(orjson.dumps(
        what_if(stored(live, gid), None, ["revoke=ignore", "pit_bonus=50"]).to_dict()))


def test_the_state_and_the_replay_as_if(live: Live, finished: Any) -> None:
    gid, _ = finished
    w = what_if(stored(live, gid), "rotterdam", ["revoke=ignore"])
    st = get(live, f"/api/games/{gid}/state?as=rotterdam&o=revoke=ignore")
    assert st["totals"] == w.as_if.state.totals() != w.recorded.state.totals()
    assert st["what_if"]["totals"]["as_if"] == st["totals"]
    rp = get(live, f"/api/games/{gid}/replay?as=rotterdam&o=revoke=ignore")
    assert rp["report"]["totals"] == st["totals"] and rp["what_if"] == st["what_if"]
    assert len(rp["frames"]) == len(w.recorded.log)
    plain = get(live, f"/api/games/{gid}/replay")
    assert "what_if" not in plain and plain["report"]["ruleset"] == "amsterdam"
    assert set(rp) == set(plain) | {"what_if"}


def test_a_refusal_stops_the_frames_and_a_later_seq_is_said(live: Live) -> None:
    events = simulate_game("wr", "amsterdam", seed=6, seats=SEATS, faults=Faults(revoke_rate=0.1))
    store(live, "wr", events)
    rp = get(live, "/api/games/wr/replay?o=revoke=reject")
    refused = rp["what_if"]["refused"]
    assert refused["code"] and refused["seq"] == len(rp["frames"])
    assert rp["frames"][-1]["seq"] == refused["seq"] - 1 == rp["what_if"]["compared_to"]
    err = get(live, f"/api/games/wr/state?o=revoke=reject&seq={refused['seq']}", status=422)
    assert err["code"] == "what_if_refused"
    assert get(live, f"/api/games/wr/state?o=revoke=reject&seq={refused['seq'] - 1}")["seq"] \
        == refused["seq"] - 1


@pytest.mark.parametrize("query,code", [("as=klaberjass-2p", "other_game"),
                                        ("as=paris", "unknown_preset"),
                                        ("o=revoke=sometimes", "bad_options"),
                                        ("o=revoke", "bad_options")])
def test_a_what_if_that_cannot_be_asked_is_422_with_a_code(live: Live, finished: Any,
                                                          query: str, code: str) -> None:
    gid, _ = finished
    for what in ("audit", "state", "replay"):
        assert get(live, f"/api/games/{gid}/{what}?{query}", status=422)["code"] == code


def live_game(live: Live, gid: str = "wl") -> tuple[str, list[Any]]:
    """A game cut in its third round just after its first revoke (every revoke is there)."""
    events = simulate_game(gid, "amsterdam", seed=7, seats=SEATS,
                           faults=Faults(revoke_rate=0.5, revoke_rounds=(3,)))
    evs = [event_from_dict(e) for e in events]
    first = min(v.seq for v in fold(evs).state.violations)
    store(live, gid, events[:first + 2])
    return gid, evs[:first + 2]


def test_each_token_sees_the_what_if_of_what_it_may_see(live: Live) -> None:
    gid, evs = live_game(live)
    tl = timeline(evs)
    assert tl.live_round == 3
    full = get(live, f"/api/games/{gid}/audit?o=revoke=reject")["what_if"]
    assert full["refused"]["round"] == 3 and full["refused"]["code"]
    # the public: the what-if of the finished rounds only
    pub = get(live, f"/api/games/{gid}/audit?o=revoke=reject", "public")["what_if"]
    assert pub["refused"] is None and pub["compared_to"] == tl.horizon()
    pub_rp = get(live, f"/api/games/{gid}/replay?as=rotterdam", "public")
    assert all(v["seq"] <= tl.horizon() for v in pub_rp["what_if"]["verdicts"])
    assert len(pub_rp["frames"]) == tl.horizon() + 1
    # a seat: the what-if of what it may see, the round being played without its hands (a
    # log holds every hand or none): no verdict or refusal there that a hand would decide
    rotterdam = get(live, f"/api/games/{gid}/audit?as=rotterdam")["what_if"]["verdicts"]
    for player in SEATS:
        d = get(live, f"/api/games/{gid}/audit?o=revoke=reject", player)["what_if"]
        assert d["refused"] is None and d["compared_to"] == evs[-1].seq
        mine = get(live, f"/api/games/{gid}/audit?as=rotterdam", player)["what_if"]["verdicts"]
        assert mine == [v for v in rotterdam if v["round"] != 3]
        st = get(live, f"/api/games/{gid}/state?as=rotterdam", player)
        assert st["hands"] == [None] * 4 and st["seq"] == evs[-1].seq


def test_a_what_if_never_tells_a_sight_of_a_revoke_it_could_not_see(live: Live) -> None:
    """``o=revoke=reject`` refuses a revoke; asked by a seat in the round being played, or by
    the public of a round a ruling ended with cards unplayed, whether it refuses (and where)
    would tell which seat held what: the what-if is computed on what the sight may see."""
    gid, evs = live_game(live, "wl2")
    revoke = min(v.seq for v in fold(evs).state.violations)
    full = get(live, f"/api/games/{gid}/state?o=revoke=reject&seq={revoke}", status=422)
    assert full["code"] == "what_if_refused"
    for player in SEATS:
        st = get(live, f"/api/games/{gid}/state?o=revoke=reject&seq={revoke}", player)
        assert st["seq"] == revoke and st["what_if"]["refused"] is None
    # a referee rules the round with cards unplayed: the public sees it, never the revoke
    r = live.post(f"/api/games/{gid}/events", {"expected_seq": len(evs), "events": [
        {"type": "ruling", "round": 3, "score": [0, 162], "reason": "abandoned"}]})
    assert r.status_code == 200, r.text
    assert get(live, f"/api/games/{gid}/audit?o=revoke=reject")["what_if"]["refused"] is not None
    pub = get(live, f"/api/games/{gid}/audit?o=revoke=reject", "public")["what_if"]
    assert pub["refused"] is None and pub["compared_to"] == len(evs)


def test_the_openapi_names_the_what_if_parameters(live: Live) -> None:
    spec = get(live, "/openapi.json")
    params = {p["name"] for p in spec["paths"]["/api/games/{game}/audit"]["get"]["parameters"]}
    assert {"as", "o"} <= params


def test_every_what_if_refusal_is_in_the_api_s_words(live: Live, finished: Any) -> None:
    from tests.service.test_messages import CLI, _raised_texts

    gid, _ = finished
    for query in ("o=bogus=1", "o=revoke=sometimes", "as=paris", "as=kloepper"):
        said = get(live, f"/api/games/{gid}/audit?{query}", status=422)["message"]
        assert not CLI.search(said) and "None" not in said, said
    texts = _raised_texts(Path(jaslog.play.whatif.__file__), frozenset())
    assert len(texts) >= 5
    for line, text in texts:
        assert not CLI.search(api_words(text)), (line, text)
