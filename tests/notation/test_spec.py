"""The specification's examples (docs/notation.md) are what jaslog writes and reads: each
``jaslog`` block is canonical and a game the rules accept, each ``text`` block (typed by hand)
reads as the canonical block before it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jaslog.events import event_from_dict
from jaslog.notation import read_games, write_game
from jaslog.play.fold import fold

SPEC = Path(__file__).resolve().parents[2] / "docs" / "notation.md"
BLOCKS = re.findall(r"```(jaslog|text)\n(.*?)```", SPEC.read_text(), re.S)


def test_the_spec_has_an_example_of_every_game_and_of_a_real_tables_facts() -> None:
    canonical = "".join(b for kind, b in BLOCKS if kind == "jaslog")
    for word in ('[Ruleset "amsterdam"]', '[Ruleset "rotterdam"]', '[Ruleset "klaberjass-2p"]',
                 '[Ruleset "kloepper"]', "Correction -1", "Ruling round", "Irregularity",
                 "Score round", "Note", "Knock back", "Bella", "Sequence", "Dix", "Turn"):
        assert word in canonical, word
    assert "[the jaslog notation](notation.md)" in (SPEC.parent / "event-format.md").read_text()


@pytest.mark.parametrize(("kind", "block"), BLOCKS, ids=[f"{k}{i}" for i, (k, _) in
                                                          enumerate(BLOCKS)])
def test_an_example_reads_without_error_and_is_a_game(kind: str, block: str) -> None:
    [game] = read_games(block, "spec")
    assert game.errors == []
    fold([event_from_dict(e) for e in game.events])  # the rules take it (raises if not)
    if kind == "jaslog":
        assert write_game(game.events) == block
    else:
        earlier = BLOCKS[BLOCKS.index((kind, block)) - 1]
        assert earlier[0] == "jaslog"
        [canonical] = read_games(earlier[1])
        assert game.events == canonical.events
