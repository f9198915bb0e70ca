"""A game's log as one seat (or the public) could see it: a valid ``jaslog/1`` log to share.

:func:`shared_log` turns what :func:`jaslog.play.views.visible_events` shows a sight (the one
visibility rule of the service, never decided here) into events that fold like any log:

* a round the sight may not see whole (the round being played, a round that ended with
  cards unplayed) is dealt without hands (a deal comes as the game's ``redact_event`` gives
  it: a Klaberjass deal without its stock, which is never shown but to the referee): the
  seat's own hand goes too, as a log holds all hands or none;
* an event the sight may not see is left out with what depends on it: a note of such a
  round (its text may name cards), another's Klaberjass sequence still known by its length
  only, a retracted card of another seat with the correction that retracted it (and the
  other events that correction retracted);
* a claim (or a concession) of such a round becomes the score it came to, as a ruling that
  says who claimed (without the hands, a game may not score a claim);
* a correction's reason the sight may not read, and a ruling's reason the public may not
  read yet, say so in their place (:data:`NOT_SHOWN`, :data:`jaslog.play.views.REASON_LATER`); an
  irregularity keeps its cards (shown at the table) without the scorer's text;
* the public sees finished rounds only: the log ends before the round being played.

Where events are left out the seqs are renumbered consecutively (a correction's
``retracts`` follow), and ``game_started``'s ``meta.shared`` says whose sight the log is,
how many events the record held and how many it left out, and, only when the log is the
whole record unchanged, the record's certificate (``from_certificate``, when the store gave
one): a digest of a record that holds what the sight may not see would let a search over
the unplayed cards find the hidden hands.

>>> from jaslog.events import event_from_dict
>>> from jaslog.play.fold import fold
>>> from jaslog.play.sim import simulate_game
>>> evs = [event_from_dict(e) for e in simulate_game("s1", seed=3)[:40]]
>>> log = shared_log(evs, seat=2, certificate="c0ffee")
>>> log[0].meta["shared"]
{'seat': 2, 'from_events': 40, 'left_out': 0}
>>> [e.hands is not None for e in log if e.type == "dealt"], len(fold(log).state.rounds)
([True, False], 2)
>>> pub = shared_log(evs, public=True)
>>> len(pub), pub[0].meta["shared"]["public"], pub[-1].type
(36, True, 'play')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jaslog.errors import JaslogError
from jaslog.events import Event, event_from_dict
from jaslog.play.views import REASON_LATER, Sight, Timeline, claim_as_ruling, timeline, visible_events

#: A correction's reason that the sight may not read (the scorer's free text of a round it
#: may not see whole: it may name cards).
NOT_SHOWN = "the reason is not shown in a shared log"


class NotShareable(JaslogError, ValueError):
    """A game that cannot be shared as asked: a seat it does not have, no sight named, or a
    record that does not fold."""

    code = "not_shareable"


def shared_log(events: Iterable[Event], *, seat: int | None = None, public: bool = False,
               certificate: str | None = None) -> list[Event]:
    """The game's log as seat ``seat`` (or the public) could see it, as valid events.

    ``events`` are one game's events in seq order (its whole record); ``certificate`` is the
    record's certificate, written in ``meta.shared.from_certificate`` only when the shared
    log is the whole record unchanged.

    >>> shared_log([])
    Traceback (most recent call last):
    ...
    jaslog.play.share.NotShareable: name a seat or the public: a shared log is what one of them could see
    """
    if (seat is None) == (not public):
        raise NotShareable("name a seat or the public: a shared log is what one of them "
                           "could see" if seat is None else "a seat or the public, not both")
    tl = timeline(events)
    if tl.fold is None or tl.error is not None:
        why = f": {tl.error}" if tl.error is not None else ""
        raise NotShareable(f"game {tl.game or '?'} does not fold{why}; only a valid record "
                           "is shared")
    if seat is not None and not 0 <= seat < tl.fold.players:
        raise NotShareable(f"seat {seat}: a {tl.fold.game} game has seats 0 to "
                           f"{tl.fold.players - 1}")
    sight = Sight(seat=seat) if seat is not None else Sight(public=True)
    seen = visible_events(tl, sight)
    kept = _kept(tl, sight, seen)
    renumber = {d["seq"]: i for i, d in enumerate(kept)}
    out: list[Event] = []
    for d in kept:
        d = dict(d, seq=renumber[d["seq"]])
        if d["type"] == "correction":
            d["retracts"] = [renumber[s] for s in d["retracts"]]
        out.append(event_from_dict(d))
    shared: dict[str, Any] = {"seat": seat} if seat is not None else {"public": True}
    if certificate is not None and _whole(out, tl.events):
        # a digest of the record is given only with the whole record: of a record that
        # holds anything the sight may not see, even a few bits of it let a search over the
        # unplayed cards find the hidden hands
        shared["from_certificate"] = certificate
    shared.update(from_events=len(tl.events), left_out=len(seen) - len(kept))
    first = out[0].model_dump(exclude_none=True)
    out[0] = event_from_dict(first | {"meta": {**(first.get("meta") or {}), "shared": shared}})
    return out


def _whole(shared: list[Event], record: list[Event]) -> bool:
    """Whether the shared log is the whole record as it is (after its ``game_started``)."""
    return len(shared) == len(record) and all(
        a.model_dump(exclude_none=True) == b.model_dump(exclude_none=True)
        for a, b in zip(shared[1:], record[1:], strict=True))


def _kept(tl: Timeline, sight: Sight, seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events the sight sees (``seen``), made valid, without those it may not see."""
    hidden = tl.hidden_rounds(sight)
    out: list[dict[str, Any]] = []
    dropped: set[int] = set()
    for d in seen:
        seq = d["seq"]
        secret = tl.round_of[seq] in hidden
        if secret and d["type"] == "claim":
            d = claim_as_ruling(tl, seq)
        e = _valid(d, secret)
        if e is None:
            dropped.add(seq)
        else:
            out.append(e)
    # a correction goes with any event it retracted that is left out, and takes the others
    # it retracted with it (kept alone they would count as never retracted)
    gone = set(dropped)
    for d in out:
        if d["type"] == "correction" and gone & set(d["retracts"]):
            gone |= {d["seq"], *d["retracts"]}
    return [d for d in out if d["seq"] not in gone]


