"""The compiled hot path and its pure-Python twin: which one runs, that a stale or missing
build never runs, and that both fold every game to the same report."""

from __future__ import annotations

import ast
import copy
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jaslog import native
from jaslog.games.klaverjas.rules import game as klaverjas_game
from jaslog.play import fold as _fold  # noqa: F401  (loads the whole hot path)
from jaslog.play import logfold as _logfold  # noqa: F401  (and check's reading)
from jaslog.play.sim import simulate, to_jsonl
from jaslog.store import bulk_read as _bulk_read  # noqa: F401  (the store's reading in bulk)
from jaslog.store import import_lines as _import_lines  # noqa: F401  (and the import's)
from tests.cli import jaslog as run_jaslog
from tests.cli import process_env

ROOT = Path(__file__).resolve().parent.parent


def test_every_module_of_the_hot_path_is_loaded_as_the_mode_says() -> None:
    for m in native.HOT_PATH:  # (some are imported only by the commands that use them)
        importlib.import_module(m)
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
    code = ("import importlib, json, jaslog.play.fold; from jaslog import native; "
            "files = [importlib.import_module(m).__file__ for m in native.HOT_PATH]; "
            "print(json.dumps([native.status(), files]))")
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


def test_an_install_where_a_compiler_is_runs_compiled() -> None:
    """A build mypyc refused falls back to pure Python with one note that ``pip -q`` hides:
    where a C compiler and mypyc are there, the working copy's install must have compiled."""
    import importlib.util
    import shutil

    reason = native.status()["reason"]
    if native.status()["mode"] == "compiled":
        return
    if reason != native.why_pure("", None):
        pytest.skip(f"not a missing build: {reason}")
    if shutil.which("cc") is None or importlib.util.find_spec("mypyc") is None:
        pytest.skip("no C compiler or no mypyc here: the pure build is the expected one")
    pytest.fail("a C compiler and mypyc are here, yet the hot path was not compiled: run "
                "`pip install -v --no-build-isolation -e .` and read mypyc's note")


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
    rulesets = ["amsterdam", "rotterdam", "klaberjass-2p", "kloepper"]
    log.write_bytes(b"".join(to_jsonl(simulate(12, rulesets, seed=5))))
    here = run_jaslog("check", str(log), "--json", text=True)
    pure = subprocess.run([sys.executable, "-m", "jaslog", "check", str(log), "--json"],
                          capture_output=True, text=True, env=process_env(JASLOG_PURE="1"))
    assert pure.returncode == here.returncode
    assert pure.stdout == here.stdout
    assert len(here.stdout.splitlines()) == 12


def _fields(obj: object) -> dict[str, object]:
    """Every field of an object: a compiled native class's (``__mypyc_attrs__``) or a
    Python object's ``__dict__``."""
    names = getattr(type(obj), "__mypyc_attrs__", None)
    if names is None:
        return dict(vars(obj))
    out = {n: getattr(obj, n) for n in names if n != "__dict__" and hasattr(obj, n)}
    out.update(getattr(obj, "__dict__", {}))
    return out


def _started_klaverjas(seed: int = 3, events: int = 20) -> Any:
    from jaslog.events import event_from_dict
    from jaslog.play.fold import fold

    return fold(event_from_dict(e) for e in simulate(1, "amsterdam", seed=seed)
                if e["seq"] < events)


def test_the_state_classes_run_native_when_compiled() -> None:
    """Compiled, the fold's shell and the Klaverjas state are native classes (no
    ``__dict__``: their fields are read in C); pure, they are the same classes in Python."""
    from jaslog.games.klaverjas.fold import KlaverjasFold
    from jaslog.games.klaverjas.rules.trump import TrumpSelection

    f = _started_klaverjas()
    assert isinstance(f, KlaverjasFold)
    r = f.state.rounds[-1]
    objects = [f, f.state, r, r.selection, r.tricks[-1]]
    assert isinstance(r.selection, TrumpSelection)
    native_ones = [type(o).__name__ for o in objects if not hasattr(o, "__dict__")]
    if native.status()["mode"] == "compiled":
        assert native_ones == ["KlaverjasFold", "KlaverjasGame", "Round", type(r.selection).__name__,
                               "Trick"]
    else:
        assert native_ones == []


def test_the_klaberjass_state_runs_native_when_compiled() -> None:
    from jaslog.events import event_from_dict
    from jaslog.play.fold import fold

    events = [event_from_dict(e) for e in simulate(1, "klaberjass-2p", seed=2)]
    f = fold(e for e in events if e.seq < 12)
    r = f.state.rounds[-1]
    objects = [f, f.state, r, r.bidding, r.tricks[-1]]
    native_ones = [type(o).__name__ for o in objects if not hasattr(o, "__dict__")]
    if native.status()["mode"] == "compiled":
        assert native_ones == ["KlaberjassFold", "KlaberjassGame", "Round", "Bidding", "Trick"]
    else:
        assert native_ones == []
    g = copy.deepcopy(f)
    assert _fields(g.state).keys() == _fields(f.state).keys()
    def deal(x: Any) -> dict[str, object]:
        return {k: v for k, v in _fields(x).items() if k != "bidding"}  # (compared below)

    assert [deal(x) for x in g.state.rounds] == [deal(x) for x in f.state.rounds]
    assert _fields(g.state.rounds[-1].bidding) == _fields(r.bidding)
    for e in events[12:]:
        g.apply(e)
    assert g.state.finished and not f.state.finished and f.next_seq == 12


