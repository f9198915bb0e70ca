"""The analysis columns of the export (``jaslog export --par``): each round's par and par
result, and what each play cost (rule book 9.2, decisions 16 and 17).

They come from :mod:`jaslog.analysis`, which solves every position of a round whose hands
are known (and its principal line, for the par result): about 0.1 s of CPU per Klaverjas
round with the compiled core (60-125 ms averaged over a game), 2-10 ms per Klaberjass or
Kloepper deal, against about 0.6 ms per round for the rest of the export. So they are
computed only when asked for (``par=True``); without it the columns are NULL.

A round the analysis cannot solve (its hands unknown, no trumps, rules worth more than the
solver's tables hold) keeps NULL in every column here, and so do its plays.

Each deal is solved once for all its positions: one solver whose tables serve the round's
every position, the round's par result from its first position only (the costly plays' own
par results are ``jaslog analyze``'s). A round solved once is not solved again: its answers
(:data:`Solved`) are kept in the store under a digest of its deal
(:func:`jaslog.analysis.rounds.deal_key`, ``round_par``), and an export from the store hands
them back (``stored``), so only the rounds no export solved before are solved.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jaslog.analysis.adapt import solver_of
from jaslog.analysis.core import Solver
from jaslog.analysis.model import Deal, NoPar
from jaslog.analysis.rounds import Solved, analyze_deal, deal_key
from jaslog.engine.fold import GameFold
from jaslog.games import get_game

#: A game's solved rounds as the store hands them back: (round, deal key) -> (par, par
#: result, losses).
Known = Mapping[tuple[int, bytes], tuple[int, str | None, Any]]


@dataclass(slots=True)
class GamePar:
    """A game's analysis columns: by round, its par and par result; by seq, a play's loss;
    and the rounds solved here (not handed in as known), for the store to keep."""

    rounds: dict[int, tuple[int, str | None]] = field(default_factory=dict)
    losses: dict[int, int] = field(default_factory=dict)
    solved: list[Solved] = field(default_factory=list)

    def of_round(self, number: int) -> tuple[int | None, str | None]:
        """``rounds.par`` and ``rounds.par_result`` of round ``number`` (None, None: no par).

        >>> GamePar({1: (52, "made")}).of_round(1), GamePar().of_round(2)
        ((52, 'made'), (None, None))
        """
        return self.rounds.get(number, (None, None))


#: The solvers of the last deals this process solved (a Klaverjas game's sixteen), by the
#: deal as dealt (rules, sides, first position): the same deal played at another table (a
#: duplicate tournament's) is solved with the tables its first solve filled, its positions
#: shared: some 0.002 s a round instead of 0.15 s, for about 6 MB a solver kept. An export
#: keeps them while it builds a chunk of games (:func:`forget_families` after it).
_FAMILIES: OrderedDict[tuple[Any, ...], Solver] = OrderedDict()
FAMILIES = 16


def family_solver(deal: Deal) -> Solver:
    """The solver of ``deal``'s family (the deal as dealt, whatever was played): the one
    kept from the last deal of the family solved here, or a new one."""
    key = (deal.rules, deal.side, deal.pending, deal.start)
    s = _FAMILIES.pop(key, None)
    if s is None:
        s = Solver(deal.rules, deal.side, deal.pending)
    _FAMILIES[key] = s
    while len(_FAMILIES) > FAMILIES:
        _FAMILIES.popitem(last=False)
    return s


def forget_families() -> None:
    """Let go of the solvers kept for deals played again (and of their tables' memory)."""
    _FAMILIES.clear()


def game_par(fold: GameFold, *, stored: Known | None = None) -> GamePar:
    """The analysis columns of a folded game: every round whose hands are known solved from
    its first card, with the loss of each of its plays; a round of ``stored`` (its deal's
    key in it) is taken from there, not solved again.

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> f = fold(event_from_dict(e) for e in simulate_game("p", "klaberjass-2p", seed=3)[:40])
    >>> gp = game_par(f)   # round 1 was annulled (no maker: no par), round 3 is under way
    >>> gp.of_round(1), gp.of_round(2), gp.of_round(3)
    ((None, None), (43, 'made'), (12, 'made'))
    >>> len(gp.losses), min(gp.losses.values()) >= 0   # 18 cards of deal 2, 8 of deal 3
    (26, True)
    >>> known = {(r, key): (p, res, losses) for r, key, p, res, losses in gp.solved}
    >>> again = game_par(f, stored=known)
    >>> again.rounds == gp.rounds and again.losses == gp.losses, again.solved
    (True, [])
    >>> other = {(r, b"another deal"): (999, "made", []) for r, *_ in gp.solved}
    >>> game_par(f, stored=other).rounds == gp.rounds   # not its deal: solved
    True
    """
    out = GamePar()
    game = get_game(fold.game)
    if not game.supports("solver"):  # no par for a game without a solver: NULL columns
        return out
    for deal in solver_of(game).deals(fold):
        if isinstance(deal, NoPar):
            continue
        key = deal_key(deal)
        hit = stored.get((deal.round, key)) if stored else None
        if hit is not None:
            out.rounds[deal.round] = (hit[0], hit[1])
            for seq, loss in hit[2]:
                out.losses[seq] = loss
            continue
        try:
            a = analyze_deal(deal, best_cards=False, play_results=False,
                             solver=family_solver(deal))
        except ValueError:  # rules worth more than the solver holds: no par, said by NULL
            continue
        if a.par is None:
            continue
        out.rounds[deal.round] = (a.par, a.par_result)
        for p in a.plays:
            out.losses[p.seq] = p.loss
        out.solved.append((deal.round, key, a.par, a.par_result,
                           [[p.seq, p.loss] for p in a.plays]))
    return out
