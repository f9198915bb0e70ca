"""Each game's export, record and solver adapters match the Protocol of the layer that loads
them, checked twice: by mypy (the typed assignments below, one per shipped game and
adapter) and at run time for every registered game and every adapter it declares; the toy
declares only ``export`` and ``render``, and the typed loaders refuse it the others."""

import pytest

from jaslog.analysis.adapt import SolverAdapter, solver_of
from jaslog.engine.game import NotSupported
from jaslog.export.rows import ExportAdapter, export_adapter
from jaslog.games import GAMES, get_game
from jaslog.games.klaberjass import export as klaberjass_export
from jaslog.games.klaberjass import record as klaberjass_record
from jaslog.games.klaberjass import solver as klaberjass_solver
from jaslog.games.klaverjas import export as klaverjas_export
from jaslog.games.klaverjas import record as klaverjas_record
from jaslog.games.klaverjas import solver as klaverjas_solver
from jaslog.games.kloepper import export as kloepper_export
from jaslog.games.kloepper import record as kloepper_record
from jaslog.games.kloepper import solver as kloepper_solver
from jaslog.record.core import RecordAdapter, Recorder, record_adapter
from tests.games.toy import GAME as TOY

# mypy checks each module against its layer's Protocol (a missing or mistyped function fails
# `mypy`).
EXPORTS: tuple[ExportAdapter, ...] = (klaverjas_export, klaberjass_export, kloepper_export)
RECORDS: tuple[RecordAdapter, ...] = (klaverjas_record, klaberjass_record, kloepper_record)
SOLVERS: tuple[SolverAdapter, ...] = (klaverjas_solver, klaberjass_solver, kloepper_solver)

PROTOCOLS = {"export": ExportAdapter, "record": RecordAdapter, "solver": SolverAdapter}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_declared_adapters_match_their_protocol(name: str) -> None:
    game = get_game(name)
    declared = [layer for layer in PROTOCOLS if game.supports(layer)]
    for layer in declared:
        assert isinstance(game.adapter(layer), PROTOCOLS[layer]), f"{name}'s {layer} adapter"
    if game.supports("export"):
        assert callable(export_adapter(game).build)
    if game.supports("record"):
        assert issubclass(record_adapter(game).RECORDER, Recorder)
    if game.supports("solver"):
        assert callable(solver_of(game).deals)


def test_typed_loaders_refuse_an_adapter_a_game_lacks() -> None:
    toy = TOY
    assert toy.supports("export") and not toy.supports("solver")
    with pytest.raises(NotSupported, match="toy has no solver"):
        solver_of(toy)
    with pytest.raises(NotSupported, match="toy has no record"):
        record_adapter(toy)

