"""Check a log's computer deals (rule book 9.3, decision 21), from the log alone.

For every round the log committed to (``deal_committed {round, commit}``) and revealed
(``deal_revealed {round, seed}``): the commit must be the SHA-256 of the revealed seed; the
commit must come before the round's ``dealt`` event and before any of its nonces; and the
cards dealt (``dealt``, and Klaberjass's ``second_deal``) must be exactly the ones the deck
gives, in the game's documented order (``Game.deal_from_deck``). Any mismatch is a
``deal_not_fair`` problem naming the round. Nothing here needs the store: a dumped log is
enough.

>>> from jaslog.engine.fairdeal import commit_of, deck
>>> from jaslog.games import get_game
>>> seed = bytes(range(32))
>>> hands = get_game("klaverjas").deal_from_deck(deck(seed, "g", 1, ["", "", "", ""],
...     get_game("klaverjas").pack), 0)["dealt"]["hands"]
>>> log = [{"seq": 0, "type": "game_started", "ruleset": "amsterdam", "dealer": 0},
...        {"seq": 1, "type": "deal_committed", "round": 1, "commit": commit_of(seed)},
...        {"seq": 2, "type": "dealt", "dealer": 0, "hands": hands},
...        {"seq": 3, "type": "deal_revealed", "round": 1, "seed": seed.hex()}]
>>> r = check_deals("g", log)
>>> r.checked, r.problems
([1], [])
>>> log[2]["hands"][0][0], log[2]["hands"][1][0] = log[2]["hands"][1][0], log[2]["hands"][0][0]
>>> p = check_deals("g", log).problems[0]
>>> p.code, p.message.endswith("which the deck does not give it")
('deal_not_fair', True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from jaslog.engine.fairdeal import commit_of, deck, seed_from_text
from jaslog.engine.game import Game
from jaslog.games import game_of, get_game

#: The problem every mismatch is.
CODE = "deal_not_fair"
#: The events of a round's dealing that a deck decides.
DEALING = ("dealt", "second_deal")
#: The events that open a round (a round's number counts them).
OPENERS = ("dealt", "round_score")


@dataclass(frozen=True)
class DealProblem:
    """A round whose deal does not check out."""

    round: int
    seq: int | None
    message: str
    code: str = CODE


@dataclass
class _Round:
    commit: str | None = None
    commit_seq: int | None = None
    nonces: dict[int, tuple[str, int]] = field(default_factory=dict)
    dealing: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    seed: str | None = None
    seed_seq: int | None = None


@dataclass
class DealReport:
    """What :func:`check_deals` found: the rounds it checked, those committed but not yet
    revealed, and the problems."""

    checked: list[int] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)
    problems: list[DealProblem] = field(default_factory=list)

    @property
    def fair(self) -> bool:
        return not self.problems


def check_deals(game_id: str, events: Iterable[Mapping[str, Any]]) -> DealReport:
    """Every committed round of one game's log (event dicts in seq order), checked."""
    report = DealReport()
    rounds: dict[int, _Round] = {}
    players, ruleset, number = 4, None, 0
    dealers: dict[int, int | None] = {}
    for e in events:
        t, seq = e.get("type"), e.get("seq")
        if t == "game_started":
            ruleset = e.get("ruleset")
            players = len(e.get("seats") or ()) or players
        elif t in OPENERS:
            number += 1
            if t == "dealt":
                dealers[number] = e.get("dealer")
                rounds.setdefault(number, _Round()).dealing.setdefault("dealt", e)
        elif t == "second_deal":
            rounds.setdefault(number, _Round()).dealing.setdefault("second_deal", e)
        elif t == "deal_committed":
            r = rounds.setdefault(int(e["round"]), _Round())
            if r.commit is not None:
                report.problems.append(DealProblem(
                    e["round"], seq, f"round {e['round']}: a second commit (seq {seq})"))
            elif r.dealing or r.nonces:
                report.problems.append(DealProblem(
                    e["round"], seq, f"round {e['round']}: the commit (seq {seq}) comes after "
                                     "the deal or a nonce"))
            else:
                r.commit, r.commit_seq = str(e["commit"]), seq
        elif t == "nonce":
            r = rounds.setdefault(int(e["round"]), _Round())
            seat = int(e["seat"])
            if r.commit is None or r.dealing:
                report.problems.append(DealProblem(
                    e["round"], seq, f"round {e['round']}: seat {seat}'s nonce (seq {seq}) is "
                                     "not between the commit and the deal"))
            elif seat in r.nonces:
                report.problems.append(DealProblem(
                    e["round"], seq, f"round {e['round']}: seat {seat} sent a second nonce "
                                     f"(seq {seq})"))
            else:
                r.nonces[seat] = (str(e["nonce"]), seq if isinstance(seq, int) else -1)
        elif t == "deal_revealed":
            r = rounds.setdefault(int(e["round"]), _Round())
            r.seed, r.seed_seq = str(e["seed"]), seq
    if ruleset is None:
        return report
    game = get_game(game_of(str(ruleset)))
    players = game.players
    last_dealt = number
    for n in sorted(rounds):
        r = rounds[n]
        if r.commit is None:
            if r.seed is not None:
                report.problems.append(DealProblem(
                    n, r.seed_seq, f"round {n}: a seed is revealed for a round never committed"))
            continue
        if r.seed is None:
            if n < last_dealt:
                report.problems.append(DealProblem(
                    n, r.commit_seq, f"round {n}: committed but never revealed, and the game "
                                     "went on"))
            else:
                report.pending.append(n)
            continue
        report.problems.extend(_check_round(game_id, game, n, r, dealers.get(n), players))
        report.checked.append(n)
    return report


def _check_round(game_id: str, game: Game, n: int, r: _Round, dealer: int | None,
                 players: int) -> list[DealProblem]:
    seed = seed_from_text(r.seed or "")
    if seed is None:
        return [DealProblem(n, r.seed_seq, f"round {n}: the revealed seed is not 64 hex digits")]
    if commit_of(seed) != r.commit:
        return [DealProblem(n, r.seed_seq, f"round {n}: the revealed seed's SHA-256 is not the "
                                           f"commit {r.commit}")]
    if "dealt" not in r.dealing:
        return [DealProblem(n, r.seed_seq, f"round {n}: revealed, but no cards were dealt")]
    if dealer is None:
        return [DealProblem(n, r.dealing["dealt"].get("seq"),
                            f"round {n}: the deal does not name its dealer")]
    nonces = [r.nonces[s][0] if s in r.nonces else "" for s in range(players)]
    expected = game.deal_from_deck(deck(seed, game_id, n, nonces, game.pack), dealer)
    for kind in DEALING:
        given = r.dealing.get(kind)
        if given is None or kind not in expected:
            continue
        for name, want in expected[kind].items():
            got = given.get(name)
            if got is None:
                continue  # a field the record leaves out (a stock not written) is not checked
            message = _differs(name, got, want)
            if message:  # the first difference says it: the rest follows from it
                return [DealProblem(n, given.get("seq"), f"round {n}: {message}")]
    return []


def _differs(name: str, got: Any, want: Any) -> str | None:
    """How a dealt field differs from what the deck gives, or None."""
    if name == "hands":
        for seat, (g, w) in enumerate(zip(got, want, strict=True)):
            if g is None:  # a hand this sight does not see (it stays secret): not checked
                continue
            if sorted(g) != sorted(w):
                extra = [c for c in g if c not in w]
                return (f"seat {seat} was dealt {' '.join(extra) or 'other cards'}, which the "
                        "deck does not give it")
        return None
    if got != want:
        return f"{name} is {got}, the deck gives {want}"
    return None
