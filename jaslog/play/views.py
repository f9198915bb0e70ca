"""Who may see what: a game as a referee, a player at one seat, or the public sees it.

This is the single place where the service's API and its web viewer get a game's events,
its table at any seq (``frames``) and its audit for someone who is not allowed to see
everything. A :class:`Sight` says who is looking:

* ``Sight()`` (the referee, a table's scorer): every hand, every event;
* ``Sight(seat=n)`` (a player): while cards of a round remain unplayed, only that seat's own
  hand, the cards played and the public record; every hand once all its cards are played;
* ``Sight(public=True)``: only finished rounds; nothing of the round being played, and no
  hand of a round that ended before all its cards were played. A referee's ruling is shown
  to the public without its reason until the game is over (:meth:`Timeline.reasons_hidden`):
  the seats see it at once.

Both are judged at the game's head. The round being played is *live*. A round whose every
card was played is public knowledge (its hands are shown), even when viewed at a seq from
the middle of it. A round that ended with cards still unplayed (abandoned by a referee's
ruling, a Klaberjass deal annulled in the bidding, a claim or a concession of the rest)
stays *secret* for good, as at the table where such hands are thrown in unseen
(:func:`jaslog.engine.view.played_out`): :attr:`Timeline.secret_rounds` holds the live round
and those. What a sight may not see is each game's one visibility rule, in its ``view``
module: ``redact_event`` for each event, ``seat_view`` for the table (read through the
game's ``frame`` and ``report_round``: Kloepper hides partnerships, Klaberjass the stock and
declarations); this module never decides it.

>>> from jaslog.play.sim import simulate_game
>>> from jaslog.events import event_from_dict
>>> evs = [event_from_dict(e) for e in simulate_game("v1", seed=3)[:12]]
>>> tl = timeline(evs)
>>> tl.live_round
1
>>> [h is None for h in state_at(tl, 11, Sight(seat=2))["hands"]]
[True, True, False, True]
>>> visible_events(tl, Sight(public=True))[-1]["type"]
'game_started'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from jaslog.engine.fold import FoldError, GameFold
from jaslog.engine.view import (
    FULL as FULL,
)
from jaslog.engine.view import (
    PUBLIC as PUBLIC,
)
from jaslog.engine.view import (
    Frame,
    Seen,
    played_out,
    violation_seen,
)
from jaslog.engine.view import (
    Sight as Sight,
)
from jaslog.errors import JaslogError
from jaslog.events import Event
from jaslog.games import get_game
from jaslog.play.audit import game_report
from jaslog.play.fold import start_fold
from jaslog.play.render import describe_event


class NotVisible(JaslogError, PermissionError):
    """What was asked for lies in a round this sight may not see yet."""

    code = "not_visible"


# ---------------------------------------------------------------------- the timeline


@dataclass
class Timeline:
    """A game's events folded once: the fold at the head, and the round of every event."""

    events: list[Event]
    fold: GameFold | None
    error: FoldError | None = None
    #: rounds dealt after each event was applied (index = position in ``events``)
    round_of: list[int] = field(default_factory=list)
    #: the round being played at the head (None when no round is live)
    live_round: int | None = None
    #: the rounds whose hands a player may not see: the live round, and every round that
    #: ended with cards unplayed (a ruling, an annulled deal)
    secret_rounds: frozenset[int] = frozenset()

    @property
    def game(self) -> str:
        return self.events[0].game if self.events else ""

    def hidden_round(self, sight: Sight) -> int | None:
        """The live round, when ``sight`` may not see all of it."""
        return None if sight.full else self.live_round

    def hidden_rounds(self, sight: Sight) -> frozenset[int]:
        """The rounds of which ``sight`` may see only the public record (and a seat its own
        hand): none for a full sight, else the secret rounds."""
        return frozenset() if sight.full else self.secret_rounds

    def horizon(self) -> int:
        """The last seq the public may see: everything before the live round's deal."""
        n = self.applied()
        if self.live_round is not None:
            n = next((i for i, r in enumerate(self.round_of) if r >= self.live_round), n)
        return n - 1

    def applied(self) -> int:
        """How many events the fold took (all of them unless an integrity error stopped it)."""
        return len(self.round_of)

    def reasons_hidden(self, sight: Sight) -> bool:
        """Whether ``sight`` sees the referee's rulings without their reasons: the public's,
        until the game is over."""
        return sight.public and not (self.fold is not None and self.fold.state.finished)


