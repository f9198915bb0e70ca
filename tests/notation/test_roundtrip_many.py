"""2,000 simulated games of every ruleset through the notation and back, byte for byte, each
with a time on every event and the faults real records hold (revokes, false roem, rounds
without hands). The games are spread over classes, so that pytest-xdist spreads them over its
workers (``--dist loadscope`` keeps a class's tests together).

The fast version of this test, a dozen games a ruleset, is in ``test_roundtrip.py``.
"""

from __future__ import annotations

import orjson
import pytest

from jaslog.events import canonical_json
from jaslog.logs import read_lines
from jaslog.notation import TextView, write_game
from tests.notation.helpers import simulated, text_lines

GAMES = 2000
#: The players of the games, in turn: the random bot plays a Klaverjas game in half the time
#: of the heuristic one, and its games read and write as any other.
BOTS = ("random", "random", "random", "heuristic")


def round_trip_many(ruleset: str, first: int, count: int) -> None:
    """Games ``first`` to ``first + count - 1``: their jaslog/1 to text and back gives the same
    bytes; every 50th also through every reader's path (``read_lines``: the events validated
    by the models) and back to the same text. (For the others, the text read back is the same
    bytes, hence the same events, and the writer, a function of the events, writes the same
    text.)"""
    for i in range(first, first + count):
        events = simulated(ruleset, i, BOTS[i % len(BOTS)])
        jsonl = [orjson.dumps(e) + b"\n" for e in events]  # the simulator writes canonical JSON
        text = write_game(events)
        assert list(TextView(text_lines(text))) == jsonl, i
        if i % 50 == 0:
            back = [ln.event for ln in read_lines(text_lines(text), f"{ruleset}-{i}.txt")]
            assert [canonical_json(e) + b"\n" for e in back if e is not None] == jsonl, i
            assert write_game(back) == text, i


def test_the_simulator_writes_canonical_jaslog() -> None:
    """What makes ``orjson.dumps`` of a simulated event its canonical bytes."""
    from jaslog.events import event_from_dict

    for ruleset in ("amsterdam", "klaberjass-2p", "kloepper"):
        for e in simulated(ruleset, 0):
            assert orjson.dumps(e) == canonical_json(event_from_dict(e))


# One class for each ruleset, two for the long Klaverjas games (a thousand games each), so that
# the workers share the work evenly.

@pytest.mark.soak
class TestAmsterdam:
    def test_first_1000_games(self) -> None:
        round_trip_many("amsterdam", 0, GAMES // 2)


@pytest.mark.soak
class TestAmsterdamMore:
    def test_last_1000_games(self) -> None:
        round_trip_many("amsterdam", GAMES // 2, GAMES // 2)


@pytest.mark.soak
class TestAmsterdamKbn:
    def test_first_1000_games(self) -> None:
        round_trip_many("amsterdam-kbn", 0, GAMES // 2)


@pytest.mark.soak
class TestAmsterdamKbnMore:
    def test_last_1000_games(self) -> None:
        round_trip_many("amsterdam-kbn", GAMES // 2, GAMES // 2)


@pytest.mark.soak
class TestRotterdam:
    def test_first_1000_games(self) -> None:
        round_trip_many("rotterdam", 0, GAMES // 2)


@pytest.mark.soak
class TestRotterdamMore:
    def test_last_1000_games(self) -> None:
        round_trip_many("rotterdam", GAMES // 2, GAMES // 2)


@pytest.mark.soak
class TestKlaverjasOnline501:
    def test_2000_games(self) -> None:
        round_trip_many("klaverjas-online-501", 0, GAMES)


@pytest.mark.soak
class TestKlaberjass:
    def test_2000_games(self) -> None:
        round_trip_many("klaberjass-2p", 0, GAMES)


@pytest.mark.soak
class TestKloepper:
    def test_2000_games(self) -> None:
        round_trip_many("kloepper", 0, GAMES)
