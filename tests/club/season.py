"""A club's competition season in a real SQLite store: Klaverjas games on club evenings,
where one player (``star``) always sits on the winning side and one (``dud``) always on the
losing side; the other six turn round the tables. Also a few Klaberjass games, and one
Klaverjas game left unfinished (it counts nowhere yet)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from jaslog.events import event_from_dict
from jaslog.play.fold import fold
from jaslog.play.sim import simulate_game
from jaslog.store import open_store

OTHERS = ["ann", "bob", "cor", "dirk", "eva", "fien"]
EVENT = "competitie 2026"
#: the season's first evening; one evening a week, two games an evening
FIRST = datetime(2026, 3, 3, 19, 30)


@dataclass
class ClubGame:
    game: str
    seats: list[str]
    at: str
    evening: str
    totals: list[int]
    winner: int | None
    finished: bool
    events: list[dict[str, Any]] = field(repr=False)


def _winner(evs: list[dict[str, Any]]) -> tuple[int | None, list[int], bool]:
    f = fold([event_from_dict(e) for e in evs])
    return f.state.winner, list(f.state.totals()), bool(f.state.finished)


def club_games(evenings: int = 6) -> list[ClubGame]:
    """Two Klaverjas games an evening (seed-found so that star and dud land on opposite
    sides), a Klaberjass game on the first two evenings, and an unfinished game last."""
    out: list[ClubGame] = []
    seed = 0
    for ev in range(evenings):
        day = FIRST + timedelta(days=7 * ev)
        for k in range(2):
            at = day + timedelta(minutes=90 * k)
            gid = f"comp-{ev:02d}-{k}"
            while True:  # a seed whose game ends with a winner
                seed += 1
                probe = simulate_game(gid, "amsterdam", seed=seed, seats=["a", "b", "c", "d"],
                                      at=at.strftime("%Y-%m-%dT%H:%M:%SZ"))
                w, _, done = _winner(probe)
                if done and w in (0, 1):
                    break
            partner = OTHERS[(ev * 2 + k) % 6]
            rest = [p for p in OTHERS if p != partner][(ev + k) % 5:][:2] or OTHERS[:2]
            if len(rest) < 2 or partner in rest:
                rest = [p for p in OTHERS if p != partner][:2]
            seats = [""] * 4
            seats[w], seats[w + 2] = "star", partner
            seats[1 - w], seats[3 - w] = "dud", rest[0]
            seats = [s if s else rest[1] for s in seats]
            evs = simulate_game(gid, "amsterdam", seed=seed, seats=seats,
                                at=at.strftime("%Y-%m-%dT%H:%M:%SZ"))
            evs[0] = {**evs[0], "meta": {"event": EVENT, "table": str(k + 1)}}
            w2, totals, done = _winner(evs)
            assert w2 == w and done
            out.append(ClubGame(gid, seats, evs[0]["at"], day.date().isoformat(), totals, w,
                                True, evs))
    for ev in range(2):  # a Klaberjass game: rated in its own family, not in the competition
        at = FIRST + timedelta(days=7 * ev, hours=3)
        gid = f"kj-{ev}"
        evs = simulate_game(gid, "klaberjass-2p", seed=ev, seats=["ann", "bob"],
                            at=at.strftime("%Y-%m-%dT%H:%M:%SZ"))
        w, totals, done = _winner(evs)
        out.append(ClubGame(gid, ["ann", "bob"], evs[0]["at"], at.date().isoformat(), totals,
                            w, done, evs))
    at = FIRST + timedelta(days=7 * evenings)
    gid = "comp-live"
    evs = simulate_game(gid, "amsterdam", seed=999, seats=["dud", "ann", "star", "bob"],
                        at=at.strftime("%Y-%m-%dT%H:%M:%SZ"))
    evs = evs[:len(evs) // 2]
    evs[0] = {**evs[0], "meta": {"event": EVENT, "table": "1"}}
    w, totals, done = _winner(evs)
    out.append(ClubGame(gid, ["dud", "ann", "star", "bob"], evs[0]["at"],
                        at.date().isoformat(), totals, w, done, evs))
    return out


def make_club(db: Path, evenings: int = 6) -> list[ClubGame]:
    """The season stored in ``db`` (a new SQLite file); a display name for the star."""
    games = club_games(evenings)
    store = open_store(str(db))
    try:
        summary = store.import_lines(json.dumps(e) for g in games for e in g.events)
        assert not summary.rejected, summary.rejected[:3]
        store.set_player("star", "Stella Ster")
    finally:
        store.close()
    return games
