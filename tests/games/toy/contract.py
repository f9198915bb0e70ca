"""The toy game's rows of the contract test's tables (``tests/games/test_contract.py``):
a revoke scores as a penalty, judged neither won nor lost. It declares no recorder and no
oracle, so it has no words and no questions: the contract skips those sections."""

from __future__ import annotations

NOT_JUDGED = frozenset({"revoke"})
WORDS: dict[str, object] = {}
ORACLE: dict[str, object] = {}
UNTYPED: frozenset[str] = frozenset()
