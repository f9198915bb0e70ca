"""Move clocks: the service records a ``timeout`` when the seat due has not acted in time.

Rule book 9.1, decision 15 (seed 003: 30 seconds per move). A *wait* begins with the last
event that moved the game on (anything but a note, a timeout or an irregularity, which
change nothing at the table) and belongs to the seat the rules expect to bid, turn a trump
card or play. It is measured on the service's own clock against the ``recorded_at`` of the
event that began it (decision 14); an event stored without ``recorded_at`` (before the
store stamped it) is timed from when this clock first saw it waiting, never from the
table's ``at``. When a wait is longer than the limit, :meth:`MoveClock.check` appends

* ``{type: "timeout", seat, seconds}`` (the whole seconds waited, ``at`` by the clock), and
* with ``on_timeout: autoplay``, in the same batch, the move an online room makes for the
  seat: the lowest legal card (by the game's rules, only when the round's hands are known),
  or a bid: ``pass``, or when the seat may not pass, the first call the rules take without
  a violation (:func:`autoplay_event`).

One timeout per (seat, wait): a timeout already recorded in the wait stops another, and
the batch is appended at the head the check saw with ids made from the game, the seq that
began the wait and the seat, so two checks racing (a request and the background task, or
two processes) store it once; the loser's append is refused and it records nothing.

>>> lowest_card(0b1001 << 8 | 1 << 4, trump=1)  # JC, and 7D 10D of trumps (diamonds)
4
"""

from __future__ import annotations

import copy
import math
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from jaslog.cards import CARD_TEXT, PLAIN_STRENGTH, SUIT_LETTERS, TRUMP_STRENGTH, cards_of
from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import Event, EventError, event_from_dict
from jaslog.play.views import Timeline
from jaslog.service.core import Service
from jaslog.store import ConflictError, Head, NoSuchGame, RejectedError, StoreError
from jaslog.store.clock import Clock, parse_stamp, stamp

#: What follows a timeout (a tournament's ``on_timeout``).
ON_TIMEOUT = ("record", "autoplay")
#: Events that do not begin a wait: they change nothing at the table.
NOT_MOVES = frozenset({"note", "timeout", "irregularity", "deal_committed", "nonce",
                       "deal_revealed"})
#: What the rules may expect of a seat that the clock times (``deal`` is the scorer's).
TIMED = frozenset({"bid", "turn", "play"})
#: Ids of the service's own events: uuid5 in this namespace of ``game:seq:seat:what``.
ID_SPACE = uuid.UUID("5d0c3f3e-8b1e-4d0a-9f57-6a61736c6f67")
#: How many first sightings of untimed waits the clock remembers.
SEEN_MAX = 4096


@dataclass(frozen=True)
class Wait:
    """The seat due, what it is to do, since which event and for how long."""

    game: str
    seat: int
    kind: str
    since_seq: int
    since: datetime
    seconds: float


def event_id(game: str, since_seq: int, seat: int, what: str) -> str:
    """The id of an event the service appends for a wait (the same for every check).

    >>> event_id("g", 7, 2, "timeout") == event_id("g", 7, 2, "timeout")
    True
    """
    return str(uuid.uuid5(ID_SPACE, f"{game}:{since_seq}:{seat}:{what}"))


def lowest_card(mask: int, trump: int | None) -> int:
    """The weakest card of ``mask``: a card of a plain suit before a trump, then the lowest
    in its suit's order of strength (trumps J 9 A 10 K Q 8 7), then clubs, diamonds, hearts,
    spades.

    >>> CARD_TEXT[lowest_card((1 << 19) | (1 << 20), trump=None)]  # 10H or JH: the jack
    'JH'
    """
    def key(c: int) -> tuple[int, int, int]:
        is_trump = trump is not None and c >> 3 == trump
        strength = (TRUMP_STRENGTH if is_trump else PLAIN_STRENGTH)[c & 7]
        return int(is_trump), strength, c >> 3

    return min(cards_of(mask), key=key)


#: The calls an autoplayed bid tries, in order: a pass, else the first suit the rules take.
BID_CALLS = ("pass", *SUIT_LETTERS)


def _clean(fold: GameFold, e: dict[str, Any]) -> bool:
    """Whether the rules take event ``e`` after ``fold`` without a violation (on a copy)."""
    probe = copy.deepcopy(fold)
    before = len(probe.state.violations)
    try:
        probe.apply(event_from_dict(e))
    except (FoldError, EventError):
        return False
    return len(probe.state.violations) == before


def autoplay_event(fold: GameFold, kind: str, seat: int) -> dict[str, Any] | None:
    """The move an online room makes for ``seat`` when its time is up, as an event (without
    ``at``), or None when the service cannot make it: a card only when the round's hands
    are known (the lowest legal card, :func:`lowest_card`), a bid ``pass`` or, when the
    seat may not pass, the first suit the rules take without a violation; a trump card to
    turn is never made up.

    >>> from jaslog.events import parse_event
    >>> from jaslog.play.fold import start_fold
    >>> f = start_fold(parse_event('{"game":"g","seq":0,"type":"game_started",'
    ...     '"ruleset":"amsterdam","seats":["a","b","c","d"],"dealer":3}'))
    >>> f.apply(parse_event('{"game":"g","seq":1,"type":"dealt"}'))
    >>> autoplay_event(f, "bid", 0)
    {'type': 'bid', 'seat': 0, 'call': 'pass'}
    """
    if kind == "play":
        r = fold.state.rounds[-1]
        if not r.hands_known:
            return None
        legal = fold.state.legal_plays()
        if not legal:
            return None
        return {"type": "play", "seat": seat,
                "card": CARD_TEXT[lowest_card(legal, getattr(r, "trump", None))]}
    if kind == "bid":
        base = {"game": fold.game_id, "seq": fold.next_seq, "type": "bid", "seat": seat}
        for call in BID_CALLS:
            if _clean(fold, {**base, "call": call}):
                return {"type": "bid", "seat": seat, "call": call}
    return None


