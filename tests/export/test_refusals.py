"""What an export refuses rather than doing harm: a game's end without its beginning, a mistyped
ruleset, a folder with no export to verify, too many workers; and a game with fewer events
than the dataset holds never replaces it. Real log files, a real SQLite store, real Parquet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from jaslog.cli import app
from jaslog.events import Event
from jaslog.export import ExportError, export_files, export_store, load_manifest, verify_dataset
from jaslog.games import PRESETS
from jaslog.store import open_store
from tests.export.test_dataset import archive, content

runner = CliRunner()


def run(*args: str) -> Any:
    return runner.invoke(app, list(args), env={"JASLOG_DB": "", "JASLOG_EXPORT": ""})


def _write(path: Path, events: list[Event]) -> Path:
    with open(path, "wb") as f:
        f.writelines(orjson.dumps(e.model_dump(exclude_none=True)) + b"\n" for e in events)
    return path


@pytest.fixture
def parts(tmp_path: Path, corpus: list[list[Event]]) -> tuple[Path, Path, Path, list[Event]]:
    """One whole game (a.jsonl), its first 300 lines (p1.jsonl) and the rest (p2.jsonl)."""
    game = next(g for g in corpus if len(g) > 400)
    return (_write(tmp_path / "a.jsonl", game), _write(tmp_path / "p1.jsonl", game[:300]),
            _write(tmp_path / "p2.jsonl", game[300:]), game)


def test_the_end_of_a_game_alone_is_refused_and_the_whole_game_replaces_its_start(
        tmp_path: Path, parts: tuple[Path, Path, Path, list[Event]]) -> None:
    a, p1, p2, game = parts
    out = tmp_path / "ex"
    assert export_files([p1], out).games_added == 1
    before = content(out)
    version = load_manifest(out)[1]["version"]  # type: ignore[index]
    with pytest.raises(ExportError) as e:
        export_files([p2], out, workers=0)
    msg = str(e.value)
    assert msg.startswith(f"{p2}:1: game {game[0].game} begins here at seq 300, not at seq 0")
    assert "give all of a game's files in one export" in msg
    assert content(out) == before and load_manifest(out)[1]["version"] == version  # type: ignore[index]
    r = export_files([a], out)  # the whole game: more events than p1's, so it replaces them
    assert (r.games_added, r.games_replaced, r.games_unchanged) == (0, 1, 0)
    whole = tmp_path / "whole"
    export_files([a], whole)
    assert content(out) == content(whole)
    assert len(content(out)["events"]) == len(game)
    # the start again: fewer events than the dataset holds, so the whole game stays
    r = export_files([p1], out)
    assert (r.changed, r.games_replaced, r.games_unchanged) == (False, 0, 1)
    assert content(out) == content(whole)


def test_a_game_split_across_files_given_together_is_whole(
        tmp_path: Path, parts: tuple[Path, Path, Path, list[Event]]) -> None:
    a, p1, p2, _game = parts
    export_files([p1, p2], tmp_path / "split")
    export_files([a], tmp_path / "whole")
    assert content(tmp_path / "split") == content(tmp_path / "whole")


@pytest.mark.parametrize("workers", ["0", "1"])
def test_cli_refuses_the_end_of_a_game_with_exit_2(
        tmp_path: Path, parts: tuple[Path, Path, Path, list[Event]], workers: str) -> None:
    _a, p1, p2, game = parts
    out = tmp_path / "ex"
    res = run("export", str(out), "--from", str(p2), "--workers", workers)
    assert res.exit_code == 2, res.output
    assert f"jaslog: {p2}:1: game {game[0].game} begins here at seq 300" in res.stderr
    assert "Traceback" not in res.output
    assert load_manifest(out) is None  # nothing exported
    assert run("export", str(out), "--from", str(p1), "--from", str(p2)).exit_code == 0


def test_a_store_game_with_fewer_events_than_exported_keeps_its_rows(
        tmp_path: Path, parts: tuple[Path, Path, Path, list[Event]]) -> None:
    """The store's rule is the same: only a later last seq replaces (a store recreated under
    the same path with less of a game is not a reason to drop rows)."""
    a, _p1, _p2, game = parts
    out = tmp_path / "ex"
    export_files([a], tmp_path / "whole")
    with open_store(str(tmp_path / "s.sqlite")) as store:
        archive(store, [e.model_dump(exclude_none=True) for e in game[:300]])
        assert export_store(store, out).games_added == 1
        archive(store, [e.model_dump(exclude_none=True) for e in game[300:]])
        r = export_store(store, out)
        assert (r.games_added, r.games_replaced) == (0, 1)
    assert content(out) == content(tmp_path / "whole")


def test_an_unknown_ruleset_is_refused_before_the_folder_is_touched(
        tmp_path: Path, corpus: list[list[Event]]) -> None:
    db = tmp_path / "s.sqlite"
    out = tmp_path / "ex"
    with open_store(str(db)) as store:
        for g in corpus[:3]:
            store.append(g[0].game, [e.model_dump(exclude_none=True) for e in g])
        export_store(store, out)
        with pytest.raises(ExportError, match="unknown ruleset 'amsterdma'; the presets are "):
            export_store(store, out, ruleset="amsterdma")
    before = content(out)
    res = run("export", str(out), "--db", str(db), "--ruleset", "amsterdma")
    assert res.exit_code == 2, res.output
    assert (f"jaslog: unknown ruleset 'amsterdma'; the presets are {', '.join(PRESETS)}"
            in " ".join(res.stderr.split()))
    assert content(out) == before and load_manifest(out)[1]["version"] == 1  # type: ignore[index]
    res = run("export", str(out), "--db", str(db), "--ruleset", "amsterdam", "--json")
    assert res.exit_code == 0, res.output


def test_verify_without_an_export_is_exit_2_and_damage_is_exit_1(
        tmp_path: Path, corpus: list[list[Event]]) -> None:
    missing = tmp_path / "nosuchdir"
    res = run("export", str(missing), "--verify")
    assert res.exit_code == 2 and f"jaslog: {missing}: no such folder" in res.stderr
    assert not missing.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    res = run("export", str(empty), "--verify")
    assert res.exit_code == 2 and "no export here" in res.stderr
    with pytest.raises(ExportError, match="no export here"):
        verify_dataset(empty)
    a_file = tmp_path / "f.txt"
    a_file.write_text("x")
    assert run("export", str(a_file), "--verify").exit_code == 2
    out = tmp_path / "ex"
    export_files([_write(tmp_path / "g.jsonl", corpus[0])], out)
    snap = load_manifest(out)[0]  # type: ignore[index]
    (snap / "manifest.json").unlink()  # an export was here and its snapshot lost its manifest
    res = run("export", str(out), "--verify")
    assert res.exit_code == 1 and "holds no manifest.json" in res.stdout


def test_workers_have_an_upper_limit(tmp_path: Path, corpus: list[list[Event]]) -> None:
    log = _write(tmp_path / "g.jsonl", corpus[0])
    res = run("export", str(tmp_path / "ex"), "--from", str(log), "--workers", "1000")
    assert res.exit_code == 2 and "--workers" in res.output and "64" in res.output
    assert not (tmp_path / "ex").exists()
    assert run("export", str(tmp_path / "ex"), "--from", str(log), "--workers", "64").exit_code == 0
    help_text = run("export", "--help").output.replace("│", " ")
    assert "0 to 64" in " ".join(help_text.split())
