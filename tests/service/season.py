"""A club's season in a real SQLite store, for the tests of the game listing: simulated games
a few hours apart, at four tables, some in a tournament, some left unfinished (live), some
with revokes (violations)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from jaslog.engine.sim import Faults
from jaslog.play.sim import simulate_game
from jaslog.store import open_store

#: the club's players; game i seats four of them, turning round the club
CLUB = ["ann", "bob", "cor", "dirk", "eva", "fien", "gijs", "hans"]
#: the season's first evening (a game every 4 hours from there)
START = datetime(2026, 3, 1, 19, 0)


@dataclass
class SeasonGame:
    game: str
    ruleset: str
    seats: list[str]
    at: str
    table: str
    event: str
    tournament: str | None
    live: bool
    events: list[dict[str, Any]] = field(repr=False)


def season_games(n: int = 64) -> list[SeasonGame]:
    """``n`` games: every 7th left live halfway, every 5th with revokes, every 10th in the
    tournament ``spring``, rulesets turning between amsterdam, rotterdam and a Klaberjass."""
    out = []
    rulesets = ["amsterdam", "rotterdam", "amsterdam", "klaberjass-2p"]
    for i in range(n):
        rs = rulesets[i % len(rulesets)]
        n_seats = 2 if rs.startswith("klaberjass") else 4
        seats = [CLUB[(i + k * 3) % len(CLUB)] for k in range(n_seats)]
        at = START + timedelta(hours=4 * i)
        faults = Faults(revoke_rate=0.2) if i % 5 == 0 else Faults()
        evs = simulate_game(f"season-{i:04d}", rs, seed=i, seats=seats, faults=faults,
                            at=at.strftime("%Y-%m-%dT%H:%M:%SZ"))
        live = i % 7 == 3
        if live:
            evs = evs[:len(evs) // 2]
        table = str(i % 4 + 1)
        event = f"club night {at.date().isoformat()}"
        tournament = "spring" if i % 10 == 0 else None
        meta = {"table": table, "event": event, **({"tournament": tournament} if tournament else {})}
        evs[0] = {**evs[0], "meta": meta}
        out.append(SeasonGame(evs[0]["game"], rs, seats, evs[0]["at"], table, event, tournament,
                              live, evs))
    return out


def make_season(db: Path, n: int = 64) -> list[SeasonGame]:
    """The season stored in ``db`` (a new SQLite file); display names for two players."""
    games = season_games(n)
    store = open_store(str(db))
    try:
        summary = store.import_lines(json.dumps(e) for g in games for e in g.events)
        assert not summary.rejected, summary.rejected[:3]
        store.set_player("ann", "Ann de Vries")
        store.set_player("bob", "Bob Jansen")
    finally:
        store.close()
    return games
