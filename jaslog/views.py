"""Who may see what: a game as a referee, a player at one seat, or the public sees it.

This is the single place where the service's API and its web viewer get a game's events,
its table at any seq (``frames``) and its audit for someone who is not allowed to see
everything. A :class:`Sight` says who is looking:

* ``Sight()`` (the referee, a table's scorer): every hand, every event;
* ``Sight(seat=n)`` (a player): while cards of a round remain unplayed, only that seat's own
  hand, the cards played and the public record; every hand once all its cards are played;
* ``Sight(public=True)``: only finished rounds; nothing of the round being played, and no
  hand of a round that ended before all its cards were played.

Both are judged at the game's head. The round being played is *live*. A round whose every
card was played is public knowledge (its hands are shown), even when viewed at a seq from
the middle of it. A round that ended with cards still unplayed (abandoned by a referee's
ruling, a Klaberjass deal annulled in the bidding) stays *secret* for good, as at the table
where such hands are thrown in unseen: :attr:`Timeline.secret_rounds` holds the live round
and those. Each game registers a :class:`GameView` in :data:`VIEWS` that knows how its
state is shown and what a seat may not see (Kloepper hides partnerships); a game without
one has no per-seat view (:class:`NoView`) rather than a leaky one.

>>> from jaslog.sim import simulate_game
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
from typing import Any, Protocol

from jaslog.audit import game_report, violation_dict
from jaslog.cards import CARD_TEXT, SUIT_LETTERS, cards_of
from jaslog.events import Event
from jaslog.fold import FoldError, GameFold, start_fold
from jaslog.render import describe_event


@dataclass(frozen=True, slots=True)
class Sight:
    """Who is looking: ``seat`` (a player; None: every hand) and ``public`` (finished rounds only)."""

    seat: int | None = None
    public: bool = False

    @property
    def full(self) -> bool:
        return self.seat is None and not self.public


FULL = Sight()
PUBLIC = Sight(public=True)


class NoView(LookupError):
    """The game has no registered per-seat view: nothing is shown rather than too much."""


class NotVisible(PermissionError):
    """What was asked for lies in a round this sight may not see yet."""


class GameView(Protocol):
    """How one game is shown. Registered in :data:`VIEWS` by game name."""

    def round_over(self, fold: GameFold, number: int) -> bool:
        """Whether round ``number`` (from 1) is over in this fold (played out or not)."""
        ...

    def played_out(self, fold: GameFold, number: int) -> bool:
        """Whether every card of round ``number`` was played in this fold."""
        ...

    def frame(self, fold: GameFold, sight: Sight, hidden: bool, head: GameFold) -> dict[str, Any]:
        """The table now. ``hidden``: the current round is secret at the head (live, or ended
        with cards unplayed) and ``sight`` must not see other seats' secrets in it (a seat's
        own, or nobody's for the public); ``head`` is the fold at the game's head."""
        ...

    def redact(self, event: dict[str, Any], seat: int | None, head: GameFold,
               number: int) -> dict[str, Any]:
        """An event of secret round ``number`` as ``seat`` may see it (None: nobody's secrets,
        the public); ``head`` is the game now."""
        ...

    def report_round(self, entry: dict[str, Any], head: GameFold, seat: int | None,
                     live: bool) -> dict[str, Any]:
        """The audit's entry of a secret round as ``seat`` may see it (None: the public):
        the live round (``live``), or one that ended with cards unplayed."""
        ...

    def hide_violation(self, v: dict[str, Any], seat: int | None) -> bool:
        """Whether a violation of a secret round is hidden from ``seat`` (None: the public)."""
        ...


#: The view of each game, by game name.
VIEWS: dict[str, GameView] = {}


def register_view(game: str, view: GameView) -> None:
    VIEWS[game] = view


def view_of(fold: GameFold) -> GameView:
    v = VIEWS.get(fold.game)
    if v is None:
        raise NoView(f"there is no per-seat view for {fold.game} games yet")
    return v


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
    view = VIEWS.get(f.game)
    if n and view is not None and not view.round_over(f, n):
        tl.live_round = n
    elif n and view is None:
        tl.live_round = n  # unknown games: treat the last round as live (show less, not more)
    tl.secret_rounds = frozenset(k for k in range(1, n + 1)
                                 if view is None or not view.played_out(f, k))
    return tl


# ---------------------------------------------------------------------- what a sight sees


def _dump(e: Event) -> dict[str, Any]:
    return e.model_dump(exclude_none=True)


def visible_events(tl: Timeline, sight: Sight, since: int = 0) -> list[dict[str, Any]]:
    """The game's events as ``sight`` may see them, from seq ``since``."""
    if sight.full:
        return [_dump(e) for e in tl.events[since:]]
    if tl.fold is None:
        return []
    view = view_of(tl.fold)
    hidden = tl.hidden_rounds(sight)
    end = tl.horizon() + 1 if sight.public else tl.applied()
    out = []
    for i, e in enumerate(tl.events[since:end], since):
        d = _dump(e)
        if tl.round_of[i] in hidden:
            d = view.redact(d, sight.seat, tl.fold, tl.round_of[i])
        elif "stock" in d:
            # a Klaberjass stock is never shown but to the referee: also once its deal is
            # played out, most of it was never dealt and nobody at the table saw it
            d = {k: v for k, v in d.items() if k != "stock"} | {"redacted": True}
        out.append(d)
    return out


