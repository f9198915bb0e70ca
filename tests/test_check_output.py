"""What ``jaslog check`` prints, as text and as ``--json``, held byte for byte for games that
hold everything a report can: in each of the three games, rule violations (some found only at
a round's last card, its hands not recorded), rulings (one superseded, made after the game's
end), a round recorded by its score alone, an irregularity, a retracted event, a timeout,
claims of the rest, and a game a correction after its end makes invalid.

The games are the golden replays with violations and a ruling, and
``tests/fixtures/check/facts.jsonl``: a simulated game of each game, with revokes, false
roem claims, rounds without their hands and claims of the rest, whose first round was
replaced by its score (then an irregularity before round 2's deal and a timeout), with an
irregularity retracted in round 3 and three rulings after the end (the second supersedes the
first). ``expected.json`` and ``expected.text`` beside it are what ``check`` printed of them;
a change of what ``check`` says must show here, and is written there with
``JASLOG_WRITE_EXPECTED=1`` set.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from tests.cli import jaslog

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "check"
FILES = ["replays/amsterdam-revoke-ruling.jsonl", "replays/klaberjass-faults.jsonl",
         "replays/kloepper-faults.jsonl", "tests/fixtures/check/facts.jsonl"]


@pytest.mark.parametrize("mode", ["json", "text"])
def test_check_prints_every_report_as_it_did(mode: str) -> None:
    args = ["check", "--json", *FILES] if mode == "json" else ["check", *FILES]
    r = jaslog(*args, cwd=ROOT)
    assert r.returncode == 2 and r.stderr == b""  # (one game is invalid)
    expected = FIXTURES / f"expected.{mode}"
    if os.environ.get("JASLOG_WRITE_EXPECTED") == "1":
        expected.write_bytes(r.stdout)
    assert r.stdout == expected.read_bytes()


def test_the_games_hold_what_the_output_is_to_show() -> None:
    """The fixture still holds every kind of fact the report shows, in every game."""
    reports = [orjson.loads(line) for line in (FIXTURES / "expected.json").read_bytes().splitlines()]
    games: dict[str, set[str]] = {}
    for rep in reports:
        rounds = rep["rounds"]
        games.setdefault(rep["ruleset"], set()).update(
            kind for kind, there in (
                ("violation", rep["violations"]),
                ("superseded ruling", any(x["superseded"] for r in rounds for x in r["rulings"])),
                ("ruling after the end", any(x["after_end"] for r in rounds for x in r["rulings"])),
                ("score only", any(r["recorded"] == "score_only" for r in rounds)),
                ("irregularity", rep["irregularities"]),
                ("retracted", rep["retracted"]),
                ("timeout", rep["timeouts"]),
                ("claim", any(r["claim"] for r in rounds)),
                ("invalid", rep["error"])) if there)
    kinds = {"violation", "superseded ruling", "ruling after the end", "score only",
             "irregularity", "retracted", "timeout"}
    for ruleset in ("amsterdam", "rotterdam", "klaberjass-2p", "kloepper"):
        assert kinds <= games[ruleset], (ruleset, kinds - games[ruleset])
    assert "claim" in games["rotterdam"] and "invalid" in games["amsterdam"]
