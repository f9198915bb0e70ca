"""A referee's ruling is told to the public without its reason until the game is over; the
seats and the referee read it at once (in the events, the audit and the replay's frames)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jaslog.play.sim import simulate_game
from tests.service.conftest import body_of
from tests.service.inprocess import live_service

SEATS = ["ann", "bob", "cor", "dirk"]


def test_the_public_reads_a_rulings_reason_once_the_game_is_over(tmp_path: Path) -> None:
    events = simulate_game("rr-1", "amsterdam", {"game_end": {"type": "deals", "count": 2}},
                           seed=4, seats=SEATS)
    second = next(e["seq"] for e in events if e["type"] == "dealt" and e["seq"] > 1)
    with live_service(tmp_path, players=SEATS) as live:
        r = live.post("/api/games", {"game": "rr-1", "ruleset": "amsterdam", "seats": SEATS,
                                     "dealer": events[0]["dealer"],
                                     "options": events[0]["options"], "meta": {"table": "1"}})
        assert r.status_code == 201, r.text
        live.append("rr-1", body_of(events[1:second]))
        ruling = {"type": "ruling", "round": 1, "score": [0, 162], "reason": "revoke by bob"}
        live.append("rr-1", [ruling], role="referee")

        def reasons(role: str) -> set[Any]:
            """Every reason of the ruling the token reads: in the events, the audit, the
            replay's frames (and whether a frame's text tells it)."""
            evs = live.get("/api/games/rr-1/events", role=role)["events"]
            audit = live.get("/api/games/rr-1/audit", role=role)
            frames = live.get("/api/games/rr-1/replay", role=role)["frames"]
            said = {e.get("reason") for e in evs if e["type"] == "ruling"}
            said |= {x["reason"] for r in audit["rounds"] for x in r["rulings"]}
            said |= {f["ruling"]["reason"] for f in frames if f.get("ruling")}
            if any("revoke by bob" in f["text"] for f in frames):
                said.add("in a frame's text")
            return said

        assert reasons("public") == {None}
        assert reasons("ann") == reasons("referee") == {"revoke by bob", "in a frame's text"}
        live.append("rr-1", body_of(events[second:]))
        assert live.get("/api/games/rr-1", role="public")["finished"]
        assert reasons("public") == {"revoke by bob", "in a frame's text"}
