"""Kloepper: 4 players, black queens make hidden partnerships (rule book section 5).

Everything about the game is in this package, with the same module names in each game's:
``events`` (its own events and their words), ``rules/`` (pure), ``options``, ``fold``,
``view`` (the round report and the one visibility rule: ``seat_view`` for the table,
``redact_event`` for an event), ``deal`` (how a round is dealt from a deck), ``sim``
(simulator and bots), ``oracle``, and the adapters the layers load by name: ``export``, ``render``,
``record``; and ``contract``, its rows of the contract test's tables.
"""

from jaslog.engine.game import Game
from jaslog.games.kloepper import deal, events, options, oracle, sim, view
from jaslog.games.kloepper.fold import KloepperFold

GAME = Game(
    name="kloepper",
    title="Kloepper",
    players=4,
    scoring="players",
    round_word="deal",
    fold=KloepperFold,
    options=options.OPTIONS,
    presets=options.PRESETS,
    resolve=options.resolve,
    report=view.rounds_report,
    seat_view=view.seat_view,
    frame=view.frame,
    report_round=view.report_round,
    redact_event=view.redact_event,
    roem_of=None,
    simulate=sim.simulate_kloepper,
    oracle_ops=oracle.OPS,
    answer=oracle.answer,
    score_example=oracle.SCORE_EXAMPLE,
    won=frozenset({"queens"}),
    lost=frozenset({"others"}),
    pack=deal.PACK,
    deal_from_deck=deal.deal_from_deck,
    tied=frozenset({"none"}),
    score_only_roem=(),
    score_only_unknown=("tricks_won",),
    events=events.EVENTS,
)
