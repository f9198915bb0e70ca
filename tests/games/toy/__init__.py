"""A toy fourth game, to show that adding a game is one folder (and one line, or here one
:func:`jaslog.games.register` call in ``conftest.py``): two players, ten cards, five
tricks a round, must follow suit, the higher card wins, one event of its own (``double``).

The folder has the module names every game has: ``rules`` (pure), ``events`` (its own
event models), ``options``, ``fold``, ``view``, ``sim``, ``deal``, the adapters it declares
(``export``, ``render``: it has no recorder words and no solver) and ``contract`` (its rows
of the contract test's tables).
"""

from typing import Any

from jaslog.engine.game import Game
from tests.games.toy import deal, options, sim, view
from tests.games.toy.events import EVENTS
from tests.games.toy.fold import ToyFold


def no_oracle(op: str, query: dict[str, Any], opts: dict[str, Any]) -> dict[str, Any]:
    """The toy answers no rules-oracle question (its ``oracle_ops`` are none)."""
    raise ValueError(f"op {op!r} is not a question for toy (it has none)")


GAME = Game(
    events=EVENTS,
    name="toy",
    title="Toy",
    players=2,
    scoring="players",
    round_word="round",
    fold=ToyFold,
    options=options.OPTIONS,
    presets=options.PRESETS,
    resolve=options.resolve,
    report=view.rounds_report,
    seat_view=view.seat_view,
    frame=view.frame,
    report_round=view.report_round,
    redact_event=view.redact_event,
    roem_of=None,
    simulate=sim.simulate_toy,
    oracle_ops=(),
    answer=no_oracle,
    won=frozenset({"made"}),
    lost=frozenset({"bete"}),
    tied=frozenset(),
    pack=deal.PACK,
    deal_from_deck=deal.deal_from_deck,
    score_only_unknown=("tricks_won",),
    package="tests.games.toy",
    adapters=frozenset({"export", "render"}),
)
