"""The analysis of recorded rounds: the par of each position, what each play cost and the
best cards, mistakes and blunders (rule book 9.2, decisions 16 and 17).

A game's ``solver`` adapter turns each round of a folded game into a
:class:`~jaslog.analysis.model.Deal` (its hands known) or a
:class:`~jaslog.analysis.model.NoPar` (why not); :func:`analyze_deal` goes through a deal's
plays with one :class:`~jaslog.analysis.core.Solver`, whose tables serve every position.

* A play's *loss* is the par before it minus the par after it, seen from the player's side:
  never negative for a legal card, 0 for the best ones. A revoke (a card outside the legal
  ones) is marked, its loss counted the same way (and never below 0).
* A *mistake* costs :data:`MISTAKE` points or more; a *blunder* turns the round's par result
  (made into nat, a pit lost...): the result at the end of the best play from the position
  before the card differs from the one after it.
* The *par result* of a position is the result word (the game's: made/nat/pit,
  made/tie/bete, queens/others/none) at the end of its principal line: from each position,
  the lowest-numbered card that keeps the par.

>>> from jaslog.play.sim import simulate_game
>>> from jaslog.play.fold import fold
>>> from jaslog.events import event_from_dict
>>> f = fold(event_from_dict(e) for e in simulate_game("a", seed=3)[:40])
>>> a = analyze_fold(f, round=1)[0]
>>> a.round, a.par is not None, all(p.loss >= 0 for p in a.plays)
(1, True, True)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from jaslog.analysis.adapt import solver_of
from jaslog.analysis.core import Budget, Solver
from jaslog.analysis.model import Deal, NoPar, Position
from jaslog.cards import card_text
from jaslog.engine.facts import claim_dict
from jaslog.engine.fold import GameFold
from jaslog.games import get_game

#: A play that costs this many points or more is a mistake (rule book 9.2, decision 17).
MISTAKE = 20


@dataclass(slots=True)
class PlayNote:
    """One play of a round as the analysis sees it."""

    index: int          # its place in the round, from 0
    trick: int          # from 1
    seat: int
    card: int
    seq: int
    side: int           # the player's side (0: the side whose par is told)
    before: int         # the par before the play
    after: int          # the par after it
    loss: int
    legal: bool
    best: list[int] = field(default_factory=list)   # the cards that kept the par (loss > 0)
    result_before: str | None = None                # the par result before and after, when
    result_after: str | None = None                 # the play cost something

    @property
    def mistake(self) -> bool:
        return self.loss >= MISTAKE

    @property
    def blunder(self) -> bool:
        return self.loss > 0 and self.result_before is not None \
            and self.result_before != self.result_after

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "trick": self.trick, "seat": self.seat,
                "card": card_text(self.card), "legal": self.legal, "before": self.before,
                "after": self.after, "loss": self.loss,
                "best": [card_text(c) for c in self.best], "mistake": self.mistake,
                "blunder": self.blunder, "result_before": self.result_before,
                "result_after": self.result_after}


@dataclass(slots=True)
class RoundAnalysis:
    """A round analysed: its par beside what happened, and its plays; or why it has no par."""

    round: int
    result: str | None               # as recorded
    score: tuple[int, ...] | None
    difference: int | None           # side 0's recorded score minus side 1's
    reason: str | None = None        # why there is no par
    par: int | None = None           # the par from the first card
    par_result: str | None = None
    end: int | None = None           # the par of the position the plays reached
    sides: tuple[str, str] | None = None
    note: str = ""
    pars: list[int] = field(default_factory=list)   # the par before each play, then at the end
    plays: list[PlayNote] = field(default_factory=list)
    nodes: int = 0
    #: the claim of the rest that ended the play (the fold's report of it), with ``par``: the
    #: par of the position claimed from (what perfect play would have made of the rest)
    claim: dict[str, Any] | None = None

    @property
    def costly(self) -> list[PlayNote]:
        """The plays that cost their side points."""
        return [p for p in self.plays if p.loss > 0]

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, "par": self.par, "par_result": self.par_result,
                "result": self.result, "score": list(self.score) if self.score else None,
                "difference": self.difference, "end": self.end,
                "sides": list(self.sides) if self.sides else None, "note": self.note or None,
                "no_par": self.reason, "pars": self.pars,
                "costly": [p.to_json() for p in self.costly], "claim": self.claim}


def principal_end(solver: Solver, pos: Position, par: int) -> Position:
    """The position at the end of ``pos``'s principal line: from each position the
    lowest-numbered card that keeps the par.

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> f = fold(event_from_dict(e) for e in simulate_game("p", seed=3)[:40])
    >>> d = get_game("klaverjas").adapter("solver").deals(f)[0]
    >>> s = Solver(d.rules, d.side)
    >>> end = principal_end(s, d.start, s.par(d.start))
    >>> end.over, s.final(end) == s.par(d.start)
    (True, True)
    """
    while not pos.over:
        legal = solver.legal(pos)
        card = -1
        for c in range(32):
            if legal >> c & 1 and solver.after(pos, c, par) == par:
                card = c
                break
        if card < 0:  # the search and its children disagree: a bug, never an answer
            raise AssertionError(f"no card keeps the par {par}")
        pos = solver.step(pos, card)
    return pos


def analyze_deal(deal: Deal, *, compiled: bool | None = None, best_cards: bool = True,
                 results: bool = True, play_results: bool = True,
                 budget: Budget | None = None, solver: Solver | None = None) -> RoundAnalysis:
    """A recorded round with its hands known, analysed (see the module). ``best_cards`` and
    ``results``: find the best cards and the par results of the costly plays (and the
    round's par result), which take a little longer; without ``play_results``, only the
    round's par result (what an export keeps: about half the time of them all).
    ``budget``: the most the whole analysis may search (past it,
    :class:`~jaslog.analysis.core.TooHard`; None: no limit). ``solver``: one of the deal's
    rules and sides to search with (its tables kept from an earlier analysis of the same
    deal, played otherwise at another table); None: a new one.

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> f = fold(event_from_dict(e) for e in simulate_game("d", seed=3)[:40])
    >>> a = analyze_deal(get_game("klaverjas").adapter("solver").deals(f)[0], results=False)
    >>> a.pars[0] == a.par and a.par_result is None, len(a.pars) == len(a.plays) + 1
    (True, True)
    """
    if solver is None:
        solver = Solver(deal.rules, deal.side, deal.pending, compiled=compiled, budget=budget)
    elif (solver.rules, solver.side, solver.pending) != (deal.rules, deal.side, deal.pending):
        raise ValueError("the solver given searches other rules or sides than the deal's")
    pos = deal.start
    par = solver.par(pos)
    out = RoundAnalysis(deal.round, deal.result, deal.score, deal.difference, par=par,
                        sides=deal.sides, note=deal.note)
    outcome_cache: dict[int, str] = {}

    def par_result(i: int, p: Position, v: int) -> str:
        if i not in outcome_cache:
            outcome_cache[i] = deal.outcome(principal_end(solver, p, v))
        return outcome_cache[i]

    if results:
        out.par_result = par_result(0, pos, par)
    trick = 1
    for i, (seat, card, seq) in enumerate(deal.plays):
        if seat != pos.to_move or not pos.hands[seat] >> card & 1:
            # the record and the hands disagree (cannot happen for a folded game)
            raise ValueError(f"play {i + 1}: seat {seat} cannot play {card_text(card)} here")
        legal = bool(solver.legal(pos) >> card & 1)
        nxt = solver.step(pos, card)
        after = solver.par(nxt, par)
        side = deal.side[seat]
        loss = par - after if side == 0 else after - par
        if legal and loss < 0:  # a legal card can never beat the par: a bug, never an answer
            raise AssertionError(f"play {i + 1} gains {-loss} over the par")
        note = PlayNote(i, trick, seat, card, seq, side, par, after, max(loss, 0), legal)
        if note.loss > 0:
            if best_cards:
                values = solver.values(pos, par)
                note.best = [c for c, v in values.items() if v == par]
            if results and play_results:
                note.result_before = par_result(i, pos, par)
                note.result_after = par_result(i + 1, nxt, after)
        out.plays.append(note)
        out.pars.append(par)
        if not nxt.trick:
            trick += 1
        pos, par = nxt, after
    out.pars.append(par)
    out.end = par
    out.nodes = solver.nodes
    return out


#: The version of a solved round's answers (par, par result, losses): part of every
#: :func:`deal_key`, bumped when the answers for the same deal change.
PAR_VERSION = b"par/1"


def deal_key(deal: Deal) -> bytes:
    """A digest of what a round's solve depends on: the deal the solver is given (its
    rules, sides, first position, plays and what is pending) and :data:`PAR_VERSION`. A
    solved round is stored under it (``round_par``): any change to the round gives another.

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> from dataclasses import replace
    >>> f = fold(event_from_dict(e) for e in simulate_game("k", seed=3)[:40])
    >>> d = get_game("klaverjas").adapter("solver").deals(f)[0]
    >>> len(deal_key(d)), deal_key(d) == deal_key(d), deal_key(d) == deal_key(replace(d, round=2))
    (12, True, True)
    """
    h = hashlib.blake2b(PAR_VERSION, digest_size=12)
    h.update(repr((deal.rules, deal.side, deal.start, deal.plays, deal.pending)).encode())
    return h.digest()


#: A solved round as the store keeps it (``round_par``): (round, :func:`deal_key`, par, par
#: result, the losses of its plays as ``[seq, loss]`` pairs).
Solved = tuple[int, bytes, int, str | None, list[list[int]]]


def analyze_fold(fold: GameFold, *, round: int | None = None, compiled: bool | None = None,
                 best_cards: bool = True, results: bool = True,
                 budget: Budget | None = None) -> list[RoundAnalysis]:
    """Every round of a folded game analysed (or only round ``round``), in order; each
    round within ``budget`` (None: no limit)."""
    adapter = solver_of(get_game(fold.game))
    out = []
    for d in adapter.deals(fold):
        if round is not None and d.round != round:
            continue
        if isinstance(d, NoPar):
            a = RoundAnalysis(d.round, d.result, d.score, None, reason=d.reason)
        else:
            a = analyze_deal(d, compiled=compiled, best_cards=best_cards, results=results,
                             budget=budget)
        claim = claim_dict(fold.state.rounds[d.round - 1].claim)
        if claim is not None:
            a.claim = claim | {"par": a.end}
        out.append(a)
    return out
