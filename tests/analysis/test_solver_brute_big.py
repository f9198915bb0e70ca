"""The solver against brute force on bigger endgames (four cards a hand in the four-player
games, five and six in Klaberjass): see ``test_solver_brute.py``."""

from __future__ import annotations

import pytest

from tests.analysis.test_solver_brute import klaberjass_case, klaverjas_case, kloepper_case, run

pytestmark = pytest.mark.soak


def test_klaverjas_bigger_endgames() -> None:
    run(klaverjas_case, 11, 120, (4,))


def test_klaberjass_bigger_endgames() -> None:
    run(klaberjass_case, 12, 120, (5, 5, 6))


def test_kloepper_bigger_endgames() -> None:
    run(kloepper_case, 13, 80, (4,))
