"""Bots that play complete, legal games and write them as ``jaslog/1`` events.

Each game's simulator (its ``Game.simulate``) drives the real rules engine: it asks the
state what it expects next and which cards are legal, and lets a bot choose. It is
deterministic for a seed: the same arguments give the same events, byte for byte.
:func:`iter_game` routes a ruleset to its game's simulator.

:class:`Faults` injects what real records contain, so audits and statistics have
something to find: revokes, false roem claims, rounds whose hands nobody saw, roem left
unclaimed or claimed only in part.

>>> events = simulate_game("demo-1", seed=7)
>>> events[0]["type"], events[1]["type"], len(events) > 16 * 33
('game_started', 'dealt', True)
>>> simulate_game("demo-1", seed=7) == events
True
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from jaslog.engine.game import Simulator
from jaslog.engine.sim import BOT_NAMES, PLAYER_POOL, Faults, SimulationError
from jaslog.events import event_from_dict
from jaslog.games import GAMES, PRESETS, game_of, get_game, resolve
from jaslog.play.audit import game_report
from jaslog.play.fold import start_fold

__all__ = [
    "BOT_NAMES", "PLAYER_POOL", "Faults", "ResultStats", "Simulator",
    "game_seed", "iter_game", "result_stats", "simulate", "simulate_game", "simulated_rulesets",
    "to_jsonl",
]

#: The default first moment of simulated games (``at`` stamps), and the gap between games.
DEFAULT_START = datetime(2026, 1, 5, 19, 30, tzinfo=UTC)
GAME_GAP = timedelta(hours=3)


def simulated_rulesets() -> list[str]:
    """The presets of every game (each game has its simulator)."""
    return list(PRESETS)


# ---------------------------------------------------------------------- the driver


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded ``seed``."""
    return seed * 1_000_003 + index


def iter_game(game_id: str, ruleset: str = "amsterdam", options: dict[str, Any] | None = None,
              *, seed: int | None = None, seats: list[str] | None = None,
              bot: str = "heuristic", faults: Faults = Faults(),
              at: str | datetime | None = None) -> Iterator[dict[str, Any]]:
    """One complete game as event dicts in seq order.

    ``at`` (a time, or RFC 3339 text) stamps the events: the game starts then and every
    event takes a few seconds, as at a table.
    """
    if bot not in BOT_NAMES:
        raise SimulationError(f"unknown bot {bot!r}; the bots are {', '.join(BOT_NAMES)}")
    sim = get_game(game_of(ruleset)).simulate
    resolve(ruleset, options)  # a bad option is the caller's error, said before anything runs
    events = sim(game_id, ruleset, options, rng=random.Random(seed), seats=seats, bot=bot,
                 faults=faults)
    if at is None:
        yield from events
        return
    clock = datetime.fromisoformat(at.replace("Z", "+00:00")) if isinstance(at, str) else at
    for e in events:
        yield _stamped(e, clock)
        clock += _STEP.get(e["type"], _STEP_DEFAULT)


_STEP = {"play": timedelta(seconds=4), "roem": timedelta(seconds=2),
         "dealt": timedelta(seconds=40), "bid": timedelta(seconds=6)}
_STEP_DEFAULT = timedelta(seconds=9)


def _stamped(e: dict[str, Any], clock: datetime) -> dict[str, Any]:
    """The event with ``at``, keys in the canonical order (game, seq, type, at, ...)."""
    out = {"game": e["game"], "seq": e["seq"], "type": e["type"],
           "at": clock.strftime("%Y-%m-%dT%H:%M:%SZ")}
    for k, v in e.items():
        if k not in out:
            out[k] = v
    return out


def simulate_game(game_id: str, ruleset: str = "amsterdam", options: dict[str, Any] | None = None,
                  *, seed: int | None = None, seats: list[str] | None = None,
                  bot: str = "heuristic", faults: Faults = Faults(),
                  at: str | datetime | None = None) -> list[dict[str, Any]]:
    """One complete game as a list of event dicts in seq order."""
    return list(iter_game(game_id, ruleset, options, seed=seed, seats=seats, bot=bot,
                          faults=faults, at=at))


def simulate(n: int, ruleset: str | Sequence[str] = "amsterdam",
             options: dict[str, Any] | Callable[[str], dict[str, Any] | None] | None = None, *,
             seed: int = 0, prefix: str = "sim", bot: str = "heuristic",
             faults: Faults = Faults(), start: datetime | None = None,
             first: int = 0) -> Iterator[dict[str, Any]]:
    """``n`` games one after another, as event dicts; game ids ``{prefix}-{ruleset}-{i}``.

    ``ruleset`` may be a list: game ``i`` is then played under ``ruleset[i % len]``.
    ``options`` may be a function of the ruleset (options differ between games).
    ``start`` stamps the events (``at``), game ``i`` starting :data:`GAME_GAP` after game
    ``i - 1``. ``first`` numbers the games from there (to continue a run).
    """
    rulesets = [ruleset] if isinstance(ruleset, str) else list(ruleset)
    if not rulesets:
        raise SimulationError("no ruleset to simulate")
    for i in range(first, first + n):
        rs = rulesets[i % len(rulesets)]
        opts = options(rs) if callable(options) else options
        at = start + i * GAME_GAP if start is not None else None
        yield from iter_game(f"{prefix}-{rs}-{i:06d}", rs, opts, seed=game_seed(seed, i),
                             bot=bot, faults=faults, at=at)


