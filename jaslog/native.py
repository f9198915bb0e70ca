"""Which of jaslog's modules run compiled, and the switch that runs them all as pure Python.

``pip install`` compiles the fold's hot path (the cards, the trick arithmetic and the
Klaverjas rules: :data:`HOT_PATH`) with mypyc, when mypyc and a C compiler are there, into
one shared library beside the sources; everything else is pure Python, and so is the hot
path wherever it was not built. The build writes ``jaslog/_native.txt``: each compiled
module and the SHA-256 of the source it was compiled from. The compiled modules are used
only when that stamp is there and every source still has its hash: a source edited since
the build (in a working copy: run ``scripts/setup`` again) makes every module of the hot
path load from its ``.py``, so a stale build is never run. ``JASLOG_PURE=1`` in the
environment does the same on purpose (the tests run the rules, the fold and the export
both ways).

This module is never compiled itself: :func:`activate` runs when ``jaslog`` is imported,
before any module of the hot path.

>>> set(HOT_PATH) >= {"jaslog.cards", "jaslog.games.klaverjas.rules.game"}
True
>>> status()["mode"] in ("compiled", "pure")
True
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

#: The modules ``pip install`` compiles (setup.py reads this tuple from here, by text).
HOT_PATH = (
    "jaslog.cards",
    "jaslog.engine.jacknine",
    "jaslog.games.klaverjas.rules.play",
    "jaslog.games.klaverjas.rules.game",
    # the native state: the engine's base classes and fold shell, each game's state and fold
    "jaslog.engine.base",
    "jaslog.engine.fold",
    "jaslog.games.klaverjas.rules.trump",
    "jaslog.games.klaverjas.fold",
    "jaslog.engine.common",
    # what every game's round report holds beside the game's own (check --json, the audit)
    "jaslog.engine.facts",
    "jaslog.games.klaberjass.rules.bidding",
    "jaslog.games.klaberjass.rules.play",
    "jaslog.games.klaberjass.rules.round",
    "jaslog.games.klaberjass.rules.game",
    "jaslog.games.klaberjass.fold",
    "jaslog.games.kloepper.rules.play",
    "jaslog.games.kloepper.rules.partners",
    "jaslog.games.kloepper.rules.scoring",
    "jaslog.games.kloepper.rules.game",
    "jaslog.games.kloepper.fold",
    "jaslog.store.bulk_read",
    # the store's other rows: a repeated row's event, a row's fields checked one by one
    "jaslog.store.row_memo",
    "jaslog.store.row_check",
    # the bytes of a canonical line, which the readers below take apart
    "jaslog.events.line_bytes",
    # check's reading: a log file's lines, block by block, canonical plays from their bytes
    "jaslog.play.blockfold",
    # the import's reading: blocks of lines, the common plays from their bytes into rows
    "jaslog.store.import_lines",
    # check's report of a Klaverjas game: a round's entry, every trick's
    "jaslog.games.klaverjas.report",
    # the export's Klaverjas rows: a row a round, a walk over every trick
    "jaslog.games.klaverjas.export",
    # what a Klaverjas round's row reads of the fold, kept with its facts at every import
    "jaslog.games.klaverjas.facts",
)

STAMP = "_native.txt"
_HERE = Path(__file__).resolve().parent
_state: dict[str, Any] = {"mode": "pure", "reason": "not activated", "modules": []}


def source_of(module: str, root: Path = _HERE.parent) -> Path:
    """The ``.py`` file of a module of the hot path, under ``root`` (the folder holding
    ``jaslog/``).

    >>> source_of("jaslog.cards", Path("/src")).as_posix()
    '/src/jaslog/cards.py'
    """
    return root.joinpath(*module.split(".")).with_suffix(".py")


def digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, as the stamp keeps it (hex)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_stamp(folder: Path = _HERE) -> dict[str, str] | None:
    """The stamp a compiled build left in ``folder``: module -> source digest (None: no
    compiled build there)."""
    try:
        text = (folder / STAMP).read_text(encoding="ascii")
    except OSError:
        return None
    out = {}
    for line in text.splitlines():
        module, _, sha = line.partition(" ")
        if module and sha:
            out[module] = sha
    return out


class PureFinder:
    """Loads each module of the hot path from its ``.py`` even where a compiled one sits
    beside it (the import system would take the compiled one first)."""

    @classmethod
    def find_spec(cls, fullname: str, path: Any = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in HOT_PATH:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None or spec.origin.endswith(".py"):
            return spec
        source = Path(spec.origin).with_name(fullname.rpartition(".")[2] + ".py")
        return importlib.util.spec_from_file_location(fullname, source)


def why_pure(flag: str, stamp: dict[str, str] | None, root: Path = _HERE.parent) -> str | None:
    """None when the compiled hot path may run, given ``$JASLOG_PURE`` (``flag``), the
    build's stamp and the folder holding ``jaslog/``; otherwise why it may not.

    >>> why_pure("1", None)
    'JASLOG_PURE is set'
    >>> why_pure("", None)
    'not compiled (no C compiler or mypyc when it was installed)'
    """
    if flag not in ("", "0"):
        return "JASLOG_PURE is set"
    if stamp is None:
        return "not compiled (no C compiler or mypyc when it was installed)"
    if set(stamp) != set(HOT_PATH):
        return "the compiled build is of another set of modules: reinstall (scripts/setup)"
    for module, sha in stamp.items():
        try:
            same = digest(source_of(module, root)) == sha
        except OSError:
            same = True   # an install without sources: what was compiled is what there is
        if not same:
            return f"{module} changed since it was compiled: reinstall (scripts/setup)"
    return None


def activate() -> None:
    """Decide, once, before any module of the hot path is imported, whether it runs
    compiled; install :class:`PureFinder` if not."""
    if _state["reason"] != "not activated":
        return
    why = why_pure(os.environ.get("JASLOG_PURE", ""), read_stamp())
    if why is None:
        _state.update(mode="compiled", reason="compiled with mypyc", modules=list(HOT_PATH))
        return
    _state.update(mode="pure", reason=why, modules=[])
    if not any(f is PureFinder for f in sys.meta_path):
        sys.meta_path.insert(0, PureFinder)


def describe() -> str:
    """One sentence on how the hot path runs (``scripts/setup`` and the benchmark print it)."""
    if _state["mode"] == "compiled":
        return f"jaslog: the fold's hot path runs compiled (mypyc, {len(HOT_PATH)} modules)"
    return f"jaslog: the fold's hot path runs as pure Python: {_state['reason']}"


def status() -> dict[str, Any]:
    """How the hot path runs: ``mode`` (``compiled`` or ``pure``), ``reason``, and the
    ``modules`` that run compiled, each checked against the module actually loaded."""
    out = dict(_state)
    loaded = {m: sys.modules[m] for m in HOT_PATH if m in sys.modules}
    out["loaded_compiled"] = sorted(m for m, mod in loaded.items()
                                    if not str(getattr(mod, "__file__", "")).endswith(".py"))
    return out
