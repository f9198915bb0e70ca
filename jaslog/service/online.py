"""Online games: played from the seats, dealt by the server (rule book 9.3, decisions 18-21).

A game created with ``online: true`` gets a token per seat (role ``seat``, bound to the game
and the seat) and a move clock (``clock`` seconds a move; a timeout is recorded and the
service plays for the seat, decision 15's ``autoplay``). The service deals every round
itself as soon as it is due (:meth:`OnlineTables.step`):

1. it draws a seed of 32 bytes from ``secrets.token_bytes``, keeps it in its own table
   (:data:`jaslog.service.db.deal_seeds`, never served) and appends ``deal_committed``
   with the seed's SHA-256;
2. it waits for the seats' ``nonce`` events, up to :attr:`OnlineTables.nonce_wait`
   seconds (5 by default) after the commit was stored, or until every seat sent one;
3. it deals from the deck the seed and the nonces give (:func:`jaslog.engine.fairdeal.deck`,
   ``Game.deal_from_deck``);
4. when the round is over, it appends ``deal_revealed`` with the seed.

A seat's append (:func:`seat_refusal`) is checked against the game at its head and
appended at that head: another seat's action is ``not_your_seat`` (403), an action when the
rules do not let the seat act ``not_your_turn`` (409), an illegal one ``illegal_play``
(422), one that arrives after the seat's timeout was recorded ``too_late`` (409). Every
event an online game stores says who appended it (:func:`record_by`: a seat number,
``server`` or the token's role), in the service's table beside the events.
"""

from __future__ import annotations

import copy
import os
import secrets
import threading
import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from jaslog.engine.fairdeal import commit_of, deck, nonce_problem
from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import Event, EventError, event_from_dict
from jaslog.games import get_game
from jaslog.play.views import Timeline
from jaslog.service import db
from jaslog.service.auth import Principal
from jaslog.service.core import Service
from jaslog.service.deps import ApiError
from jaslog.service.move_clock import ID_SPACE, MoveClock
from jaslog.store import AppendResult, ConflictError, NoSuchGame, RejectedError, StoreError
from jaslog.store.clock import parse_stamp, stamp

#: Seconds a move, by default.
DEFAULT_CLOCK = 30
#: Seconds the server waits for the seats' nonces after the commit.
NONCE_WAIT = 5.0
#: The longest the sweep leaves a game unstepped when nothing is owed (an append by another
#: process to the same database is seen by then).
RESTEP_S = 5.0
#: What a seat token appends: its own actions and its nonce.
SEAT_TYPES = frozenset({"bid", "trump_turned", "play", "roem", "claim", "knock", "knock_back",
                        "dix", "sequence", "bella", "partner_call", "nonce"})
#: Actions that only the seat due takes (others, like a roem claim, the rules judge).
TURN_TYPES = frozenset({"bid", "play", "trump_turned", "dix", "partner_call"})
#: The later parts of a deal the server deals when the rules expect them (the dealing events
#: of ``Game.deal_from_deck`` besides ``dealt``).
LATER_DEALS = frozenset({"second_deal"})
#: What the rules expect (``state.expected()``) when they take each of these.
KIND_OF = {"bid": "bid", "play": "play", "trump_turned": "turn"}


def _id(game: str, what: str) -> str:
    return str(uuid.uuid5(ID_SPACE, f"{game}:{what}"))


def record_by(svc: Service, game: str, first: int, events: list[dict[str, Any]], by: str,
              token_id: str = "", role: str = "server") -> None:
    """Who appended the events stored from seq ``first`` (beside them, never in their
    hashed bytes)."""
    if not events:
        return
    at = stamp(svc.clock())
    with svc.engine.begin() as c:
        c.execute(insert(db.event_authors), [
            {"game": game, "seq": first + i, "event_id": e.get("id"), "by": by[:200],
             "token_id": token_id, "role": role, "at": at} for i, e in enumerate(events)])


def by_of(who: Principal) -> str:
    """What ``by`` says of a token in an online game: its seat, or its role."""
    return str(who.seat) if who.role == "seat" and who.seat is not None else who.role


def after_append(svc: Service, who: Principal, game: str, res: AppendResult,
                 events: list[dict[str, Any]]) -> None:
    """After a batch is appended to an online game: who appended it (a seat number or the
    token's role), then what the server owes the game now (the next deal, a reveal)."""
    if res.appended:
        first = res.head.next_seq - res.appended
        record_by(svc, game, first, events[len(events) - res.appended:], by_of(who),
                  who.token_id, who.role)
    online_of(svc).step(game)


