"""Per-move times and time limits, on one of the two clocks (rule book 9.1, decision 14).

A move is a bid, a turned trump card or a play; its time is from the event before it to the
move itself. A live game (recorded through the service, a live recorder or ``jaslog
append``) has the store's own stamps, ``recorded_at``, and is timed on them; a game without
them (an imported archive) is timed on the table's ``at``. Every report names the clock it
used. A tournament (seed 003: 30 seconds per move) reports every move that took longer than
its limit.

>>> ev = [{"seq": 0, "type": "game_started", "at": "2026-01-01T20:00:00Z", "seats": ["a", "b", "c", "d"]},
...       {"seq": 1, "type": "dealt", "at": "2026-01-01T20:00:05Z"},
...       {"seq": 2, "type": "bid", "seat": 0, "call": "H", "at": "2026-01-01T20:00:41.5Z"}]
>>> move_times(ev, 30)["exceeded"]
[{'seq': 2, 'round': 1, 'seat': 0, 'player': 'a', 'type': 'bid', 'seconds': 36.5, 'limit': 30}]
>>> move_times(ev, 30)["clock"]
'at'
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from jaslog.store.clock import parse_stamp

MOVES = ("bid", "trump_turned", "play")
#: Events that open a round (a round recorded by its score alone has no moves).
ROUND_OPENERS = ("dealt", "round_score")
#: The two clocks: the store's own (``recorded_at``) and the table's (``at``).
ClockName = Literal["recorded_at", "at"]


def parse_at(at: str) -> datetime:
    """An RFC 3339 time (``at`` or ``recorded_at``) as an aware datetime."""
    return parse_stamp(at.replace(" ", "T"))


def _field(e: Any, name: str) -> Any:
    """A field of an event given as a dict (``visible_events``) or as a model."""
    return e.get(name) if isinstance(e, dict) else getattr(e, name, None)


def clock_of(events: Sequence[Any]) -> ClockName:
    """The clock a game's moves are timed on: ``recorded_at`` when its events carry the
    store's stamps (a live game), else ``at`` (an imported archive).

    >>> clock_of([{"type": "play", "at": "2026-01-01T20:00:00Z"}])
    'at'
    >>> clock_of([{"type": "play", "recorded_at": "2026-12-01T20:00:00.000Z"}])
    'recorded_at'
    """
    return "recorded_at" if any(_field(e, "recorded_at") for e in events) else "at"


def move_seconds(events: Sequence[Any]) -> tuple[list[dict[str, Any]], ClockName]:
    """Every move's time in seconds, on the game's clock (:func:`clock_of`), and that
    clock's name. Each move is ``{seq, round, seat, type, seconds}``; ``seconds`` is None for
    a move that cannot be timed (it or every event before it lacks the clock's time).
    ``events``: a game's events in seq order, as dicts or models.

    >>> ev = [{"seq": 0, "type": "game_started", "recorded_at": "2026-12-01T20:00:00.000Z"},
    ...       {"seq": 1, "type": "dealt", "at": "2026-12-01T19:00:00Z",
    ...        "recorded_at": "2026-12-01T20:00:04.000Z"},
    ...       {"seq": 2, "type": "bid", "seat": 1, "call": "pass", "at": "2026-12-01T19:00:02Z",
    ...        "recorded_at": "2026-12-01T20:00:35.250Z"}]
    >>> move_seconds(ev)
    ([{'seq': 2, 'round': 1, 'seat': 1, 'type': 'bid', 'seconds': 31.25}], 'recorded_at')
    """
    clock = clock_of(events)
    prev: datetime | None = None
    rnd = 0
    out: list[dict[str, Any]] = []
    for e in events:
        text = _field(e, clock)
        t = parse_at(text) if text else None
        kind = _field(e, "type")
        if kind in ROUND_OPENERS:
            rnd += 1
        if kind in MOVES:
            secs = None if t is None or prev is None else round((t - prev).total_seconds(), 3)
            out.append({"seq": _field(e, "seq"), "round": rnd, "seat": _field(e, "seat"),
                        "type": kind, "seconds": secs})
        if t is not None:
            prev = t
    return out, clock


def move_times(events: Sequence[Any], limit: float | None) -> dict[str, Any]:
    """Every move's time and the moves over ``limit`` seconds (None: no limit), on the
    game's clock (``clock``: ``recorded_at`` or ``at``, see :func:`move_seconds`)."""
    seats: list[str] = list(_field(events[0], "seats") or []) if events else []
    moves, clock = move_seconds(events)
    timed = [m for m in moves if m["seconds"] is not None]
    exceeded: list[dict[str, Any]] = []
    for m in timed:
        if limit is not None and m["seconds"] > limit:
            seat = m["seat"]
            exceeded.append({
                "seq": m["seq"], "round": m["round"], "seat": seat,
                "player": seats[seat] if seat is not None and seat < len(seats) else None,
                "type": m["type"], "seconds": m["seconds"], "limit": limit})
    return {"limit": limit, "clock": clock, "moves": len(moves),
            "untimed": len(moves) - len(timed),
            "longest": max([0.0, *(m["seconds"] for m in timed)]), "exceeded": exceeded}
