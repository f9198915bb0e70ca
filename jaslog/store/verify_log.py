"""Checking a dumped log against its signatures: ``jaslog verify --log LOG --key KEY``.

Each game's chain is computed from its events' canonical bytes, then its signatures are
checked as a store's are (:func:`jaslog.store.verify_chain.check_signatures`), against the keys
given.
"""

from __future__ import annotations

from dataclasses import dataclass

from jaslog.events import Event
from jaslog.store.codec import canonical, link
from jaslog.store.types import GENESIS, Problem, VerifyReport
from jaslog.store.verify_chain import Trust, check_signatures


@dataclass(frozen=True, slots=True)
class Signed:
    """A signature to check: a game's head at ``seq`` with ``hash``, by key ``key_id``;
    ``signature`` as the store keeps it (``2.<base64url>`` for message version 2)."""

    game: str
    seq: int
    hash: str
    key_id: str
    signature: str
    #: the positions a signature of message version 2 pins (None: version 1)
    pos: int | None = None
    event_pos: int | None = None


def verify_log(events: list[Event], sigs: list[Signed], trust: Trust) -> VerifyReport:
    """Check games read from a log (as ``jaslog dump`` writes them) against signatures (as
    ``jaslog dump --signatures`` writes them): each game's chain is computed from its
    events' canonical bytes, then its signatures are checked as a store's are."""
    rep = VerifyReport(trust=trust.source)
    by_game: dict[str, list[Event]] = {}
    for e in events:
        by_game.setdefault(e.game, []).append(e)
    sig_of: dict[str, list[Signed]] = {}
    for s in sigs:
        sig_of.setdefault(s.game, []).append(s)
    for game, evs in by_game.items():
        evs.sort(key=lambda e: e.seq)
        rep.games += 1
        rep.events += len(evs)
        if [e.seq for e in evs] != list(range(len(evs))):
            missing = next(i for i, e in enumerate(evs) if e.seq != i)
            rep.problems.append(Problem(game, missing, "removed", f"the log has no event at seq "
                                        f"{missing} (or has it twice)"))
            continue
        prev = bytes.fromhex(GENESIS)
        hashes = []
        for e in evs:
            prev = link(prev, canonical(e))
            hashes.append(prev.hex())
        rep.heads[game] = hashes[-1]
        found = check_signatures(rep, game, hashes,
                                 sorted(sig_of.get(game, []), key=lambda s: s.seq), trust,
                                 lambda evs=evs: evs)  # type: ignore[misc]
        rep.signatures += found.checked
        rep.keys.update(found.keys)
    for game in sig_of.keys() - by_game.keys():
        rep.problems.append(Problem(game, None, "removed", "signatures of a game that is not "
                                    "in the log"))
    return rep