def timeline(events: Iterable[Event]) -> Timeline:
    """Fold a game's events (seq order) once, noting the round of each event."""
    evs = list(events)
    tl = Timeline(evs, None)
    if not evs:
        return tl
    try:
        f = start_fold(evs[0])
    except FoldError as e:
        tl.error = e
        return tl
    tl.fold = f
    tl.round_of.append(0)
    for ev in evs[1:]:
        try:
            f.apply(ev)
        except FoldError as err:
            tl.error = err
            break
        tl.round_of.append(f.rounds_dealt())
    n = f.rounds_dealt()
    rounds = f.state.rounds
    if n and not rounds[n - 1].closed:
        tl.live_round = n
    tl.secret_rounds = frozenset(k for k in range(1, n + 1) if not played_out(rounds[k - 1]))
    return tl


# ---------------------------------------------------------------------- what a sight sees


def _dump(e: Event) -> dict[str, Any]:
    return e.model_dump(exclude_none=True)


def seen_of(tl: Timeline, sight: Sight, i: int) -> Seen:
    """What a game's ``redact_event`` is told of the timeline's ``i``-th event for ``sight``."""
    assert tl.fold is not None
    n = tl.round_of[i]
    return Seen(tl.fold, n, n in tl.hidden_rounds(sight), tl.events[i].seq in tl.fold.retracted,
                tl.reasons_hidden(sight))


def visible_events(tl: Timeline, sight: Sight, since: int = 0) -> list[dict[str, Any]]:
    """The game's events as ``sight`` may see them, from seq ``since``: each as the game's
    ``redact_event`` gives it."""
    if sight.full:
        return [_dump(e) for e in tl.events[since:]]
    if tl.fold is None:
        return []
    redact = get_game(tl.fold.game).redact_event
    end = tl.horizon() + 1 if sight.public else tl.applied()
    return [redact(_dump(tl.events[i]), sight, seen_of(tl, sight, i)) for i in range(since, end)]


#: What the public reads for a ruling's reason while the game is being played.
REASON_LATER = "its reason is shown when the game is over"


def without_reasons(obj: Any) -> Any:
    """``obj`` (a frame, a report's round) with the reason of every ruling in it (a dict with
    a ``score`` and a ``reason``) blanked, copied where changed.

    >>> without_reasons({"round": 2, "ruling": {"score": [0, 162], "reason": "revoke", "seq": 9}})
    {'round': 2, 'ruling': {'score': [0, 162], 'reason': None, 'seq': 9}}
    """
    if isinstance(obj, dict):
        out = {k: without_reasons(v) for k, v in obj.items()}
        if "reason" in out and "score" in out:
            out["reason"] = None
        return out
    if isinstance(obj, list):
        return [without_reasons(v) for v in obj]
    return obj


#: the viewer :func:`jaslog.play.render.describe_event` gets for the public in a secret round
#: (no seat: nobody's secrets are shown)
NOBODY = -1


def _describe(fold: GameFold, e: Event, viewer: int | None) -> str:
    return re.sub(r"^seq\s+\d+\s", "", describe_event(fold, e, viewer).plain)


def frames(tl: Timeline, sight: Sight, upto: int | None = None) -> list[dict[str, Any]]:
    """The table after every event the sight may see (up to seq ``upto``), for the viewer."""
    if tl.fold is None:
        return []
    game = get_game(tl.fold.game)
    last = tl.applied() - 1
    if sight.public:
        last = min(last, tl.horizon())
    if upto is not None:
        last = min(last, upto)
    hidden_rounds = tl.hidden_rounds(sight)
    retracted = tl.fold.retracted
    out: list[dict[str, Any]] = []
    f = start_fold(tl.events[0])
    #: retracted events applied and not yet taken back by their correction, and the
    #: table before the first of them (what a seat sees of a secret round meanwhile)
    pending: set[int] = set()
    clean: Frame | None = None
    for i in range(last + 1):
        e = tl.events[i]
        if i:
            f.apply(e)
        _note_pending(pending, e, retracted)
        hidden = tl.round_of[i] in hidden_rounds
        shown = game.frame(f, sight.seat, hidden, tl.fold)
        if pending and hidden and clean is not None:
            # a seat never learns a retracted card of a secret round from the table
            shown = clean
        elif not pending:
            clean = shown
        out.append(_frame_of(tl, sight, f, i, shown, hidden))
    return out


