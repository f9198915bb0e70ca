"""``jaslog replay`` in the words of the table: a Klaberjass tie's points held and the deal
that receives them, each rule's sentence with the players' names and the suit symbols the
event lines use, and every card with its symbol."""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli import jaslog

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


def blocks(out: str) -> dict[int, str]:
    """The replay's output by seq: each event's line and the table after it, on one line."""
    parts = re.split(r"^(?=seq +\d+ )", out, flags=re.M)[1:]
    return {int(p.split()[1]): " ".join(p.split()) for p in parts}


def test_a_tie_holds_its_points_and_the_next_deal_receives_them():
    """klaberjass-faults (tie_mode carry_over): deal 6 ties, its maker's 87 are held; deal
    7's winner, tess, receives them: 93–42 as played counts 180–42 (check --json: held 87,
    received 87, totals 424–503)."""
    r = jaslog("replay", str(REPLAYS / "klaberjass-faults.jsonl"), env={"COLUMNS": "120"},
               text=True)
    assert r.returncode == 0, r.stderr
    by_seq = blocks(r.stdout)
    assert "tie: 0–87; 87 held for the next deal's winner" in by_seq[144], by_seq[144]
    assert "made: 93–42; + 87 received by tess (held from a tie): counts 180–42" in by_seq[168]
    assert "score tess 424 · umut 503" in by_seq[170]
    # a deal without a tie before it receives nothing
    assert "received" not in by_seq[21] and "held for" not in by_seq[21]


def test_rules_sentences_and_cards_read_as_the_event_lines_do():
    r = jaslog("replay", str(REPLAYS / "amsterdam-revoke-ruling.jsonl"), "--to", "47",
               env={"COLUMNS": "120"}, text=True)
    assert r.returncode == 0, r.stderr
    by_seq = blocks(r.stdout)
    assert "; first dealer kees (2) " in by_seq[0]
    assert "ilse (0) plays 7♣" in by_seq[46]
    assert ("✗ must_follow_suit: ilse (0) played 7♣ to a diamonds lead while holding diamonds "
            "(A♦): must follow suit") in by_seq[46], by_seq[46]
    assert "seat 0" not in r.stdout and "7C" not in r.stdout


def test_a_klaberjass_deal_shows_its_cards_with_symbols():
    r = jaslog("replay", str(REPLAYS / "klaberjass-full.jsonl"), env={"COLUMNS": "120"},
               text=True)
    assert r.returncode == 0, r.stderr
    assert re.search(r"turn-up (10|[7-9JQKA])[♣♦♥♠]", r.stdout)
    assert re.search(r"bottom card (10|[7-9JQKA])[♣♦♥♠]", r.stdout)
    assert not re.search(r"(turn-up|bottom card|dix for) (10|[7-9JQKA])[CDHS]\b", r.stdout)