#: the viewer :func:`jaslog.render.describe_event` gets for the public in a secret round
#: (no seat: nobody's secrets are shown)
NOBODY = -1


def _describe(fold: GameFold, e: Event, viewer: int | None) -> str:
    return re.sub(r"^seq\s+\d+\s", "", describe_event(fold, e, viewer).plain)


def frames(tl: Timeline, sight: Sight, upto: int | None = None) -> list[dict[str, Any]]:
    """The table after every event the sight may see (up to seq ``upto``), for the viewer."""
    if tl.fold is None:
        return []
    view = view_of(tl.fold)
    last = tl.applied() - 1
    if sight.public:
        last = min(last, tl.horizon())
    if upto is not None:
        last = min(last, upto)
    hidden_rounds = tl.hidden_rounds(sight)
    out: list[dict[str, Any]] = []
    f = start_fold(tl.events[0])
    for i in range(last + 1):
        e = tl.events[i]
        if i:
            f.apply(e)
        hidden = tl.round_of[i] in hidden_rounds
        fr = view.frame(f, sight, hidden, tl.fold)
        fr["seq"], fr["type"] = e.seq, e.type
        viewer = (NOBODY if sight.seat is None else sight.seat) if hidden else None
        fr["text"] = _describe(f, e, viewer)
        if e.at is not None:
            fr["at"] = e.at
        if hidden and e.type == "note":
            fr["text"] = ("note (shown when the round is over)" if tl.round_of[i] == tl.live_round
                          else "note (not shown: the round ended with cards unplayed)")
        out.append(fr)
    return out


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
    return frames(tl, sight, last)[-1]


def report(tl: Timeline, sight: Sight) -> dict[str, Any]:
    """The audit (:func:`jaslog.audit.game_report`) as ``sight`` may see it."""
    if tl.fold is None:
        return game_report(tl.game or None, None, tl.error)
    if sight.full:
        return game_report(tl.game, tl.fold, tl.error)
    view = view_of(tl.fold)
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
                             if v["round"] not in hidden or not view.hide_violation(v, sight.seat)]
        rep["ok"] = not rep["violations"] and rep["error"] is None
        rep["rounds"] = [view.report_round(r, tl.fold, sight.seat, r["round"] == tl.live_round)
                         if r["round"] in hidden else r for r in rep["rounds"]]
    return rep


# ---------------------------------------------------------------------- Klaverjas