class MoveClock:
    """The move clock of one service: finds waits over a limit and records them, on
    ``clock`` (default: the service's own, ``svc.clock``)."""

    def __init__(self, svc: Service, clock: Clock | None = None) -> None:
        self.svc = svc
        self.clock: Clock = clock or svc.clock
        self._seen: dict[tuple[str, int], datetime] = {}
        self._lock = threading.Lock()

    def _first_seen(self, game: str, seq: int, now: datetime) -> datetime:
        with self._lock:
            t = self._seen.setdefault((game, seq), now)
            while len(self._seen) > SEEN_MAX:
                self._seen.pop(next(iter(self._seen)))
        return t

    def waiting(self, game: str, fold: GameFold | None = None,
                events: list[Event] | None = None) -> Wait | None:
        """The wait of the seat due in ``game`` now (None: nobody is due, or the seat's
        timeout in this wait is already recorded)."""
        if fold is None or events is None:
            _, tl = self.svc.timeline(game)
            if tl.fold is None or tl.error is not None:
                return None
            fold, events = tl.fold, tl.events
        kind, seat = fold.state.expected()
        if kind not in TIMED or seat is None:
            return None
        start = next((e for e in reversed(events) if e.type not in NOT_MOVES), events[0])
        if any(e.type == "timeout" and getattr(e, "seat", None) == seat
               for e in events[start.seq + 1:]):
            return None
        now = self.clock()
        since = (parse_stamp(start.recorded_at) if start.recorded_at
                 else self._first_seen(game, start.seq, now))
        return Wait(game, seat, str(kind), start.seq, since, (now - since).total_seconds())

    def check(self, game: str, limit: float, on_timeout: str = "record",
              read: tuple[Head, Timeline] | None = None) -> list[dict[str, Any]]:
        """Record the timeout of the seat due when its wait is over ``limit`` seconds (and
        with ``autoplay``, its move); the events appended (none when nothing was due, or
        when another check recorded it first). ``read``: the game's head and timeline as
        the caller just read them (else they are read here)."""
        try:
            head, tl = read if read is not None else self.svc.timeline(game)
        except NoSuchGame:
            return []
        if tl.fold is None or tl.error is not None:
            return []
        w = self.waiting(game, tl.fold, tl.events)
        if w is None or w.seconds <= limit:
            return []
        at = stamp(self.clock())
        batch: list[dict[str, Any]] = [{
            "type": "timeout", "seat": w.seat, "seconds": min(math.floor(w.seconds), 86_400 * 365),
            "at": at, "id": event_id(game, w.since_seq, w.seat, "timeout")}]
        if on_timeout == "autoplay":
            move = autoplay_event(tl.fold, w.kind, w.seat)
            if move is not None:
                batch.append({**move, "at": at, "id": event_id(game, w.since_seq, w.seat, "move")})
        try:
            res, _ = self.svc.append(game, batch, head.next_seq)
        except (ConflictError, RejectedError):  # another check (or a move) got there first
            return []
        except StoreError:  # pragma: no cover - the store refused for its own reasons
            return []
        if not res.appended:
            return []
        first = res.head.next_seq - res.appended
        return [{**e, "game": game, "seq": first + i} for i, e in enumerate(batch)]


__all__ = ["ON_TIMEOUT", "MoveClock", "Wait", "autoplay_event", "event_id", "lowest_card"]


def recorded_timeouts(game: str, events: list[dict[str, Any]],
                      seats: list[str]) -> list[dict[str, Any]]:
    """The ``timeout`` events of a game (as dicts, in seq order), each with its player, the
    round (counted by deals) and whether the service then played for the seat (``autoplayed``).

    >>> evs = [{"seq": 0, "type": "game_started"}, {"seq": 1, "type": "dealt"},
    ...        {"seq": 2, "type": "timeout", "seat": 1, "seconds": 31, "at": "2026-12-01T20:00:31Z"}]
    >>> [(x["seq"], x["round"], x["player"], x["seconds"], x["autoplayed"])
    ...  for x in recorded_timeouts("g", evs, ["a", "b", "c", "d"])]
    [(2, 1, 'b', 31, False)]
    """
    out: list[dict[str, Any]] = []
    rnd, since = 0, 0
    for i, e in enumerate(events):
        if e["type"] in ("dealt", "round_score"):
            rnd += 1
        if e["type"] == "timeout":
            nxt = events[i + 1] if i + 1 < len(events) else None
            seat = e["seat"]
            out.append({"seq": e["seq"], "round": rnd, "seat": seat,
                        "player": seats[seat] if 0 <= seat < len(seats) else None,
                        "seconds": e["seconds"], "at": e.get("at"),
                        "recorded_at": e.get("recorded_at"),
                        "autoplayed": nxt is not None and nxt.get("seat") == seat
                        and nxt.get("id") == event_id(game, since, seat, "move")})
        if e["type"] not in NOT_MOVES:
            since = e["seq"]
    return out