def last_frame(tl: Timeline, sight: Sight, last: int) -> dict[str, Any]:
    """``frames(tl, sight, last)[-1]`` (``last`` within what the sight may see): the game
    folded to ``last`` once, and the table drawn there only (or, while a retracted event of
    a secret round is pending, where nothing was), not after every event before it."""
    if tl.fold is None:
        return frames(tl, sight, last)[-1]
    game = get_game(tl.fold.game)
    hidden_rounds = tl.hidden_rounds(sight)
    retracted = tl.fold.retracted
    f = start_fold(tl.events[0])
    pending: set[int] = set()
    clean_at: int | None = None  # the last event after which nothing retracted was pending
    for i in range(last + 1):
        e = tl.events[i]
        if i:
            f.apply(e)
        _note_pending(pending, e, retracted)
        if not pending:
            clean_at = i
    hidden = tl.round_of[last] in hidden_rounds
    if pending and hidden and clean_at is not None:
        # a seat never learns a retracted card of a secret round from the table
        g = start_fold(tl.events[0])
        for e in tl.events[1:clean_at + 1]:
            g.apply(e)
        shown = game.frame(g, sight.seat, tl.round_of[clean_at] in hidden_rounds, tl.fold)
    else:
        shown = game.frame(f, sight.seat, hidden, tl.fold)
    return _frame_of(tl, sight, f, last, shown, hidden)


def _note_pending(pending: set[int], e: Event, retracted: dict[int, Any]) -> None:
    """Move on the retracted events applied and not yet taken back (``pending``) past
    ``e``."""
    if e.seq in retracted:
        pending.add(e.seq)
    elif e.type == "correction":
        pending -= set(getattr(e, "retracts", ()))


def _frame_of(tl: Timeline, sight: Sight, f: GameFold, i: int, shown: Frame,
              hidden: bool) -> dict[str, Any]:
    """The viewer's frame after the timeline's ``i``-th event (``f``: the game folded to
    it), the table ``shown`` there."""
    e = tl.events[i]
    retracted = tl.fold.retracted if tl.fold is not None else {}
    fr: dict[str, Any] = {k: v for k, v in shown.items()
                          if k not in ("seq", "type", "text", "at", "retracted")}
    fr["seq"], fr["type"] = e.seq, e.type
    viewer = (NOBODY if sight.seat is None else sight.seat) if hidden else None
    fr["text"] = _describe(f, e, viewer)
    by = retracted.get(e.seq)
    if by is not None:
        fr["retracted"] = {"by": by.seq, "reason": None if hidden else by.reason}
        if card_kept(tl, i, sight):
            fr["text"] = kept_card_text(f, e)
    if e.at is not None:
        fr["at"] = e.at
    if hidden and e.type == "note":
        fr["text"] = ("note (shown when the round is over)" if tl.round_of[i] == tl.live_round
                      else "note (not shown: the round ended with cards unplayed)")
    if tl.reasons_hidden(sight):
        fr = without_reasons(fr)
        if e.type == "ruling":
            score = "–".join(map(str, getattr(e, "score", [])))
            fr["text"] = (f"referee: round {getattr(e, 'round', '?')} scores {score} "
                          f"({REASON_LATER})")
    return fr


def claim_as_ruling(tl: Timeline, i: int) -> dict[str, Any]:
    """The timeline's ``i``-th event, a claim (or a concession) of a round secret to a sight,
    as a log without that round's hands holds it: the score it came to, as a ruling that
    says what it was (a game may not score a claim without the hands: the cards left, the
    sides are not known). A shared log and a sight's what-if fold it so."""
    assert tl.fold is not None
    e: Any = tl.events[i]
    n = tl.round_of[i]
    verb = "claimed" if e.gives == "rest_to_claimer" else "conceded"
    return {"game": e.game, "seq": e.seq, "type": "ruling", "round": n,
            "score": list(tl.fold.state.outcomes()[n - 1].final),
            "reason": f"seat {e.seat} {verb} the rest; the cards left are not shown"} | (
        {"at": e.at} if e.at is not None else {})


