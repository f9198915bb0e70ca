"""Log files read game by game (``jaslog.logs``): two passes, each game at its last line."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from jaslog.logs import Line, LogError, LogFiles
from jaslog.play.fold import FileGame, fold_lines
from jaslog.play.sim import simulate_game


def _games(n: int) -> list[list[dict[str, object]]]:
    return [list(simulate_game(f"lg-{i}", seed=i)) for i in range(n)]


def _write(path: Path, events: list[dict[str, object]], tail: bytes = b"") -> Path:
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events) + tail)
    return path


def test_each_game_is_folded_before_the_next_is_read(tmp_path: Path) -> None:
    """What keeps ``jaslog check`` of an archive in bounded memory: a game is handed on at
    its last line, before a line of the next game is read."""
    a, b, c = _games(3)
    log = _write(tmp_path / "games.jsonl", a + b + c)
    read = 0

    def counted(lines: Iterator[Line]) -> Iterator[Line]:
        nonlocal read
        for ln in lines:
            read += 1
            yield ln

    with contextlib.ExitStack() as stack:
        files = LogFiles([log], stack)
        assert files.games == 3
        folded = fold_lines(counted(files.lines()), files.is_last)
        seen = []
        for g in folded:
            assert isinstance(g, FileGame) and g.error is None
            seen.append((g.game, read))
    assert seen == [("lg-0", len(a)), ("lg-1", len(a) + len(b)), ("lg-2", len(a) + len(b) + len(c))]


def test_mixed_games_and_files_come_as_they_end(tmp_path: Path) -> None:
    a, b, c = _games(3)
    mixed = [e for pair in zip(a, b, strict=False) for e in pair] + a[len(b):] + b[len(a):]
    first = _write(tmp_path / "1.jsonl", c[:10] + mixed, tail=b"\n")  # c goes on in file 2
    second = _write(tmp_path / "2.jsonl", c[10:])
    with contextlib.ExitStack() as stack:
        files = LogFiles([first, second], stack)
        by_fold = [g.game for g in fold_lines(files.lines(), files.is_last)
                   if isinstance(g, FileGame)]
        by_lines = [lines[0][2] for lines in files.game_lines()]
    ends = ["lg-0", "lg-1"] if len(a) <= len(b) else ["lg-1", "lg-0"]
    assert by_fold == [*ends, "lg-2"]
    assert [orjson.loads(raw)["game"] for raw in by_lines] == [*ends, "lg-2"]


def test_a_line_without_a_game_stops_the_grouped_reading(tmp_path: Path) -> None:
    (a,) = _games(1)
    log = _write(tmp_path / "games.jsonl", a, tail=b"[1, 2]\n")
    with contextlib.ExitStack() as stack:
        lines = LogFiles([log], stack).game_lines()
        assert len(next(lines)) == len(a)
        with pytest.raises(LogError, match=rf"games\.jsonl:{len(a) + 1}: "):
            next(lines)
    with pytest.raises(LogError, match=r"nope\.jsonl: no such file"):
        LogFiles([tmp_path / "nope.jsonl"], contextlib.ExitStack())


def test_one_game_is_found_without_parsing_the_others(tmp_path: Path) -> None:
    """``jaslog replay FILE --game G`` reads only G's lines: another game's broken line is
    passed over by its id, a line that names no game is given on with its error."""
    from jaslog.logs import lines_of_game

    a, c = _games(2)
    log = _write(tmp_path / "games.jsonl", a, tail=b'{"game":"other","seq":"x"}\nnot json\n')
    with open(log, "ab") as f:
        f.writelines(orjson.dumps(e) + b"\n" for e in c)
    got = list(lines_of_game(log, "lg-1"))
    assert [ln.number for ln in got] == [len(a) + 2, *range(len(a) + 3, len(a) + 3 + len(c))]
    assert got[0].event is None and got[0].error and "JSON" in got[0].error
    assert all(ln.event is not None and ln.event.game == "lg-1" for ln in got[1:])
    first = list(lines_of_game(log, None))  # the first line's game
    assert [ln.number for ln in first] == [*range(1, len(a) + 1), len(a) + 2]


@pytest.mark.soak
def test_thousands_of_files_do_not_run_out_of_file_handles(tmp_path: Path) -> None:
    """A folder of one-game files: each file is open only while it is read (``jaslog check``
    and ``export --from`` on 150 files with 64 file handles allowed)."""
    import os
    import resource
    import subprocess
    import sys

    from tests.conftest import ROOT

    (game,) = _games(1)
    paths = []
    for i in range(150):
        events = [{**e, "game": f"f-{i:03d}"} for e in game[:12]]
        paths.append(str(_write(tmp_path / f"{i:03d}.jsonl", events)))

    def few_handles() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for args in (["check", "--json"], ["export", str(tmp_path / "ds"), "--workers", "0",
                                       "--json", "--from"]):
        cmd = [sys.executable, "-m", "jaslog", *args]
        if args[0] == "export":  # --from is repeatable: one per file
            cmd = cmd[:-1] + [x for p in paths for x in ("--from", p)]
        else:
            cmd += paths
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300,
                             preexec_fn=few_handles, check=False)
        assert res.returncode == 0, res.stderr[-2000:]
        if args[0] == "check":
            assert len(res.stdout.splitlines()) == 150
        else:
            assert orjson.loads(res.stdout)["games_added"] == 150


@pytest.mark.parametrize(("magic", "kind", "tool"), [
    (b"\x1f\x8b\x08\x00", "gzip", "zcat"),
    (b"\x28\xb5\x2f\xfd\x00", "zstd", "zstdcat"),
    (b"BZh91AY", "bzip2", "bzcat"),
    (b"\xfd7zXZ\x00\x00", "xz", "xzcat"),
    (b"PK\x03\x04\x14\x00", "zip", "unzip -p"),
])
def test_a_compressed_file_is_named_as_such(tmp_path: Path, magic: bytes, kind: str,
                                            tool: str) -> None:
    """Its first bytes say it is compressed: one sentence, not a bad line per line."""
    from jaslog.logs import path_problem

    p = tmp_path / "my log.jsonl.x"
    p.write_bytes(magic + b"\x00" * 40)
    problem = path_problem(p)
    assert problem == (f"{p} is {kind}-compressed, not a jaslog/1 log: decompress it first, "
                       f"e.g. give `<({tool} '{p}')` in its place")
    with pytest.raises(LogError, match=f"is {kind}-compressed"):
        LogFiles([p], contextlib.ExitStack())


def test_a_real_gzip_file_and_text_that_starts_alike(tmp_path: Path) -> None:
    import gzip

    from jaslog.logs import path_problem

    (a,) = _games(1)
    log = _write(tmp_path / "a.jsonl", a)
    gz = tmp_path / "a.jsonl.gz"
    gz.write_bytes(gzip.compress(log.read_bytes()))
    assert path_problem(log) is None
    assert path_problem(gz) is not None and "gzip-compressed" in path_problem(gz)  # type: ignore[operator]
    # text that begins with "BZh" or "PK" but not the whole signature is not taken for one
    assert path_problem(_write(tmp_path / "b.jsonl", [], tail=b"BZ\nPK\n")) is None
    assert path_problem(_write(tmp_path / "e.jsonl", [])) is None  # empty


def test_a_pipe_is_not_read_to_look_at_it(tmp_path: Path) -> None:
    """A fifo nobody writes to yet: looking at it must not block (nor eat its first bytes)."""
    import os
    import threading

    from jaslog.logs import paths_problem

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = threading.Event()
    result: list[str | None] = []

    def look() -> None:
        result.append(paths_problem([fifo]))
        result.append(paths_problem([fifo, fifo]))  # told without opening it either
        done.set()

    threading.Thread(target=look, daemon=True).start()
    assert done.wait(10), "path_problem opened the pipe"
    assert result == [None, f"{fifo} is given twice: give each log once"]


def test_the_same_file_given_twice_is_refused_before_reading(tmp_path: Path) -> None:
    import os

    from jaslog.logs import paths_problem, repeated_path

    (a,) = _games(1)
    log = _write(tmp_path / "g.jsonl", a)
    other = _write(tmp_path / "h.jsonl", a)
    link = tmp_path / "link.jsonl"
    os.symlink(log, link)
    assert repeated_path([log, other]) is None
    assert repeated_path([log, log]) == f"{log} is given twice: give each log once"
    assert repeated_path([log, other, link]) == f"{link} is given twice (also as {log}): give each log once"
    assert repeated_path(["-", other, "-"]) == "standard input (-) is given twice"
    # a missing file is named as missing, not as given twice
    missing = tmp_path / "x.jsonl"
    assert paths_problem([missing, missing]) == f"{missing}: no such file"
    with pytest.raises(LogError, match="is given twice"):
        LogFiles([log, log], contextlib.ExitStack())


def test_a_pipe_given_twice_is_refused_without_reading_it(tmp_path: Path) -> None:
    """A pipe can be read once: given twice (by one name or two), the second reading would
    find nothing, so it is refused as a file given twice is, before anything opens it (no
    writer is ever attached: opening it would block)."""
    import os

    from jaslog.logs import repeated_path

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    alias = tmp_path / "alias"
    os.symlink(fifo, alias)
    other = tmp_path / "other"
    os.mkfifo(other)
    assert repeated_path([fifo, other]) is None
    assert repeated_path([fifo, fifo]) == f"{fifo} is given twice: give each log once"
    assert repeated_path([fifo, alias]) == f"{alias} is given twice (also as {fifo}): give each log once"


@pytest.mark.slow
def test_standard_input_and_the_file_or_pipe_it_reads_are_one_log(tmp_path: Path) -> None:
    """``-`` is whatever standard input is: given with /dev/stdin (a pipe) or with the file
    redirected into it, the log is given twice; told in a real process, whose standard input
    is that pipe or file, as a user sees it."""
    import subprocess
    import sys

    (a,) = _games(1)
    log = _write(tmp_path / "g.jsonl", a)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    cmd = [sys.executable, "-m", "jaslog", "check"]
    piped = subprocess.run([*cmd, "-", "/dev/stdin"], input=log.read_bytes(),
                           capture_output=True, env=env, timeout=60)
    assert piped.returncode == 2, piped
    assert b"/dev/stdin is given twice (also as -)" in piped.stderr
    with open(log, "rb") as f:
        redirected = subprocess.run([*cmd, "-", str(log)], stdin=f, capture_output=True,
                                    env=env, timeout=60)
    assert redirected.returncode == 2, redirected
    assert f"{log} is given twice (also as -)".encode() in redirected.stderr
    # alone, standard input is read as ever (in this process: no descriptor is compared)
    from tests.cli import jaslog

    alone = jaslog("check", "-", input=log.read_bytes())
    assert alone.returncode == 0, alone
    assert alone.stdout.startswith("✓ lg-0 (amsterdam): finished".encode()) and not alone.stderr, alone


def _last_line_by_line(data: bytes) -> dict[str, tuple[int, int]]:
    """The first pass as it reads one line at a time: each game's last line."""
    import io

    from jaslog.logs import line_game

    last: dict[str, tuple[int, int]] = {}
    for number, raw in enumerate(io.BytesIO(data), 1):
        game = line_game(raw)
        if game is not None:
            last[game] = (0, number)
    return last


