"""Bots that play an online game from its seats (an online tournament's table, a demo).

Each bot holds a seat token of the game (:meth:`jaslog.service.auth.Tokens.create`, role
``seat``) and appends through the path a seat's page takes
(``POST /api/games/{game}/events`` with a seat token): the token's principal is checked
(:meth:`jaslog.service.online.OnlineTables.seat_refusal`: its own seat, in turn, a legal
move), the batch is appended, who appended it is recorded beside it, and the server then
does what it owes the game (:meth:`~jaslog.service.online.OnlineTables.step`: the next
commit, the deal, the reveal). When a round is committed, every bot sends its seat's nonce
(rule book 9.3), so the server deals at once. A bot's move is the one the service makes for
a seat out of time (``heuristic``: the lowest legal card, a pass when it may; ``random``:
a legal card drawn at random).
"""

from __future__ import annotations

import random
import secrets
from typing import Any

from jaslog.cards import CARD_TEXT
from jaslog.play.sim import BOT_NAMES
from jaslog.play.views import FULL, report
from jaslog.service.auth import Principal
from jaslog.service.bots import BotPlayError
from jaslog.service.core import Service
from jaslog.service.deps import ApiError
from jaslog.service.move_clock import autoplay_event
from jaslog.service.online import after_append, online_of
from jaslog.store import NoSuchGame

#: The most appends one game's bots make (a game to 1001 points takes a few hundred).
MOST_APPENDS = 20000


def append_as_seat(svc: Service, who: Principal, game: str,
                   events: list[dict[str, Any]]) -> int:
    """Append a seat token's batch as ``POST /api/games/{game}/events`` takes it: refused
    with :class:`ApiError` (nothing stored) unless it is the seat's own, in turn and legal;
    then who appended it is recorded and the server steps the game. The next seq."""
    tables = online_of(svc)
    at = tables.seat_refusal(who, game, events, None)
    res, _ = svc.append(game, events, at)
    after_append(svc, who, game, res, events)
    return int(res.head.next_seq)


def _random_move(fold: Any, kind: str, seat: int, rng: random.Random) -> dict[str, Any] | None:
    if kind == "play" and fold.state.rounds and fold.state.rounds[-1].hands_known:
        legal = int(fold.state.legal_plays())
        cards = [i for i in range(legal.bit_length()) if legal >> i & 1]
        if cards:
            return {"type": "play", "seat": seat, "card": CARD_TEXT[rng.choice(cards)]}
    return autoplay_event(fold, kind, seat)


def play_online_game(svc: Service, game: str, *, bot: str = "heuristic",
                     seed: int = 0) -> dict[str, Any]:
    """Let bots play the online ``game`` to its end from its seats, each through a seat
    token of its own. A game over is left as it is (:class:`BotPlayError` ``game_begun``);
    a game in play is played on from where it stands. The answer as
    :func:`jaslog.service.bots.play_stored_game` gives it."""
    if bot not in BOT_NAMES:
        raise BotPlayError(422, "bad_bot", f"unknown bot {bot!r}; the bots are "
                           f"{', '.join(BOT_NAMES)}")
    tables = online_of(svc)
    if tables.clock_of(game) is None:
        raise BotPlayError(409, "not_online", f"game {game} is not an online game: its bots "
                           "play it as a scorer records")
    try:
        head, tl = svc.timeline(game)
    except NoSuchGame:
        raise BotPlayError(404, "no_such_game", f"no game {game} in the store") from None
    if tl.fold is None or tl.error is not None:
        raise BotPlayError(409, "not_folded", f"game {game} does not fold; the bots leave it")
    if tl.fold.state.expected()[0] == "over":
        raise BotPlayError(409, "game_begun", f"game {game} is over; the bots play only a "
                           "game still in play")
    seats = list(tl.fold.seats)
    who = [svc.tokens.authenticate(svc.tokens.create(
        "seat", game=game, seat=s, label=f"bot ({bot}) at seat {s} ({p}) of {game}")[0])
        for s, p in enumerate(seats)]
    rng = random.Random(f"{seed}:{game}")
    first = head.next_seq
    for _ in range(MOST_APPENDS):
        tables.step(game)
        _, tl = svc.timeline(game)
        fold = tl.fold
        assert fold is not None
        kind, due = fold.state.expected()
        if kind == "over":
            break
        try:
            if kind == "deal":
                n = len(fold.state.rounds) + 1
                if not any(e.type == "deal_committed" and getattr(e, "round", 0) == n
                           for e in tl.events):
                    raise BotPlayError(409, "not_committed", f"the server has not committed "
                                       f"round {n} of {game}; the bots wait for no deal")
                sent = {int(getattr(e, "seat", -1)) for e in tl.events
                        if e.type == "nonce" and getattr(e, "round", 0) == n}
                for s in range(len(seats)):
                    if s in sent:
                        continue
                    try:
                        append_as_seat(svc, who[s], game, [{
                            "type": "nonce", "round": n, "seat": s,
                            "nonce": secrets.token_hex(16)}])
                    except ApiError as e:  # the server's wait ran out: it dealt without it
                        if e.code != "not_your_turn":
                            raise
                        break
                continue
            move = None if due is None else (
                _random_move(fold, kind, due, rng) if bot == "random"
                else autoplay_event(fold, kind, due))
            if due is None or move is None:
                raise BotPlayError(409, "bot_stuck", f"game {game} expects {kind}"
                                   + (f" of seat {due}" if due is not None else "")
                                   + "; the bots have no such move")
            append_as_seat(svc, who[due], game, [move])
        except ApiError as e:
            raise BotPlayError(e.status, e.code, e.message) from None
    else:  # pragma: no cover - a game that never ends
        raise BotPlayError(409, "game_not_over", f"game {game} did not end in "
                           f"{MOST_APPENDS} moves")
    tables.step(game)  # the last round's reveal
    head, tl = svc.timeline(game)
    rep = report(tl, FULL)
    return {"game": game, "seats": seats, "events": head.next_seq - first,
            "rounds": len(rep["rounds"]), "totals": rep["totals"], "winner": rep["winner"],
            "finished": rep["finished"]}


__all__ = ["append_as_seat", "play_online_game"]