def _valid(d: dict[str, Any], secret: bool) -> dict[str, Any] | None:
    """An event as a sight sees it (``secret``: of a round it may not see whole) made a valid
    event again, or None when it is left out."""
    t = d["type"]
    redacted = d.pop("redacted", False)
    if t in ("dealt", "second_deal"):
        if secret or any(h is None for h in d.get("hands") or []):
            d.pop("hands", None)  # a log holds every hand or none
        return d
    if t == "ruling" and d.get("reason") is None:
        return d | {"reason": REASON_LATER}
    if not redacted:
        return d
    if t == "correction" and "reason" not in d:
        return d | {"reason": NOT_SHOWN}
    if t == "irregularity":
        return d  # its cards were shown at the table; the scorer's text is left out
    # a note's text, another's sequence known by its length, another's retracted card
    return None


__all__ = ["NOT_SHOWN", "NotShareable", "shared_log"]


#: the formats a log is written in: jaslog/1 (canonical JSON Lines) or the text notation
LOG_FORMATS = ("jsonl", "text")


def written_log(events: list[Event], fmt: str, *, bare: bool = False) -> bytes:
    """A log as a file: ``jsonl`` (jaslog/1, canonical JSON Lines) or ``text`` (the notation,
    docs/notation.md); ``bare`` leaves out each event's id and the store's clock
    (``recorded_at``): the game as a table tells it, to read or print. What ``jaslog dump``
    writes and ``GET /api/games/{id}/log`` sends, after :func:`shared_log` when a seat or the
    public is to see it.

    >>> from jaslog.events import event_from_dict
    >>> from jaslog.play.sim import simulate_game
    >>> evs = [event_from_dict(e) for e in simulate_game("w1", seed=3)[:3]]
    >>> written_log(evs, "jsonl").count(b"\\n"), written_log(evs, "text")[:10]
    (3, b'[Game "w1"')
    """
    if fmt not in LOG_FORMATS:
        raise ValueError(f"format {fmt!r}: jsonl or text")
    if bare:  # a log still, without what only the store's own record needs
        events = [e.model_copy(update={"id": None, "recorded_at": None}) for e in events]
    if fmt == "text":
        from jaslog.notation import write_game

        return write_game(events).encode()
    import io

    from jaslog.events import write_events

    out = io.BytesIO()
    write_events(events, out)
    return out.getvalue()
