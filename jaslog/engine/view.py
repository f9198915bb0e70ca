"""What a viewer of a game may see, shared by every game's ``view`` module.

A game's one visibility rule is its ``seat_view(fold, seat)``; the viewer's frames, the
redacted events and the report's secret rounds are built from it here, so these never
decide what a game hides.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jaslog.engine.fold import GameFold

#: The table as ``seat`` may see it now (None: the referee, who sees everything).
SeatView = Callable[[GameFold, "int | None"], dict[str, Any]]

#: seat_view keys shown by the viewer as they are
EXTRA = ("sides", "revealed", "side_points", "call", "knocks", "turn_up", "bottom", "dix",
         "declarations", "bella_calls", "elder", "annulled", "maker")

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


def _redact_common(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """A deal's other hands and the scorer's free text (a note's, a correction's reason, an
    irregularity's text: it may name cards) are left out."""
    t = event["type"]
    if t in ("dealt", "second_deal") and (event.get("hands") is not None or "stock" in event):
        out = {k: v for k, v in event.items() if k != "stock"}
        if event.get("hands") is not None:
            out["hands"] = [h if s == seat else None for s, h in enumerate(event["hands"])]
        return out | {"redacted": True}
    free = FREE_TEXT.get(t)
    if free is not None and free in event:
        return {k: v for k, v in event.items() if k != free} | {"redacted": True}
    return event


def redact(event: dict[str, Any], seat: int | None, head: GameFold, number: int) -> dict[str, Any]:
    """An event of secret round ``number`` as ``seat`` may see it (None: nobody's secrets,
    the public): another's hands, a stock and a note's text left out; another's sequence
    by its length only until the first trick is over; ``head`` is the game now."""
    if event["type"] == "sequence" and event.get("seat") != seat:
        r = head.state.rounds[number - 1]
        # at the table the cards of a sequence are shown once the first trick is over
        shown = len(r.tricks) >= 2 or bool(r.tricks and r.tricks[0].complete)
        if not shown:  # its length only
            return {k: v for k, v in event.items() if k != "cards"} | {
                "length": len(event["cards"]), "redacted": True}
    return _redact_common(event, seat)


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
        return out
    # a round that ended with cards unplayed: its public record, and the seat's own
    # declarations; never a hand, a verdict on a call or a knock, or the sides
    out = {k: val for k, val in entry.items() if k in PUBLIC_ROUND or k in RECORD}
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
    v["violations"] = [x for x in v.get("violations") or [] if keep is not None and x["seat"] == keep]
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
