"""Events to game states: ``state = reduce(apply, events, initial(game_started))``.

A :class:`GameFold` holds one game's state and takes its events in seq order. An event the
record cannot contain raises :class:`FoldError`, which names the game, seq, seat, card and
rule; rule violations are kept in the state and reported by :mod:`jaslog.audit`.

>>> from jaslog.events import parse_event as p
>>> f = GameFold(p('{"game":"g","seq":0,"type":"game_started","ruleset":"amsterdam",'
...                '"seats":["ann","bob","cor","dirk"],"dealer":3}'))
>>> f.apply(p('{"game":"g","seq":1,"type":"dealt"}'))
>>> f.apply(p('{"game":"g","seq":2,"type":"bid","seat":0,"call":"H"}'))
>>> f.apply(p('{"game":"g","seq":3,"type":"play","seat":1,"card":"7H"}'))
Traceback (most recent call last):
...
jaslog.fold.FoldError: game g seq 3: seat 1 played 7H but it is seat 0's turn [not_your_turn]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from jaslog.cards import CARD_INDEX
from jaslog.events import Event, GameStarted, Line
from jaslog.rules.base import IntegrityError
from jaslog.rules.klaverjas import KlaverjasGame
from jaslog.rules.options import OptionError, game_of, resolve


class FoldError(ValueError):
    """An integrity error, located: which file and line, game, seq, seat and card, which rule."""

    def __init__(self, message: str, *, code: str, game: str | None = None,
                 seq: int | None = None, source: str | None = None, line: int | None = None,
                 seat: int | None = None, card: str | None = None) -> None:
        self.message, self.code, self.game, self.seq = message, code, game, seq
        self.source, self.line, self.seat, self.card = source, line, seat, card
        super().__init__(self.text())

    def text(self) -> str:
        where = []
        if self.source is not None:
            where.append(f"{self.source}:{self.line}:" if self.line is not None else f"{self.source}:")
        if self.game is not None:
            where.append(f"game {self.game}")
        if self.seq is not None:
            where.append(f"seq {self.seq}")
        head = " ".join(where)
        return f"{head}: {self.message} [{self.code}]" if head else f"{self.message} [{self.code}]"

    def located(self, source: str, line: int) -> FoldError:
        return FoldError(self.message, code=self.code, game=self.game, seq=self.seq,
                         source=source, line=line, seat=self.seat, card=self.card)

    def __str__(self) -> str:
        return self.text()


PLAYERS = {"klaverjas": 4, "klaberjass": 2, "kloepper": 4}


def _cards(texts: list[str]) -> int:
    m = 0
    for t in texts:
        m |= 1 << CARD_INDEX[t]
    return m


class GameFold:
    """One game's fold: the state after every event applied so far."""

    def __init__(self, started: Event) -> None:
        if not isinstance(started, GameStarted) or started.seq != 0:
            raise FoldError("a game's first event is game_started at seq 0",
                            code="no_game_started", game=started.game, seq=started.seq)
        self.game_id = started.game
        self.started = started
        self.ruleset = started.ruleset
        try:
            self.game = game_of(started.ruleset)
            self.options = resolve(started.ruleset, started.options)
        except OptionError as e:
            raise FoldError(str(e), code="bad_options", game=self.game_id, seq=0) from None
        self.seats = list(started.seats)
        want = PLAYERS[self.game]
        if len(self.seats) != want:
            raise FoldError(f"{self.game} has {want} seats, not {len(self.seats)}",
                            code="bad_seats", game=self.game_id, seq=0)
        if len(set(self.seats)) != len(self.seats):
            raise FoldError("a player sits in two seats", code="bad_seats", game=self.game_id, seq=0)
        if started.dealer >= want:
            raise FoldError(f"dealer {started.dealer} is not a seat", code="bad_seat",
                            game=self.game_id, seq=0)
        if self.game != "klaverjas":  # pragma: no cover - the other games land with their rules
            raise FoldError(f"{self.game} is not supported yet", code="unsupported_game",
                            game=self.game_id, seq=0)
        self.state = KlaverjasGame(self.options, started.dealer)
        self.next_seq = 1
        self.last_at: str | None = started.at
        self.notes: list[Event] = []
        self._apply: dict[str, Callable[[Any], None]] = {
            "dealt": self._dealt, "trump_turned": self._trump_turned, "bid": self._bid,
            "play": self._play, "roem": self._roem, "ruling": self._ruling, "note": self._note,
        }

    def apply(self, e: Event) -> None:
        """Move the state on by one event, or raise :class:`FoldError` and change nothing."""
        if e.game != self.game_id:
            raise FoldError(f"event of game {e.game} given to game {self.game_id}",
                            code="wrong_game", game=e.game, seq=e.seq)
        if e.seq != self.next_seq:
            what = "a duplicate of" if e.seq < self.next_seq else "a gap before"
            raise FoldError(f"seq {e.seq} is {what} the expected seq {self.next_seq}",
                            code="seq_duplicate" if e.seq < self.next_seq else "seq_gap",
                            game=self.game_id, seq=e.seq)
        handler = self._apply.get(e.type)
        if handler is None:
            raise FoldError(f"{e.type} is only the first event of a game", code="misplaced_event",
                            game=self.game_id, seq=e.seq)
        try:
            handler(e)
        except IntegrityError as err:
            card = getattr(e, "card", None)
            raise FoldError(err.message, code=err.code, game=self.game_id, seq=e.seq,
                            seat=err.seat if err.seat is not None else getattr(e, "seat", None),
                            card=card) from None
        self.next_seq += 1
        if e.at is not None:
            self.last_at = e.at

    # -- one handler per event type -----------------------------------------------------

    def _dealt(self, e: Any) -> None:
        hands = None
        if e.hands is not None:
            if len(e.hands) != 4 or any(len(h) != 8 for h in e.hands):
                sizes = ", ".join(str(len(h)) for h in e.hands)
                raise IntegrityError("bad_deal", f"a deal is 4 hands of 8 cards, not [{sizes}]")
            hands = [_cards(h) for h in e.hands]
            for seat, (h, texts) in enumerate(zip(hands, e.hands, strict=True)):
                if h.bit_count() != 8:
                    twice = sorted({t for t in texts if texts.count(t) > 1})
                    raise IntegrityError("dealt_twice", f"{', '.join(twice)} dealt twice to seat "
                                         f"{seat}", seat=seat)
        self.state.deal(hands, e.dealer, e.seq)

    def _trump_turned(self, e: Any) -> None:
        self.state.turn_trump(e.card, e.seq)

    def _bid(self, e: Any) -> None:
        self.state.bid(e.seat, e.call, e.seq)

    def _play(self, e: Any) -> None:
        self.state.play(e.seat, CARD_INDEX[e.card], e.seq)

    def _roem(self, e: Any) -> None:
        self.state.claim_roem(e.seat, e.points, e.seq)

    def _ruling(self, e: Any) -> None:
        want = 2 if self.game == "klaverjas" else PLAYERS[self.game]
        if len(e.score) != want:
            raise IntegrityError("bad_ruling", f"a {self.game} ruling gives {want} scores, "
                                 f"not {len(e.score)}")
        self.state.rule(e.round, list(e.score), e.reason, e.seq)

    def _note(self, e: Any) -> None:
        if e.round is not None and e.round > len(self.state.rounds):
            raise IntegrityError("no_such_round", f"a note names round {e.round}, which was not dealt")
        self.notes.append(e)


