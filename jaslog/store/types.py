"""What the store hands back: errors, heads, append results, game summaries, reports."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from jaslog.errors import JaslogError

#: The ``prev_hash`` of a game's first event.
GENESIS = "0" * 64



class StoreError(JaslogError):
    """Anything the store refuses; the message is a full sentence for people."""

    code = "store_error"


class ConflictError(StoreError):
    """Optimistic concurrency: the append expected to write ``expected`` but the game is at ``actual``.

    Nothing was written.
    """

    def __init__(self, game: str, expected: int, actual: int, detail: str = "") -> None:
        self.game, self.expected, self.actual = game, expected, actual
        msg = (f"game {game}: conflict: expected to append at seq {expected}, "
               f"but the game's next seq is {actual}")
        super().__init__(msg + (f" ({detail})" if detail else "")
                         + "; nothing was written")


class RejectedError(StoreError):
    """A batch refused by validation (an integrity error, or a bad event); nothing was written.

    ``fold_error`` is the located :class:`jaslog.play.fold.FoldError` when the fold refused it.
    """

    def __init__(self, message: str, *, game: str | None = None, seq: int | None = None,
                 code: str | None = None, fold_error: Any = None) -> None:
        self.game, self.seq, self.fold_error = game, seq, fold_error
        self.code = code or "rejected"  # the rule's code, when a rule refused the batch
        super().__init__(message)


class NoSuchGame(StoreError):
    """The game id is not in the store."""

    def __init__(self, game: str) -> None:
        self.game = game
        super().__init__(f"no game {game!r} in the store (see `jaslog games`)")


def certificate(head_hash: str) -> str:
    """A head hash as a short certificate for a score sheet: 16 hex digits in groups of 4.

    >>> certificate("0123456789abcdef" + "0" * 48)
    '0123-4567-89ab-cdef'
    """
    h = head_hash[:16]
    return "-".join(h[i:i + 4] for i in range(0, 16, 4))


@dataclass(frozen=True, slots=True)
class Head:
    """The end of a game's chain: its last seq, the next seq to append, and the last hash."""

    game: str
    next_seq: int
    hash: str

    @property
    def seq(self) -> int:
        """The seq of the last stored event (-1 for no events)."""
        return self.next_seq - 1

    @property
    def certificate(self) -> str:
        return certificate(self.hash)


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What an append did: how many events it wrote, how many were already there (retries)."""

    game: str
    appended: int
    already_stored: int
    head: Head
    #: The rule violations the appended events brought, as the fold that checked them found
    #: them (the fold's own violation objects; empty when nothing was appended).
    violations: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class GameInfo:
    """One row of ``jaslog games``: a game's header and where its log stands."""

    game: str
    ruleset: str
    seats: list[str]
    dealer: int
    created_at: str
    events: int
    head_hash: str
    last_at: str | None

    @property
    def certificate(self) -> str:
        return certificate(self.head_hash)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["certificate"] = self.certificate
        return d


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event row as stored: raw payload bytes in their own format version, and its chain."""

    game: str
    seq: int
    pos: int
    type: str
    version: int
    event_id: str | None
    at: str | None
    payload: bytes
    prev_hash: str
    hash: str


@dataclass(frozen=True, slots=True)
class Problem:
    """A break in a hash chain: which game, the first seq affected, what kind, and a sentence.

    ``kind`` is ``changed`` (an event's bytes or hash differ from what was chained),
    ``removed`` (a seq is missing), ``reordered`` (an event sits at another seq or its chain
    link points elsewhere), ``header`` (the games table disagrees with seq 0),
    ``certificate`` (the head is not the one certified), ``signature`` (a signature does not
    hold: the events it covers changed since, or a key that is not trusted made it, or it was
    forged, or rows before it were removed and the positions renumbered), ``unsigned`` (a
    round or the game ended and no signature covers it), ``derived`` (a row kept beside the
    events, a game's result, winners, place or start, or the schema version, disagrees with
    them: :mod:`jaslog.store.verify_derived`), ``version`` (an event's format version column
    says a version in which its bytes do not read) or ``position`` (an event has no position
    in the store: every read up to a position leaves it out).
    """

    game: str
    seq: int | None
    kind: str
    message: str

    def __str__(self) -> str:
        where = f"game {self.game}" + (f" seq {self.seq}" if self.seq is not None else "")
        return f"{where}: {self.kind}: {self.message}"


@dataclass(slots=True)
class VerifyReport:
    """The result of re-checking hash chains: games and events checked, problems found."""

    games: int = 0
    events: int = 0
    problems: list[Problem] = field(default_factory=list)
    heads: dict[str, str] = field(default_factory=dict)
    #: With a certificate that holds: ``{"game", "seq", "appended_since", "signed_by"}``, the
    #: event it certifies (the head, or an earlier one when the game went on after it was
    #: written), and the key that signed the head at that seq (None: not signed there).
    certified: dict[str, Any] | None = None
    #: signatures checked, the keys that made the valid ones, and whose keys were trusted
    #: (``given``, ``directory`` or ``store``: see :class:`jaslog.store.verify_chain.Trust`)
    signatures: int = 0
    keys: set[str] = field(default_factory=set)
    trust: str | None = None
    #: A whole-store ``jaslog verify`` run's account of how it checked the games (in full or
    #: from their verified heads: :class:`jaslog.store.verify.Checked`); None otherwise.
    checked: Any = None
    #: A whole-store run's anchor: the store's newest signature, as ``POS:CERTIFICATE``
    #: (:func:`jaslog.store.signing.anchor_of`), to keep outside the store; None: no signature
    anchor: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "games": self.games, "events": self.events,
                "problems": [asdict(p) for p in self.problems],
                "heads": {g: {"hash": h, "certificate": certificate(h)}
                          for g, h in self.heads.items()},
                "certified": self.certified,
                "signatures": {"checked": self.signatures, "keys": sorted(self.keys),
                               "trusted": self.trust} | (
                    {"anchor": self.anchor} if self.anchor is not None else {})} | (
            {"checked": self.checked.to_json()} if self.checked is not None else {})


@dataclass(frozen=True, slots=True)
class Rejected:
    """A game (or an unattributable line) an import refused, with the reason."""

    game: str | None
    reason: str
    source: str | None = None
    line: int | None = None


@dataclass(slots=True)
class ImportSummary:
    """What an import did: games and events stored, games already present, games refused."""

    games: int = 0
    events: int = 0
    already_present: list[str] = field(default_factory=list)
    extended: list[str] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    lines: int = 0

    @property
    def ok(self) -> bool:
        return not self.rejected

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "games": self.games, "events": self.events, "lines": self.lines,
                "skipped": list(self.already_present), "extended": list(self.extended),
                "rejected": [asdict(r) for r in self.rejected]}
