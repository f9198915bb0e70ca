"""A small club's games of every kind in a real SQLite store, exported to a real Parquet
dataset, for the statistics the service answers: finished games of the three games, two
games in play, and a finished game whose last round a referee stopped after a revoke (its
hands stay secret: the public may not count that revoke)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from jaslog.engine.sim import Faults
from jaslog.export import export_store
from jaslog.play.sim import simulate_game
from jaslog.store import open_store

START = datetime(2026, 2, 2, 19, 30)
#: (ruleset, options, games, faults)
MIX: list[tuple[str, dict[str, Any] | None, int, Faults]] = [
    ("amsterdam", None, 4, Faults()),
    ("amsterdam", None, 2, Faults(revoke_rate=0.1)),
    ("rotterdam", None, 2, Faults()),
    ("klaberjass-2p", {"tie_mode": "carry_over"}, 4, Faults()),
    ("kloepper", None, 2, Faults()),
]
SEATS = ["ann", "bob", "cor", "dirk"]


@dataclass
class Club:
    db: Path
    dataset: Path
    games: dict[str, list[dict[str, Any]]]
    #: the game whose last round was stopped by a ruling after a revoke
    stopped: str
    #: the games still in play
    live: list[str]


def _at(i: int) -> str:
    return (START + timedelta(days=i)).strftime("%Y-%m-%dT%H:%M:%SZ")


def stopped_game(gid: str, at: str) -> list[dict[str, Any]]:
    """An Amsterdam game whose last round ends with a referee's ruling right after a revoke,
    cards unplayed: the game is over, the round's hands stay secret."""
    evs = simulate_game(gid, "amsterdam", seed=0, seats=SEATS, faults=Faults(revoke_rate=0.3),
                        at=at)
    deals = [k for k, e in enumerate(evs) if e["type"] == "dealt"]
    last = len(deals)
    from jaslog.events import event_from_dict
    from jaslog.play.views import FULL, report, timeline

    rep = report(timeline(event_from_dict(e) for e in evs), FULL)
    revoke = next(v["seq"] for v in rep["violations"] if v["round"] == last)
    cut = evs[:revoke + 1]
    cut.append({"game": gid, "seq": len(cut), "type": "ruling", "round": last,
                "score": [0, 162], "reason": "play stopped after the revoke: the round to the "
                "other team", "at": cut[-1]["at"]})
    return cut


def club_games() -> tuple[dict[str, list[dict[str, Any]]], str, list[str]]:
    games: dict[str, list[dict[str, Any]]] = {}
    i = 0
    for ruleset, options, n, faults in MIX:
        for _ in range(n):
            seats = SEATS[:2] if ruleset.startswith("klaberjass") else SEATS
            gid = f"club-{i:02d}-{ruleset}"
            games[gid] = simulate_game(gid, ruleset, options, seed=100 + i, seats=seats,
                                       faults=faults, at=_at(i))
            i += 1
    live = []
    for ruleset in ("amsterdam", "klaberjass-2p"):
        gid = f"club-{i:02d}-{ruleset}-live"
        seats = SEATS[:2] if ruleset.startswith("klaberjass") else SEATS
        evs = simulate_game(gid, ruleset, seed=100 + i, seats=seats,
                            faults=Faults(revoke_rate=0.2), at=_at(i))
        games[gid] = evs[:len(evs) // 2]
        live.append(gid)
        i += 1
    stopped = f"club-{i:02d}-stopped"
    games[stopped] = stopped_game(stopped, _at(i))
    return games, stopped, live


def make_club(folder: Path) -> Club:
    """The club's store (``folder``/club.sqlite) and its export (``folder``/parquet, where
    ``jaslog stats`` and ``jaslog serve`` look by default)."""
    games, stopped, live = club_games()
    db = folder / "club.sqlite"
    dataset = folder / "parquet"
    with open_store(str(db)) as store:
        summary = store.import_lines(json.dumps(e) for g in games.values() for e in g)
        assert not summary.rejected, summary.rejected[:3]
        export_store(store, dataset)
    return Club(db, dataset, games, stopped, live)
