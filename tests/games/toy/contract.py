"""The toy game's rows of the contract test's tables (see :mod:`jaslog.engine.contract`):
a revoke scores as a penalty, judged neither won nor lost. It declares no recorder and no
oracle ops, so it has no words and no questions (the contract skips those sections)."""

from __future__ import annotations

from jaslog.engine.contract import Question, Words

NOT_JUDGED = frozenset({"revoke"})
WORDS: dict[str, Words] = {}
ORACLE: dict[str, Question] = {}
UNTYPED: frozenset[str] = frozenset()
