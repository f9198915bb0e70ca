"""How many examples a property test tries: its whole count in the whole suite, a fifth of it
(at least 10) in the quick loop, ``pytest -m "not slow"``. tests/conftest.py says which run
this is before the test modules are imported."""

from __future__ import annotations

#: set by tests/conftest.py: the run leaves the slow tests out
QUICK = False


def examples(whole: int) -> int:
    """``whole`` in the whole suite, a fifth of it (at least 10) in the quick loop.

    >>> examples(300) == (60 if QUICK else 300)
    True
    """
    return max(10, whole // 5) if QUICK else whole
