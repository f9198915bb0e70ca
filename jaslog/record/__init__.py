"""The scorer's recorder: short input at the table turned into events appended to the store.

:func:`open_recorder` gives the recorder of a stored game (Klaverjas, Klaberjass or
Kloepper); :func:`run` is the loop, with the terminal (or a test) supplying ``ask`` and
``show``. The shared machinery is in :mod:`jaslog.record.core`, each game's words in its own
module.
"""

from __future__ import annotations

from jaslog.record.core import Ask, InputError, Outcome, Recorder, Show, record_one, run
from jaslog.record.klaberjass import KlaberjassRecorder
from jaslog.record.klaverjas import KlaverjasRecorder, turned_card
from jaslog.record.kloepper import KloepperRecorder
from jaslog.store import Store, StoreError

#: The recorder of each game, by game name.
RECORDERS: dict[str, type[Recorder]] = {
    "klaverjas": KlaverjasRecorder, "klaberjass": KlaberjassRecorder, "kloepper": KloepperRecorder,
}


def open_recorder(store: Store, game: str, *, stamp: bool = True) -> Recorder:
    """The recorder for stored game ``game`` (its kind decides which)."""
    fold = store.fold(game)
    cls = RECORDERS.get(fold.game)
    if cls is None:
        raise StoreError(f"jaslog record does not know {fold.game} games (use `jaslog append`)")
    return cls(store, game, stamp=stamp, fold=fold)


__all__ = [
    "RECORDERS", "Ask", "InputError", "KlaberjassRecorder", "KlaverjasRecorder",
    "KloepperRecorder", "Outcome", "Recorder", "Show", "open_recorder", "record_one", "run",
    "turned_card",
]