def to_jsonl(events: Iterable[dict[str, Any]]) -> Iterator[bytes]:
    """Events as JSON Lines (one ``bytes`` line each, newline included)."""
    dumps = orjson.dumps
    for e in events:
        yield dumps(e) + b"\n"


# ---------------------------------------------------------------------- Klaverjas


# ---------------------------------------------------------------------- measuring bots


def result_stats(events: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Fold simulated games and count how their rounds ended, per ruleset and overall.

    Returns ``{"games", "events", "rounds", "results": {result: n}, "made_rate",
    "failed_rate", "tie_rate", "pit_rate", "revoke_rounds", "annulled_rounds",
    "roem_per_round", "roem_on_table_per_round", "rounds_with_roem", "violations": {rule: n},
    "by_ruleset": {...}}``. The rates are shares of the rounds played out (not revoked,
    annulled or unfinished) that the playing side won (:data:`WON`: made or pit in Klaverjas,
    made in Klaberjass, the black queens' side in Kloepper), lost (:data:`LOST`: nat, bete,
    the other side) or tied (:data:`TIED`). ``pit_rate`` and ``roem_on_table_per_round`` are
    Klaverjas's (None without Klaverjas rounds); roem is Klaverjas roem claimed and Klaberjass
    sequences and bella scored (None for Kloepper alone).
    """
    stats = ResultStats()
    for e in events:
        stats.add(e)
    return stats.summary()


class ResultStats:
    """:func:`result_stats` one event at a time (games one after another), in little memory."""

    def __init__(self) -> None:
        self.per: dict[str, _Tally] = {}
        self.total = _Tally()
        self.fold: Any = None
        self.events = 0

    def add(self, e: dict[str, Any]) -> None:
        self.events += 1
        ev = event_from_dict(e)
        if ev.seq == 0:
            self._finish()
            self.fold = start_fold(ev)
        else:
            assert self.fold is not None, "a game's events start with game_started"
            self.fold.apply(ev)

    def _finish(self) -> None:
        f, self.fold = self.fold, None
        if f is not None:
            rep = game_report(f.game_id, f)
            for t in (self.per.setdefault(f.ruleset, _Tally()), self.total):
                t.add(rep)

    def summary(self) -> dict[str, Any]:
        self._finish()
        out = self.total.summary()
        out["events"] = self.events
        out["by_ruleset"] = {rs: t.summary() for rs, t in sorted(self.per.items())}
        return out


#: How a round ended, for the playing side (the side that chose trumps in Klaverjas, the
#: maker in Klaberjass, the black queens' side in Kloepper): it won, lost or neither, as each
#: game declares (``Game.won``, ``lost``, ``tied``). Revoked, annulled and unfinished rounds
#: are none of these and are left out of the rates.
WON = frozenset().union(*(g.won for g in GAMES.values()))
LOST = frozenset().union(*(g.lost for g in GAMES.values()))
TIED = frozenset().union(*(g.tied for g in GAMES.values()))


class _Tally:
    def __init__(self) -> None:
        self.games = 0
        self.results: Counter[str] = Counter()
        self.violations: Counter[str] = Counter()
        self.roem = 0
        self.table = 0
        self.with_roem = 0
        self.rounds = 0
        self.roem_rounds = 0   # rounds of games with roem (Klaverjas; Klaberjass: sequences, bella)
        self.table_rounds = 0

    def add(self, rep: dict[str, Any]) -> None:
        self.games += 1
        for v in rep["violations"]:
            self.violations[v["rule"]] += 1
        roem_of = get_game(game_of(rep["ruleset"])).roem_of
        for r in rep["rounds"]:
            self.rounds += 1
            self.results[r["result"]] += 1
            if roem_of is None:
                continue
            scored, on_table = roem_of(r)
            self.roem_rounds += 1
            self.roem += scored
            if on_table is None:  # no roem on the table (Klaberjass: the sequences and bella)
                self.with_roem += scored > 0
            else:  # roem claimed, and roem held
                self.table_rounds += 1
                self.table += on_table
                self.with_roem += on_table > 0

    def summary(self) -> dict[str, Any]:
        res = self.results
        won, lost, tied = (sum(res[k] for k in ks) for ks in (WON, LOST, TIED))
        judged = won + lost + tied

        def rate(n: int) -> float:
            return round(n / judged, 4) if judged else 0.0

        def per(n: int, rounds: int, digits: int) -> float | None:
            return round(n / rounds, digits) if rounds else None

        return {
            "games": self.games, "rounds": self.rounds, "results": dict(sorted(res.items())),
            "made_rate": rate(won), "failed_rate": rate(lost), "tie_rate": rate(tied),
            "pit_rate": rate(res["pit"]) if self.table_rounds else None,
            "revoke_rounds": res["revoke"], "annulled_rounds": res["annulled"],
            "roem_per_round": per(self.roem, self.roem_rounds, 2),
            "roem_on_table_per_round": per(self.table, self.table_rounds, 2),
            "rounds_with_roem": per(self.with_roem, self.roem_rounds, 4),
            "violations": dict(sorted(self.violations.items())),
        }
