"""``jaslog sheet``: a game's score sheet as a club keeps it, for all three games, from log
files and from a real SQLite store, as text and as JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.sheet import ROW_KEYS
from tests.cli import jaslog

ROOT = Path(__file__).resolve().parents[1]
REPLAYS = ROOT / "replays"


def sheet_text(*args: str, code: int = 0, env: dict[str, str | None] | None = None) -> str:
    r = jaslog("sheet", *args, text=True, env=env)
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    return r.stdout


def sheet_json(*args: str, env: dict[str, str | None] | None = None) -> dict[str, Any]:
    r = jaslog("sheet", *args, "--json", text=True, env=env)
    assert r.returncode == 0, (r.stdout, r.stderr)
    out: dict[str, Any] = orjson.loads(r.stdout)
    return out


def check_json(path: Path | str, db: str | None = None) -> dict[str, Any]:
    r = jaslog("check", "--json", str(path), *(["--db", db] if db else []), text=True)
    out: dict[str, Any] = orjson.loads(r.stdout.splitlines()[0])
    return out


def row_of(text: str, first: str) -> list[str]:
    """The printed line of the sheet that starts with ``first`` (a round number), split."""
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == first:
            return words
    raise AssertionError(f"no line {first} in\n{text}")


def write_log(path: Path, game: str, events: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps({"game": game, "seq": i, **e}) + b"\n"
                              for i, e in enumerate(events)))
    return path


# ------------------------------------------------------------------ printed


def test_a_klaverjas_sheet_has_a_line_per_round_and_the_winner() -> None:
    out = sheet_text(str(REPLAYS / "amsterdam-revoke-ruling.jsonl"))
    lines = out.splitlines()
    assert lines[0] == "dehoop-2026-11-27-t2 (amsterdam), score sheet"
    assert lines[1:3] == ["  team 0: ilse & kees", "  team 1: joop & lies"]
    assert lines[3].split() == ["round", "dealer", "plays", "team", "0", "roem", "team", "1",
                                "roem", "total", "0", "total", "1", "result"]
    # round 3: dealt by ilse, joop (team 1) chose; 108 with 40 roem, 114 with 20
    assert row_of(out, "3") == ["3", "ilse", "joop", "(team", "1)", "108", "40", "114", "20",
                                "146", "238", "made"]
    # the struck round: what counts, what was played, the ruling and when it came
    assert "2  lies    ilse (team 0)       0     ·       0     ·       38      124  revoke  " \
           "as played 0–232; ruled 0–0 (seq 577, after the game ended): Director: the revoke " \
           "followed a card exposed by accident" in out
    assert row_of(out, "16")[-3:] == ["1425", "1265", "made"]
    assert lines[-1] == "  finished, team 0 (ilse & kees) wins 1425–1265"
    assert len(lines) == 4 + 16 + 1


def test_nat_and_pit_put_the_roem_where_it_counted() -> None:
    out = sheet_text(str(REPLAYS / "rotterdam-random-trump.jsonl"))
    # round 6: team 1 chose and went nat: team 0 scores 162 and all the roem (its own 50)
    assert row_of(out, "6")[5:] == ["212", "50", "0", "547", "555", "nat"]
    # round 9: pit, 162 + 20 roem + the 100 bonus
    assert row_of(out, "9")[5:] == ["282", "20", "0", "949", "819", "pit"]
    nat = sheet_text(str(REPLAYS / "amsterdam-no-hands.jsonl"))
    # round 6: team 0 held 20 roem and went nat: team 1 scores 162 and the 60 of both
    assert row_of(nat, "6")[5:] == ["0", "222", "60", "545", "507", "nat"]


def test_a_klaberjass_sheet_scores_per_player_with_melds_as_roem() -> None:
    out = sheet_text(str(REPLAYS / "klaberjass-faults.jsonl"))
    lines = out.splitlines()
    assert lines[1:3] == ["  seat 0: tess", "  seat 1: umut"]
    assert lines[3].split() == ["deal", "dealer", "plays", "tess", "roem", "umut", "roem",
                                "Σ", "tess", "Σ", "umut", "result"]
    # deal 3: umut made trumps and went bete: tess scores both totals, with all 40 of roem
    assert row_of(out, "3") == ["3", "tess", "umut", "153", "40", "0", "220", "163", "bete"]
    # deal 7: what counts holds the 87 held over from the tie of deal 6
    assert row_of(out, "7")[:4] == ["7", "tess", "tess", "180"]
    assert "as played 0–113; ruled 4–109 (seq 170, after the game ended): Referee:" in out
    assert lines[-1] == "  finished, seat 1 (umut) wins with 503 (424–503)"


def test_a_kloepper_sheet_names_the_queens_side_and_has_no_roem() -> None:
    out = sheet_text(str(REPLAYS / "kloepper-faults.jsonl"))
    lines = out.splitlines()
    assert lines[5].split() == ["deal", "dealer", "plays", "eli", "fay", "gus", "hal", "Σ",
                                "eli", "Σ", "fay", "Σ", "gus", "Σ", "hal", "result"]
    assert "roem" not in out
    assert row_of(out, "4") == ["4", "eli", "eli,", "fay", "0", "0", "12", "12", "8", "6",
                                "12", "18", "others"]
    assert "queens  as played 0–0–2–2; ruled 0–2–0–2 (seq 180, after the game ended): " \
           "Referee:" in out
    assert lines[-1] == "  finished, seat 3 (hal) wins with 30 (10–12–20–30)"


# ------------------------------------------------------------------ JSON


@pytest.mark.parametrize("name", ["amsterdam-revoke-ruling", "rotterdam-random-trump",
                                  "klaberjass-full", "klaberjass-faults", "kloepper-full",
                                  "kloepper-faults"])
def test_the_json_sheet_is_the_reports_rounds_as_a_club_keeps_them(name: str) -> None:
    path = REPLAYS / f"{name}.jsonl"
    s = sheet_json(str(path))
    rep = check_json(path)
    assert list(s) == ["game", "ruleset", "scoring", "sides", "rows", "totals", "finished",
                       "winner"]
    assert (s["game"], s["totals"], s["winner"]) == (rep["game"], rep["totals"], rep["winner"])
    assert len(s["rows"]) == len(rep["rounds"])
    for row, r in zip(s["rows"], rep["rounds"], strict=True):
        assert tuple(row) == ROW_KEYS
        assert (row["round"], row["final"], row["score"], row["totals"], row["result"]) == \
            (r["round"], r["final"], r["score"], r["totals"], r["result"])
        if row["roem"] is not None and row["score"] == row["final"]:
            # the roem inside a side's score is never more than it, and all of it is there
            assert all(x <= f for x, f in zip(row["roem"], row["final"], strict=True))
            assert sum(row["roem"]) in (sum(row["roem_held"]), sum(
                h for h, f in zip(row["roem_held"], row["final"], strict=True) if f))


def test_json_rows_of_a_nat_round_and_a_revoke() -> None:
    rows = sheet_json(str(REPLAYS / "amsterdam-no-hands.jsonl"))["rows"]
    nat = rows[5]
    assert (nat["chooser"], nat["playing"], nat["roem_held"], nat["roem"], nat["final"]) == \
        (2, [0], [20, 40], [0, 60], [0, 222])
    revoke = sheet_json(str(REPLAYS / "amsterdam-revoke-ruling.jsonl"))["rows"][1]
    assert revoke["marks"][0] == "as played 0–232"
    assert revoke["rulings"][0]["after_end"] is True and revoke["final"] == [0, 0]
    kloepper = sheet_json(str(REPLAYS / "kloepper-full.jsonl"))
    assert kloepper["scoring"] == "players" and kloepper["rows"][0]["roem"] is None
    assert all(len(r["playing"]) in (1, 2) for r in kloepper["rows"])


# ------------------------------------------------------------------ score-only rounds, rulings


def club_log(path: Path) -> Path:
    """A Klaverjas game kept by its scores alone, with a round ruled twice."""
    return write_log(path, "club", [
        {"type": "game_started", "ruleset": "amsterdam", "seats": ["ann", "bob", "cor", "dirk"],
         "dealer": 3},
        {"type": "round_score", "round": 1, "score": [102, 60], "roem": [0, 0]},
        {"type": "round_score", "round": 2, "score": [0, 182], "chooser": 0, "roem": [20, 0]},
        {"type": "dealt"},
        {"type": "ruling", "round": 3, "score": [0, 162], "reason": "abandoned"},
        {"type": "ruling", "round": 3, "score": [81, 81], "reason": "on appeal"},
        {"type": "round_score", "round": 4, "score": [262, 0], "chooser": 2, "roem": [0, 0]},
    ])


def test_score_only_rounds_and_superseded_rulings_are_marked(tmp_path: Path) -> None:
    log = club_log(tmp_path / "club.jsonl")
    out = sheet_text(str(log))
    # a score alone: who dealt, the score, no result but what the score shows
    assert row_of(out, "1") == ["1", "dirk", "102", "60", "102", "60", "?", "score", "only"]
    # nat: the roem team 0 held went to team 1 with the round
    assert row_of(out, "2") == ["2", "ann", "ann", "(team", "0)", "0", "182", "20", "102", "242",
                                "nat", "score", "only"]
    assert "as played 0–0; superseded ruling 0–162 (seq 4); ruled 81–81 (seq 5): on appeal" \
        in out
    assert row_of(out, "4")[:8] == ["4", "cor", "cor", "(team", "0)", "262", "0", "445"]
    s = sheet_json(str(log))
    assert [r["marks"] for r in s["rows"]] == [
        ["score only"], ["score only"],
        ["as played 0–0", "superseded ruling 0–162 (seq 4)", "ruled 81–81 (seq 5): on appeal"],
        ["score only"]]
    assert [r["result"] for r in s["rows"]] == ["score_only", "nat", "unfinished", "pit"]
    # the roem inside each side's score as played (round 3 was ruled before a card fell)
    assert [r["roem"] for r in s["rows"]] == [[0, 0], [0, 20], [0, 0], [0, 0]]
    assert s["rows"][1]["roem_held"] == [20, 0]
    assert s["totals"] == [445, 323] and s["finished"] is False
    assert out.splitlines()[-1] == "  not finished, 445–323"


# ------------------------------------------------------------------ stored games


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "club.sqlite")
    for name in ("amsterdam-revoke-ruling", "klaberjass-faults", "kloepper-faults"):
        r = jaslog("import", "--db", path, str(REPLAYS / f"{name}.jsonl"), text=True)
        assert r.returncode == 0, r.stderr
    r = jaslog("import", "--db", path, str(club_log(tmp_path / "club.jsonl")), text=True)
    assert r.returncode == 0, r.stderr
    return path


def test_a_stored_game_by_its_id_or_store_prefix(db: str) -> None:
    from_file = sheet_text(str(REPLAYS / "klaberjass-faults.jsonl"))
    assert sheet_text("klok-2026-12-01-b", "--db", db) == from_file
    assert sheet_text("store:klok-2026-12-01-b", "--db", db) == from_file
    assert sheet_text("klok-2026-12-01-b", env={"JASLOG_DB": db}) == from_file
    stored = sheet_json("legion-2026-12-03-t2", "--db", db)
    assert stored == sheet_json(str(REPLAYS / "kloepper-faults.jsonl"))
    club = sheet_json("club", "--db", db)
    assert club["rows"][2]["rulings"][0]["superseded"] is True


def test_a_game_that_is_not_there_is_named(db: str, tmp_path: Path) -> None:
    r = jaslog("sheet", "nope", "--db", db, text=True)
    assert (r.returncode, r.stdout) == (2, "")
    assert "no game 'nope' in the store" in r.stderr and "Traceback" not in r.stderr
    r = jaslog("sheet", str(tmp_path / "missing.jsonl"), text=True)
    assert r.returncode == 2 and "missing.jsonl" in r.stderr and "no such file" in r.stderr
    r = jaslog("sheet", str(REPLAYS / "kloepper-full.jsonl"), "--game", "other", text=True)
    assert r.returncode == 2 and "no game 'other'" in r.stderr
    r = jaslog("sheet", "store:club", "--game", "other", "--db", db, text=True)
    assert r.returncode == 2 and "name the game once" in r.stderr


def test_a_game_from_standard_input_and_one_of_many_in_a_file(tmp_path: Path) -> None:
    text = (REPLAYS / "kloepper-full.jsonl").read_text()
    r = jaslog("sheet", "-", input=text, text=True)
    assert r.returncode == 0 and r.stdout == sheet_text(str(REPLAYS / "kloepper-full.jsonl"))
    both = tmp_path / "both.jsonl"
    both.write_text(text + (REPLAYS / "klaberjass-full.jsonl").read_text())
    one = sheet_json(str(both), "--game", "klok-2026-12-01-a")
    assert one == sheet_json(str(REPLAYS / "klaberjass-full.jsonl"))


def test_an_invalid_log_is_refused_with_its_error(tmp_path: Path) -> None:
    lines = (REPLAYS / "kloepper-full.jsonl").read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([*lines[:5], lines[7]]) + "\n")
    r = jaslog("sheet", str(bad), text=True)
    assert r.returncode == 2 and r.stdout == ""
    assert "bad.jsonl:6" in r.stderr and "jaslog check" in r.stderr