def _redact_common(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """A deal's other hands and a note's text (free text may name cards) are left out."""
    t = event["type"]
    if t in ("dealt", "second_deal") and (event.get("hands") is not None or "stock" in event):
        out = {k: v for k, v in event.items() if k != "stock"}
        if event.get("hands") is not None:
            out["hands"] = [h if s == seat else None for s, h in enumerate(event["hands"])]
        return out | {"redacted": True}
    if t == "note":
        return {k: v for k, v in event.items() if k != "text"} | {"redacted": True}
    return event


def _cards(mask: int) -> list[str]:
    return [CARD_TEXT[c] for c in cards_of(mask)]


class KlaverjasView:
    """Klaverjas: the hands are the only secret; partnerships are fixed by the seats."""

    def round_over(self, fold: GameFold, number: int) -> bool:
        return bool(fold.state.rounds[number - 1].closed)

    def played_out(self, fold: GameFold, number: int) -> bool:
        return bool(fold.state.rounds[number - 1].over)

    def redact(self, event: dict[str, Any], seat: int | None, head: GameFold,
               number: int) -> dict[str, Any]:
        return _redact_common(event, seat)

    def report_round(self, entry: dict[str, Any], head: GameFold, seat: int | None,
                     live: bool) -> dict[str, Any]:
        return entry  # tricks, points and claimed roem are what the table saw

    def hide_violation(self, v: dict[str, Any], seat: int | None) -> bool:
        return seat is None or bool(v["seat"] != seat)

    def frame(self, fold: GameFold, sight: Sight, hidden: bool, head: GameFold) -> dict[str, Any]:
        g = fold.state
        kind, turn = g.expected()
        fr: dict[str, Any] = {
            "round": 0, "trick": 0, "dealer": None, "trump": None, "chooser": None,
            "proposed": None, "turned": [], "bids": [], "expects": kind, "turn": turn,
            "hands": [None] * 4, "counts": [0] * 4, "hands_known": False, "legal": None,
            "leader": None, "table": [], "trick_complete": False, "trick_winner": None,
            "tricks_won": [0, 0], "points": [0, 0], "roem": [0, 0], "round_over": False,
            "result": None, "score": None, "ruling": None, "violations": [],
            "totals": g.totals(), "finished": g.finished, "winner": g.winner,
        }
        if not g.rounds:
            return fr
        r = g.rounds[-1]
        sel = r.selection
        fr.update({
            "round": r.number, "dealer": r.dealer,
            "trump": SUIT_LETTERS[r.trump] if r.trump is not None else None,
            "chooser": r.chooser,
            "proposed": SUIT_LETTERS[sel.proposed] if sel.proposed is not None else None,
            "turned": list(sel.turned),
            "bids": [{"seat": s, "call": c} for s, c in sel.bids],
            "round_over": r.closed,
        })
        # the hands now: as recorded, or (hands not recorded, round over at the head)
        # the head's rebuilt deal less what has been played so far
        hands: list[int] | None = list(r.hands) if r.hands_known else None
        if hands is None and head.state.rounds[r.number - 1].closed:
            dealt = head.state.rounds[r.number - 1].dealt
            if dealt is not None:
                hands = [h & ~r.played for h in dealt]
        if hands is not None:
            fr["hands_known"] = True
            fr["counts"] = [h.bit_count() for h in hands]
            fr["hands"] = [_cards(h) if not hidden or s == sight.seat else None
                           for s, h in enumerate(hands)]
        else:
            played = [0, 0, 0, 0]
            for t in r.tricks:
                for i in range(len(t.cards)):
                    played[t.seat_of(i)] += 1
            fr["counts"] = [8 - p for p in played]
        if kind == "play" and turn is not None and fr["hands"][turn] is not None and r.hands_known:
            mask = g.legal_plays()
            fr["legal"] = _cards(mask)
        t = r.tricks[-1] if r.tricks else None
        if t is not None:
            fr["trick"] = t.number
            fr["leader"] = t.leader
            fr["table"] = [{"seat": t.seat_of(i), "card": CARD_TEXT[c]} for i, c in enumerate(t.cards)]
            fr["trick_complete"] = t.complete
            fr["trick_winner"] = t.winner if t.complete else None
        o = r.outcome(g.score_rules, g.claimed_mode)
        fr["tricks_won"] = o.tricks
        fr["points"] = o.points
        fr["roem"] = o.roem
        fr["roem_on_table"] = o.roem_on_table
        if r.over:
            fr["result"], fr["score"] = o.result, o.score
        if r.ruling is not None:
            fr["ruling"] = {"score": r.ruling.score, "reason": r.ruling.reason, "seq": r.ruling.seq}
        vs = [violation_dict(v) for v in sorted(r.violations, key=lambda v: v.seq)]
        if hidden and sight.seat is not None:
            vs = [v for v in vs if not self.hide_violation(v, sight.seat)]
        elif hidden:
            vs = []
        fr["violations"] = vs
        return fr


register_view("klaverjas", KlaverjasView())


# ---------------------------------------------------------------------- Klaberjass, Kloepper


class SeatViewGame:
    """A game whose fold layer has its own ``seat_view(fold, seat)`` (Klaberjass, Kloepper:
    hidden stock, hidden declarations, hidden partnerships): the frames are built from it,
    so this module never decides what those games hide during a live deal."""

    #: seat_view keys shown by the viewer as they are
    EXTRA = ("sides", "revealed", "side_points", "call", "knocks", "turn_up", "bottom", "dix",
             "declarations", "bella_calls", "elder", "annulled", "maker")

    def __init__(self, game: str, seat_view: Any, trump_note: str | None = None) -> None:
        self.game, self.seat_view, self.trump_note = game, seat_view, trump_note

    def round_over(self, fold: GameFold, number: int) -> bool:
        return bool(fold.state.rounds[number - 1].closed)

    def played_out(self, fold: GameFold, number: int) -> bool:
        return bool(fold.state.rounds[number - 1].over)

    def hide_violation(self, v: dict[str, Any], seat: int | None) -> bool:
        return seat is None or bool(v["seat"] != seat)

    def redact(self, event: dict[str, Any], seat: int | None, head: GameFold,
               number: int) -> dict[str, Any]:
        if event["type"] == "sequence" and event.get("seat") != seat:
            r = head.state.rounds[number - 1]
            # at the table the cards of a sequence are shown once the first trick is over
            shown = len(r.tricks) >= 2 or bool(r.tricks and r.tricks[0].complete)
            if not shown:  # its length only
                return {k: v for k, v in event.items() if k != "cards"} | {
                    "length": len(event["cards"]), "redacted": True}
        return _redact_common(event, seat)

    #: what the audit's entry of a secret round keeps: what the table saw
    PUBLIC_ROUND = ("round", "dealer", "elder", "turn_up", "bids", "trump", "chooser", "annulled",
                    "bottom", "dix", "tricks", "points", "tricks_won", "ruling", "call", "knocks",
                    "bella_calls", "declarations")

    def report_round(self, entry: dict[str, Any], head: GameFold, seat: int | None,
                     live: bool) -> dict[str, Any]:
        if live:
            assert seat is not None  # the public never sees the live round
            v = self.seat_view(head, seat)
            keep = {"round", "dealer", "tricks", "points", "tricks_won", "ruling"}
            out = {k: val for k, val in entry.items() if k in keep}
            out.update(result="unfinished", score=[0] * len(head.seats), hidden=True)
            for k in ("sides", "call", "knocks", "bids", "trump", "turn_up", "bottom"):
                if k in v:
                    out[k] = v[k]
            return out
        # a round that ended with cards unplayed: its public record, and the seat's own
        # declarations; never a hand, a verdict on a call or a knock, or the sides
        out = {k: val for k, val in entry.items() if k in self.PUBLIC_ROUND}
        tricks = entry.get("tricks") or []
        shown = len(tricks) >= 2 or bool(tricks and tricks[0].get("winner") is not None)
        if "call" in out and out["call"] is not None:
            out["call"] = {"seat": out["call"]["seat"], "call": out["call"]["call"]}
        if "knocks" in out:
            out["knocks"] = [{"seat": k["seat"], "back": k["back"]} for k in out["knocks"]]
        if "bella_calls" in out:
            out["bella_calls"] = [{"seat": b["seat"]} for b in out["bella_calls"]]
        if "declarations" in out:
            out["declarations"] = [
                d if d["seat"] == seat else
                {"seat": d["seat"], "length": len(d["cards"])} | (
                    {"sequence": d["sequence"], "cards": d["cards"]} if shown else {})
                for d in out["declarations"]]
        out.update(result=entry.get("result"), score=entry.get("score"), hidden=True)
        return out

    def _view(self, fold: GameFold, sight: Sight, hidden: bool) -> dict[str, Any]:
        """The seat view behind a frame. In a secret round a seat's view shows that seat's
        hand only (whatever the game's view would show of a round that ended with cards
        unplayed), and the public's view no seat's secrets at all."""
        if not hidden:
            return dict(self.seat_view(fold, None))
        keep = sight.seat
        v = dict(self.seat_view(fold, 0 if keep is None else keep))
        for k in ("hands", "dealt"):
            if isinstance(v.get(k), list):
                v[k] = [h if s == keep else None for s, h in enumerate(v[k])]
        if v.get("expects") == "call" and (keep is None or v.get("turn") != keep):
            # Kloepper: a partner call is awaited only from a player holding both black
            # queens, so "call" (and its seat) would tell the others who that is before the
            # call or the cards do; to them the forehand is to lead (any card: its hand)
            lead = v.get("forehand")
            v["expects"], v["turn"] = "play", lead
            if keep is not None and lead == keep and isinstance(v.get("hands"), list):
                v["legal"] = v["hands"][keep]
        if v.get("turn") != keep or keep is None:
            v["legal"] = None
        v["violations"] = [x for x in v.get("violations") or [] if keep is not None and x["seat"] == keep]
        if keep is None:
            # the declarations of seat 0 as the other player sees them; no sides
            other = self.seat_view(fold, 1)["declarations"] if v.get("declarations") else []
            v["declarations"] = [b if a["seat"] == 0 else a
                                 for a, b in zip(v.get("declarations") or [], other, strict=True)]
            if "sides" in v:
                v.update(sides=[None] * len(v["sides"]), revealed=False, side_points=None)
        for d in v.get("declarations") or []:
            if d["seat"] != keep:
                d.pop("valid", None)
        v["bella_calls"] = [{"seat": b["seat"]} | ({"valid": b["valid"]} if "valid" in b and
                                                   b["seat"] == keep else {})
                            for b in v.get("bella_calls") or []]
        return v

    def frame(self, fold: GameFold, sight: Sight, hidden: bool, head: GameFold) -> dict[str, Any]:
        v = self._view(fold, sight, hidden)
        tricks = v.get("tricks") or []
        cur = tricks[-1] if tricks else None
        bids = list(v.get("bids") or [])
        if v.get("call"):
            bids.append({"seat": v["call"]["seat"], "call": f"calls {v['call']['call']}"})
        for k in v.get("knocks") or []:
            bids.append({"seat": k["seat"], "call": "knocks back" if k["back"] else "knocks"})
        hands = v["hands"]
        fr: dict[str, Any] = {
            "round": v["round"], "trick": cur["number"] if cur else 0, "dealer": v["dealer"],
            "trump": v.get("trump"), "trump_note": self.trump_note, "chooser": v.get("maker"),
            "proposed": None, "turned": [v["turn_up"]] if v.get("turn_up") else [],
            "bids": bids, "expects": v["expects"], "turn": v["turn"], "hands": hands,
            "counts": v["counts"], "hands_known": any(h is not None for h in hands),
            "legal": v["legal"], "leader": cur["leader"] if cur else None,
            "table": cur["cards"] if cur else [],
            "trick_complete": bool(cur and cur["winner"] is not None),
            "trick_winner": cur["winner"] if cur else None, "tricks_won": v["tricks_won"],
            "points": v["points"], "roem": None, "round_over": bool(v["round"]) and not v["live"],
            "result": v["result"], "score": v["score"], "ruling": v["ruling"],
            "violations": v["violations"], "totals": v["totals"], "finished": v["finished"],
            "winner": v["winner"],
        }
        fr["extra"] = {k: v[k] for k in self.EXTRA if k in v}
        return fr


def _register_seat_view_games() -> None:
    from jaslog.fold import klaberjass, kloepper

    register_view("klaberjass", SeatViewGame("klaberjass", klaberjass.seat_view))
    register_view("kloepper", SeatViewGame("kloepper", kloepper.seat_view,
                                           trump_note="permanent trumps: black queens, jacks, diamonds"))


_register_seat_view_games()
