"""Bots that play complete, legal games and write them as ``jaslog/1`` events.

The simulator drives the real rules engine: it asks the state what it expects next and
which cards are legal, and lets a bot (:mod:`jaslog.bots`) choose. It is deterministic
for a seed: the same arguments give the same events, byte for byte.

Each game has its simulator in :data:`SIMULATORS` (by game: ``klaverjas``, and the other
games register theirs); :func:`iter_game` routes a ruleset to its game's simulator.

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
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import orjson

from jaslog.bots import HeuristicBot, RandomBot
from jaslog.cards import CARD_TEXT, SUIT_LETTERS, cards_of
from jaslog.rules.klaverjas import KlaverjasGame, legal, trick_roem
from jaslog.rules.options import game_of, resolve

__all__ = [
    "BOTS", "PLAYER_POOL", "SIMULATORS", "Faults", "HeuristicBot", "RandomBot", "ResultStats",
    "Simulator",
    "game_seed", "iter_game", "result_stats", "simulate", "simulate_game", "simulated_rulesets",
    "to_jsonl",
]

PLAYER_POOL = ("ann", "bob", "cor", "dirk", "eva", "finn", "gijs", "hanna", "ilse", "joop",
               "kees", "lies", "maud", "noor", "otto", "piet", "rik", "sanne", "tom", "ula",
               "vera", "wim", "xander", "yara")

#: The default first moment of simulated games (``at`` stamps), and the gap between games.
DEFAULT_START = datetime(2026, 1, 5, 19, 30, tzinfo=UTC)
GAME_GAP = timedelta(hours=3)


@dataclass(frozen=True)
class Faults:
    """Rates of the faults real records contain (each a probability per chance)."""

    revoke_rate: float = 0.0       # per play: play an illegal card when one exists
    false_roem_rate: float = 0.0   # per trick: claim more roem than is on the table
    no_hands_rate: float = 0.0     # per round: the scorer did not see the hands
    unclaimed_roem_rate: float = 0.1  # per trick with roem: nobody claims it
    partial_roem_rate: float = 0.05   # per trick with two roem parts: only one is claimed
    revoke_rounds: tuple[int, ...] | None = None  # only revoke in these rounds (1-based)

    def __post_init__(self) -> None:
        for name in ("revoke_rate", "false_roem_rate", "no_hands_rate", "unclaimed_roem_rate",
                     "partial_roem_rate"):
            rate = getattr(self, name)
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"{name.replace('_', '-')} must be between 0 and 1, not {rate}")


BOTS: dict[str, type[RandomBot]] = {"random": RandomBot, "heuristic": HeuristicBot}


class Simulator(Protocol):
    """One game's events (dicts, in seq order, without ``at``) from its settings."""

    def __call__(self, game_id: str, ruleset: str, options: dict[str, Any] | None, *,
                 rng: random.Random, seats: list[str] | None, bot: str,
                 faults: Faults) -> Iterator[dict[str, Any]]: ...


#: The simulator of each game, by game name (``klaverjas``, ``klaberjass``, ``kloepper``).
#: Another game registers its own: ``SIMULATORS["kloepper"] = simulate_kloepper``.
SIMULATORS: dict[str, Simulator] = {}


def simulated_rulesets() -> list[str]:
    """The presets whose game has a simulator."""
    from jaslog.rules.options import PRESETS

    return [p for p in PRESETS if game_of(p) in SIMULATORS]


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
    if bot not in BOTS:
        raise ValueError(f"unknown bot {bot!r}; the bots are {', '.join(BOTS)}")
    game = game_of(ruleset)
    sim = SIMULATORS.get(game)
    if sim is None:
        raise ValueError(f"there is no simulator for {game} yet (ruleset {ruleset})")
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
        raise ValueError("no ruleset to simulate")
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


def _deal(rng: random.Random) -> list[int]:
    deck = list(range(32))
    rng.shuffle(deck)
    return [sum(1 << c for c in deck[i * 8:(i + 1) * 8]) for i in range(4)]


