"""Bots that play a game already in the store (a tournament's table, a game created for a
demo): the game's simulator (:func:`jaslog.play.sim.iter_game`) plays it at its seats, from
its dealer, with its ruleset and options, and every event goes through the service's append
(:meth:`jaslog.service.core.Service.append`), the path a scorer's batch takes: the store's
rules check each one, as they check a table's.

Only a game not yet dealt is played (nothing after its ``game_started``): the bots cannot
take over a round that people began. The play is deterministic for a seed.
"""

from __future__ import annotations

import zlib
from typing import Any

from jaslog.errors import JaslogError
from jaslog.events import GameStarted
from jaslog.play.sim import BOT_NAMES, iter_game
from jaslog.play.views import FULL, report
from jaslog.service.core import Service
from jaslog.store import NoSuchGame

#: Events a batch of the bots' append holds (a scorer's pad sends a few at a time).
BATCH = 64
#: How many of the simulator's seeds are tried for one that deals from the game's dealer.
SEEDS_TRIED = 256


class BotPlayError(JaslogError, ValueError):
    """A game the bots cannot play: ``code`` says why, ``status`` as HTTP would."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def bot_events(game: str, started: GameStarted, *, bot: str = "heuristic",
               seed: int = 0) -> list[dict[str, Any]]:
    """The events after ``started`` (``dealt`` on) of a whole game the bots play at its
    seats from its dealer, without ``game`` and ``seq`` (as a scorer's batch sends them).

    >>> from jaslog.events import parse_event
    >>> g = parse_event('{"game":"g","seq":0,"type":"game_started","ruleset":"amsterdam",'
    ...                 '"seats":["a","b","c","d"],"dealer":2}')
    >>> evs = bot_events("g", g, seed=1)
    >>> evs[0]["type"], "seq" in evs[0], bot_events("g", g, seed=1) == evs
    ('dealt', False, True)
    """
    if bot not in BOT_NAMES:
        raise BotPlayError(422, "bad_bot", f"unknown bot {bot!r}; the bots are "
                           f"{', '.join(BOT_NAMES)}")
    seats = list(started.seats)
    options = dict(started.options) if started.options else None
    for k in range(SEEDS_TRIED):  # the simulator draws its dealer: one of four seeds fits
        run = iter_game(game, started.ruleset, options, bot=bot, seats=seats,
                        seed=zlib.crc32(f"{game}:{seed}:{k}".encode()))
        if next(run)["dealer"] == started.dealer:
            return [{k2: v for k2, v in e.items() if k2 not in ("game", "seq")} for e in run]
    raise BotPlayError(409, "no_bot_deal", f"the bots found no game of {game} dealt by "  # pragma: no cover
                       f"seat {started.dealer}")


def play_stored_game(svc: Service, game: str, *, bot: str = "heuristic", seed: int = 0,
                     batch: int = BATCH) -> dict[str, Any]:
    """Let the bots play ``game`` (in the store, not yet dealt) to its end, appended in
    batches through the service's append. The answer: the game, the events appended, its
    deals, totals and winner as :func:`jaslog.play.views.report` says them."""
    try:
        head, tl = svc.timeline(game)
    except NoSuchGame:
        raise BotPlayError(404, "no_such_game", f"no game {game} in the store; the bots play "
                           "a game already created (a tournament's table)") from None
    if head.next_seq > 1:
        rep = report(tl, FULL)
        state = "is over" if rep["finished"] else f"is in play ({head.next_seq} events)"
        raise BotPlayError(409, "game_begun", f"game {game} {state}; the bots play only a "
                           "game with nothing recorded after its game_started")
    started = tl.events[0]
    assert isinstance(started, GameStarted)
    events = bot_events(game, started, bot=bot, seed=seed)
    at = head.next_seq
    for i in range(0, len(events), batch):
        part = events[i:i + batch]
        svc.append(game, part, at)
        at += len(part)
    _, tl = svc.timeline(game)
    rep = report(tl, FULL)
    return {"game": game, "seats": list(started.seats), "events": len(events),
            "rounds": len(rep["rounds"]),
            "totals": rep["totals"], "winner": rep["winner"], "finished": rep["finished"]}
