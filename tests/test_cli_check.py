"""``jaslog check`` on real files: exit codes, messages, ``--json``, stdin, several games."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from jaslog.cli import app
from jaslog.play.audit import REPORT_KEYS
from tests.cli import jaslog as jaslog_here
from tests.cli import pipe_path

from .rules.logs import DEAL_M, REVOKE_SEQ_M, TRICKS_M, TRICKS_M_REVOKE, Log, round_m

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def clean(game: str = "g1") -> Log:
    return round_m(Log(game=game).deal(DEAL_M).bid(0, "H"), TRICKS_M, {7: (2, 20), 8: (1, 50)})


def revoked(game: str = "g2") -> Log:
    return round_m(Log(game=game).deal(DEAL_M).bid(0, "H"), TRICKS_M_REVOKE)


def broken(game: str = "g3") -> Log:
    return Log(game=game).deal(DEAL_M).bid(0, "H").trick(0, "JH KH 8H 7H").play(1, "10H")


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str]:
    r = runner.invoke(app, ["check", *args], input=stdin)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, r.output


def json_lines(text: str) -> list[dict]:  # type: ignore[type-arg]
    return [orjson.loads(x) for x in text.splitlines() if x.strip()]


def test_clean_file_exit_0(tmp_path: Path) -> None:
    p = write(tmp_path, "clean.jsonl", clean().jsonl())
    code, out = run(str(p))
    assert code == 0
    assert "✓ g1 (amsterdam): not finished, 153–79 after 1 round; 0 violations" in out


def test_violations_exit_1_and_name_file_line_game_seq(tmp_path: Path) -> None:
    p = write(tmp_path, "revoke.jsonl", revoked().jsonl())
    code, out = run(str(p))
    assert code == 1
    assert "! g2 (amsterdam): not finished, 162–0 after 1 round; 1 violation" in out
    line = REVOKE_SEQ_M + 1
    assert (f"{p}:{line}: game g2 seq {REVOKE_SEQ_M} round 1 trick 4 seat 1 (bob): must_follow_suit: "
            "seat 1 played 9D to a spades lead while holding spades (QS KS): must follow suit") in out


def test_integrity_error_exit_2(tmp_path: Path) -> None:
    p = write(tmp_path, "broken.jsonl", broken().jsonl())
    code, out = run(str(p))
    assert code == 2
    assert (f"✗ g3 (amsterdam): invalid: {p}:8: game g3 seq 7: seat 1 played 10H but it is "
            "seat 0's turn [not_your_turn]") in out
    assert "Traceback" not in out


def test_malformed_json_line(tmp_path: Path) -> None:
    # a broken line that names no game is reported on its own; the good game is still checked
    p = write(tmp_path, "bad.jsonl", clean().jsonl() + b'{"seq": 37, "type": \n')
    code, out = run(str(p))
    assert code == 2
    assert f"✗ {p}:38: not valid JSON" in out      # clean() is 37 lines
    assert "✓ g1" in out


@pytest.mark.parametrize("tail, truncated", [(b'{"game": "g1", "seq": \n', False),
                                             (b'{"game":"g1","seq":37,"type":"pl', True)])
def test_a_broken_line_of_a_game_makes_the_game_invalid(tmp_path: Path, tail: bytes,
                                                        truncated: bool) -> None:
    """A line whose text names its game is that game's, as the import takes it (which
    refuses the game): check and replay say so, a line cut short at the end of the file as
    such; the game is not reported clean, nor twice."""
    p = write(tmp_path, "bad.jsonl", clean().jsonl() + tail)
    code, out = run(str(p))
    assert code == 2 and out.count("g1 (amsterdam)") == 1, out
    cut = "the file ends in the middle of a line (truncated?): " if truncated else ""
    assert f"✗ g1 (amsterdam): invalid: {p}:38: game g1: {cut}not valid JSON" in out
    js = orjson.loads(runner.invoke(app, ["check", "--json", str(p)]).stdout)
    assert js["ok"] is False and f"{p}:38: game g1: {cut}not valid JSON" in js["error"]
    r = runner.invoke(app, ["replay", str(p)])
    assert r.exit_code == 2 and f"{p}:38: game g1: {cut}not valid JSON" in r.stderr


def test_worst_exit_code_wins_over_several_files(tmp_path: Path) -> None:
    a = write(tmp_path, "a.jsonl", clean("a").jsonl())
    b = write(tmp_path, "b.jsonl", revoked("b").jsonl())
    c = write(tmp_path, "c.jsonl", broken("c").jsonl())
    assert run(str(a))[0] == 0
    assert run(str(a), str(b))[0] == 1
    assert run(str(b), str(a))[0] == 1
    assert run(str(c), str(b), str(a))[0] == 2
    assert run(str(a), str(c))[0] == 2


def test_json_has_exactly_the_documented_keys(tmp_path: Path) -> None:
    p = write(tmp_path, "three.jsonl", clean("a").jsonl() + revoked("b").jsonl() + broken("c").jsonl())
    code, out = run("--json", str(p))
    assert code == 2
    reps = json_lines(out)
    assert [r["game"] for r in reps] == ["a", "b", "c"]
    for r in reps:
        assert tuple(r) == REPORT_KEYS
        assert set(r) == {"game", "ruleset", "ok", "error", "violations", "rounds", "totals",
                          "finished", "winner", "retracted", "irregularities", "timeouts"}
    a, b, c = reps
    assert (a["ok"], a["error"], a["totals"], a["violations"]) == (True, None, [153, 79], [])
    assert set(a["rounds"][0]) == {"round", "dealer", "trump", "chooser", "tricks", "points", "roem",
                                   "roem_on_table", "result", "score", "ruling", "rulings",
                                   "recorded", "hands_recorded", "irregularities", "final",
                                   "totals", "claim"}
    assert set(a["rounds"][0]["tricks"][0]) == {"leader", "cards", "winner", "points", "roem",
                                               "roem_on_table"}
    assert b["ok"] is False and b["error"] is None
    [v] = b["violations"]
    assert set(v) == {"seq", "round", "trick", "seat", "card", "rule", "message"}
    assert (v["seq"], v["rule"], v["card"]) == (REVOKE_SEQ_M, "must_follow_suit", "9D")
    assert c["ok"] is False
    assert isinstance(c["error"], str)
    assert c["error"].startswith(f"{p}:{37 + 35 + 8}: game c seq 7: ")
    assert c["error"].endswith("[not_your_turn]")


def test_json_for_a_line_without_a_game(tmp_path: Path) -> None:
    p = write(tmp_path, "junk.jsonl", b"[1, 2, 3]\n")
    code, out = run("--json", str(p))
    assert code == 2
    [r] = json_lines(out)
    assert tuple(r) == REPORT_KEYS
    assert r["game"] is None and r["error"].startswith(f"{p}:1: ")
    assert r["error"].endswith("[bad_event]") and "JSON object" in r["error"]


def test_interleaved_games_in_one_file(tmp_path: Path) -> None:
    a = round_m(Log(game="a").deal(DEAL_M).bid(0, "H"), TRICKS_M)     # no claims: 35 events
    b = revoked("b")
    lines = [orjson.dumps(e) for pair in zip(a.events, b.events, strict=True) for e in pair]
    p = write(tmp_path, "both.jsonl", b"\n".join(lines) + b"\n")
    code, out = run(str(p))
    assert code == 1
    assert "✓ a (amsterdam)" in out and "! b (amsterdam)" in out
    # b's revoke is b's event at seq 16, on line 2 * 16 + 2 of the file
    assert f"{p}:{2 * REVOKE_SEQ_M + 2}: game b seq {REVOKE_SEQ_M} round 1 trick 4" in out
    code, out = run("--json", str(p))
    assert [r["totals"] for r in json_lines(out)] == [[133, 29], [162, 0]]


def test_stdin(tmp_path: Path) -> None:
    code, out = run("-", stdin=revoked().jsonl())
    assert code == 1
    assert f"<stdin>:{REVOKE_SEQ_M + 1}: game g2 seq {REVOKE_SEQ_M}" in out


@pytest.mark.parametrize("name", ["missing.jsonl", "nowhere/x.jsonl"])
def test_nonexistent_file_is_a_clean_error(tmp_path: Path, name: str) -> None:
    r = runner.invoke(app, ["check", str(tmp_path / name)])
    assert r.exit_code == 2
    assert f"jaslog: {tmp_path / name}: no such file" in r.output
    assert "Traceback" not in r.output


def test_directory_is_not_a_log(tmp_path: Path) -> None:
    code, out = run(str(tmp_path))
    assert code == 2 and f"jaslog: {tmp_path}: is a directory, not a log file" in out


def test_byte_order_mark_is_not_part_of_the_first_line(tmp_path: Path) -> None:
    """A log saved by a Windows editor starts with a UTF-8 BOM: read as if it were not there."""
    plain = write(tmp_path, "plain.jsonl", clean().jsonl() + revoked().jsonl())
    marked = write(tmp_path, "marked.jsonl", b"\xef\xbb\xbf" + plain.read_bytes())
    code, out = run(str(marked))
    assert code == 1 and "bad_event" not in out and "byte order mark" not in out
    assert out.replace(str(marked), "F") == run(str(plain))[1].replace(str(plain), "F")
    assert run("-", stdin=marked.read_bytes())[0] == 1


def test_pipe_from_process_substitution(tmp_path: Path) -> None:
    """``jaslog check <(zcat log.gz)``: a pipe, read once, named by its path in messages."""
    p = write(tmp_path, "revoke.jsonl", b"\xef\xbb\xbf" + revoked().jsonl())
    r = subprocess.run(["bash", "-c", f'"{sys.executable}" -m jaslog check <(cat "{p}")'],
                       capture_output=True, cwd=ROOT, timeout=60, check=False)
    assert r.returncode == 1, r.stderr
    out = r.stdout.decode()
    assert f":{REVOKE_SEQ_M + 1}: game g2 seq {REVOKE_SEQ_M}" in out and "/dev/fd/" in out


def test_empty_file_is_clean(tmp_path: Path) -> None:
    """Nothing wrong, but not silent: a user who checked the wrong file is told."""
    path = write(tmp_path, "empty.jsonl", b"\n\n")
    r = runner.invoke(app, ["check", str(path)])
    assert r.exit_code == 0 and r.stdout == ""
    assert r.stderr == f"no games in {path}\n"


def test_finished_game_text(tmp_path: Path) -> None:
    from .rules.logs import suit_round

    log = Log(options={"game_end": {"type": "deals", "count": 1}})
    suit_round(log, 3).ruling(1, [262, 1], "a point for the defenders")
    code, out = run(str(write(tmp_path, "f.jsonl", log.jsonl())))
    assert code == 0
    assert "✓ g1 (amsterdam): finished, team 0 (ann & cor) wins 262–1 after 1 round" in out
    assert ("round  1  pit        262–0  ruled 262–1 (a point for the defenders; after the game "
            "ended)  →  262–1") in out


# ---------------------------------------------------------------- end to end: exit codes, stdout, stderr


def jaslog(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return jaslog_here(*args, input=stdin, cwd=ROOT)


def test_check_the_samples() -> None:
    files = sorted(str(p) for p in (ROOT / "replays").glob("*.jsonl"))
    r = jaslog("check", "--json", *files)
    assert r.returncode == 1, r.stderr
    reps = {x["game"]: x for x in json_lines(r.stdout.decode())}
    assert len(reps) == len(files)
    assert all(tuple(x) == REPORT_KEYS for x in reps.values())
    assert all(x["error"] is None and x["finished"] for x in reps.values())
    klaverjas = {g: x for g, x in reps.items() if x["ruleset"] in ("amsterdam", "rotterdam")}
    assert len(klaverjas) == 4
    assert [g for g, x in klaverjas.items() if not x["ok"]] == ["dehoop-2026-11-27-t2"]


def test_stdin_with_an_integrity_error_exits_2() -> None:
    r = jaslog("check", "-", stdin=broken().jsonl())
    assert r.returncode == 2
    assert b"<stdin>:8: game g3 seq 7: seat 1 played 10H" in r.stdout
    assert b"Traceback" not in r.stderr


def test_a_missing_file_is_one_line_on_stderr() -> None:
    r = jaslog("check", "no-such-file.jsonl")
    assert r.returncode == 2
    assert r.stderr.decode().strip() == "jaslog: no-such-file.jsonl: no such file"
    assert r.stdout == b""


def test_text_that_looks_like_markup_is_printed_as_is(tmp_path: Path) -> None:
    log = Log(options={"game_end": {"type": "deals", "count": 1}})
    from .rules.logs import suit_round

    suit_round(log, 3).ruling(1, [262, 1], "see [/] and [bold]rule 4[/bold]")
    log.add("bogus[/]")
    code, out = run(str(write(tmp_path, "m.jsonl", log.jsonl())))
    assert code == 2
    assert "unknown event type 'bogus[/]'" in out and "[bad_event]" in out
    log.events.pop()
    code, out = run(str(write(tmp_path, "m.jsonl", log.jsonl())))
    assert code == 0
    assert "ruled 262–1 (see [/] and [bold]rule 4[/bold]; after the game ended)" in out


# ---------------------------------------------------------------- compressed files, files given twice


def test_gzip_file_is_named_by_every_command_that_reads_logs(tmp_path: Path) -> None:
    """check, replay, import and export --from: one sentence, exit 2, nothing stored or written
    (it printed 'not UTF-8: byte 2 of the line is 0x8b' once per line)."""
    import gzip

    gz = write(tmp_path, "a.jsonl.gz", gzip.compress(clean().jsonl()))
    db, out = tmp_path / "s.sqlite", tmp_path / "ds"
    said = (f"jaslog: {gz} is gzip-compressed, not a jaslog/1 log: decompress it first, "
            f"e.g. give `<(zcat {gz})` in its place")
    for args in (["check", str(gz)], ["replay", str(gz)], ["import", "--db", str(db), str(gz)],
                 ["export", str(out), "--from", str(gz)]):
        r = jaslog(*args)
        assert r.returncode == 2, (args, r.stderr)
        err = r.stderr.decode()
        assert said in err and "UTF-8" not in err and "Traceback" not in err, args
        assert len(err.strip().splitlines()) == 1, err
    assert not db.exists() and not out.exists()
    # decompressed through a pipe (as `<(zcat FILE)` gives it) it is read
    with pipe_path(gzip.decompress(gz.read_bytes())) as pipe:
        r = jaslog("check", pipe)
    assert r.returncode == 0 and b"g1" in r.stdout, r.stderr


def test_a_file_given_twice_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    """import g.jsonl g.jsonl rejected every game as seq_duplicate; now no command reads it."""
    import os

    g = write(tmp_path, "g.jsonl", clean().jsonl())
    os.symlink(g, tmp_path / "same.jsonl")
    db, out = tmp_path / "s.sqlite", tmp_path / "ds"
    for args in (["check", str(g), str(g)], ["import", "--db", str(db), str(g), str(g)],
                 ["export", str(out), "--from", str(g), "--from", str(g)]):
        r = runner.invoke(app, args)
        assert r.exit_code == 2, (args, r.output)
        assert f"jaslog: {g} is given twice: give each log once" in r.output, args
        assert "seq_duplicate" not in r.output
    r = runner.invoke(app, ["check", str(g), str(tmp_path / "same.jsonl")])
    assert r.exit_code == 2 and f"{tmp_path / 'same.jsonl'} is given twice (also as {g})" in r.output
    r = runner.invoke(app, ["import", "--db", str(db), "-", "-"], input=clean().jsonl())
    assert r.exit_code == 2 and "standard input (-) is given twice" in r.output
    assert not db.exists() and not out.exists()
    # once is fine, and two different files with the same games are still read (and skipped)
    r = runner.invoke(app, ["import", "--db", str(db), str(g)])
    assert r.exit_code == 0 and "imported 1 game" in r.output, r.output


def test_import_workers_has_an_upper_limit(tmp_path: Path) -> None:
    """--workers 1000 started a thousand processes (killed by the OOM killer)."""
    g = write(tmp_path, "g.jsonl", clean().jsonl())
    db = tmp_path / "s.sqlite"
    r = runner.invoke(app, ["import", "--db", str(db), "--workers", "1000", str(g)])
    assert r.exit_code == 2 and "less than or equal to 64" in r.output, r.output
    assert not db.exists()
    r = runner.invoke(app, ["import", "--help"], env={"COLUMNS": "200"})
    assert "at most 64" in r.output


def test_check_reads_canonical_plays_without_models_and_says_the_same() -> None:
    """``check`` reads each canonical play as the import does (no model), for every game, and
    says of each sample game, as text and as JSON, what a reading through the models says."""
    from jaslog.cli.check import check_game
    from jaslog.cli.common import read_games
    from jaslog.events.fast import FastPlay
    from jaslog.play.fold import FileGame

    files = sorted((ROOT / "replays").glob("*.jsonl"))
    fast = list(read_games(files, fast=True))
    slow = list(read_games(files))
    assert [g.game for g in fast] == [g.game for g in slow]
    rulesets = set()
    for f, s in zip(fast, slow, strict=True):
        assert isinstance(f, FileGame) and isinstance(s, FileGame)
        assert f.fold is not None and s.fold is not None
        rulesets.add(f.fold.game)
        plays = [e for e in f.fold.log if e.type == "play"]
        assert plays and all(type(e) is FastPlay for e in plays)
        assert not any(type(e) is FastPlay for e in s.fold.log)
        for json in (True, False):
            a, b = check_game(f, json), check_game(s, json)
            assert (a.exit, a.json, [str(x) for x in a.lines]) == \
                (b.exit, b.json, [str(x) for x in b.lines])
    assert rulesets == {"klaverjas", "klaberjass", "kloepper"}
