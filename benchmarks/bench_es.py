"""The baseline of the benchmark: the same games kept with the ``eventsourcing`` library.

Written the way its documentation recommends: an :class:`~eventsourcing.domain.Aggregate`
per game whose command methods are decorated with ``@event`` (calling one records a domain
event and applies it; replaying calls the same body), an
:class:`~eventsourcing.application.Application` that saves each aggregate in one
transaction, and its SQLite persistence module (``PERSISTENCE_MODULE=eventsourcing.sqlite``)
with no aggregate cache and no snapshots, so ``repository.get`` replays every event.

The aggregate keeps what a game log holds (hands, bids, plays, roem claims per round) but
checks no rule: that makes the comparison generous to the library, since jaslog's fold
validates every play against the rules while it replays.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

import orjson
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event


def game_uuid(game_id: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"/jaslog/games/{game_id}")


class Game(Aggregate):
    """One game of cards: its seats and options, then round after round of the table's events."""

    @staticmethod
    def create_id(game_id: str, **_: Any) -> UUID:  # type: ignore[override]
        return game_uuid(game_id)

    @event("Started")
    def __init__(self, game_id: str, ruleset: str, seats: list[str], dealer: int,
                 options: dict[str, Any] | None, meta: dict[str, Any] | None,
                 at: str | None) -> None:
        self.game_id = game_id
        self.ruleset = ruleset
        self.seats = seats
        self.dealer = dealer
        self.options = options or {}
        self.meta = meta
        self.started_at = at
        self.rounds: list[dict[str, Any]] = []
        self.rulings: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.last_seq = 0

    def _round(self) -> dict[str, Any]:
        return self.rounds[-1]

    @event("Dealt")
    def deal(self, seq: int, at: str | None, hands: list[list[str]] | None) -> None:
        self.rounds.append({"hands": hands, "turned": [], "bids": [], "plays": [], "roem": []})
        self.last_seq = seq

    @event("TrumpTurned")
    def turn_trump(self, seq: int, at: str | None, card: str) -> None:
        self._round()["turned"].append(card)
        self.last_seq = seq

    @event("BidMade")
    def bid(self, seq: int, at: str | None, seat: int, call: str) -> None:
        self._round()["bids"].append((seat, call))
        self.last_seq = seq

    @event("CardPlayed")
    def play(self, seq: int, at: str | None, seat: int, card: str) -> None:
        self._round()["plays"].append((seat, card))
        self.last_seq = seq

    @event("RoemClaimed")
    def claim_roem(self, seq: int, at: str | None, seat: int, points: int) -> None:
        self._round()["roem"].append((seat, points, len(self._round()["plays"])))
        self.last_seq = seq

    @event("Ruled")
    def rule(self, seq: int, at: str | None, round: int, score: list[int], reason: str) -> None:
        self.rulings.append({"round": round, "score": score, "reason": reason})
        self.last_seq = seq

    @event("Noted")
    def note(self, seq: int, at: str | None, text: str) -> None:
        self.notes.append(text)
        self.last_seq = seq


def _apply(g: Game, e: dict[str, Any]) -> None:
    t, seq, at = e["type"], e["seq"], e.get("at")
    if t == "play":
        g.play(seq, at, e["seat"], e["card"])
    elif t == "bid":
        g.bid(seq, at, e["seat"], e["call"])
    elif t == "dealt":
        g.deal(seq, at, e.get("hands"))
    elif t == "roem":
        g.claim_roem(seq, at, e["seat"], e["points"])
    elif t == "trump_turned":
        g.turn_trump(seq, at, e["card"])
    elif t == "ruling":
        g.rule(seq, at, e["round"], e["score"], e["reason"])
    elif t == "note":
        g.note(seq, at, e["text"])
    else:
        raise ValueError(f"the eventsourcing baseline knows no {t!r} events")


class GameLog(Application):
    """Records games as aggregates and gets them back (replaying every event)."""

    def record(self, events: list[dict[str, Any]]) -> UUID:
        s = events[0]
        g = Game(s["game"], ruleset=s["ruleset"], seats=s["seats"], dealer=s["dealer"],
                 options=s.get("options"), meta=s.get("meta"), at=s.get("at"))
        for e in events[1:]:
            _apply(g, e)
        self.save(g)
        return g.id

    def replay(self, aggregate_id: UUID) -> int:
        """Get the aggregate (replaying its events); how many events it was built from."""
        g: Game = self.repository.get(aggregate_id)
        return int(g.version)


def open_app(path: Path) -> GameLog:
    return GameLog(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                        "SQLITE_DBNAME": str(path)})


def games_of(log: Path) -> Iterator[list[dict[str, Any]]]:
    """The games of a workload log (each game's lines together), as decoded JSON objects."""
    current: list[dict[str, Any]] = []
    with open(log, "rb") as f:
        for line in f:
            e = orjson.loads(line)
            if e["seq"] == 0 and current:
                yield current
                current = []
            current.append(e)
    if current:
        yield current


def aggregate_ids(log: Path) -> list[UUID]:
    ids = []
    with open(log, "rb") as f:
        for line in f:
            if b'"seq":0,' in line:
                ids.append(game_uuid(orjson.loads(line)["game"]))
    return ids
