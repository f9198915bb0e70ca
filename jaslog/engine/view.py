"""What a viewer of a game may see, shared by every game's ``view`` module.

A game decides what a seat, the referee or the public sees in one place, its ``view``
module: the table now (``seat_view(fold, viewer, secret=...)``, :class:`SeatView`), the
report's entry of a secret round (``report_round``, over :func:`live_round` and
:func:`ended_round`) and each event (``redact_event(event, sight, seen)``, built on
:func:`redact_common` here). The viewer's frames, the events every route shows (the
service's API, ``replay --seat``, a shared log, the notation) and the report's secret rounds
are composed from those here and in :mod:`jaslog.play.views`, which never decide what a game
hides: this module names no game's call, sequence, bella, knock or side.

Which rounds are secret is one rule for every game (:func:`played_out`): the round being
played, and a round that ended before its last card (abandoned by a ruling, annulled in the
bidding, claimed or conceded), whose unplayed cards are thrown in unseen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NotRequired, Protocol, TypedDict

from jaslog.engine.common import VERDICTS_ON_ALL_HANDS
from jaslog.engine.fold import GameFold


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

#: whom a game's ``seat_view`` shows the table: a seat (an int), the referee (None) or a
#: :class:`Sight` (:data:`PUBLIC`: the public, who sees no seat's secrets)
Viewer = int | Sight | None


def viewer_of(viewer: Viewer) -> Sight:
    """The sight a game's ``seat_view`` is asked for (see :data:`Viewer`).

    >>> viewer_of(2), viewer_of(None).full, viewer_of(PUBLIC).public
    (Sight(seat=2, public=False), True, True)
    """
    return viewer if isinstance(viewer, Sight) else Sight(seat=viewer)


class SeatView(Protocol):
    """A game's one visibility rule for the table: ``seat_view(fold, viewer, secret=...)``,
    the table now as ``viewer`` may see it (:data:`Viewer`). A seat sees its own hand and
    what the table saw, the referee everything, the public no seat's secrets at all (no
    hand, no legal card, no verdict on a hidden hand, nothing one hand alone tells).
    ``secret``: the round is secret to the viewer at the head (live, or ended with cards
    unplayed), though the fold (a point in its middle) may look played out."""

    def __call__(self, fold: GameFold, viewer: Viewer = None, /, *,
                 secret: bool = False) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Seen:
    """What :func:`redact_common` (a game's ``redact_event``) is told of an event beside it:
    ``head`` the game now (a sight is judged at the head), ``round`` the round the event
    belongs to (0: before the first deal), ``secret`` whether that round is secret to the
    sight (live, or ended with cards unplayed), ``retracted`` whether a correction retracts
    the event, ``reasons_hidden`` whether a ruling's reason is kept from the sight (the
    public's, until the game is over)."""

    head: GameFold
    round: int
    secret: bool
    retracted: bool = False
    reasons_hidden: bool = False


#: A game's one rule of what a sight sees of an event: ``redact_event(event, sight, seen)``
#: (the event as a dict, as logged); the copy it returns says ``redacted`` when something
#: was left out.
RedactEvent = Callable[[dict[str, Any], Sight, Seen], dict[str, Any]]


class PlayedRound(Protocol):
    """What :func:`played_out` reads of a round, every game's (a claim, when the game has
    claims, is its ``claim``)."""

    @property
    def over(self) -> bool: ...


def played_out(r: PlayedRound) -> bool:
    """Whether every card of round ``r`` was played: its hands are then public knowledge. A
    claim (or a concession) ends the play before the last card, so a claimed round keeps
    its unplayed cards secret, as a round abandoned by a ruling does."""
    return bool(r.over) and getattr(r, "claim", None) is None


def violation_seen(v: dict[str, Any], seat: int | None) -> bool:
    """Whether ``seat`` (None: the public) sees violation ``v`` of a secret round: its own,
    but for a verdict that weighs every hand."""
    return seat is not None and v["seat"] == seat and v["rule"] not in VERDICTS_ON_ALL_HANDS


#: what the report's entry of a secret round keeps in every game: what the table saw (a
#: game adds its own, :func:`live_round` and :func:`ended_round`)
TABLE_ROUND = ("round", "dealer", "tricks", "points", "tricks_won", "ruling")

#: what every round report holds beside the game's own (jaslog.engine.facts): the public
#: record of the table (how it was recorded, every ruling, the irregularities, the sheet, a
#: claim of the rest)
RECORD = ("recorded", "hands_recorded", "rulings", "irregularities", "final", "totals", "claim")


#: The scorer's free text of each event type that has one: in a secret round it is left out
#: (it may name cards), as a note's text is.
FREE_TEXT = {"note": "text", "correction": "reason", "irregularity": "text"}


def hide_retracted(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """A retracted event of a secret round as ``seat`` may see it (None: the public): the
    scorer's typo without its card (a card played by mistake in the record may still be in
    its holder's hand), but to the seat that holds it; an irregularity's cards were shown at
    the table and stay.

    >>> hide_retracted({"seq": 9, "type": "play", "seat": 1, "card": "AH"}, 2)
    {'seq': 9, 'type': 'play', 'seat': 1, 'redacted': True}
    """
    if event["type"] == "irregularity" or (seat is not None and event.get("seat") == seat):
        return event
    if "card" not in event and "cards" not in event:
        return event
    return {k: v for k, v in event.items() if k not in ("card", "cards")} | {"redacted": True}


def redact_common(event: dict[str, Any], sight: Sight, seen: Seen) -> dict[str, Any]:
    """What every game hides of an event (a game's ``redact_event`` adds its own rules):
    nothing from the referee; of a secret round, another's hands in a deal, the scorer's
    free text (a note's, a correction's reason, an irregularity's text: it may name cards)
    and a retracted card but to its holder; a ruling's reason while ``seen.reasons_hidden``."""
    if sight.full:
        return event
    t = event["type"]
    if seen.secret:
        if t in ("dealt", "second_deal") and event.get("hands") is not None:
            event = event | {"hands": [h if s == sight.seat else None
                                       for s, h in enumerate(event["hands"])], "redacted": True}
        free = FREE_TEXT.get(t)
        if free is not None and free in event:
            event = {k: v for k, v in event.items() if k != free} | {"redacted": True}
        if seen.retracted:
            event = hide_retracted(event, sight.seat)
    if t == "ruling" and seen.reasons_hidden:
        event = event | {"reason": None}
    return event


def claim_seen(claim: dict[str, Any] | None) -> dict[str, Any] | None:
    """A report's claim of the rest in a secret round: who claimed what, from which trick and
    the points it gave (the score sheet shows them), never the cards it gave nor the solver's
    verdict (both tell the unplayed hands).

    >>> c = claim_seen({"seq": 9, "seat": 1, "gives": "rest_to_claimer", "trick": 7, "tricks": 2,
    ...                 "cards": ["7C"], "points": 21, "taker": 1, "guaranteed": False})
    >>> c["cards"], c["guaranteed"], c["points"]
    (None, None, 21)
    """
    if claim is None:
        return None
    return claim | {"cards": None, "guaranteed": None}


#: the result a sight that may not see a claimed round whole reads for it (the one its hands
#: would tell, a revoke's, stays unsaid; the score sheet shows what counts)
CLAIMED = "claimed"


def claimed_round(entry: dict[str, Any]) -> dict[str, Any]:
    """What a report's entry of a secret round says of its claim: the claim without what
    tells the unplayed hands (:func:`claim_seen`) and, when a claim ended it, the result
    :data:`CLAIMED`."""
    claim = entry.get("claim")
    if claim is None:
        return {"claim": None} if "claim" in entry else {}
    return {"claim": claim_seen(claim), "result": CLAIMED}


def live_round(entry: dict[str, Any], view: dict[str, Any], shown: Iterable[str],
               players: int) -> dict[str, Any]:
    """The report's entry of the live round as a seat may see it: what the table saw
    (:data:`TABLE_ROUND`, :data:`RECORD`), unfinished and unscored, and the keys ``shown``
    of the game's ``view`` of the table as that seat sees it (the game names them)."""
    keep = {*TABLE_ROUND, *RECORD}
    out = {k: val for k, val in entry.items() if k in keep}
    out.update(result="unfinished", score=[0] * players, hidden=True)
    for k in shown:
        if k in view:
            out[k] = view[k]
    return out | claimed_round(out)


def ended_round(entry: dict[str, Any], shown: Iterable[str]) -> dict[str, Any]:
    """The report's entry of a round that ended with cards unplayed as a seat or the public
    may see it: what the table saw (:data:`TABLE_ROUND`, :data:`RECORD`, and the game's
    keys ``shown``, which the game then trims of what tells a hand), its result and score
    (the sheet's) and its claim without what tells the unplayed hands."""
    keep = {*TABLE_ROUND, *RECORD, *shown}
    out = {k: val for k, val in entry.items() if k in keep}
    out.update(result=entry.get("result"), score=entry.get("score"), hidden=True)
    return out | claimed_round(out)


def secret_view(seat_view: SeatView, fold: GameFold, keep: int | None, hidden: bool) -> dict[str, Any]:
    """The seat view behind a frame, every game's: ``hidden`` (a secret round), what the
    game's ``seat_view`` shows seat ``keep`` of a secret round (None: the public), never
    another's hand nor a legal card but to the seat to act nor a verdict on a hand the
    sight may not see; otherwise the referee's view (a round played out is public, also
    seen from the middle of it)."""
    if not hidden:
        return dict(seat_view(fold, None))
    v = dict(seat_view(fold, PUBLIC if keep is None else keep, secret=True))
    for k in ("hands", "dealt"):
        if isinstance(v.get(k), list):
            v[k] = [h if s == keep else None for s, h in enumerate(v[k])]
    if v.get("turn") != keep or keep is None:
        v["legal"] = None
    v["violations"] = [x for x in v.get("violations") or [] if violation_seen(x, keep)]
    return v


class Frame(TypedDict):
    """The viewer's frame of the table after one event (a game's ``frame``), every game's
    keys: the round and trick, who deals, trumps and who chose them, the bidding, what is
    expected of whom, the hands as the sight may see them (None: not seen) and their
    counts, the legal cards of the seat to act (to that seat only), the trick on the table,
    the round's tricks, points and roem so far, its result and score once over, its
    ruling, the violations the sight may see, the game's totals and winner.
    ``trump_note`` and ``extra`` (the game's own keys of its seat view, shown as they are)
    are those of a frame built by :func:`seat_view_frame`; ``roem_on_table`` a game's with
    roem on the table."""

    round: int
    trick: int
    dealer: int | None
    trump: str | None
    chooser: int | None
    proposed: str | None
    turned: list[str]
    bids: list[dict[str, Any]]
    expects: str
    turn: int | None
    hands: list[list[str] | None]
    counts: list[int]
    hands_known: bool
    legal: list[str] | None
    leader: int | None
    table: list[dict[str, Any]]
    trick_complete: bool
    trick_winner: int | None
    tricks_won: list[int]
    points: list[int]
    roem: list[int] | None
    round_over: bool
    result: str | None
    score: list[int] | None
    ruling: dict[str, Any] | None
    violations: list[dict[str, Any]]
    totals: list[int]
    finished: bool
    winner: int | str | None
    trump_note: NotRequired[str | None]
    extra: NotRequired[dict[str, Any]]
    roem_on_table: NotRequired[list[int]]


def seat_view_frame(v: dict[str, Any], trump_note: str | None, extra: Iterable[str],
                    bids: list[dict[str, Any]] | None = None) -> Frame:
    """The viewer's frame of the table now, from what a game's ``seat_view`` shows
    (:func:`secret_view`: so this never decides what a game hides): ``extra``, the keys of
    the view the viewer shows as they are; ``bids``, what the viewer lists as the bidding
    (default the view's ``bids``)."""
    tricks = v.get("tricks") or []
    cur = tricks[-1] if tricks else None
    bids = list(v.get("bids") or []) if bids is None else bids
    hands = v["hands"]
    fr: Frame = {
        "round": v["round"], "trick": cur["number"] if cur else 0, "dealer": v["dealer"],
        "trump": v.get("trump"), "trump_note": trump_note, "chooser": v.get("maker"),
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
    fr["extra"] = {k: v[k] for k in extra if k in v}
    return fr
