"""The scorer's recorder: short input at the table turned into events appended to the store.

:func:`open_recorder` gives the recorder of a stored game (Klaverjas, Klaberjass or
Kloepper); :func:`run` is the loop, with the terminal (or a test) supplying ``ask`` and
``show``. The shared machinery is in :mod:`jaslog.record.core`, each game's words in its
``record`` adapter (``jaslog.games.<game>.record``, its recorder class as ``RECORDER``).
"""

from __future__ import annotations

from jaslog.games import get_game
from jaslog.record.core import (
    Ask,
    InputError,
    Outcome,
    RecordAdapter,
    Recorder,
    Show,
    record_adapter,
    record_one,
    run,
)
from jaslog.store import Store


def open_recorder(store: Store, game: str, *, stamp: bool = True) -> Recorder:
    """The recorder for stored game ``game`` (its kind decides which)."""
    fold = store.fold(game)
    cls = record_adapter(get_game(fold.game)).RECORDER
    return cls(store, game, stamp=stamp, fold=fold)


__all__ = ["Ask", "InputError", "Outcome", "RecordAdapter", "Recorder", "Show", "open_recorder",
           "record_adapter", "record_one", "run"]
