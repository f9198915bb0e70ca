"""Klaverjas: 4 players in two partnerships, Amsterdam and Rotterdam play (rule book section 3).

Everything about the game is in this package, with the same module names in each game's:
``events`` (its own events and their words), ``rules/`` (pure), ``options``, ``fold``,
``view`` (the round report and the one visibility rule: ``seat_view`` for the table,
``redact_event`` for an event), ``deal`` (how a round is dealt from a deck), ``sim``
(simulator and bots), ``oracle``, and the adapters the layers load by name: ``export``, ``render``,
``record``; and ``contract``, its rows of the contract test's tables.
"""

from jaslog.engine.game import Game
from jaslog.games.klaverjas import deal, events, facts, options, oracle, sim, view
from jaslog.games.klaverjas.fold import KlaverjasFold

GAME = Game(
    name="klaverjas",
    title="Klaverjas",
    players=4,
    scoring="teams",
    round_word="round",
    fold=KlaverjasFold,
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
    round_details=facts.round_details,
    simulate=sim.simulate_klaverjas,
    oracle_ops=oracle.OPS,
    answer=oracle.answer,
    score_example=oracle.SCORE_EXAMPLE,
    won=frozenset({"made", "pit"}),
    lost=frozenset({"nat"}),
    pack=deal.PACK,
    deal_from_deck=deal.deal_from_deck,
    tied=frozenset(()),
    score_only_roem=("roem",),
    score_only_unknown=("roem_on_table",),
    events=events.EVENTS,
)
