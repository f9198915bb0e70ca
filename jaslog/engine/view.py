"""What a viewer of a game may see, shared by every game's ``view`` module.

A game decides what a seat (or the public) sees in one place, its ``view`` module: the table
now (``seat_view(fold, seat)``) and each event (``redact_event(event, sight, seen)``, built on
:func:`redact_common` here). The viewer's frames, the events every route shows (the
service's API, ``replay --seat``, a shared log, the notation) and the report's secret rounds
are composed from those two here and in :mod:`jaslog.play.views`, which never decide what a game
hides.

Which rounds are secret is one rule for every game (:func:`played_out`): the round being
played, and a round that ended before its last card (abandoned by a ruling, annulled in the
bidding, claimed or conceded), whose unplayed cards are thrown in unseen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jaslog.engine.common import VERDICTS_ON_ALL_HANDS
from jaslog.engine.fold import GameFold

#: The table as ``seat`` may see it now (None: the referee, who sees everything).
SeatView = Callable[[GameFold, "int | None"], dict[str, Any]]


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


def played_out(r: Any) -> bool:
    """Whether every card of round ``r`` was played: its hands are then public knowledge. A
    claim (or a concession) ends the play before the last card, so a claimed round keeps
    its unplayed cards secret, as a round abandoned by a ruling does."""
    return bool(r.over) and getattr(r, "claim", None) is None


#: seat_view keys shown by the viewer as they are
EXTRA = ("sides", "revealed", "side_points", "call", "knocks", "turn_up", "bottom", "dix",
         "declarations", "bella_calls", "elder", "annulled", "maker")


def violation_seen(v: dict[str, Any], seat: int | None) -> bool:
    """Whether ``seat`` (None: the public) sees violation ``v`` of a secret round: its own,
    but for a verdict that weighs every hand."""
    return seat is not None and v["seat"] == seat and v["rule"] not in VERDICTS_ON_ALL_HANDS


#: what the audit's entry of a secret round keeps: what the table saw
PUBLIC_ROUND = ("round", "dealer", "elder", "turn_up", "bids", "trump", "chooser", "annulled",
                "bottom", "dix", "tricks", "points", "tricks_won", "ruling", "call", "knocks",
                "bella_calls", "declarations")

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


def sequence_shown(r: Any) -> bool:
    """Whether the cards of a declared sequence are shown at the table in round ``r`` (a
    round of the game now): once its first trick is over. A round abandoned before that
    never showed them; a round played out shows everything."""
    return played_out(r) or len(r.tricks) >= 2 or bool(r.tricks and r.tricks[0].complete)


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


def secret_round(seat_view: SeatView, entry: dict[str, Any], head: GameFold, seat: int | None,
                 live: bool) -> dict[str, Any]:
    """The report's entry of a secret round as ``seat`` may see it (None: the public): the
    live round (``live``: what ``seat_view`` shows the seat), or one that ended with cards
    unplayed (its public record, and the seat's own declarations)."""
    if live:
        assert seat is not None  # the public never sees the live round
        v = seat_view(head, seat)
        keep = {"round", "dealer", "tricks", "points", "tricks_won", "ruling", *RECORD}
        out = {k: val for k, val in entry.items() if k in keep}
        out.update(result="unfinished", score=[0] * len(head.seats), hidden=True)
        for k in ("sides", "call", "knocks", "bids", "trump", "turn_up", "bottom"):
            if k in v:
                out[k] = v[k]
        return out | claimed_round(out)
    # a round that ended with cards unplayed: its public record, and the seat's own
    # declarations; never a hand, a verdict on a call or a knock, or the sides
    out = {k: val for k, val in entry.items() if k in PUBLIC_ROUND or k in RECORD}
    r = head.state.rounds[entry["round"] - 1]
    shown = sequence_shown(r)
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
    return out | claimed_round(out)


def secret_view(seat_view: SeatView, fold: GameFold, keep: int | None, hidden: bool) -> dict[str, Any]:
    """The seat view behind a frame, every game's: ``hidden`` (a secret round), the view of
    seat ``keep`` showing that seat's hand only (whatever the game's view would show of a
    round that ended with cards unplayed), and for the public (``keep`` None) no seat's
    secrets at all; otherwise the referee's view (a round played out is public, also seen
    from the middle of it)."""
    if not hidden:
        return dict(seat_view(fold, None))
    v = dict(seat_view(fold, 0 if keep is None else keep))
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
    v["violations"] = [x for x in v.get("violations") or [] if violation_seen(x, keep)]
    if keep is None:
        # the declarations of seat 0 as the other player sees them; no sides
        other = seat_view(fold, 1)["declarations"] if v.get("declarations") else []
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


def seat_view_frame(seat_view: SeatView, trump_note: str | None, fold: GameFold, seat: int | None,
                    hidden: bool) -> dict[str, Any]:
    """The viewer's frame of the table now, built from the game's ``seat_view`` (so this
    never decides what a game hides): ``hidden``, the round is secret and ``seat`` sees only
    its own (None: nobody's secrets, the public)."""
    v = secret_view(seat_view, fold, seat, hidden)
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
    fr["extra"] = {k: v[k] for k in EXTRA if k in v}
    return fr
