"""What the games' ``solver`` adapters share: reading a fold's log for what its state does
not keep.

>>> from jaslog.sim import simulate_game
>>> from jaslog.fold import fold
>>> from jaslog.events import event_from_dict
>>> f = fold(event_from_dict(e) for e in simulate_game("a", seed=3)[:40])
>>> hands_recorded(f, 1)
True
"""

from __future__ import annotations

from jaslog.engine.fold import GameFold

#: The events that open a round (a correction may retract one and a new one follow).
ROUND_OPENERS = ("dealt", "round_score")


def hands_recorded(fold: GameFold, number: int) -> bool:
    """Did the event that dealt round ``number`` record the hands? (False: they were
    rebuilt from the plays, or the round is score-only.)"""
    n = 0
    for e in fold.log:
        if e.type in ROUND_OPENERS and e.seq not in fold.retracted:
            n += 1
            if n == number:
                return e.type == "dealt" and getattr(e, "hands", None) is not None
    return False
