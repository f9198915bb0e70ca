"""The import's writing half: :class:`Part`, a game's events read and chained, ready to
insert; :class:`Writer`, which writes parts a batch per transaction (checking first that
nobody moved their games meanwhile) and keeps the import's summary: :meth:`Writer.prepare`
works out what needs nothing of the store (a :class:`Batch`), :meth:`Writer.commit` writes it.

:mod:`jaslog.store.importer` validates lines into parts and hands them here, in one process;
:mod:`jaslog.store.parallel` validates in worker processes, each writing its own batches here
(prepared before its turn to write, committed in it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jaslog.events import GameStarted
from jaslog.store import engine as eng
from jaslog.store.import_lines import placed
from jaslog.store.projection import RoundFacts, fact_values, insert_fact_values, note_facts
from jaslog.store.results import PLAYING, Standing, note_results
from jaslog.store.types import GENESIS, Head, ImportSummary, Rejected


@dataclass(slots=True)
class Part:
    """Events of one game ready to insert: chained from ``base_hash`` at ``base_seq``.

    ``rows`` are encoded as they were read: :data:`~jaslog.store.rows.ENCODED_COLUMNS` from
    ``seq`` on (``hash`` a raw digest), the game's key and the position to put before them
    when the batch is written; a row whose event's type had no code in the store yet is
    ``(seq, hash, type name, version, canonical bytes, fields)`` (``late``), encoded by
    :func:`~jaslog.store.rows.late_row` then. ``started`` is the game's ``game_started``
    event when the part opens the game.
    """

    game: str
    base_seq: int
    base_hash: str
    rows: list[tuple[Any, ...]]
    started: GameStarted | None
    head: str
    #: where the game was read: (source, first line, last line), for a sentence
    lines: tuple[str, int, int] | None = None
    #: where the game stands after these events (:mod:`jaslog.store.results`)
    standing: Standing | None = None
    #: the facts of its closed rounds after these events (:mod:`jaslog.store.projection`)
    facts: list[RoundFacts] | None = None
    #: whether a row waits for its type's code (see ``rows``)
    late: bool = False

    @property
    def next_seq(self) -> int:
        return self.base_seq + len(self.rows)


@dataclass(slots=True)
class Batch:
    """Parts to write in one transaction, with what :meth:`Writer.prepare` worked out for them
    beforehand: ``facts``, by game, the ``round_facts`` values of a new game's closed rounds
    after its key (:func:`~jaslog.store.projection.fact_values`)."""

    parts: list[Part]
    facts: dict[str, list[tuple[Any, ...]]]


class Writer:
    """Writes parts, a batch per transaction, and keeps the import's summary."""

    def __init__(self, store: Any, summary: ImportSummary,
                 on_reject: Callable[[str, str], None]) -> None:
        self.store = store
        self.summary = summary
        self.on_reject = on_reject
        self.new_games: set[str] = set()
        self.extended: set[str] = set()
        self.rejected: set[str] = set()

    def write(self, parts: list[Part]) -> set[str]:
        """Write ``parts`` in one transaction; returns the games written. A game whose head
        moved since it was read is rejected (another writer), the others are written."""
        return self.commit(self.prepare(parts))

    def prepare(self, parts: list[Part]) -> Batch:
        """What of writing ``parts`` needs nothing of the store, worked out before the write
        transaction (an import's workers take turns at writing: the less a turn holds, the
        more the other worker's reading and folding overlaps it): the parts to write, and on
        SQLite the round facts of each new game as the rows the store keeps (their JSON text:
        :func:`~jaslog.store.projection.fact_values`)."""
        parts = [p for p in parts if p.rows and p.game not in self.rejected]
        facts: dict[str, list[tuple[Any, ...]]] = {}
        if self.store.dialect == "sqlite":
            for p in parts:
                if p.base_seq == 0 and p.facts:
                    facts[p.game] = fact_values(p.next_seq - 1, p.facts)
        return Batch(parts, facts)

    def commit(self, batch: Batch) -> set[str]:
        """Write a batch :meth:`prepare` made, in one transaction (see :meth:`write`)."""
        from sqlalchemy import func, select

        from jaslog.store.codec import UnreadableEvent
        from jaslog.store.game_rows import insert_games
        from jaslog.store.rows import game_keys, late_row
        from jaslog.store.schema import EVENTS

        parts = [p for p in batch.parts if p.game not in self.rejected]
        if not parts:
            return set()
        ok: list[Part] = []
        with eng.write_tx(self.store.engine) as conn:
            heads = self.store._heads(conn, [p.game for p in parts])
            for p in parts:
                now = heads.get(p.game, Head(p.game, 0, GENESIS))
                if (now.next_seq, now.hash) != (p.base_seq, p.base_hash):
                    self.reject(p.game, f"game {p.game}: another writer changed it in the store "
                                f"during the import (it is at seq {now.next_seq}, the import "
                                f"read seq {p.base_seq}) [conflict]; import it again")
                    continue
                ok.append(p)
            keys = insert_games(conn, [p.started for p in ok if p.started is not None])
            others = [p.game for p in ok if p.game not in keys]
            if others:
                keys.update(game_keys(conn, others))
            pos = int(conn.execute(select(func.coalesce(func.max(EVENTS.c.pos), 0))).scalar_one())
            values: list[Any] = []  # every row's values, one after the other
            last: list[int] = []
            for p in ok:
                key = keys.get(p.game)
                if key is None:
                    raise UnreadableEvent("the game has no header row (game_started) to key its "
                                          "events by", p.game, p.base_seq)
                todo = [late_row(conn, r) if type(r[2]) is str else r for r in p.rows] \
                    if p.late else p.rows
                # the rows wait with their key and position left open: put before them here
                pos = placed(values, key, pos, todo)
                last.append(pos)
            self.store.insert_encoded(conn, values)
            del values  # (let go of before the commit: the batch's every value)
            # every game written is signed at its new head, with the rows (signing.py)
            self.store._sign_heads(conn, [(p.game, p.next_seq - 1, p.head, at)
                                          for p, at in zip(ok, last, strict=True)])
            # and where it stands, when it ended (or had, before these events: results.py)
            note_results(conn, [(p.game, p.next_seq - 1, p.standing, p.base_seq == 0) for p in ok
                                if p.standing is not None and (p.standing != PLAYING or p.base_seq)])
            # and the facts of its closed rounds (projection.py): as prepared, when every
            # game that has some is new (else compared with the stored ones, in one call)
            todo_facts = [p for p in ok if p.facts is not None and (p.facts or p.base_seq)]
            known = batch.facts
            if all(p.game in known for p in todo_facts):
                insert_fact_values(conn, [(keys[p.game], *v) for p in todo_facts
                                          for v in known[p.game]])
            else:
                note_facts(conn, [(p.game, p.next_seq - 1, p.facts, p.base_seq == 0)
                                  for p in todo_facts if p.facts is not None])
        for p in ok:
            self.summary.events += len(p.rows)
            if p.base_seq == 0:
                if p.game not in self.new_games:
                    self.new_games.add(p.game)
                    self.summary.games += 1
            elif p.game not in self.new_games:
                self.extended.add(p.game)
        return {p.game for p in ok}

    def reject(self, game: str, reason: str, source: str | None = None,
               line: int | None = None) -> None:
        if game not in self.rejected:
            self.rejected.add(game)
            self.summary.rejected.append(Rejected(game, reason, source, line))
        self.on_reject(game, reason)

    def finish(self, seen_existing: set[str]) -> ImportSummary:
        s = self.summary
        s.already_present = sorted(seen_existing - self.extended - self.rejected - self.new_games)
        s.extended = sorted(self.extended - self.rejected)
        return s
