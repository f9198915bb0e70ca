"""What the notation's tests share: a game's events through the text and back, as the readers
of logs read it, and games to try it on."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from jaslog.events import Event, canonical_json, event_from_dict
from jaslog.logs import read_lines
from jaslog.notation import write_game
from jaslog.play.sim import Faults, simulate_game

#: Faults real records hold: revokes, false roem, rounds without hands.
FAULTY = Faults(revoke_rate=0.01, false_roem_rate=0.03, no_hands_rate=0.15)


def text_lines(text: str) -> list[bytes]:
    return text.encode().splitlines(keepends=True)


def read_text(text: str, source: str = "game.txt") -> list[Event]:
    """The events of a notation text as every reader of logs gets them (``read_lines``);
    fails on the first line that is not an event."""
    events = []
    for ln in read_lines(text_lines(text), source):
        assert ln.event is not None, f"{ln.source}:{ln.number}: {ln.error}"
        events.append(ln.event)
    return events


def assert_round_trips(events: Iterable[Any]) -> str:
    """jaslog/1 -> text -> jaslog/1 gives the same bytes, and text -> jaslog/1 -> text the same
    text; returns the text."""
    models = [e if isinstance(e, Event) else event_from_dict(e) for e in events]
    jsonl = [canonical_json(e) for e in models]
    text = write_game(models)
    back = read_text(text)
    assert [canonical_json(e) for e in back] == jsonl
    assert write_game(back) == text
    return text


def simulated(ruleset: str, i: int, bot: str = "heuristic") -> list[dict[str, Any]]:
    """Game ``i`` of a ruleset as a real table records it: faults, and a time on every event
    (games start on different days and at different times)."""
    day = 1 + i % 28
    hour = 18 + i % 5
    return simulate_game(f"{ruleset}-{i}", ruleset, seed=i, faults=FAULTY, bot=bot,
                         at=f"2026-02-{day:02d}T{hour:02d}:{i % 60:02d}:{i * 7 % 60:02d}Z")


def digest(chunks: Iterable[bytes]) -> str:
    h = hashlib.sha256()
    for c in chunks:
        h.update(c)
    return h.hexdigest()