def test_the_kloepper_state_runs_native_when_compiled() -> None:
    from jaslog.events import event_from_dict
    from jaslog.play.fold import fold

    events = [event_from_dict(e) for e in simulate(1, "kloepper", seed=2)]
    f = fold(e for e in events if e.seq < 12)
    r = f.state.rounds[-1]
    objects = [f, f.state, r, r.tricks[-1]]
    native_ones = [type(o).__name__ for o in objects if not hasattr(o, "__dict__")]
    if native.status()["mode"] == "compiled":
        assert native_ones == ["KloepperFold", "KloepperGame", "Round", "Trick"]
    else:
        assert native_ones == []
    g = copy.deepcopy(f)
    assert _fields(g.state).keys() == _fields(f.state).keys()
    assert [_fields(x) for x in g.state.rounds] == [_fields(x) for x in f.state.rounds]
    for e in events[12:]:
        g.apply(e)
    assert g.state.finished and not f.state.finished and f.next_seq == 12


def test_a_copied_fold_has_every_field_and_goes_on_alone() -> None:
    """A fold's copy (written out field by field) has every field of the original, shares
    its events but no list, and moves on without it."""
    from jaslog.events import event_from_dict

    events = [event_from_dict(e) for e in simulate(1, "amsterdam", seed=4)]
    f = _started_klaverjas(seed=4, events=30)
    g = copy.deepcopy(f)
    a, b = _fields(f), _fields(g)
    assert a.keys() == b.keys() and a.keys() >= {"entries", "state", "next_seq", "_apply"}
    for name, value in a.items():
        if isinstance(value, list | dict) and name != "_apply":
            assert value == b[name] and value is not b[name], name
    assert g.log[1] is f.log[1] and g.state is not f.state
    g.apply(events[30])
    assert (f.next_seq, g.next_seq) == (30, 31) and len(f.log) == 30


@pytest.mark.parametrize("method", ["free", "utrecht", "dealer_must_choose", "random"])
def test_a_copied_trump_selection_has_every_field_and_goes_on_alone(method: str) -> None:
    from jaslog.games import resolve
    from jaslog.games.klaverjas.rules.trump import make_selection

    options = resolve("amsterdam", {"trump_selection": method})
    m = make_selection(options, 2, 1)
    if m.expects == "turn":
        m.turn_card("4H", "separate_pack", None)
    c = m.copy()
    assert type(c) is type(m) and _fields(c) == _fields(m)
    assert c.bids is not m.bids and c.turned is not m.turned
    c.bid(c.turn, "pass" if not c.forced else "S")
    assert len(c.bids) == len(m.bids) + 1


def test_a_copied_game_has_every_field_of_the_original() -> None:
    f = _started_klaverjas(seed=6, events=40)
    g = f.state.copy()
    assert _fields(g).keys() == _fields(f.state).keys()
    for name, value in _fields(f.state).items():
        assert _fields(g)[name] == value or name == "rounds", name
    assert [_fields(r).keys() for r in g.rounds] == [_fields(r).keys() for r in f.state.rounds]
    assert g.outcomes() == f.state.outcomes() and g.expected() == f.state.expected()


#: The functions every play of a fold runs through (module, qualified name).
PLAY_PATH = [
    ("jaslog.engine.fold", "GameFold.apply"),
    ("jaslog.games.klaverjas.fold", "KlaverjasFold.apply"),
    ("jaslog.games.klaverjas.rules.game", "KlaverjasGame.play"),
    ("jaslog.games.klaverjas.rules.play", "_walk"),
    ("jaslog.games.klaverjas.rules.play", "trick_value"),
    ("jaslog.engine.jacknine", "beats"),
    ("jaslog.engine.jacknine", "trick_winner"),
]


def _module_constants(tree: ast.Module) -> dict[str, bool]:
    """The names a module assigns at its top level, each with whether it is declared
    ``Final``."""
    out: dict[str, bool] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = ast.unparse(node.annotation).startswith("Final")
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                for n in names:
                    if isinstance(n, ast.Name):
                        out.setdefault(n.id, False)
    return out


def _function(tree: ast.Module, qualname: str) -> ast.FunctionDef:
    scope: Any = tree
    for part in qualname.split("."):
        scope = next(n for n in scope.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))
                     and n.name == part)
    return scope


def test_the_tables_the_play_path_reads_are_final() -> None:
    """Compiled, a module-level name a function reads is looked up in its module's dict at
    every read, unless it is ``Final`` (then mypyc keeps it in a C static, or inlines it);
    a tuple of ints read that way was even unboxed and boxed again at each index. So every
    constant the play path reads, its own module's or one it imports from the hot path, is
    declared ``Final``."""
    trees = {m: ast.parse(native.source_of(m).read_text(encoding="utf-8"))
             for m in native.HOT_PATH}
    constants = {m: _module_constants(t) for m, t in trees.items()}
    not_final = []
    for module, qualname in PLAY_PATH:
        tree = trees[module]
        known = dict(constants[module])
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module in constants:
                for alias in node.names:
                    if alias.name in constants[node.module]:
                        known[alias.asname or alias.name] = constants[node.module][alias.name]
        fn = _function(tree, qualname)
        read = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
                and isinstance(n.ctx, ast.Load)}
        not_final += [f"{module}.{qualname}: {name}" for name in sorted(read)
                      if known.get(name) is False]
    assert not_final == []
