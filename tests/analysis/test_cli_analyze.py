"""``jaslog analyze``, ``replay --analyze``, the rules oracle's ``solve`` op and ``rules solve``,
run as the console script runs them, on the recorded games in ``replays/`` and a real SQLite
store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.analysis.rounds import MISTAKE
from tests.cli import jaslog

ROOT = Path(__file__).resolve().parent.parent.parent
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))


def analysed(*args: str) -> list[dict[str, Any]]:
    r = jaslog("analyze", *args, "--json")
    assert r.returncode == 0, r.stderr
    return [orjson.loads(line) for line in r.stdout.splitlines()]


#: The replays `make test` analyses (one of each game); the soak run analyses every one.
QUICK = ("amsterdam-free", "klaberjass-full", "kloepper-full")


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem, marks=() if p.stem in QUICK
                                               else pytest.mark.soak) for p in REPLAYS])
def test_every_replay_is_analysed(path: Path) -> None:
    (game,) = analysed(str(path))
    assert game["rounds"] and game["solver"] in ("compiled", "python")
    for r in game["rounds"]:
        if r["no_par"] is not None:
            assert r["par"] is None and r["costly"] == []
            continue
        assert r["par_result"] and len(r["pars"]) >= 1 and r["pars"][0] == r["par"]
        assert r["pars"][-1] == r["end"]
        # the pars telescope: side 0's losses less side 1's are the par's fall
        plays = {p["seq"]: p for p in r["costly"]}
        assert all(p["loss"] > 0 and p["before"] in r["pars"] for p in plays.values())
        if all(p["legal"] for p in r["costly"]):
            fall = sum(p["before"] - p["after"] for p in r["costly"])
            assert fall == r["par"] - r["end"]
        for p in r["costly"]:
            assert p["best"] and p["card"] not in p["best"]
            assert p["mistake"] == (p["loss"] >= MISTAKE)
        quiet = not r["note"] and r["result"] not in ("revoke", "unfinished")
        if quiet:  # nothing but the cards between the last position and the score
            assert r["end"] == r["difference"], r


@pytest.mark.soak
def test_rounds_without_hands_are_solved_once_played_out() -> None:
    (game,) = analysed(str(ROOT / "replays" / "amsterdam-no-hands.jsonl"))
    rebuilt = [r for r in game["rounds"] if r["note"] and "hands rebuilt" in r["note"]]
    assert rebuilt and all(r["par"] is not None for r in rebuilt)


def test_terminal_output_names_the_par_and_the_costly_plays() -> None:
    r = jaslog("analyze", str(ROOT / "replays" / "amsterdam-free.jsonl"), "--round", "2",
               env={"COLUMNS": "160"}, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "dehoop-2026-11-20-t3 (amsterdam): 1 round, 1 with par"
    assert lines[1].startswith("round 2  par made +160  played made +94 (34–128)  for team 1 "
                               "(bob & dirk, chose S)")
    assert lines[2].startswith("  trick 1  bob (1)        J♠   cost 58   best 10♦  mistake")


def test_a_round_out_of_range_and_a_missing_file_are_refused() -> None:
    path = str(ROOT / "replays" / "kloepper-full.jsonl")
    r = jaslog("analyze", path, "--round", "99", text=True)
    assert r.returncode == 2 and "there is no round 99" in r.stderr
    r = jaslog("analyze", "no-such-game", "--db", "/nonexistent/dir/x.db", text=True)
    assert r.returncode == 2
    r = jaslog("analyze", path, "--game", "other", text=True)
    assert r.returncode == 2 and "no game 'other'" in r.stderr


def test_a_stored_game_by_its_id(tmp_path: Path) -> None:
    db = tmp_path / "club.db"
    path = ROOT / "replays" / "klaberjass-full.jsonl"
    r = jaslog("import", "--db", str(db), str(path), text=True)
    assert r.returncode == 0, r.stderr
    from_file = analysed(str(path))
    by_id = analysed("klok-2026-12-01-a", "--db", str(db))
    by_ref = analysed("store:klok-2026-12-01-a", "--db", str(db))
    assert by_id == by_ref == from_file


def test_replay_marks_costly_plays_only_when_asked() -> None:
    path = str(ROOT / "replays" / "amsterdam-free.jsonl")
    plain = jaslog("replay", path, "--round", "2", env={"COLUMNS": "160"}, text=True)
    marked = jaslog("replay", path, "--round", "2", "--analyze", env={"COLUMNS": "160"}, text=True)
    assert plain.returncode == marked.returncode == 0
    assert "par" not in plain.stdout and "↳" not in plain.stdout
    assert "round 2  par made +160" in marked.stdout
    assert "  ↳ cost 58 (par +160 → +102), best 10♦  mistake" in marked.stdout
    # everything replay says without --analyze it still says, in the same order
    extra = [ln for ln in marked.stdout.splitlines() if ln.startswith(("round 2  par", "  ↳"))]
    assert [ln for ln in marked.stdout.splitlines() if ln not in extra] == plain.stdout.splitlines()


def test_replay_for_a_seat_shows_the_analysis_after_the_round() -> None:
    path = str(ROOT / "replays" / "amsterdam-free.jsonl")
    r = jaslog("replay", path, "--round", "2", "--analyze", "--seat", "1", env={"COLUMNS": "160"},
               text=True)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "↳" not in out
    last_play = out.rindex(" plays ")
    assert out.index("round 2  par made +160") > last_play


# ------------------------------------------------------------------ the solve op

ISSUE_QUERY = {"op": "solve", "ruleset": "amsterdam", "trump": "H", "chooser": 0, "leader": 1,
               "hands": [["JH", "AS"], ["8S"], ["QC", "10C"], ["7D", "AC"]], "trick": ["KS"],
               "points": [63, 30], "roem": [20, 0], "tricks": [4, 2]}


def batch(*queries: dict[str, Any]) -> list[dict[str, Any]]:
    text = "\n".join(orjson.dumps(q).decode() for q in queries) + "\n"
    r = jaslog("rules", "--batch", input=text, text=True)
    assert r.returncode == 0, r.stderr
    return [orjson.loads(line) for line in r.stdout.splitlines()]


def test_solve_answers_par_best_and_values() -> None:
    (a,) = batch(ISSUE_QUERY)
    assert a == {"par": 122, "best": ["QC", "10C"], "values": {"QC": 122, "10C": 122}}


@pytest.mark.parametrize(("change", "error"), [
    ({"hands": [["JH", "AS"], ["8S", "9S"], ["QC", "10C"], ["7D", "AC"]]},
     "hand 1 holds 2 cards, not 1: 6 tricks are done and seat 1 has played to the trick"),
    ({"hands": [["JH", "AS"], ["8S"], ["QC", "10C"], ["7D", "JH"]]},
     "hand 3 shares a card with an earlier hand"),
    ({"trick": ["AS"]}, "AS is both in the trick and in hand 0"),
    ({"leader": 4}, "'leader' is a seat, 0 to 3, not 4"),
    ({"chooser": -1}, "'chooser' is a seat, 0 to 3, not -1"),
    ({"points": [60, 30]}, "'points' add up to 90, but the 6 tricks done hold 93"),
    ({"tricks": [6, 0], "points": [93, 0]}, None),
    ({"tricks": [6, 0], "points": [63, 30]}, "team 1 took no trick but has 30 points"),
    ({"trump": None}, "'trump' is needed"),
    ({"hands": [["JH", "XX"], ["8S"], ["QC", "10C"], ["7D", "AC"]]}, "'XX' is not a card"),
    ({"options": {"play": "paris"}}, "option 'play' must be one of amsterdam, rotterdam"),
])
def test_solve_names_what_is_wrong(change: dict[str, Any], error: str | None) -> None:
    (a,) = batch({**ISSUE_QUERY, **change})
    if error is None:
        assert "par" in a, a
    else:
        assert set(a) == {"error"} and error in a["error"], a


def test_solve_follows_the_options() -> None:
    """Void in spades with a trump in hand, the partner winning with a plain card: Amsterdam
    lets seat 3 throw its club; Rotterdam makes it trump."""
    q = {"op": "solve", "ruleset": "amsterdam", "trump": "H", "chooser": 1, "leader": 1,
         "hands": [["KD", "QD"], ["9S"], ["7S"], ["7H", "AC"]], "trick": ["AS", "8S"],
         "tricks": [3, 3], "points": [60, 63]}
    ams, rot, opt = batch(q, {**q, "ruleset": "rotterdam"}, {**q, "options": {"play": "rotterdam"}})
    assert list(ams["values"]) == ["7H", "AC"], ams
    assert list(rot["values"]) == ["7H"] and rot == opt


def test_every_game_answers_solve() -> None:
    kb = {"op": "solve", "ruleset": "klaberjass-2p", "trump": "H", "maker": 0, "leader": 1,
          "hands": [["JH", "7S"], ["AS", "9H"]], "tricks": [4, 3], "points": [50, 30],
          "sequences": [20, 0]}
    kp = {"op": "solve", "ruleset": "kloepper", "leader": 0, "hands": [["QC"], ["9C"], ["QS"], ["10C"]],
          "tricks": [3, 2, 0, 0], "points": [60, 44, 0, 0]}
    a, b = batch(kb, kp)
    assert a["best"] and set(a["values"]) <= {"AS", "9H"}, a
    assert b == {"par": 2, "best": ["QC"], "values": {"QC": 2}}


def test_rules_solve_takes_options_on_the_command_line() -> None:
    args = ["rules", "solve", "-t", "H", "--chooser", "1", "--leader", "1", "--hands",
            "KD,QD/9S/7S/7H,AC", "--trick", "AS,8S", "--tricks", "3,3", "--points", "60,63", "--json"]
    plain = jaslog(*args, text=True)
    rot = jaslog(*args, "-o", "play=rotterdam", text=True)
    assert plain.returncode == rot.returncode == 0, (plain.stderr, rot.stderr)
    assert list(orjson.loads(rot.stdout)["values"]) == ["7H"]
    assert orjson.loads(plain.stdout) != orjson.loads(rot.stdout)
