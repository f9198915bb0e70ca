"""Per-move time limits, measured from the events' ``at`` times.

A move is a bid, a turned trump card or a play; its time is from the event before it to the
move itself. A tournament (seed 003: 30 seconds per move) reports every move that took
longer than its limit.

>>> ev = [{"seq": 0, "type": "game_started", "at": "2026-01-01T20:00:00Z", "seats": ["a", "b", "c", "d"]},
...       {"seq": 1, "type": "dealt", "at": "2026-01-01T20:00:05Z"},
...       {"seq": 2, "type": "bid", "seat": 0, "call": "H", "at": "2026-01-01T20:00:41.5Z"}]
>>> move_times(ev, 30)["exceeded"]
[{'seq': 2, 'round': 1, 'seat': 0, 'player': 'a', 'type': 'bid', 'seconds': 36.5, 'limit': 30}]
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

MOVES = ("bid", "trump_turned", "play")


def parse_at(at: str) -> datetime:
    return datetime.fromisoformat(at.replace("z", "Z").replace("Z", "+00:00").replace(" ", "T"))


def move_times(events: list[dict[str, Any]], limit: float | None) -> dict[str, Any]:
    """Every move's time and the moves over ``limit`` seconds (None: no limit)."""
    seats: list[str] = list(events[0].get("seats", [])) if events else []
    prev: datetime | None = None
    rnd = 0
    moves, untimed, longest = 0, 0, 0.0
    exceeded: list[dict[str, Any]] = []
    for e in events:
        at = parse_at(e["at"]) if e.get("at") else None
        if e["type"] == "dealt":
            rnd += 1
        if e["type"] in MOVES:
            moves += 1
            if at is None or prev is None:
                untimed += 1
            else:
                secs = round((at - prev).total_seconds(), 3)
                longest = max(longest, secs)
                if limit is not None and secs > limit:
                    seat = e.get("seat")
                    exceeded.append({
                        "seq": e["seq"], "round": rnd, "seat": seat,
                        "player": seats[seat] if seat is not None and seat < len(seats) else None,
                        "type": e["type"], "seconds": secs, "limit": limit})
        if at is not None:
            prev = at
    return {"limit": limit, "moves": moves, "untimed": untimed, "longest": longest,
            "exceeded": exceeded}
