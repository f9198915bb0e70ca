"""pytest's settings for the whole checkout: which doctests run on this build.

The modules of the fold's hot path (``jaslog.native.HOT_PATH``) are compiled by ``pip
install``; a compiled module has no source for pytest's doctests to read, so their doctests
run in the pure-Python run (``JASLOG_PURE=1``, which ``make test`` runs too), where those
very modules are loaded from their ``.py``.
"""

from jaslog import native

collect_ignore = [str(native.source_of(m)) for m in native.status()["modules"]]
