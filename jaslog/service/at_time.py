"""``?at=`` on the state, replay and audit routes: a game as it stood at a clock time
(:mod:`jaslog.play.attime`), under the same rules of sight as by seq."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

from jaslog.play.attime import AtError, AtSeq, seq_at
from jaslog.play.views import Timeline, timeline
from jaslog.service.deps import ApiError

AtQuery = Annotated[str | None, Query(max_length=40, description=(
    "the game as it stood at this clock time: an RFC 3339 time, or a time of day (21:40) on "
    "the game's date (UTC); by the store's recorded_at when every event has one, else by the "
    "events' at (the answer's `as_of` says which, and the seq it came to)"))]


def at_seq(tl: Timeline, at: str) -> AtSeq:
    """The last event of ``tl`` in at ``at`` (422 ``bad_time`` when there is none)."""
    try:
        return seq_at(tl.events[:max(tl.applied(), 1)], at)
    except AtError as e:
        raise ApiError(422, e.code, str(e), game=tl.game) from None


def as_it_stood(tl: Timeline, at: str | None) -> tuple[Timeline, AtSeq | None]:
    """``tl`` cut after the last event in at ``at`` and folded again (the game as it stood
    then), and where it was cut; ``tl`` itself without ``at``. What a token may see of it is
    what it may see of the game now, as by seq: the rounds secret now (the round live now,
    a round that ended with cards unplayed) stay secret in it, and a round live then but
    played out since is no secret."""
    if at is None:
        return tl, None
    found = at_seq(tl, at)
    cut = timeline(tl.events[:found.seq + 1])
    dealt = max(cut.round_of, default=0)
    cut.secret_rounds = frozenset(r for r in tl.secret_rounds if r <= dealt)
    cut.live_round = tl.live_round if tl.live_round is not None and tl.live_round <= dealt \
        else None
    return cut, found
