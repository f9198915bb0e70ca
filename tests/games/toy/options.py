"""The toy game's options and its one preset, ``toy``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jaslog.engine.options import Option, catalogue, resolve_preset

OPTIONS = catalogue(
    Option("game", "choice", ("toy",)),
    Option("rounds", "int", most=99),
    Option("revoke", "choice", ("penalty", "reject", "ignore")),
)

PRESETS: dict[str, dict[str, Any]] = {
    "toy": {"game": "toy", "rounds": 3, "revoke": "penalty"},
}


def resolve(ruleset: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return resolve_preset(OPTIONS, ruleset, PRESETS[ruleset], overrides)
