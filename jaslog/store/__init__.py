"""The event store: games recorded into SQLite or PostgreSQL, append-only and tamper-evident.

One contract, two backends (through sqlmodel / SQLAlchemy core):

* **append-only**: the ``events`` and ``games`` tables refuse UPDATE and DELETE in the
  database itself (triggers); only ``players`` (display names: personal data outside the
  hash chains) may be edited or erased;
* **optimistic concurrency**: :meth:`Store.append` names the seq it expects to write and
  fails with :class:`ConflictError` (writing nothing) when another writer got there first;
* **idempotent retries**: an event whose ``id`` is already stored at its position is a no-op;
* **validated**: every batch is folded through the rules on top of the stored game; an
  integrity error refuses the whole batch (:class:`RejectedError`);
* **tamper-evident**: ``hash = sha256(prev_hash + canonical_json(event))`` per game;
  :meth:`Store.verify` names the first event changed, removed or reordered;
* **versioned**: each row keeps the format version it was written in; reading upcasts.

>>> import tempfile, os
>>> from jaslog.play.sim import simulate_game
>>> s = open_store(os.path.join(tempfile.mkdtemp(), "doc.sqlite"))
>>> events = simulate_game("doc-1", seed=1)
>>> s.append("doc-1", events[:10]).head.next_seq
10
>>> try:
...     s.append("doc-1", events[9:20], expected_seq=9)
... except ConflictError as e:
...     print(e.expected, e.actual)
9 10
>>> s.append("doc-1", events[10:]).appended == len(events) - 10
True
>>> s.verify("doc-1").ok
True
>>> s.close()
"""

from __future__ import annotations

from jaslog.store.engine import default_url, resolve_url
from jaslog.store.store import Store, open_store
from jaslog.store.types import (
    GENESIS,
    AppendResult,
    ConflictError,
    GameInfo,
    Head,
    ImportSummary,
    NoSuchGame,
    Problem,
    Rejected,
    RejectedError,
    StoredEvent,
    StoreError,
    VerifyReport,
    certificate,
)

__all__ = [
    "GENESIS",
    "AppendResult",
    "ConflictError",
    "GameInfo",
    "Head",
    "ImportSummary",
    "NoSuchGame",
    "Problem",
    "Rejected",
    "RejectedError",
    "Store",
    "StoreError",
    "StoredEvent",
    "VerifyReport",
    "certificate",
    "default_url",
    "open_store",
    "resolve_url",
]
