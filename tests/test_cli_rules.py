"""``jaslog rules``: the rule book on demand (each subcommand, ``--json``, ``--batch``), and
the oracle behind it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from jaslog.cli import app
from jaslog.games import PRESETS, resolve

from .test_oracle import BAD_QUERIES, QUERIES

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def rules(*args: str, stdin: bytes | None = None) -> tuple[int, str]:
    r = runner.invoke(app, ["rules", *args], input=stdin)
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


def test_presets() -> None:
    code, out = rules("presets")
    assert code == 0
    for name in PRESETS:
        assert name in out
    code, out = rules("presets", "--json")
    assert orjson.loads(out) == {name: p["game"] for name, p in PRESETS.items()}


def test_options_with_overrides() -> None:
    code, out = rules("options", "--ruleset", "rotterdam", "-o", "tie_is_failure=false", "--json")
    assert code == 0
    assert orjson.loads(out) == resolve("rotterdam", {"tie_is_failure": False})
    code, out = rules("options", "-r", "amsterdam-kbn")
    assert code == 0
    assert 'roem.four_kind_ranks' in out and '["A","K","Q","10","9","8","7"]' in out
    assert "trump_selection" in out and '"utrecht"' in out


@pytest.mark.parametrize("args, message", [
    (["options", "-r", "paris"], "unknown ruleset 'paris'"),
    (["options", "-o", "nope=1"], "unknown option 'nope'"),
    (["options", "-o", "pit_bonus=x"], "whole number"),
    (["options", "-o", "pit_bonus"], "KEY=VALUE"),
    (["legal", "-t", "H", "--trick", "AS,XX", "--hand", "7H"], "'XX' is not a card"),
    (["legal", "-t", "Z", "--hand", "7H"], "'Z' is not a suit"),
    (["legal", "-t", "H", "--trick", "AS", "--hand", "AS,7H"], "both in the trick and in the hand"),
    (["legal", "-t", "H", "--trick", "AS,7S,8S,9S", "--hand", "7H"], "0 to 3 cards"),
    (["winner", "-t", "H", "--trick", ""], "1 to 4 cards"),
    (["roem", "-t", "H", "--trick", "AS,KS,QS"], "4 to 4 cards"),
    (["score", "--points", "90", "--tricks", "5,3", "--chooser", "0"], "two whole numbers"),
    (["score", "--points", "90,72", "--tricks", "5,4", "--chooser", "0"], "add up to 8"),
    (["score", "--points", "90,72", "--tricks", "5,3", "--chooser", "2"], "'chooser_team' is 0 or 1"),
    (["legal", "-r", "kloepper", "--hand", "7H"], "not in the kloepper pack"),
    (["legal", "--hand", "7H"], "'trump' is needed"),
    (["roem", "-r", "klaberjass-2p", "-t", "H", "--trick", "AS,KS"], "not a question for klaberjass"),
    (["score", "--points", "100,100", "--tricks", "5,3", "--chooser", "0"],
     "'points' must add up to 162 (152 in the cards, 10 for the last trick), not 200"),
    (["score", "--points", "152,10", "--tricks", "8,0", "--chooser", "0"],
     "a team without tricks has no points"),
    (["legal", "-r", "kloepper", "-t", "H", "--hand", "QC"], "kloepper's trumps are permanent"),
    (["score", "-r", "kloepper", "--points", "60,60", "--tricks", "4,4", "--chooser", "0"],
     '`rules score` scores Klaverjas rounds; a kloepper deal is scored with --batch: '
     '{"op": "score", "ruleset": "kloepper", "queens_points": N'),
    (["score", "-r", "klaberjass-2p", "--points", "60,60", "--tricks", "4,4", "--chooser", "0"],
     '"maker": SEAT'),
])
def test_bad_questions_are_clean_errors(args: list[str], message: str) -> None:
    code, out = rules(*args)
    assert code == 2
    assert "jaslog: " in out and message in out
    assert "Traceback" not in out


def test_legal() -> None:
    code, out = rules("legal", "--ruleset", "amsterdam", "--trump", "H", "--trick", "AS,7S",
                      "--hand", "7H,AD,KC")
    assert code == 0
    assert "legal: 7H AD KC" in out and "partner is winning" in out
    code, out = rules("legal", "-t", "H", "--trick", "7S,AS", "--hand", "7H,AD,KC", "--json")
    assert orjson.loads(out) == {"legal": ["7H"], "why": orjson.loads(out)["why"]}
    assert "must trump" in orjson.loads(out)["why"]


def test_legal_with_options_and_lenient_cards() -> None:
    code, out = rules("legal", "-t", "♥", "--trick", "as 7s", "--hand", "T♥,ad,KC",
                      "-o", "play=rotterdam", "--json")
    assert code == 0
    assert orjson.loads(out)["legal"] == ["10H"]


def test_winner_points_roem_score() -> None:
    code, out = rules("winner", "--trump", "H", "--trick", "AS,7H,10S,KS")
    assert (code, out.strip()) == (0, "card 1 (7H) wins the trick")
    code, out = rules("points", "-t", "H", "--trick", "JH,9H,AS,7C")
    assert out.strip() == "45 points"
    code, out = rules("points", "-t", "H", "--trick", "JH,9H,AS,7C", "--last", "--json")
    assert orjson.loads(out) == {"points": 55}
    code, out = rules("roem", "--trump", "H", "--trick", "KH,QH,JH,7C")
    assert out.strip() == "40 roem (run3, stuk)"
    code, out = rules("roem", "-t", "S", "--trick", "9C,9D,9H,9S", "--json")
    assert orjson.loads(out) == {"roem": 0, "parts": []}
    code, out = rules("roem", "-r", "amsterdam-kbn", "-t", "S", "--trick", "9C,9D,9H,9S", "--json")
    assert orjson.loads(out) == {"roem": 100, "parts": ["four_of_a_kind"]}
    code, out = rules("score", "--points", "70,92", "--roem", "20,0", "--tricks", "4,4", "--chooser", "0")
    assert out.strip() == "nat: 0–182"
    code, out = rules("score", "--points", "81,81", "--tricks", "4,4", "--chooser", "0",
                      "-o", "tie_is_failure=false", "--json")
    assert orjson.loads(out) == {"score": [81, 81], "result": "made"}
    code, out = rules("score", "--points", "100,62", "--roem", "20,50", "--tricks", "5,3",
                      "--chooser", "0", "--revoke", "1", "--json")
    assert orjson.loads(out) == {"score": [232, 0], "result": "revoke"}


def test_rules_without_a_subcommand_prints_help() -> None:
    code, out = rules()
    assert code == 0 and "--batch" in out


# ---------------------------------------------------------------- batch

def test_batch_answers_each_line_and_goes_on_after_errors() -> None:
    lines = []
    for q, _ in QUERIES[:3]:
        lines.append(orjson.dumps(q))
    lines.insert(1, b"{not json")
    lines.insert(2, b"")
    lines.insert(3, orjson.dumps(BAD_QUERIES[0][0]))
    for q, _ in QUERIES[3:]:
        lines.append(orjson.dumps(q))
    code, out = rules("--batch", stdin=b"\n".join(lines) + b"\n")
    assert code == 0
    answers = [orjson.loads(x) for x in out.splitlines()]
    assert len(answers) == len(QUERIES) + 2           # the blank line gets no answer
    assert set(answers[1]) == {"error"} and answers[1]["error"].startswith("line 2: not valid JSON")
    assert answers[2] == {"error": "line 4: unknown op 'fly' (one of legal, winner, points, roem, score, "
                                   "solve)"}
    good = [a for a in answers if "error" not in a]
    for a, (_, expected) in zip(good, QUERIES, strict=True):
        assert {k: a[k] for k in expected} == expected
    assert all("why" in a for a in good if "legal" in a)


def test_batch_as_a_process() -> None:
    data = b"".join(orjson.dumps(q) + b"\n" for q, _ in QUERIES + BAD_QUERIES)
    r = subprocess.run([sys.executable, "-m", "jaslog", "rules", "--batch"], input=data,
                       capture_output=True, cwd=ROOT, timeout=60, check=False)
    assert r.returncode == 0 and r.stderr == b""
    answers = [orjson.loads(x) for x in r.stdout.splitlines()]
    assert len(answers) == len(QUERIES) + len(BAD_QUERIES)
    for a, (_, expected) in zip(answers, QUERIES, strict=False):
        assert {k: a[k] for k in expected} == expected
    for i, (a, (_, message)) in enumerate(zip(answers[len(QUERIES):], BAD_QUERIES, strict=True)):
        assert set(a) == {"error"}
        assert a["error"].startswith(f"line {len(QUERIES) + i + 1}: ") and message in a["error"]
