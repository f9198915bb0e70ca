"""The scaffolding the Klaberjass and Kloepper simulators share: the game's set-up, the events
numbered in order, the turns the rules engine asks for, and a bot's card with the faults.

>>> import random
>>> log = EventLog("g")
>>> log("game_started", ruleset="kloepper"), log.seq
({'game': 'g', 'seq': 0, 'type': 'game_started', 'ruleset': 'kloepper'}, 1)
>>> hand_texts([0b11])
[['7C', '8C']]
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from jaslog.cards import CARD_TEXT, cards_of
from jaslog.errors import JaslogError

PLAYER_POOL = ("ann", "bob", "cor", "dirk", "eva", "finn", "gijs", "hanna", "ilse", "joop",
               "kees", "lies", "maud", "noor", "otto", "piet", "rik", "sanne", "tom", "ula",
               "vera", "wim", "xander", "yara")

class SimulationError(JaslogError, ValueError):
    """Settings a simulation cannot run with: an unknown bot, a fault rate out of range."""

    code = "bad_simulation"


#: The bots every game's simulator has: any legal card, or a club player's choice.
BOT_NAMES = ("random", "heuristic")


@dataclass(frozen=True)
class Faults:
    """Rates of the faults real records contain (each a probability per chance)."""

    revoke_rate: float = 0.0       # per play: play an illegal card when one exists
    false_roem_rate: float = 0.0   # per trick: claim more roem than is on the table
    no_hands_rate: float = 0.0     # per round: the scorer did not see the hands
    unclaimed_roem_rate: float = 0.1  # per trick with roem: nobody claims it
    partial_roem_rate: float = 0.05   # per trick with two roem parts: only one is claimed
    revoke_rounds: tuple[int, ...] | None = None  # only revoke in these rounds (1-based)
    #: per trick to lead: the seat due claims the rest (one time in four it concedes); in a
    #: deal without its hands only where the game can score a claim (Klaverjas)
    claim_rate: float = 0.0

    def __post_init__(self) -> None:
        for name in ("revoke_rate", "false_roem_rate", "no_hands_rate", "unclaimed_roem_rate",
                     "partial_roem_rate", "claim_rate"):
            rate = getattr(self, name)
            if not 0.0 <= rate <= 1.0:
                raise SimulationError(f"{name.replace('_', '-')} must be between 0 and 1, not {rate}")


class Expects(Protocol):
    def expected(self) -> tuple[str, int | None]: ...


class EventLog:
    """Makes a game's events: ``log(type, **fields)`` is the next one (``seq`` counts on)."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.seq = 0

    def __call__(self, type_: str, **fields: Any) -> dict[str, Any]:
        e = {"game": self.game_id, "seq": self.seq, "type": type_, **fields}
        self.seq += 1
        return e

    def started(self, ruleset: str, options: dict[str, Any] | None, seats: list[str],
                dealer: int) -> dict[str, Any]:
        start: dict[str, Any] = {"ruleset": ruleset}
        if options:
            start["options"] = options
        start.update(seats=seats, dealer=dealer)
        return self("game_started", **start)


class RandomPlayer:
    """What every game's ``random`` bot does: play any legal card (``rng`` decides)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def play(self, game: Any, seat: int, hand: int, legal_mask: int) -> int:
        return self.rng.choice(list(cards_of(legal_mask)))


def set_up(rng: random.Random, seats: list[str] | None, players: int) -> tuple[list[str], int]:
    """The seats (drawn from the pool when not given) and the first dealer."""
    seats = list(seats) if seats else rng.sample(PLAYER_POOL, players)
    return seats, rng.randrange(players)


def turns(game: Expects, game_id: str) -> Iterator[tuple[str, int | None]]:
    """What the record expects next, (kind, seat), until the game is over."""
    for _guard in range(100_000):
        kind, seat = game.expected()
        if kind == "over":
            return
        yield kind, seat
    raise RuntimeError(f"game {game_id}: the simulation did not end")  # pragma: no cover


def claim_now(rng: random.Random, faults: Faults, tricks: list[Any]) -> str | None:
    """Whether the seat due to lead claims the rest now (fault ``claim_rate``), and what it
    gives: ``rest_to_claimer``, or one time in four ``rest_to_opponents`` (None: it plays).

    >>> claim_now(random.Random(1), Faults(), []) is None
    True
    >>> claim_now(random.Random(1), Faults(claim_rate=1.0), [])
    'rest_to_claimer'
    """
    if not faults.claim_rate or (tricks and not tricks[-1].complete) \
            or rng.random() >= faults.claim_rate:
        return None
    return "rest_to_opponents" if rng.random() < 0.25 else "rest_to_claimer"


def hands_seen(rng: random.Random, faults: Faults) -> bool:
    """Whether the scorer saw this round's hands (fault ``no_hands_rate``)."""
    return not faults.no_hands_rate or rng.random() >= faults.no_hands_rate


def hand_texts(hands: list[int]) -> list[list[str]]:
    return [[CARD_TEXT[c] for c in cards_of(h)] for h in hands]


def current_trick(tricks: list[Any]) -> list[int]:
    """The cards of the trick in play ([] when a trick is to be led)."""
    t = tricks[-1] if tricks else None
    return [] if t is None or t.complete else t.cards


def may_revoke(opts: dict[str, Any], faults: Faults) -> bool:
    return opts["revoke"] != "reject" and faults.revoke_rate > 0


def with_revoke(c: int, hand: int, legal_mask: int, round_number: int, rng: random.Random,
                faults: Faults, revoking: bool) -> int:
    """The bot's card ``c``, or now and then (fault ``revoke_rate``) an illegal one instead."""
    if revoking and hand & ~legal_mask and rng.random() < faults.revoke_rate and (
            faults.revoke_rounds is None or round_number in faults.revoke_rounds):
        return rng.choice(list(cards_of(hand & ~legal_mask)))
    return c
