"""The folds of stored games kept in memory between appends, bounded by the events they hold
(``$JASLOG_CACHE_MB``): the store's cache of folds and the service's of tips use it."""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

#: What a folded game holds in memory per event, about: the event (a model, ~1.1 KB) and
#: its part of the fold's state (~0.1-0.25 KB), measured over simulated games of each game.
EVENT_BYTES = 1400
#: The memory the folds of stored games kept between appends may hold, in MiB (the games
#: appended to last; ``$JASLOG_CACHE_MB`` to change it): every live game of a busy service
#: stays folded, however many there are, as long as they fit.
CACHE_MB = 512


def cache_events() -> int:
    """How many folded events the cache of folds may hold (``$JASLOG_CACHE_MB``, else
    :data:`CACHE_MB`, over :data:`EVENT_BYTES`).

    >>> cache_events() == CACHE_MB * 2**20 // EVENT_BYTES
    True
    """
    mb = os.environ.get("JASLOG_CACHE_MB", "")
    return (int(mb) if mb.isdigit() else CACHE_MB) * 2**20 // EVENT_BYTES


class FoldCache(OrderedDict[str, Any]):
    """Folds kept between appends, least recently appended first, that know how many events
    they hold (without adding them up at each append): ``weight`` of a value is its count.

    >>> c = FoldCache(len)
    >>> c["a"], c["b"] = "xx", "yyy"
    >>> c.held, c.pop("a"), c.held
    (5, 'xx', 3)
    >>> c["c"] = "zzzz"; c.trim(4); list(c), c.held
    (['c'], 4)
    """

    def __init__(self, weight: Callable[[Any], int]) -> None:
        super().__init__()
        self._weight = weight
        self._weights: dict[str, int] = {}
        self.held = 0

    def __setitem__(self, key: str, value: Any) -> None:
        self.held -= self._weights.get(key, 0)
        super().__setitem__(key, value)
        w = self._weights[key] = self._weight(value)
        self.held += w

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self.held -= self._weights.pop(key)

    def pop(self, key: str, *default: Any) -> Any:  # type: ignore[override]
        if key in self:
            value = super().pop(key)
            self.held -= self._weights.pop(key)
            return value
        if default:
            return default[0]
        raise KeyError(key)

    def popitem(self, last: bool = True) -> tuple[str, Any]:
        key, value = super().popitem(last)
        self.held -= self._weights.pop(key)
        return key, value

    def clear(self) -> None:
        super().clear()
        self._weights.clear()
        self.held = 0

    def trim(self, most: int) -> None:
        """Drop the least recently kept until they hold at most ``most`` events (the last
        one stays)."""
        while self.held > most and len(self) > 1:
            self.popitem(last=False)