def simulate_klaverjas(game_id: str, ruleset: str, options: dict[str, Any] | None, *,
                       rng: random.Random, seats: list[str] | None, bot: str,
                       faults: Faults) -> Iterator[dict[str, Any]]:
    """A game of Klaverjas played by four bots of the kind ``bot``."""
    opts = resolve(ruleset, options)
    seats = list(seats) if seats else rng.sample(PLAYER_POOL, 4)
    dealer = rng.randrange(4)
    game = KlaverjasGame(opts, dealer)
    player = BOTS[bot](rng)
    seq = 0

    def ev(type_: str, **fields: Any) -> dict[str, Any]:
        nonlocal seq
        e = {"game": game_id, "seq": seq, "type": type_, **fields}
        seq += 1
        return e

    start: dict[str, Any] = {"ruleset": ruleset}
    if options:
        start["options"] = options
    start.update(seats=seats, dealer=dealer)
    yield ev("game_started", **start)
    claimed = opts["roem.claim_mode"] == "claimed"
    winners_claim = opts["roem.claim_by"] == "winning_team"
    may_revoke = opts["revoke"] != "reject" and faults.revoke_rate > 0
    separate_pack = opts["random.source"] == "separate_pack"
    true_hands = [0, 0, 0, 0]
    for _guard in range(100_000):
        kind, seat = game.expected()
        if kind == "over":
            return
        if kind == "deal":
            true_hands = _deal(rng)
            seen = not faults.no_hands_rate or rng.random() >= faults.no_hands_rate
            game.deal(true_hands, seq=seq)
            if seen:
                yield ev("dealt", hands=[[CARD_TEXT[c] for c in cards_of(h)] for h in true_hands])
            else:
                yield ev("dealt")
            continue
        r = game.current_round
        if kind == "turn":
            if separate_pack or r.selection.turned:
                text = rng.choice("23456") + rng.choice(SUIT_LETTERS)
            else:  # the dealer's last card, turned face up
                text = CARD_TEXT[rng.choice(list(cards_of(true_hands[r.dealer])))]
            game.turn_trump(text, seq)
            yield ev("trump_turned", card=text)
            continue
        assert seat is not None
        if kind == "bid":
            call = player.bid(game, seat, true_hands[seat])
            game.bid(seat, call, seq)
            yield ev("bid", seat=seat, call=call)
            continue
        hand = true_hands[seat] & ~r.played
        t = r.tricks[-1]
        trick = [] if t.complete else t.cards
        legal_mask = legal(hand, trick, r.trump or 0, game.play_rules)
        c = player.play(game, seat, hand, legal_mask)
        if may_revoke and hand & ~legal_mask and rng.random() < faults.revoke_rate and (
                faults.revoke_rounds is None or r.number in faults.revoke_rounds):
            c = rng.choice(list(cards_of(hand & ~legal_mask)))
        game.play(seat, c, seq)
        yield ev("play", seat=seat, card=CARD_TEXT[c])
        t = r.tricks[-1]
        if t.complete and claimed:
            claim = _roem_claim(game, t.cards, r.trump or 0, t.winner, rng, faults, winners_claim)
            if claim is not None:
                claimer, points = claim
                game.claim_roem(claimer, points, seq)
                yield ev("roem", seat=claimer, points=points)
    raise RuntimeError(f"game {game_id}: the simulation did not end")  # pragma: no cover


def _roem_claim(game: KlaverjasGame, cards: list[int], trump: int, winner: int,
                rng: random.Random, faults: Faults, winners_claim: bool) -> tuple[int, int] | None:
    """Who claims how much roem for a completed trick, as people do (or None)."""
    from jaslog.rules.klaverjas import roem_parts

    roem = trick_roem(cards, trump, game.roem_rules)
    claimer = (winner + rng.choice((0, 2))) % 4
    if not winners_claim and rng.random() < 0.1:
        claimer = (claimer + 1) % 4  # an opponent calls it: "roem for you"
    if roem:
        if rng.random() < faults.unclaimed_roem_rate:
            return None
        parts = [p for _, p in roem_parts(cards, trump, game.roem_rules) if p]
        if len(parts) > 1 and rng.random() < faults.partial_roem_rate:
            return claimer, max(parts)  # the stuk (or the run) overlooked
    if faults.false_roem_rate and rng.random() < faults.false_roem_rate:
        return claimer, roem + rng.choice((20, 20, 50))
    return (claimer, roem) if roem else None


SIMULATORS["klaverjas"] = simulate_klaverjas


def _register_other_games() -> None:
    """Klaberjass and Kloepper register their simulators in :data:`SIMULATORS` on import."""
    from jaslog import sim_klaberjass, sim_kloepper  # noqa: F401


_register_other_games()


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
        from jaslog.events import event_from_dict
        from jaslog.fold import start_fold

        self.events += 1
        ev = event_from_dict(e)
        if ev.seq == 0:
            self._finish()
            self.fold = start_fold(ev)
        else:
            assert self.fold is not None, "a game's events start with game_started"
            self.fold.apply(ev)

    def _finish(self) -> None:
        from jaslog.audit import game_report

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
#: maker in Klaberjass, the black queens' side in Kloepper): it won ...
WON = frozenset({"made", "pit", "queens"})
#: ... it lost (nat, bete, the side without the queens won) ...
LOST = frozenset({"nat", "bete", "others"})
#: ... or neither (a Klaberjass tie, a Kloepper deal that scores nothing). Revoked, annulled
#: and unfinished rounds are none of these and are left out of the rates.
TIED = frozenset({"tie", "none"})


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
        self.klaverjas_rounds = 0

    def add(self, rep: dict[str, Any]) -> None:
        self.games += 1
        for v in rep["violations"]:
            self.violations[v["rule"]] += 1
        for r in rep["rounds"]:
            self.rounds += 1
            self.results[r["result"]] += 1
            if "roem_on_table" in r:  # Klaverjas: roem claimed, and roem held
                self.klaverjas_rounds += 1
                self.roem_rounds += 1
                self.roem += sum(r["roem"])
                self.table += sum(r["roem_on_table"])
                self.with_roem += sum(r["roem_on_table"]) > 0
            elif "sequences" in r:  # Klaberjass: the sequences and bella that scored
                self.roem_rounds += 1
                scored = sum(r["sequences"]) + sum(r["bella"])
                self.roem += scored
                self.with_roem += scored > 0

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
            "pit_rate": rate(res["pit"]) if self.klaverjas_rounds else None,
            "revoke_rounds": res["revoke"], "annulled_rounds": res["annulled"],
            "roem_per_round": per(self.roem, self.roem_rounds, 2),
            "roem_on_table_per_round": per(self.table, self.klaverjas_rounds, 2),
            "rounds_with_roem": per(self.with_roem, self.roem_rounds, 4),
            "violations": dict(sorted(self.violations.items())),
        }
