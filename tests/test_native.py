"""The compiled hot path and its pure-Python twin: which one runs, that a stale or missing
build never runs, and that both fold every game to the same report."""

from __future__ import annotations

import ast
import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jaslog import native
from jaslog.games.klaverjas.rules import game as klaverjas_game
from jaslog.play import fold as _fold  # noqa: F401  (loads the whole hot path)
from jaslog.play.sim import simulate, to_jsonl
from tests.cli import jaslog as run_jaslog
from tests.cli import process_env

ROOT = Path(__file__).resolve().parent.parent


def test_every_module_of_the_hot_path_is_loaded_as_the_mode_says() -> None:
    st = native.status()
    assert set(native.HOT_PATH) <= set(sys.modules)
    compiled = [m for m in native.HOT_PATH if not str(sys.modules[m].__file__).endswith(".py")]
    assert st["loaded_compiled"] == sorted(compiled)
    if st["mode"] == "compiled":
        assert compiled == list(native.HOT_PATH), st
    else:
        assert compiled == [], st
        assert st["reason"]


def test_jaslog_pure_loads_every_module_from_its_source() -> None:
    code = ("import json, sys, jaslog.play.fold; from jaslog import native; "
            "print(json.dumps([native.status(), [sys.modules[m].__file__ for m in native.HOT_PATH]]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "JASLOG_PURE": "1"}, cwd=ROOT)
    st, files = json.loads(out.stdout)
    assert st["mode"] == "pure" and st["reason"] == "JASLOG_PURE is set"
    assert st["loaded_compiled"] == []
    assert all(f.endswith(".py") for f in files), files


def _tree(tmp_path: Path) -> dict[str, str]:
    """A folder of hot-path sources and the stamp a build of them would leave."""
    stamp = {}
    for m in native.HOT_PATH:
        src = native.source_of(m, tmp_path)
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text(f"# {m}\n")
        stamp[m] = native.digest(src)
    return stamp


def test_a_build_whose_sources_are_unchanged_runs_compiled(tmp_path: Path) -> None:
    assert native.why_pure("", _tree(tmp_path), tmp_path) is None
    assert native.why_pure("0", _tree(tmp_path), tmp_path) is None


def test_a_source_edited_after_the_build_makes_the_hot_path_pure(tmp_path: Path) -> None:
    stamp = _tree(tmp_path)
    native.source_of("jaslog.cards", tmp_path).write_text("# edited\n")
    assert native.why_pure("", stamp, tmp_path) == (
        "jaslog.cards changed since it was compiled: reinstall (scripts/setup)")


def test_a_build_of_other_modules_or_none_or_jaslog_pure_is_not_run(tmp_path: Path) -> None:
    stamp = _tree(tmp_path)
    stamp.pop("jaslog.cards")
    assert "another set of modules" in str(native.why_pure("", stamp, tmp_path))
    assert "not compiled" in str(native.why_pure("", None, tmp_path))
    assert native.why_pure("1", _tree(tmp_path), tmp_path) == "JASLOG_PURE is set"


def test_the_stamp_is_read_as_the_build_writes_it(tmp_path: Path) -> None:
    (tmp_path / native.STAMP).write_text("jaslog.cards abc\njaslog.engine.jacknine def\n")
    assert native.read_stamp(tmp_path) == {"jaslog.cards": "abc", "jaslog.engine.jacknine": "def"}
    assert native.read_stamp(tmp_path / "none") is None


def test_a_round_copies_everything_its_constructor_sets() -> None:
    """A compiled Round is copied field by field (``_ROUND_STATE``): every attribute
    ``__init__`` sets is a constructor argument or in that list."""
    tree = ast.parse(native.source_of(klaverjas_game.__name__).read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Round")
    init = next(f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__")
    assigned = {t.attr for a in init.body if isinstance(a, ast.Assign | ast.AnnAssign)
                for t in (a.targets if isinstance(a, ast.Assign) else [a.target])
                if isinstance(t, ast.Attribute)}
    assert assigned == {"number", "dealer", "selection", *klaverjas_game._ROUND_STATE}


def test_a_copied_game_shares_no_state_with_its_original() -> None:
    from jaslog.games import resolve

    g = klaverjas_game.KlaverjasGame(resolve("amsterdam"), 3)
    g.deal([0xFF, 0xFF00, 0xFF0000, 0xFF000000])
    g.bid(0, "H")
    g.play(0, 0)
    c = g.copy()
    c.play(1, 8)
    assert len(g.rounds[0].tricks[0].cards) == 1 and len(c.rounds[0].tricks[0].cards) == 2
    assert g.rounds[0].hands[1] == 0xFF00 and c.rounds[0].hands[1] == 0xFE00
    assert copy.deepcopy(g).rounds[0].played == g.rounds[0].played


def test_compiled_and_pure_fold_every_game_to_the_same_report(tmp_path: Path) -> None:
    if native.status()["mode"] != "compiled":
        pytest.skip(f"no compiled build to compare: {native.status()['reason']}")
    log = tmp_path / "games.jsonl"
    log.write_bytes(b"".join(to_jsonl(simulate(12, ["amsterdam", "rotterdam"], seed=5))))
    here = run_jaslog("check", str(log), "--json", text=True)
    pure = subprocess.run([sys.executable, "-m", "jaslog", "check", str(log), "--json"],
                          capture_output=True, text=True, env=process_env(JASLOG_PURE="1"))
    assert pure.returncode == here.returncode
    assert pure.stdout == here.stdout
    assert len(here.stdout.splitlines()) == 12
