"""Each game's own events have their words in the game's folder: a line on the terminal (its
render adapter's ``EVENT_TEXTS``, its bids' ``CALL_WORDS``) and a statement in the notation
(``words`` on the model), for every event of the sample games."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaslog.events import EVENT_MODELS, SHARED_EVENTS, parse_event
from jaslog.events.registry import event_type
from jaslog.games import GAMES
from jaslog.notation import read_games, write_game
from jaslog.play.fold import start_fold
from jaslog.play.render import describe_event

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.stem)
def test_every_event_of_a_replay_has_a_line_of_its_own(path: Path) -> None:
    events = [parse_event(line) for line in path.read_bytes().splitlines()]
    fold = start_fold(events[0])
    for e in events[1:]:
        fold.apply(e)
        said = describe_event(fold, e).plain.split(maxsplit=2)[2]  # after "seq  N"
        assert said != e.type, said  # an event without a line of its own shows its type
        if e.type == "bid" and e.call not in "CDHS":  # type: ignore[attr-defined]
            assert e.call not in said.split(), said  # type: ignore[attr-defined]


def test_the_replays_hold_every_games_own_events() -> None:
    seen = {parse_event(line).type for p in REPLAYS for line in p.read_bytes().splitlines()}
    own = {event_type(m) for g in GAMES.values() for m in g.events}
    assert own == set(EVENT_MODELS) - {event_type(m) for m in SHARED_EVENTS}
    assert own <= seen


@pytest.mark.parametrize("name", list(GAMES))
def test_a_games_events_are_declared_in_its_folder(name: str) -> None:
    game = GAMES[name]
    texts = game.adapter("render").EVENT_TEXTS
    for model in game.events:
        assert model.__module__ == f"{game.package}.events"
        t = event_type(model)
        assert t in texts and EVENT_MODELS[t] is model
        assert model.words.word  # type: ignore[attr-defined]


def test_a_knock_back_is_written_and_read_by_its_declared_words() -> None:
    events = [{"game": "g", "seq": 0, "type": "knock_back", "seat": 2},
              {"game": "g", "seq": 1, "type": "sequence", "seat": 0, "cards": ["JS", "QS", "KS"]}]
    text = write_game(events)
    assert text.splitlines()[2:] == ["Knock back 2", "Sequence 0 JS QS KS"]
    [g] = read_games(text.replace("Knock back 2", "knock-back 2"))
    assert g.events == events and g.errors == []
