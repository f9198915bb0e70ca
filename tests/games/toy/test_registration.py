"""Registering a game at run time, and the layers a game declares no adapter for."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import jaslog.events as events
from jaslog.errors import JaslogError
from jaslog.events import EventError, GameStarted, parse_event
from jaslog.games import CATALOGUES, GAMES, PRESETS, register, unregister
from jaslog.play.oracle import answer
from jaslog.record import open_recorder
from jaslog.store import open_store
from tests.games.toy import GAME

STARTED = b'{"game":"t","seq":0,"type":"game_started","ruleset":"toy","seats":["a","b"],"dealer":0}'
DOUBLE = b'{"game":"t","seq":2,"type":"double","seat":1}'


def test_unregistering_leaves_the_process_as_it_found_it() -> None:
    started = parse_event(STARTED)
    assert parse_event(DOUBLE).type == "double"
    assert isinstance(started, GameStarted) and started.ruleset == "toy"
    unregister(GAME)
    try:
        assert "toy" not in GAMES and "toy" not in PRESETS and "toy" not in CATALOGUES
        assert "toy" not in events.RULESETS and "double" not in events.EVENT_MODELS
        with pytest.raises(EventError, match="unknown event type 'double'"):
            parse_event(DOUBLE)
        with pytest.raises(EventError, match="ruleset"):
            parse_event(STARTED)
    finally:
        register(GAME)
    assert parse_event(DOUBLE).type == "double" and GAMES["toy"] is GAME


def test_a_game_or_a_preset_is_registered_once() -> None:
    register(GAME)  # the same game again changes nothing
    with pytest.raises(ValueError, match="registered already"):
        register(dataclasses.replace(GAME, title="Another toy"))


def test_a_layer_the_game_has_no_adapter_for_refuses_it_in_a_sentence(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "s.sqlite")) as store:
        store.append("t", [parse_event(STARTED).model_dump(exclude_none=True)])
        with pytest.raises(JaslogError, match=r"^toy has no record ") as e:
            open_recorder(store, "t")
    assert e.value.code == "not_supported"
    with pytest.raises(JaslogError, match=r"^toy has no solver ") as e:
        answer({"op": "solve", "ruleset": "toy", "hands": [["AH"], ["AS"]], "leader": 0})
    assert e.value.code == "not_supported"
    with pytest.raises(JaslogError, match="not a question for toy"):
        answer({"op": "legal", "ruleset": "toy"})
