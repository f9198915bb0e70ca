"""``jaslog sheet --compare``: a score sheet typed from paper held against the record. Each
kind of slip a club's sheet has is written into a real CSV file, and the command must name
the line and the cause; a sheet that cannot be read is named by its line, exit 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.sheet import SheetLine, compare, read_sheet
from jaslog.sheet.paper import MAX_SHEET
from tests.cli import jaslog

ROOT = Path(__file__).resolve().parents[1]
REPLAYS = ROOT / "replays"

AMSTERDAM = REPLAYS / "amsterdam-revoke-ruling.jsonl"  # a revoke struck by a late ruling
ROTTERDAM = REPLAYS / "rotterdam-random-trump.jsonl"  # nat, pit, roem
NO_HANDS = REPLAYS / "amsterdam-no-hands.jsonl"  # a nat round whose choosers held roem
KLABERJASS = REPLAYS / "klaberjass-faults.jsonl"  # a ruling, points held over from a tie
KLABERJASS_FULL = REPLAYS / "klaberjass-full.jsonl"  # two annulled deals (0-0)
KLOEPPER = REPLAYS / "kloepper-faults.jsonl"

Row = list[Any]  # [round, score per side..., total per side... or none]


def the_sheet(log: Path) -> dict[str, Any]:
    r = jaslog("sheet", str(log), "--json", text=True)
    assert r.returncode == 0, r.stderr
    out: dict[str, Any] = orjson.loads(r.stdout)
    return out


def rows_of(log: Path, totals: bool = True) -> list[Row]:
    """The sheet of ``log`` as a club would type it: round, scores, running totals."""
    return [[r["round"], *r["final"], *(r["totals"] if totals else [])]
            for r in the_sheet(log)["rows"]]


def retotal(rows: list[Row], sides: int) -> list[Row]:
    """The rows with their running totals added up again from their own scores."""
    run = [0] * sides
    out = []
    for r in rows:
        run = [a + b for a, b in zip(run, r[1:1 + sides], strict=True)]
        out.append([*r[:1 + sides], *run])
    return out


def write_csv(path: Path, header: str, rows: list[Row], sep: str = ",") -> Path:
    path.write_text(header + "\n" + "".join(sep.join(map(str, r)) + "\n" for r in rows))
    return path


def held_against(log: Path, csv: Path, code: int) -> str:
    r = jaslog("sheet", str(log), "--compare", str(csv), text=True)
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert r.stderr == ""
    return r.stdout


def compared(log: Path, csv: Path) -> dict[str, Any]:
    r = jaslog("sheet", str(log), "--compare", str(csv), "--json", text=True)
    assert r.returncode in (0, 1), r.stderr
    out: dict[str, Any] = orjson.loads(r.stdout)
    assert out["agrees"] is (r.returncode == 0)
    return out


def kinds(result: dict[str, Any]) -> list[tuple[int | None, str]]:
    return [(d["line"] if d["line"] is not None else -d["round"], f["kind"])
            for d in result["differences"] for f in d["findings"]]


TEAMS = "round,us,them,total us,total them"


# ------------------------------------------------------------------ a sheet that agrees


@pytest.mark.parametrize("log, header, short", [
    (AMSTERDAM, "ronde;wij;zij;totaal wij;totaal zij", "ronde;wij;zij"),
    (ROTTERDAM, TEAMS, "round,us,them"),
    (KLABERJASS, "deal,tess,umut,total tess,total umut", "deal,tess,umut"),
    (KLOEPPER, "deal,eli,fay,gus,hal,Σ eli,Σ fay,Σ gus,Σ hal", "deal,eli,fay,gus,hal"),
])
def test_a_sheet_that_agrees_exits_0(tmp_path: Path, log: Path, header: str, short: str) -> None:
    sep = ";" if ";" in header else ","
    out = held_against(log, write_csv(tmp_path / "s.csv", header, rows_of(log), sep), 0)
    rounds = len(rows_of(log))
    assert out.endswith(f"agrees with the log ({rounds} lines, {rounds} "
                        f"{'round' if log in (AMSTERDAM, ROTTERDAM) else 'deal'}s)\n")
    # without running totals too
    assert compared(log, write_csv(tmp_path / "short.csv", short, rows_of(log, totals=False),
                                   sep))["agrees"]


def test_nat_dashes_tabs_and_a_byte_order_mark_read_as_a_club_writes_them(tmp_path: Path) -> None:
    rows = rows_of(ROTTERDAM, totals=False)
    text = "\ufeffRonde\tWij\tZij\n" + "".join(
        "\t".join([str(r[0])] + ["nat" if x == 0 else str(x) for x in r[1:]]) + "\n"
        for r in rows)
    path = tmp_path / "tabs.csv"
    path.write_text(text, encoding="utf-8")
    assert compared(ROTTERDAM, path)["agrees"]
    dashes = write_csv(tmp_path / "dash.csv", "round,us,them",
                       [[r[0], *("-" if x == 0 else x for x in r[1:])] for r in rows])
    assert compared(ROTTERDAM, dashes)["agrees"]


def test_a_round_that_scored_nothing_may_be_left_out(tmp_path: Path) -> None:
    """A struck round (0-0) or an annulled deal is often not written: a note, not a slip."""
    rows = [r for r in rows_of(AMSTERDAM) if r[0] != 2]
    out = held_against(AMSTERDAM, write_csv(tmp_path / "s.csv", TEAMS, rows), 0)
    assert "note: round 2 scored nothing (0–0) and is not on the sheet" in out
    deals = [r for r in rows_of(KLABERJASS_FULL) if any(r[1:3])]
    res = compared(KLABERJASS_FULL, write_csv(tmp_path / "k.csv", "deal,a,b,total a,total b",
                                              deals))
    assert res["agrees"] and len(res["notes"]) == 2


# ------------------------------------------------------------------ each kind of slip


def test_a_running_total_slip_and_the_lines_that_carry_it(tmp_path: Path) -> None:
    rows = rows_of(AMSTERDAM)
    for r in rows[4:]:  # round 5: 253 + 145 written as 408, and added on from there
        r[3] += 10
    out = held_against(AMSTERDAM, write_csv(tmp_path / "s.csv", TEAMS, rows), 1)
    assert ("line 6 (round 5): running-total slip: the total should be 398–420 (253–313 plus "
            "145–107), the sheet has 408–420 (+10 for team 0); the scores are right; from this "
            "line on the totals drift by +10 for team 0 (lines 6-17)") in out
    assert ("lines 7-17 (rounds 6-16): the running total is off the log's by +10 for team 0: it "
            "carries the slip at line 6") in out
    res = compared(AMSTERDAM, tmp_path / "s.csv")
    assert kinds(res) == [(6, "total_slip")] + [(n, "total_carried") for n in range(7, 18)]
    slip = res["differences"][0]
    assert (slip["sheet_totals"], slip["log_totals"]) == ([408, 420], [398, 420])
    assert slip["findings"][0]["by"] == [10, 0]


def test_a_slip_put_right_on_the_next_line_and_one_on_the_last(tmp_path: Path) -> None:
    rows = rows_of(AMSTERDAM)
    rows[4][4] -= 10  # round 5's total for team 1 is 10 short; round 6's is right again
    rows[-1][3] += 100  # the last total is 100 over
    res = compared(AMSTERDAM, write_csv(tmp_path / "s.csv", TEAMS, rows))
    assert kinds(res) == [(6, "total_slip"), (17, "total_slip")]
    messages = [d["findings"][0]["message"] for d in res["differences"]]
    assert messages[0].endswith("(-10 for team 1); the scores are right; the totals after it "
                                "add up again")
    assert messages[1].endswith("(+100 for team 0); the scores are right; it is the last total "
                                "on the sheet")


def test_teams_swapped_and_the_totals_that_follow(tmp_path: Path) -> None:
    rows = rows_of(AMSTERDAM)
    rows[2][1:3] = rows[2][2:0:-1]
    out = held_against(AMSTERDAM, write_csv(tmp_path / "s.csv", TEAMS, retotal(rows, 2)), 1)
    assert "line 4 (round 3): teams swapped: the sheet has 114–108, the log 108–114" in out
    assert ("lines 5-17 (rounds 4-16): the running total is off the log's by +6 for team 0, -6 "
            "for team 1: it carries the score of line 4") in out


def test_a_score_typed_wrong_under_a_right_total(tmp_path: Path) -> None:
    rows = rows_of(AMSTERDAM)
    rows[2][1:3] = rows[2][2:0:-1]  # swapped, but the total adds the right score
    res = compared(AMSTERDAM, write_csv(tmp_path / "s.csv", TEAMS, rows))
    assert kinds(res) == [(4, "swapped")]
    assert res["differences"][0]["findings"][0]["message"].endswith(
        "; its running total adds the right score")


def test_players_swapped_in_kloepper(tmp_path: Path) -> None:
    rows = rows_of(KLOEPPER, totals=False)
    rows[2][2], rows[2][3] = rows[2][3], rows[2][2]  # deal 3: fay's 4 written under gus
    res = compared(KLOEPPER, write_csv(tmp_path / "s.csv", "deal,eli,fay,gus,hal", rows))
    assert kinds(res) == [(4, "swapped")]
    assert res["differences"][0]["findings"][0]["message"] == (
        "seat 1 (fay) and seat 2 (gus) swapped: the sheet has 4–0–4–0, the log 4–4–0–0")


def test_a_ruling_not_applied(tmp_path: Path) -> None:
    rows = rows_of(AMSTERDAM, totals=False)
    rows[1][1:3] = [0, 232]  # round 2 as played: the revoke's penalty, struck by the ruling
    out = held_against(AMSTERDAM, write_csv(tmp_path / "s.csv", "round,us,them", rows), 1)
    assert ("line 3 (round 2): a ruling not applied: the sheet has round 2 as played (0–232), "
            "but the ruling at seq 577 counts: 0–0 (Director: the revoke followed") in out
    rows = rows_of(KLABERJASS, totals=False)
    rows[4][1:3] = [0, 113]  # deal 5 as played: a revoke the referee turned into 4-109
    res = compared(KLABERJASS, write_csv(tmp_path / "k.csv", "deal,tess,umut", rows))
    assert kinds(res) == [(6, "ruling_not_applied")]


def club_log(path: Path) -> Path:
    """A score-only Klaverjas game with round 2 ruled twice (the second ruling counts)."""
    events: list[dict[str, Any]] = [
        {"type": "game_started", "ruleset": "amsterdam", "seats": ["ann", "bob", "cor", "dirk"],
         "dealer": 3},
        {"type": "round_score", "round": 1, "score": [102, 60]},
        {"type": "dealt"},
        {"type": "ruling", "round": 2, "score": [0, 162], "reason": "abandoned"},
        {"type": "ruling", "round": 2, "score": [81, 81], "reason": "on appeal"},
        {"type": "round_score", "round": 3, "score": [52, 130]},
    ]
    path.write_bytes(b"".join(orjson.dumps({"game": "club", "seq": i, **e}) + b"\n"
                              for i, e in enumerate(events)))
    return path


def test_a_superseded_ruling_and_a_ruling_on_the_wrong_round(tmp_path: Path) -> None:
    log = club_log(tmp_path / "club.jsonl")
    superseded = write_csv(tmp_path / "a.csv", "round,us,them", [[1, 102, 60], [2, 0, 162],
                                                                  [3, 52, 130]])
    res = compared(log, superseded)
    assert kinds(res) == [(3, "superseded_ruling")]
    assert res["differences"][0]["findings"][0]["message"] == (
        "a superseded ruling: the sheet has 0–162 from the ruling at seq 3, which the ruling at "
        "seq 4 replaced: 81–81 counts")
    misplaced = write_csv(tmp_path / "b.csv", "round,us,them", [[1, 102, 60], [2, 81, 81],
                                                                 [3, 81, 81]])
    res = compared(log, misplaced)
    assert kinds(res) == [(4, "ruling_misplaced")]
    assert res["differences"][0]["findings"][0]["message"] == (
        "the ruling on round 2 (81–81) is written on round 3, which scores 52–130")


def test_points_held_over_from_a_tie_left_out(tmp_path: Path) -> None:
    rows = rows_of(KLABERJASS, totals=False)
    rows[6][1:3] = [93, 42]  # deal 7 without the 87 held over from deal 6's tie
    res = compared(KLABERJASS, write_csv(tmp_path / "s.csv", "deal,tess,umut", rows))
    assert kinds(res) == [(8, "held_points_left_out")]
    assert "the rules add +87 for seat 0 (tess)" in res["differences"][0]["findings"][0]["message"]


@pytest.mark.parametrize("log, line, scores, kind, message", [
    # round 1: team 0 made it with 40 roem (165-37)
    (ROTTERDAM, 2, [125, 37], "roem_left_out",
     "roem left out: team 0 has 125, the log 165: 40 short, its roem (40)"),
    (ROTTERDAM, 2, [205, 37], "roem_twice",
     "roem counted twice: team 0 has 205, the log 165: its roem (40) once more"),
    (ROTTERDAM, 2, [125, 77], "roem_wrong_side",
     "roem on the wrong team: its roem (40) is written to team 1 (125–77, the log 165–37)"),
    # round 6 of the club's game: team 0 went nat holding 20, team 1 held 40: 0-222
    (NO_HANDS, 7, [0, 202], "roem_left_out",
     "roem left out: team 1 has 202, the log 222: 20 short, team 0's roem (20), which it "
     "scores with the nat"),
    (NO_HANDS, 7, [0, 162], "roem_left_out",
     "roem left out: team 1 has 162, the log 222: 60 short, the round's roem (60), all of "
     "which it scores with the nat"),
    (NO_HANDS, 7, [0, 182], "roem_left_out",
     "roem left out: team 1 has 182, the log 222: 40 short, its own roem (40)"),
    # klaberjass deal 2: 67-64, each with 20 of melds
    (KLABERJASS, 3, [47, 64], "roem_left_out",
     "roem left out: seat 0 (tess) has 47, the log 67: 20 short, its roem (20)"),
])
def test_roem_left_out_counted_twice_or_on_the_wrong_side(tmp_path: Path, log: Path, line: int,
                                                         scores: list[int], kind: str,
                                                         message: str) -> None:
    rows = rows_of(log, totals=False)
    rows[line - 2][1:] = scores
    res = compared(log, write_csv(tmp_path / "s.csv", "round," + ",".join(
        f"s{t}" for t in range(len(scores))), rows))
    assert kinds(res) == [(line, kind)]
    assert res["differences"][0]["findings"][0]["message"] == message


@pytest.mark.parametrize("round_, scores, kind, message", [
    (9, [182, 0], "pit_bonus_left_out",
     "pit bonus left out: team 0 took every trick; the sheet has 182, the log 282 (with the "
     "100 bonus)"),
    (1, [265, 37], "pit_bonus_extra",
     "a pit bonus the round did not earn: team 0 has 265, the log 165 (made, not pit)"),
    (3, [70, 112], "lost_round_scored",
     "scored as if the playing team had won: the round is nat, so team 0 scores nothing (the "
     "log: 0–182), but the sheet gives it 70"),
    (2, [162, 0], "won_round_scored_lost",
     "scored as nat: the sheet gives the playing team (team 1) nothing, but the round is made "
     "(the log: 58–104)"),
    (5, [62, 100], "score_differs",
     "the score differs: the sheet has 62–100, the log 52–110 (+10 for team 0, -10 for team 1)"),
])
def test_nat_and_pit_scored_wrong(tmp_path: Path, round_: int, scores: list[int], kind: str,
                                  message: str) -> None:
    rows = rows_of(ROTTERDAM, totals=False)
    rows[round_ - 1][1:] = scores
    res = compared(ROTTERDAM, write_csv(tmp_path / "s.csv", "round,us,them", rows))
    assert kinds(res) == [(round_ + 1, kind)]
    assert res["differences"][0]["findings"][0]["message"] == message


def test_a_kloepper_deal_scored_for_the_side_that_lost(tmp_path: Path) -> None:
    rows = rows_of(KLOEPPER, totals=False)
    rows[3][1:] = [6, 6, 0, 0]  # deal 4: the queens' failed knock scored as won
    res = compared(KLOEPPER, write_csv(tmp_path / "s.csv", "deal,eli,fay,gus,hal", rows))
    assert kinds(res) == [(5, "lost_round_scored")]
    assert "so seat 0 (eli) and seat 1 (fay) score nothing (the log: 0–0–12–12), but the sheet " \
           "gives them 6–6" in res["differences"][0]["findings"][0]["message"]


def test_a_round_missing_shifts_nothing_after_it(tmp_path: Path) -> None:
    rows = rows_of(AMSTERDAM)
    del rows[6]  # round 7 left out, and the rounds after it numbered on from 7
    for n, r in enumerate(rows, 1):
        r[0] = n
    out = held_against(AMSTERDAM, write_csv(tmp_path / "s.csv", TEAMS, rows), 1)
    assert ("round 7: missing from the sheet: round 7 (58–154); the sheet numbers the rounds "
            "after it one less (line 8 is round 7 on the sheet, round 8 in the log)") in out
    res = compared(AMSTERDAM, tmp_path / "s.csv")
    # the totals include it (the scorer added it, the typist left the line out)
    assert kinds(res) == [(-7, "round_missing")]
    short = retotal(rows, 2)  # the totals without it: every later total carries the gap
    res = compared(AMSTERDAM, write_csv(tmp_path / "t.csv", TEAMS, short))
    assert kinds(res) == [(-7, "round_missing")] + [(n, "total_carried") for n in range(8, 17)]
    assert res["differences"][1]["findings"][0]["message"] == (
        "the running total is off the log's by -58 for team 0, -154 for team 1: it carries "
        "round 7 missing")


def test_a_round_written_twice_is_extra(tmp_path: Path) -> None:
    rows = rows_of(ROTTERDAM, totals=False)
    rows.insert(4, list(rows[3]))  # round 4 copied again as round 5
    for n, r in enumerate(rows, 1):
        r[0] = n
    res = compared(ROTTERDAM, write_csv(tmp_path / "s.csv", "round,us,them", rows))
    assert kinds(res) == [(6, "round_extra")]
    assert res["differences"][0]["findings"][0]["message"] == (
        "a round the log does not have: round 5 on the sheet (60–122); it repeats round 4")
    assert res["differences"][0]["round"] is None


def test_several_slips_on_one_sheet(tmp_path: Path) -> None:
    rows = rows_of(ROTTERDAM)
    rows[0][1:3] = [125, 37]  # roem left out, totals follow
    rows[8][1:3] = [182, 0]  # pit bonus left out
    rows = retotal(rows, 2)
    rows[12][3] -= 10  # and a slip in round 13's total for team 0
    res = compared(ROTTERDAM, write_csv(tmp_path / "s.csv", TEAMS, rows))
    found = kinds(res)
    assert found[0] == (2, "roem_left_out") and (10, "pit_bonus_left_out") in found
    assert (14, "total_slip") in found
    slip = next(d for d in res["differences"] if d["line"] == 14)["findings"][0]
    assert slip["message"].endswith("(-10 for team 0); the scores are right; the totals after "
                                    "it add up again")
    carried = next(d for d in res["differences"] if d["line"] == 17)["findings"][0]
    assert carried["kind"] == "total_carried" and carried["by"] == [-140, 0]
    assert carried["message"].endswith("it carries the score of line 2, the score of line 10")
    assert len(res["differences"]) == 16  # lines 2 to 17: each differs in its score or total


# ------------------------------------------------------------------ JSON


def test_the_comparison_as_json(tmp_path: Path) -> None:
    rows = rows_of(AMSTERDAM)
    rows[2][1:3] = rows[2][2:0:-1]
    res = compared(AMSTERDAM, write_csv(tmp_path / "s.csv", TEAMS, retotal(rows, 2)))
    assert list(res) == ["game", "ruleset", "agrees", "lines", "rounds", "differences", "notes",
                         "sheet"]
    assert (res["game"], res["lines"], res["rounds"], res["sheet"]) == (
        "dehoop-2026-11-27-t2", 16, 16, str(tmp_path / "s.csv"))
    first = res["differences"][0]
    assert list(first) == ["line", "sheet_round", "round", "sheet", "log", "sheet_totals",
                           "log_totals", "findings"]
    assert (first["line"], first["sheet_round"], first["round"], first["sheet"], first["log"]) \
        == (4, 3, 3, [114, 108], [108, 114])
    assert first["findings"][0]["sides"] == [0, 1]


# ------------------------------------------------------------------ a sheet that cannot be read


@pytest.mark.parametrize("text, message", [
    ("", "s.csv: the sheet is empty: expected a header (the round, then 2 scores (one per "
         "team), then optionally 2 running totals) and a line per round"),
    ("round,us,them\n", "s.csv: no rounds under the header"),
    ("1,102,60\n2,52,130\n", "s.csv:1: expected a header line (the round, then 2 scores (one "
                             "per team), then optionally 2 running totals), found only numbers"),
    ("round,us,them,extra\n1,102,60,3\n", "s.csv:1: the header has 4 columns (round, us, them, "
                                          "extra); expected the round, then 2 scores"),
    ("round,us,them\n1,102,60\n2,52,abc\n", "s.csv:3: team 1's score (column 3, them) is "
                                            "'abc', not a score"),
    ("round,us,them\n1,102,\n", "s.csv:2: team 1's score (column 3, them) is empty"),
    ("round,us,them\n\n1,102,60,7\n", "s.csv:3: 4 cells, but the header has 3 columns"),
    ("round,us,them\none,102,60\n", "s.csv:2: the round (column 1) is 'one', not a round number"),
    ("round;us;them;total us;total them\n1;102;60;102;\n",
     "s.csv:2: team 1's running total (column 5, total them) is empty: write every running "
     "total of a line, or none"),
    ("round,us,them\n1,-20,182\n", "s.csv:2: team 0's score (column 2, us) is '-20', not a "
                                   "score"),
])
def test_a_sheet_that_cannot_be_read_names_its_line(tmp_path: Path, text: str,
                                                    message: str) -> None:
    path = tmp_path / "s.csv"
    path.write_text(text)
    r = jaslog("sheet", str(ROTTERDAM), "--compare", str(path), text=True)
    assert (r.returncode, r.stdout) == (2, "")
    said = " ".join(r.stderr.split())
    assert said.startswith("jaslog: ") and message.replace("s.csv", str(path)) in said, said
    assert "Traceback" not in r.stderr


def test_a_sheet_for_players_names_the_seat(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "s.csv", "deal,eli,fay,gus,hal", [[1, 0, 2, 0, "x"]])
    r = jaslog("sheet", str(KLOEPPER), "--compare", str(path), text=True)
    assert r.returncode == 2
    assert "s.csv:2: seat 3's score (column 5, hal) is 'x'" in " ".join(r.stderr.split())


def test_a_sheet_that_is_not_there_or_from_a_windows_spreadsheet(tmp_path: Path) -> None:
    r = jaslog("sheet", str(ROTTERDAM), "--compare", str(tmp_path / "none.csv"), text=True)
    assert r.returncode == 2 and "none.csv" in r.stderr and "Traceback" not in r.stderr
    rows = rows_of(ROTTERDAM, totals=False)
    path = tmp_path / "cp1252.csv"
    path.write_bytes(("Ronde;Wij (André);Zij\n" + "".join(
        ";".join(map(str, r)) + "\n" for r in rows)).encode("cp1252"))
    assert compared(ROTTERDAM, path)["agrees"]


def test_read_sheet_and_compare_without_the_command() -> None:
    lines = read_sheet("round,a,b\n1,102,60\n", "mem", 2)
    assert lines == [SheetLine(2, 1, [102, 60], None)]
    sheet = the_sheet(ROTTERDAM)
    res = compare(sheet, [SheetLine(2, 1, [165, 37], [165, 37])])
    assert kinds(res) == [(-n, "round_missing") for n in range(2, 17)]


def test_a_sheet_from_standard_input(tmp_path: Path) -> None:
    rows = rows_of(ROTTERDAM, totals=False)
    rows[0][1:3] = [37, 165]
    text = "round,us,them\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)
    r = jaslog("sheet", str(ROTTERDAM), "--compare", "-", input=text, text=True)
    assert r.returncode == 1
    assert r.stdout.splitlines()[:2] == [
        "<stdin> against troef-2026-11-21-t1 (rotterdam): 1 difference",
        "  line 2 (round 1): teams swapped: the sheet has 37–165, the log 165–37"]
    r = jaslog("sheet", "-", "--compare", "-", input=text, text=True)
    assert r.returncode == 2 and "cannot both come from standard input" in r.stderr


# ------------------------------------------------------------------ hostile sheets


@pytest.mark.parametrize("text, message", [
    ("round,us,them\n1,123456789012345678901234567890,60\n",
     "s.csv:2: team 0's score (column 2, us) is a number of 30 digits, more than a round can "
     "score (at most 10000)"),
    ("round;us;them;total us;total them\n1;102;60;102;600000000000\n",
     "s.csv:2: team 1's running total (column 5, total them) is '600000000000', more than a "
     "game can total (at most 99990000)"),
    ("round,us,them\n99999999999999999999999999999,102,60\n",
     "s.csv:2: the round (column 1) is a number of 29 digits, past the last round a game may "
     "have (9999)"),
    ("round,us,them\n1," + "9" * 5000 + ",60\n",
     "s.csv:2: team 0's score (column 2, us) is a number of 5000 digits, more than a round "
     "can score (at most 10000)"),
])
@pytest.mark.parametrize("as_json", [False, True])
def test_numbers_no_sheet_can_hold_are_refused(tmp_path: Path, text: str, message: str,
                                               as_json: bool) -> None:
    path = tmp_path / "s.csv"
    path.write_text(text)
    r = jaslog("sheet", str(ROTTERDAM), "--compare", str(path), *(["--json"] * as_json),
               text=True)
    assert (r.returncode, r.stdout) == (2, "")
    assert " ".join(r.stderr.split()) == "jaslog: " + message.replace("s.csv", str(path))


def test_a_sheet_past_the_size_a_sheet_can_have_is_refused(tmp_path: Path) -> None:
    """Reading stops at 1 MiB: a longer file, or standard input, is refused in a sentence."""
    rows = rows_of(ROTTERDAM, totals=False)
    text = "round,us,them\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)
    text += "\n" * (MAX_SHEET - len(text) + 1)  # blank lines: one byte past the limit
    path = tmp_path / "long.csv"
    path.write_text(text)
    for source, args, given in ((str(path), [str(path)], None), ("<stdin>", ["-"], text)):
        r = jaslog("sheet", str(ROTTERDAM), "--json", "--compare", *args, input=given,
                   text=True)
        assert (r.returncode, r.stdout) == (2, ""), source
        assert " ".join(r.stderr.split()) == (f"jaslog: {source}: more than 1 MiB; a typed "
                                              "sheet is a header and a line per round")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_sheet_that_never_ends_is_refused_at_once() -> None:
    """``/dev/zero`` as the sheet, as a path and on standard input: the command returns (a
    real process, held to 512 MiB of memory and a minute, since the point is that it ends)."""
    import resource
    import subprocess
    import sys

    def held() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))

    for args in (["/dev/zero"], ["-"]):
        with open("/dev/zero", "rb") as zero:
            r = subprocess.run([sys.executable, "-m", "jaslog", "sheet", str(ROTTERDAM), "--json",
                                "--compare", *args], stdin=zero, capture_output=True, text=True,
                               timeout=60, preexec_fn=held, check=False)
        assert (r.returncode, r.stdout) == (2, ""), r.stderr
        assert "more than 1 MiB" in r.stderr and "Traceback" not in r.stderr