@pytest.mark.parametrize("block", [1 << 22, 1000, 61])
def test_the_first_pass_by_blocks_finds_what_line_by_line_finds(
        block: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of canonical lines are read by one regex, any other block line by line: the
    games' last lines are the same either way, whatever the blocks' size (a block may end
    in the middle of a line), blank lines, CRLF, spaced JSON, a line naming "game" twice,
    one that names none and a last line without its line break included."""
    import io

    from jaslog.logs import files

    monkeypatch.setattr(files, "BLOCK", block)
    games = b"".join(orjson.dumps(e) + b"\n" for g in ("a", "b") for e in
                     simulate_game(g, seed=len(g))[:40])
    odd = (b'\n{"game": "x", "seq": 0}\n{"game":"y","seq":1,"game":"z"}\n{"seq":1}\r\n'
           b'{"game":"a b","seq":3}\n{"game":"q","seq":2}')
    for data in (games, games + b"\n\n", games.replace(b"\n", b"\r\n"), odd + b"\n" + games,
                 games + odd):
        last: dict[str, tuple[int, int]] = {}
        files.last_lines(io.BytesIO(data), 0, last)
        expected = _last_line_by_line(data)
        assert last == expected and list(last) == list(expected)


@pytest.mark.parametrize("probe", [2048, 40, 1])
@pytest.mark.parametrize("block", [1 << 22, 997, 150])
def test_runs_of_games_mixed_any_way_give_the_last_lines_of_line_by_line(
        block: int, probe: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first pass finds a game's lines as runs, searching ahead and halving for where
    each run ends: games mixed in runs of any length, a game coming back after another,
    lines that name "game" twice or in their text, ids of every character allowed: the last
    lines are those read line by line, whatever the blocks' and the probes' sizes."""
    import io
    import random

    from jaslog.logs import files

    monkeypatch.setattr(files, "BLOCK", block)
    monkeypatch.setattr(files, "_PROBE", probe)
    rng = random.Random(7)
    ids = ["a", "b.c:d-E_9", "x" * 128, "a1"]
    for trial in range(12):
        lines = []
        seqs = dict.fromkeys(ids, 0)
        for _ in range(rng.randrange(1, 300)):
            g = rng.choice(ids[: 1 + trial % len(ids)])
            for _ in range(rng.choice([1, 1, 2, 5, 40])):
                lines.append(b'{"game":"%s","seq":%d,"type":"note","text":"%s"}\n'
                             % (g.encode(), seqs[g], b"y" * rng.randrange(0, 90)))
                seqs[g] += 1
        data = b"".join(lines)
        odd = [b'{"game":"a","seq":9,"game":"b"}\n', b'{"game":"b","text":"game"}\n',
               b'{"game":"a b","seq":3}\n', b"\n"]
        for extra in ([], [rng.choice(odd)]):
            mixed = list(lines)
            for x in extra:
                mixed.insert(rng.randrange(len(mixed) + 1), x)
            for tail in (b"", b'{"game":"a","seq":99}'):
                data = b"".join(mixed) + tail
                last: dict[str, tuple[int, int]] = {}
                files.last_lines(io.BytesIO(data), 0, last)
                expected = _last_line_by_line(data)
                assert last == expected and list(last) == list(expected), (trial, extra)