def fold(events: Iterable[Event]) -> GameFold:
    """Fold one game's events (in seq order) and return the fold."""
    it = iter(events)
    try:
        first = next(it)
    except StopIteration:
        raise FoldError("a game needs at least its game_started event", code="empty_game") from None
    f = GameFold(first)
    for e in it:
        f.apply(e)
    return f


@dataclass
class FileGame:
    """A game as read from log files: its fold, or the integrity error that stopped it."""

    game: str
    fold: GameFold | None = None
    error: FoldError | None = None
    lines: list[tuple[str, int]] = field(default_factory=list)  # (source, line) of each event


def fold_lines(lines: Iterable[Line]) -> Iterator[FileGame | FoldError]:
    """Fold every game found in ``lines`` (games may interleave; each in seq order).

    Yields a :class:`FileGame` per game, in order of first appearance, once all lines are
    read; a line that names no game is yielded as a bare :class:`FoldError` at once.
    """
    games: dict[str, FileGame] = {}
    for ln in lines:
        gid = ln.event.game if ln.event is not None else ln.game
        if ln.event is None:
            err = FoldError(ln.error or "unreadable", code="bad_event", game=gid, seq=ln.seq,
                            source=ln.source, line=ln.number)
            if gid is None:
                yield err
                continue
            g = games.setdefault(gid, FileGame(gid))
            if g.error is None:
                g.error = err
            continue
        assert gid is not None
        g = games.get(gid) or games.setdefault(gid, FileGame(gid))
        if g.error is not None:
            continue
        g.lines.append((ln.source, ln.number))
        try:
            if g.fold is None:
                g.fold = GameFold(ln.event)
            else:
                g.fold.apply(ln.event)
        except FoldError as e:
            g.error = e.located(ln.source, ln.number)
    yield from games.values()
