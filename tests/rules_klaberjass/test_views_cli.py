"""What a Klaberjass seat sees, and both new games end to end through the commands:
``check --json`` (scores per player), ``replay --seat``, ``rules`` (the oracle), the samples."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.events import event_from_dict
from jaslog.games.klaberjass.view import seat_view
from jaslog.play.audit import REPORT_KEYS
from jaslog.play.fold import start_fold
from tests.cli import jaslog as jaslog_here

from .logs import Log, deal_k, stock_k

ROOT = Path(__file__).resolve().parent.parent.parent


def jaslog(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return jaslog_here(*args, input=stdin, cwd=ROOT)


def lines(out: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(x) for x in out.splitlines() if x.strip()]


# ---------------------------------------------------------------- the seat view


def views_of(log: Log, seat: int | None) -> list[dict[str, Any]]:
    out = []
    f = start_fold(event_from_dict(log.events[0]))
    out.append(seat_view(f, seat))
    for e in log.events[1:]:
        f.apply(event_from_dict(e))
        out.append(seat_view(f, seat))
    return out


def test_a_seat_sees_its_hand_not_the_other_nor_the_stock() -> None:
    log = deal_k(Log(), stock=True)
    views = views_of(log, 1)
    other = {"JH", "9H", "AS", "KS", "QS", "7C", "JS", "KH", "7H", "QH"}   # seat 0's cards
    for n, v in enumerate(views[1:-1], 1):
        assert v["stock"] is None and v["hands"][0] is None
        text = orjson.dumps({k: x for k, x in v.items()
                             if k not in ("tricks", "turn_up", "declarations")}).decode()
        played = {c["card"] for t in v["tricks"] for c in t["cards"]}
        assert not {c for c in other - played if f'"{c}"' in text}, (n, text)
        assert v["sequences"] is None and v["bella"] is None     # computed from hands: hidden
    assert views[1]["hands"][1] == ["8C", "9C", "10C", "AD", "10H", "AH"]
    referee = views_of(log, None)
    assert referee[1]["stock"] == stock_k() and referee[1]["hands"][0] is not None
    assert views[-1]["hands"][0] is not None and views[-1]["score"] == [168, 35]


def test_declarations_show_their_cards_after_the_first_trick() -> None:
    log = deal_k(Log())
    views = views_of(log, 1)
    # seq 5-6: seat 0 declares JS-AS and JH-KH; seat 1 sees only their lengths
    assert views[6]["declarations"] == [{"seat": 0, "length": 4}, {"seat": 0, "length": 3}]
    # after trick 1 (seq 9) the sequences are shown, as at the table
    assert views[9]["declarations"][0]["sequence"] == "JS-AS"
    assert views[8]["declarations"][2] == {"seat": 1, "length": 3, "sequence": "8C-10C",
                                           "cards": ["8C", "9C", "10C"], "valid": True}


def test_bad_seat() -> None:
    with pytest.raises(ValueError):
        seat_view(Log().fold(), 2)
    r = jaslog("replay", "-", "--seat", "2", stdin=deal_k(Log()).jsonl())
    assert r.returncode == 2 and b"seats 0 to 1" in r.stderr and b"Traceback" not in r.stderr


def test_replay_seat_hides_the_other_hand() -> None:
    r = jaslog("replay", "-", "--seat", "1", "--to", "4", stdin=deal_k(Log()).jsonl())
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    last = out.split("seq    4")[-1]
    assert "9 cards" in last and "exchanges the dix for Q♥" in out
    assert "♥ A 10 8" in last          # seat 1's own hearts
    r = jaslog("replay", "-", "--to", "4", stdin=deal_k(Log()).jsonl())
    assert "9 cards" not in r.stdout.decode().split("seq    4")[-1]


# ---------------------------------------------------------------- check


def test_check_json_has_scores_per_player() -> None:
    r = jaslog("check", "--json", "-", stdin=deal_k(Log()).jsonl())
    assert r.returncode == 0, r.stderr
    (rep,) = lines(r.stdout)
    assert tuple(rep) == REPORT_KEYS
    assert rep["totals"] == [168, 35] and rep["rounds"][0]["score"] == [168, 35]
    r = jaslog("check", "-", stdin=deal_k(Log()).jsonl())
    assert "not finished, 168–35 after 1 round" in r.stdout.decode()


def test_check_the_samples() -> None:
    files = sorted(str(p) for p in ROOT.glob("replays/kl*-*.jsonl") if "klaverjas" not in p.name)
    files = [f for f in files if Path(f).name.startswith(("klaberjass-", "kloepper-"))]
    assert len(files) >= 5
    r = jaslog("check", "--json", *files)
    assert r.returncode == 1, r.stderr          # the faults samples have violations
    reps = {x["game"]: x for x in lines(r.stdout)}
    assert all(x["error"] is None and x["finished"] for x in reps.values())
    for x in reps.values():
        n = 2 if x["ruleset"] == "klaberjass-2p" else 4
        assert len(x["totals"]) == n and all(len(r["score"]) == n for r in x["rounds"])
    faults = {g for g, x in reps.items() if not x["ok"]}
    assert faults == {"klok-2026-12-01-b", "legion-2026-12-03-t2"}
    text = jaslog("check", *files).stdout.decode()
    assert "finished, seat" in text and "ruled" in text


# ---------------------------------------------------------------- the oracle


def test_rules_batch_answers_for_both_games() -> None:
    queries = [
        {"op": "legal", "ruleset": "klaberjass-2p", "trump": "H", "trick": ["10S"],
         "hand": ["7S", "AS", "KC", "9H"], "options": {"must_head_plain_lead": True}},
        {"op": "winner", "ruleset": "klaberjass-2p", "trump": "H", "trick": ["AS", "7H"]},
        {"op": "points", "ruleset": "klaberjass-2p", "trump": "H", "trick": ["JH", "9H"],
         "last": True},
        {"op": "sequences", "ruleset": "klaberjass-2p", "trump": "S", "elder": 1,
         "hands": [["JC", "QC", "KC"], ["JS", "QS", "KS"]]},
        {"op": "bidding", "ruleset": "klaberjass-2p", "dealer": 0, "turn_up": "JD",
         "calls": ["pass", "pass", "pass", "pass"]},
        {"op": "bidding", "ruleset": "klaberjass-2p", "dealer": 0, "turn_up": "JD",
         "calls": [{"seat": 0, "call": "take"}]},
        {"op": "score", "ruleset": "klaberjass-2p", "points": [60, 90], "maker": 0},
        {"op": "legal", "ruleset": "kloepper", "trick": ["AH"], "hand": ["JH", "QH", "9C"]},
        {"op": "winner", "ruleset": "kloepper", "trick": ["AH", "9D", "KH", "QC"]},
        {"op": "points", "ruleset": "kloepper", "trick": ["AH", "10H", "KH", "QH"]},
        {"op": "sides", "ruleset": "kloepper", "hands": [
            ["QC", "QS", "10H", "KH", "AH", "JD"], ["9H", "AC", "9C", "10C", "KC", "JC"],
            ["AS", "9S", "10S", "KS", "JS", "JH"], ["AD", "10D", "KD", "QD", "9D", "QH"]],
         "call": {"seat": 0, "call": "alone"}},
        {"op": "score", "ruleset": "kloepper", "queens_points": 50, "queens_tricks": 2,
         "mode": "alone", "queens": [2]},
        {"op": "roem", "ruleset": "kloepper", "trick": ["AH"]},
        {"op": "legal", "ruleset": "kloepper", "trick": [], "hand": ["7H"]},
        {"op": "bidding", "ruleset": "klaberjass-2p", "dealer": 0, "turn_up": "JD",
         "calls": ["take", "pass"]},
    ]
    r = jaslog("rules", "--batch", stdin=b"\n".join(orjson.dumps(q) for q in queries) + b"\n")
    assert r.returncode == 0, r.stderr
    a = lines(r.stdout)
    assert a[0]["legal"] == ["AS"] and "must_head_plain_lead" in a[0]["why"]
    assert a[1] == {"winner": 1}
    assert a[2] == {"points": 44}
    assert a[3] == {"sequences": [["JC-KC"], ["JS-KS"]], "best": 1, "points": [0, 20],
                    "why": "best sequence"}
    assert (a[4]["annulled"], a[4]["next_dealer"]) == ("all_pass", 1)
    assert (a[5]["trump"], a[5]["maker"], a[5]["dix"], a[5]["stage"]) == ("D", 0, True, "done")
    assert a[6] == {"score": [0, 150], "result": "bete", "held": 0, "totals": [60, 90]}
    assert a[7]["legal"] == ["QH"]
    assert a[8] == {"winner": 3}
    assert a[9] == {"points": 28}
    assert (a[10]["queens"], a[10]["mode"], a[10]["scoring"]) == ([0], "alone", "alone")
    assert a[11] == {"queens_each": 0, "others_each": 6, "row": "no_knock.non_queens_61",
                     "score": [6, 6, 0, 6]}       # 70 against a soloist: 6 each
    assert "not a question for kloepper" in a[12]["error"]
    assert "not in the kloepper pack" in a[13]["error"]
    assert "bidding_over" in a[14]["error"] or "trumps are fixed" in a[14]["error"]


def test_rules_commands_for_kloepper_need_no_trump() -> None:
    r = jaslog("rules", "legal", "-r", "kloepper", "--trick", "AH", "--hand", "JH,QH,9C", "--json")
    assert r.returncode == 0, r.stderr
    assert orjson.loads(r.stdout)["legal"] == ["QH"]
    r = jaslog("rules", "winner", "-r", "kloepper", "--trick", "AH,9D,KH,QC")
    assert r.returncode == 0 and "card 3 (QC) wins" in r.stdout.decode()
    r = jaslog("rules", "legal", "-r", "klaberjass-2p", "--hand", "7H")
    assert r.returncode == 2 and b"'trump' is needed" in r.stderr
