"""The toy game: each player holds two cards and the pot one; a swap trades a card of the hand
for the pot's. :func:`main` registers it and runs a game through the format, the notation and
the fold, printing what it found as JSON (``test_toy.py`` runs it in a process of its own, so
that the registries of the test session never hold it)."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from jaslog.engine.base import IntegrityError
from jaslog.engine.fold import GameFold, handler
from jaslog.engine.game import Game
from jaslog.events import GameStarted
from tests.games.toy.events import EVENTS, Swap

HANDS = (["7H", "8H"], ["9H", "10H"])
POT = "JH"
PRESETS: dict[str, Mapping[str, Any]] = {"toy": {"game": "toy"}}


class ToyFold(GameFold):
    game = "toy"
    players = 2

    def initial(self, started: GameStarted) -> Any:
        return {"hands": [list(h) for h in HANDS], "pot": POT}

    def rounds_dealt(self) -> int:
        return 1

    @handler
    def swap(self, e: Swap) -> None:
        hand = self.state["hands"][e.seat]
        if e.card not in hand:
            raise IntegrityError("not_in_hand", f"seat {e.seat} does not hold {e.card}")
        hand[hand.index(e.card)], self.state["pot"] = self.state["pot"], e.card


def _no_simulator(*args: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
    return iter(())


def _no_answer(op: str, query: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    raise NotImplementedError("the toy game has no oracle")


GAME = Game(
    name="toy", title="Toy", players=2, scoring="players", round_word="round", fold=ToyFold,
    options={}, presets=PRESETS, resolve=lambda ruleset, overrides: dict(PRESETS[ruleset]),
    report=lambda fold: [], seat_view=lambda fold, seat: {}, frame=lambda f, s, h, head: {},
    report_round=lambda entry, head, seat, live: entry, roem_of=None, simulate=_no_simulator,
    oracle_ops=(), answer=_no_answer, won=frozenset(), lost=frozenset(), tied=frozenset(),
    redact_event=lambda event, sight, seen: event, pack=(*HANDS[0], *HANDS[1], POT),
    deal_from_deck=lambda deck, dealer: {}, events=EVENTS, package="tests.games.toy")

LOG = [
    {"game": "t1", "seq": 0, "type": "game_started", "ruleset": "toy", "seats": ["ann", "bob"],
     "dealer": 0},
    {"game": "t1", "seq": 1, "type": "toy_swap", "seat": 0, "card": "8H"},
    {"game": "t1", "seq": 2, "type": "toy_swap", "at": "2026-12-06T01:00:00Z", "seat": 1,
     "card": "10H"},
]


def main() -> None:
    from jaslog.events import EventError, canonical_json, parse_event
    from jaslog.games import register
    from jaslog.logs import read_lines
    from jaslog.notation import event_json, read_games, write_game
    from jaslog.play.fold import start_fold

    lines = [orjson.dumps(e) for e in LOG]
    try:
        parse_event(lines[1])
    except EventError as err:
        unregistered = str(err)
    register(GAME)
    events = [parse_event(line) for line in lines]
    text = write_game(events)
    [game] = read_games(text.replace("Swap 1", "exchange bob"))
    read = [ln.event for ln in read_lines([t.encode() + b"\n" for t in text.splitlines()], "toy.txt")]
    fold = start_fold(events[0])
    for e in events[1:]:
        fold.apply(e)
    sys.stdout.write(orjson.dumps({
        "unregistered": unregistered,
        "canonical": [canonical_json(e).decode() for e in events],
        "lines": [line.decode() for line in lines],
        "text": text,
        "read_back": [event_json(e).decode() for e in game.events],
        "read_errors": [str(x) for x in game.errors],
        "logs": [canonical_json(e).decode() for e in read if e is not None],
        "state": fold.state,
    }).decode())


if __name__ == "__main__":
    main()