def card_kept(tl: Timeline, i: int, sight: Sight) -> bool:
    """Whether ``sight`` is kept from a card the timeline's ``i``-th event names (a retracted
    card of a secret round that another seat may still hold), as the game's
    ``redact_event`` says."""
    if sight.full or tl.fold is None or i >= tl.applied():
        return False
    d = _dump(tl.events[i])
    shown = get_game(tl.fold.game).redact_event(d, sight, seen_of(tl, sight, i))
    return any(k in d and k not in shown for k in ("card", "cards"))


def kept_card_text(fold: GameFold, e: Event) -> str:
    """What an event whose card the sight is kept from (:func:`card_kept`) says."""
    seat = getattr(e, "seat", None)
    return e.type + (f" by {fold.seats[seat]} ({seat})" if seat is not None else "") + \
        " (its card is shown when the round is over)"


def state_at(tl: Timeline, seq: int | None, sight: Sight) -> dict[str, Any]:
    """The table after event ``seq`` (default: the last the sight may see)."""
    last = tl.applied() - 1
    if sight.public:
        if seq is not None and seq > tl.horizon():
            raise NotVisible(f"seq {seq} is in round {tl.live_round}, which is still being "
                             "played; the public view shows finished rounds only")
        last = min(last, tl.horizon())
    if seq is not None:
        if seq > last:
            raise IndexError(f"game {tl.game} has no seq {seq} (its last is {last})")
        last = seq
    if last < 0:
        raise IndexError(f"game {tl.game} has no events to show")
    return last_frame(tl, sight, last)


def report(tl: Timeline, sight: Sight) -> dict[str, Any]:
    """The audit (:func:`jaslog.play.audit.game_report`) as ``sight`` may see it."""
    if tl.fold is None:
        return game_report(tl.game or None, None, tl.error)
    if sight.full:
        return game_report(tl.game, tl.fold, tl.error)
    game = get_game(tl.fold.game)
    if sight.public:
        h = tl.horizon()
        f = start_fold(tl.events[0])
        for e in tl.events[1:h + 1]:
            f.apply(e)
        rep = game_report(tl.game, f, None)
        rep["error"] = None
    else:
        rep = game_report(tl.game, tl.fold, tl.error)
    hidden = tl.hidden_rounds(sight)
    if hidden:
        rep["violations"] = [v for v in rep["violations"]
                             if v["round"] not in hidden or violation_seen(v, sight.seat)]
        rep["ok"] = not rep["violations"] and rep["error"] is None
        rep["rounds"] = [game.report_round(r, tl.fold, sight.seat, r["round"] == tl.live_round)
                         if r["round"] in hidden else r for r in rep["rounds"]]
        rep["retracted"] = [_retracted_seen(x, sight, tl) if x["round"] in hidden
                            else x for x in rep["retracted"]]
        # the scorer's free text of a secret round may name cards, as a note's may
        rep["irregularities"] = [_untold(x, hidden) for x in rep["irregularities"]]
        for r in rep["rounds"]:
            if "irregularities" in r:
                r["irregularities"] = [_untold(x, hidden) for x in r["irregularities"]]
    if tl.reasons_hidden(sight):
        rep["rounds"] = without_reasons(rep["rounds"])
    return rep


def _untold(x: dict[str, Any], hidden: frozenset[int]) -> dict[str, Any]:
    """An irregularity of a secret round without the scorer's text."""
    return x | {"text": None} if x["round"] in hidden and x["text"] is not None else x


def _retracted_seen(x: dict[str, Any], sight: Sight, tl: Timeline) -> dict[str, Any]:
    """A report's retracted event of a secret round as ``sight`` may see it."""
    assert tl.fold is not None
    seen = Seen(tl.fold, x["round"], True, True, tl.reasons_hidden(sight))
    ev = get_game(tl.fold.game).redact_event(x["event"], sight, seen)
    x = x | {"reason": None}  # the correction's free text, as a note's
    if not ev.get("redacted"):
        return x
    who = f" by seat {ev['seat']}" if ev.get("seat") is not None else ""
    return x | {"event": ev, "what": ev["type"] + who}
