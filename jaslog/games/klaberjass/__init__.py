"""Klaberjass: 2 players, turn-up trump, two bidding rounds, sequences and bella (rule book section 4).

Everything about the game is in this package, with the same module names in each game's:
``events`` (its own events and their words), ``rules/`` (pure), ``options``, ``fold``,
``view`` (the round report and the one visibility rule: ``seat_view`` for the table,
``redact_event`` for an event), ``deal`` (how a round is dealt from a deck), ``sim``
(simulator and bots), ``oracle``, and the adapters the layers load by name: ``export``, ``render``,
``record``; and ``contract``, its rows of the contract test's tables.
"""

from jaslog.engine.game import Game
from jaslog.games.klaberjass import deal, events, options, oracle, sim, view
from jaslog.games.klaberjass.fold import KlaberjassFold

GAME = Game(
    name="klaberjass",
    title="Klaberjass",
    players=2,
    scoring="players",
    round_word="deal",
    fold=KlaberjassFold,
    options=options.OPTIONS,
    presets=options.PRESETS,
    resolve=options.resolve,
    report=view.rounds_report,
    seat_view=view.seat_view,
    frame=view.frame,
    report_round=view.report_round,
    redact_event=view.redact_event,
    roem_of=view.roem_of,
    outcome_roem=view.outcome_roem,
    simulate=sim.simulate_klaberjass,
    oracle_ops=oracle.OPS,
    answer=oracle.answer,
    score_example=oracle.SCORE_EXAMPLE,
    won=frozenset({"made"}),
    lost=frozenset({"bete"}),
    pack=deal.PACK,
    deal_from_deck=deal.deal_from_deck,
    tied=frozenset({"tie"}),
    score_only_roem=("sequences",),
    score_only_unknown=("tricks_won", "deal_totals", "bella"),
    events=events.EVENTS,
)
