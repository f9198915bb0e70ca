"""``jaslog rules``: the rule book on demand (each subcommand, ``--json``, ``--batch``), and
the oracle behind it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from jaslog.cli import app
from jaslog.oracle import QueryError, answer
from jaslog.rules.options import PRESETS, resolve

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

QUERIES: list[tuple[Any, dict[str, Any]]] = [
    ({"op": "legal", "ruleset": "amsterdam", "trump": "H", "trick": ["AS", "7S"],
      "hand": ["KC", "7H", "AD"]}, {"legal": ["KC", "7H", "AD"]}),          # hand order kept
    ({"op": "legal", "trump": "H", "trick": ["7S", "AS"], "hand": ["KC", "8H", "AD", "7H"]},
     {"legal": ["8H", "7H"]}),
    ({"op": "legal", "ruleset": "rotterdam", "trump": "H", "trick": "AS 9H",
      "hand": "7C JH 8H"}, {"legal": ["JH"]}),
    ({"op": "legal", "trump": "H", "trick": ["AS", "9H", "7S"], "hand": ["8H", "7C", "JH"],
      "options": {"amsterdam_partner_trump": "discard_only"}}, {"legal": ["7C"]}),
    ({"op": "winner", "ruleset": "amsterdam", "trump": "H", "trick": ["AS", "7H", "10S", "KS"]},
     {"winner": 1}),
    ({"op": "points", "ruleset": "amsterdam", "trump": "S", "trick": ["JS", "9S", "AS", "10S"]},
     {"points": 55}),
    ({"op": "points", "trump": "S", "trick": ["JS"], "last": True,
      "options": {"last_trick_bonus": 0}}, {"points": 20}),
    ({"op": "roem", "ruleset": "amsterdam", "trump": "H", "trick": ["AH", "KH", "QH", "JH"]},
     {"roem": 70, "parts": ["run4", "stuk"]}),
    ({"op": "score", "ruleset": "amsterdam", "points": [162, 0], "roem": [0, 0], "tricks": [8, 0],
      "chooser_team": 0, "revoke_team": None}, {"score": [262, 0], "result": "pit"}),
    ({"op": "score", "points": [0, 162], "roem": [0, 20], "tricks": [0, 8], "chooser_team": 0,
      "revoke_team": None, "options": {"pit_for": "playing_team"}},
     {"score": [0, 182], "result": "nat"}),
]
BAD_QUERIES: list[tuple[Any, str]] = [
    ({"op": "fly"}, "unknown op 'fly'"),
    ([1, 2], "a query is a JSON object"),
    ({"op": "legal", "ruleset": "paris"}, "unknown ruleset 'paris'"),
    ({"op": "legal", "trump": "H", "trick": [], "hand": ["7H"], "options": {"x": 1}},
     "unknown option 'x'"),
    ({"op": "legal", "trump": "H", "trick": [], "hand": ["7H"], "options": "x"},
     "'options' must be an object"),
    ({"op": "legal", "trump": "H", "trick": [], "hand": []}, "'hand' must hold 1 to 8 cards"),
    ({"op": "legal", "trump": "H", "trick": [], "hand": ["7H", "7H"]}, "names a card twice"),
    ({"op": "legal", "trump": "H", "trick": 5, "hand": ["7H"]}, "'trick' must be a list"),
    ({"op": "winner", "trump": "H"}, "'trick' must be a list"),
    ({"op": "roem", "trump": "H", "trick": ["AH"]}, "4 to 4 cards"),
    ({"op": "score", "points": [1], "roem": [0, 0], "tricks": [4, 4], "chooser_team": 0},
     "'points' must be two whole numbers"),
    ({"op": "score", "points": [1, 2], "roem": [0, 0], "tricks": [4, 4], "chooser_team": True,
      "revoke_team": None}, "'chooser_team' is 0 or 1"),
    ({"op": "winner", "trump": "", "trick": ["AS"]}, "trump"),
]


@pytest.mark.parametrize("q, expected", QUERIES)
def test_oracle_answers(q: Any, expected: dict[str, Any]) -> None:
    a = answer(q)
    assert {k: a[k] for k in expected} == expected


@pytest.mark.parametrize("q, message", BAD_QUERIES)
def test_oracle_refuses(q: Any, message: str) -> None:
    with pytest.raises(QueryError) as err:
        answer(q)
    assert message in str(err.value)


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
    assert answers[2] == {"error": "line 4: unknown op 'fly' (one of legal, winner, points, roem, score)"}
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
