"""The referee's analysis: the par of a round whose hands are known (perfect play), what
each play cost, and the best cards (rule book 9.2, decisions 16 and 17).

Pure: it imports only the cards, the engine and the games. Each game declares how its rules
look to the solver in its ``solver`` adapter (``Game.adapter("solver")``):
:mod:`jaslog.analysis.model` says what an adapter builds; :mod:`jaslog.analysis.core` solves
positions; :mod:`jaslog.analysis.rounds` goes through recorded rounds; :mod:`jaslog.analysis.query`
answers the rules oracle's ``solve`` op; :mod:`jaslog.analysis.claims` judges a claim of the
rest (rule book decision 13).
"""

from jaslog.analysis.core import (
    Budget,
    Solution,
    Solver,
    TooHard,
    compiled_core,
    core_name,
    solve,
)
from jaslog.analysis.model import Deal, NoPar, Position, Problem, SolveRules

__all__ = [
           "Budget",
           "Deal",
           "NoPar",
           "Position",
           "Problem",
           "Solution",
           "SolveRules",
           "Solver",
           "TooHard",
           "compiled_core",
           "core_name",
           "solve",
]