def seat_may_append(who: Principal, game: str, events: list[dict[str, Any]]) -> None:
    """Whether a seat token may append ``events`` to ``game`` at all (403 when not): its own
    game, its own seat's actions and nonce only. Whether the rules take them now is
    :meth:`OnlineTables.check_moves`'s to say."""
    if who.game != game:
        raise ApiError(403, "other_game", f"this seat token plays seat {who.seat} of game "
                       f"{who.game}, not of game {game}", game=game)
    for i, e in enumerate(events):
        t = e.get("type")
        if t not in SEAT_TYPES:
            raise ApiError(403, "not_your_seat", f"event {i + 1}: a seat token appends its "
                           f"seat's own actions and its nonce, not a {t}", game=game)
        if e.get("seat") != who.seat:
            raise ApiError(403, "not_your_seat", f"event {i + 1} is seat {e.get('seat')}'s; "
                           f"this token plays seat {who.seat}", game=game)


class OnlineTables:
    """The online games of one service: creating them, dealing them, timing them."""

    def __init__(self, svc: Service, nonce_wait: float = NONCE_WAIT) -> None:
        self.svc = svc
        self.nonce_wait = nonce_wait
        self.move_clock = MoveClock(svc)
        self._clocks: dict[str, int | None] = {}
        self._over: set[str] = set()
        self._lock = threading.RLock()
        #: Each game's own lock: a step holds it while it appends (games step side by side).
        self._game_locks: dict[str, threading.Lock] = {}
        #: When each game next owes something by the clock (a deal whose nonces are late, a
        #: move over the clock), as its last step found it: the sweep steps it no sooner.
        self._due: dict[str, tuple[int, datetime]] = {}

    # ------------------------------------------------------------------ which games

    def clock_of(self, game: str) -> int | None:
        """The move clock of an online game (seconds), None for a game not online."""
        with self._lock:
            if game in self._clocks:
                return self._clocks[game]
        with self.svc.engine.connect() as c:
            row = c.execute(select(db.online_games.c.clock)
                            .where(db.online_games.c.game == game)).first()
            stopped = row is not None and c.execute(select(db.online_stops.c.game).where(
                db.online_stops.c.game == game)).first() is not None
        clock = None if row is None else int(row[0])
        with self._lock:
            self._clocks[game] = clock
            if stopped:
                self._over.add(game)
        return clock

    def known_offline(self, game: str) -> bool:
        """Whether the service knows, without a database read, that ``game`` is not online
        (read without a lock: a step holds the tables' lock while it appends)."""
        return self._clocks.get(game, 0) is None

    def games(self) -> list[str]:
        with self.svc.engine.connect() as c:
            rows = c.execute(select(db.online_games.c.game)).all()
            stopped = {str(r[0]) for r in c.execute(select(db.online_stops.c.game))}
        self._over |= stopped
        return [str(r[0]) for r in rows if str(r[0]) not in self._over]

    def stop(self, game: str, reason: str) -> None:
        """The service no longer deals nor times ``game`` (a tournament's game decided by a
        withdrawal); for good."""
        with self._lock:
            self._over.add(game)
        try:
            with self.svc.engine.begin() as c:
                c.execute(insert(db.online_stops).values(
                    game=game, reason=reason[:200], stopped_at=stamp(self.svc.clock())))
        except IntegrityError:  # stopped already
            pass

    def create(self, fields: dict[str, Any], clock: int, by: str
               ) -> tuple[str, list[dict[str, Any]]]:
        """A new online game (its ``game_started`` ``fields``, appended ``by`` whom) and its
        seat tokens; the first round committed (and dealt, once the nonces are in)."""
        gid = self.svc.new_game(fields)
        with self.svc.engine.begin() as c:
            c.execute(insert(db.online_games).values(game=gid, clock=clock,
                                                     created_at=stamp(self.svc.clock())))
        with self._lock:
            self._clocks[gid] = clock
        record_by(self.svc, gid, 0, [{}], by, role=by)
        seats = []
        for seat, player in enumerate(fields["seats"]):
            token, _ = self.svc.tokens.create("seat", game=gid, seat=seat,
                                              label=f"{gid} seat {seat} ({player})")
            seats.append({"seat": seat, "player": player, "token": token,
                          "link": f"/play/{gid}#token={token}"})
        self.step(gid)
        return gid, seats

    # ------------------------------------------------------------------ the dealer

    def _seed(self, game: str, round_no: int) -> bytes:
        """The round's secret seed: drawn and kept the first time it is asked for."""
        with self.svc.engine.connect() as c:
            row = c.execute(select(db.deal_seeds.c.seed).where(
                db.deal_seeds.c.game == game, db.deal_seeds.c.round == round_no)).first()
        if row is not None:
            return bytes.fromhex(str(row[0]))
        seed = secrets.token_bytes(32)
        try:
            with self.svc.engine.begin() as c:
                c.execute(insert(db.deal_seeds).values(game=game, round=round_no, seed=seed.hex(),
                                                       created_at=stamp(self.svc.clock())))
        except IntegrityError:  # another step drew it first: that one counts
            return self._seed(game, round_no)
        return seed

    def _append(self, game: str, events: list[dict[str, Any]], at_seq: int) -> bool:
        """Append the server's events at ``at_seq``; False when the game moved on first."""
        now = stamp(self.svc.clock())
        batch = [{**e, "at": now} for e in events]
        try:
            res, _ = self.svc.append(game, batch, at_seq)
        except (ConflictError, RejectedError, StoreError):
            return False
        if res.appended:
            first = res.head.next_seq - res.appended
            record_by(self.svc, game, first, batch[len(batch) - res.appended:], "server")
        return True

    def step(self, game: str) -> bool:
        """Do what the server owes the game now (deal, reveal, a timeout); whether anything
        was appended. Called after every append to an online game and by the background
        sweep."""
        clock = self.clock_of(game)
        if clock is None or game in self._over:
            return False
        with self._lock:
            lock = self._game_locks.setdefault(game, threading.Lock())
        moved = False
        with lock:
            self._due.pop(game, None)
            for _ in range(8):  # each pass appends at most one batch
                if not self._step_once(game, clock):
                    break
                moved = True
        return moved

    def due(self, game: str, now: datetime) -> bool:
        """Whether the sweep should step ``game`` now: not when its last step, at the head
        the game still has, found nothing owed before a time still to come (a head read,
        no fold)."""
        known = self._due.get(game)
        if known is None or known[1] <= now:
            return True
        with self.svc.pool.get() as s:
            return s.head(game).next_seq != known[0]

    def _owed_at(self, game: str, next_seq: int, at: datetime) -> None:
        """Remember when ``game``, at ``next_seq``, next owes something by the clock (see
        :meth:`due`; at most :data:`RESTEP_S` seconds ahead)."""
        self._due[game] = (next_seq, min(at, self.svc.clock() + timedelta(seconds=RESTEP_S)))

    def _step_once(self, game: str, clock: int) -> bool:
        try:
            head, tl = self.svc.timeline(game)
        except NoSuchGame:
            return False
        fold, events = tl.fold, tl.events
        if fold is None or tl.error is not None:
            return False
        committed: dict[int, Event] = {}
        revealed: set[int] = set()
        nonces: dict[int, dict[int, str]] = {}
        for e in events:
            if e.type == "deal_committed":
                committed[int(e.round)] = e  # type: ignore[attr-defined]
            elif e.type == "deal_revealed":
                revealed.add(int(e.round))  # type: ignore[attr-defined]
            elif e.type == "nonce":
                nonces.setdefault(int(e.round), {})[int(e.seat)] = str(e.nonce)  # type: ignore[attr-defined]
        kind, _due = fold.state.expected()
        dealt = len(fold.state.rounds)
        # reveal every committed round that is over
        for n in sorted(committed):
            if n in revealed or n > dealt or (n == dealt and kind not in ("deal", "over")):
                continue
            return self._append(game, [{"type": "deal_revealed", "round": n,
                                        "seed": self._seed(game, n).hex(),
                                        "id": _id(game, f"reveal:{n}")}], head.next_seq)
        if kind == "over":
            self._over.add(game)
            return False
        if kind == "deal":
            n = dealt + 1
            if n not in committed:
                seed = self._seed(game, n)
                return self._append(game, [{"type": "deal_committed", "round": n,
                                            "commit": commit_of(seed),
                                            "id": _id(game, f"commit:{n}")}], head.next_seq)
            sent = nonces.get(n, {})
            c = committed[n]
            since = parse_stamp(c.recorded_at) if c.recorded_at else self.svc.clock()
            waited = (self.svc.clock() - since).total_seconds()
            if len(sent) < fold.players and waited < self.nonce_wait:
                self._owed_at(game, head.next_seq, since + timedelta(seconds=self.nonce_wait))
                return False
            return self._deal(game, fold, n, sent, head.next_seq)
        if dealt in committed and kind in LATER_DEALS:  # the rest of a deal (Klaberjass)
            return self._deal(game, fold, dealt, nonces.get(dealt, {}), head.next_seq, kind)
        appended = self.move_clock.check(game, clock, "autoplay", (head, tl))
        if appended:
            record_by(self.svc, game, int(appended[0]["seq"]), appended, "server")
            return True
        w = self.move_clock.waiting(game, fold, events)
        if w is not None:
            self._owed_at(game, head.next_seq, w.since + timedelta(seconds=clock))
        return False

    def _deal(self, game: str, fold: GameFold, n: int, sent: dict[int, str], at_seq: int,
              what: str = "dealt") -> bool:
        """Append round ``n``'s ``what`` (its ``dealt``, or a later deal such as Klaberjass's
        ``second_deal``) as the deck gives it."""
        g = get_game(fold.game)
        if what == "dealt":
            _, dealer = fold.state.expected()
        else:
            dealer = fold.state.rounds[-1].dealer
        assert dealer is not None
        seed = self._seed(game, n)
        order = [sent.get(s, "") for s in range(fold.players)]
        fields = g.deal_from_deck(deck(seed, game, n, order, g.pack), dealer)
        extra = {"dealer": dealer} if what == "dealt" else {}
        batch = [{"type": what, **extra, **fields.get(what, {}), "id": _id(game, f"{what}:{n}")}]
        return self._append(game, batch, at_seq)

    def sweep(self) -> list[str]:
        """Step every online game not over that owes something by now (:meth:`due`); the
        games that moved."""
        now = self.svc.clock()
        return [g for g in self.games() if self.due(g, now) and self.step(g)]

    # ------------------------------------------------------------------ a seat's wait

    def seat_has_to_act(self, game: str, seat: int) -> bool:
        """Whether ``seat`` of ``game`` has something to do now: the rules expect its move
        (whatever they expect of it: a bid, a card, a call), the round committed waits for
        its nonce, or the game is over (or does not fold: nothing to wait for)."""
        return self.has_to_act(self.svc.timeline(game)[1], seat)

    @staticmethod
    def has_to_act(tl: Timeline, seat: int) -> bool:
        """:meth:`seat_has_to_act` of the game as ``tl`` has it."""
        fold = tl.fold
        if fold is None or tl.error is not None:
            return True
        kind, due = fold.state.expected()
        if kind == "over":
            return True
        if kind != "deal":
            return due == seat
        n = len(fold.state.rounds) + 1
        for e in reversed(tl.events):  # the nonces come after the round's commit
            if e.type == "nonce" and getattr(e, "round", None) == n and \
                    getattr(e, "seat", None) == seat:
                return False
            if e.type == "deal_committed":
                return getattr(e, "round", None) == n
        return False

    # ------------------------------------------------------------------ a seat's append

    def seat_refusal(self, who: Principal, game: str, events: list[dict[str, Any]],
                     expected_seq: int | None) -> int:
        """Check a seat token's batch against the game at its head; the seq to append it
        at, or :class:`ApiError` (nothing is stored)."""
        seat_may_append(who, game, events)
        return self.check_moves(game, events, expected_seq, who.seat)


    def check_moves(self, game: str, events: list[dict[str, Any]], expected_seq: int | None,
                    seat: int | None) -> int:
        """Try ``events`` on a copy of the game at its head: refuse what an online room does
        not let happen. The seq to append at."""
        head, tl = self.svc.timeline(game)
        fold = tl.fold
        if fold is None or tl.error is not None:
            raise ApiError(422, "not_folded", f"game {game} does not fold", game=game)
        if seat is not None and expected_seq is not None and expected_seq < head.next_seq:
            late = [e for e in tl.events[expected_seq:]
                    if e.type == "timeout" and getattr(e, "seat", None) == seat]
            if late:
                raise ApiError(409, "too_late", f"seat {seat}'s time was up: the timeout at seq "
                               f"{late[0].seq} was recorded before this arrived",
                               game=game, seq=late[0].seq)
        if expected_seq is not None and expected_seq != head.next_seq:
            raise ApiError(409, "conflict", f"game {game} is at seq {head.next_seq}, not "
                           f"{expected_seq}", game=game, expected=expected_seq,
                           actual=head.next_seq)
        trial = copy.deepcopy(fold)
        committed = {int(getattr(e, "round", 0)) for e in tl.events if e.type == "deal_committed"}
        sent = {(int(getattr(e, "round", 0)), int(getattr(e, "seat", -1)))
                for e in tl.events if e.type == "nonce"}
        for i, e in enumerate(events):
            t = e.get("type")
            if t == "nonce":
                n = len(trial.state.rounds) + 1
                kind, _ = trial.state.expected()
                problem = nonce_problem(str(e.get("nonce", ""))) if isinstance(
                    e.get("nonce"), str) else "a nonce is a text"
                if problem is not None:
                    raise ApiError(422, "bad_event", f"event {i + 1}: {problem}", game=game)
                if kind != "deal" or e.get("round") != n or n not in committed \
                        or (n, e.get("seat")) in sent:
                    raise ApiError(409, "not_your_turn", f"event {i + 1}: a nonce is sent once "
                                   "per round, for the round committed and not yet dealt"
                                   f" (round {n})", game=game)
                sent.add((n, int(e["seat"])))
                trial.next_seq += 1
                continue
            kind, due = trial.state.expected()
            wrong_kind = KIND_OF.get(str(t), kind) != kind
            if seat is not None and t in TURN_TYPES and (due != seat or wrong_kind):
                if self._timed_out(tl.events, seat):
                    raise ApiError(409, "too_late", f"seat {seat}'s time was up: the service "
                                   "recorded its timeout and played for it", game=game)
                # which seat is due and for what is not said: the rules may keep it from
                # the others (a partner call awaited from whoever holds the queens)
                raise ApiError(409, "not_your_turn", f"event {i + 1}: the rules do not take "
                               f"a {t} of seat {seat} now: it is not this seat's turn",
                               game=game, seat=seat)
            before = len(trial.state.violations)
            try:
                trial.apply(event_from_dict({**e, "game": game, "seq": trial.next_seq,
                                             "at": e.get("at") or stamp(self.svc.clock())}))
            except EventError as err:
                raise ApiError(422, "bad_event", f"event {i + 1}: {err}", game=game) from None
            except FoldError as err:
                status = 409 if err.code == "not_your_turn" else 422
                raise ApiError(status, "not_your_turn" if status == 409 else "illegal_play",
                               f"event {i + 1}: {err.message}", game=game, rule=err.code,
                               seat=err.seat, card=err.card) from None
            broken = trial.state.violations[before:]
            if broken:
                raise ApiError(422, "illegal_play", f"event {i + 1}: {broken[0].message}; an "
                               "online game does not let it happen", game=game,
                               rule=broken[0].rule)
        return int(head.next_seq)

    @staticmethod
    def _timed_out(events: list[Event], seat: int) -> bool:
        """Whether the seat's last timeout came after its last own move (the service moved
        for it, right after the timeout, and the seat has not moved since)."""
        timeout = own = -1
        for i, e in enumerate(events):
            if getattr(e, "seat", None) != seat:
                continue
            if e.type == "timeout":
                timeout = i
            elif not (i == timeout + 1 and timeout >= 0) and e.type != "nonce":
                own = i
        return timeout > own




_ONLINE_LOCK = threading.Lock()


def online_of(svc: Service) -> OnlineTables:
    """The service's one :class:`OnlineTables` (made on first use)."""
    with _ONLINE_LOCK:
        tables: OnlineTables | None = getattr(svc, "online_tables", None)
        if tables is None:
            wait = os.environ.get("JASLOG_NONCE_WAIT")  # tests: seconds to wait for nonces
            tables = OnlineTables(svc, float(wait) if wait else NONCE_WAIT)
            svc.online_tables = tables  # type: ignore[attr-defined]
    return tables


__all__ = ["DEFAULT_CLOCK", "NONCE_WAIT", "OnlineTables", "by_of", "online_of", "record_by",
           "seat_may_append"]
