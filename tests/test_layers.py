"""What a plain ``pip install jaslog`` gives: every module imports without the extras (``dev``,
``plot``), and a chart asked for without matplotlib is refused in a sentence that names the
extra. (The import layers themselves are checked by ``lint-imports``, run by ``make lint``.)

Each check runs in a fresh process in which the extras' packages cannot be imported, as on
a machine where they were never installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: What only the extras install: the tests' and linters' tools (``dev``), matplotlib (``plot``).
EXTRAS_ONLY = ("pytest", "_pytest", "hypothesis", "eventsourcing", "jsonschema", "playwright",
               "schemathesis", "httpx", "importlinter", "grimp", "matplotlib")

#: Run first in the child process: importing any of EXTRAS_ONLY fails as if not installed.
WITHOUT_EXTRAS = f"""
import importlib.abc, sys
BLOCKED = {EXTRAS_ONLY!r}
for name in list(sys.modules):
    if name.split(".")[0] in BLOCKED:
        del sys.modules[name]
class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, NotInstalled())
"""


def run_without_extras(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_EXTRAS + code], cwd=cwd,
                          capture_output=True, text=True, timeout=300, check=False)


def test_every_module_imports_without_the_extras(tmp_path: Path) -> None:
    modules = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in (ROOT / "jaslog").rglob("*.py") if p.name != "__main__.py")
    assert "jaslog.stats.analytics" in modules and "jaslog.games.klaverjas.rules.play" in modules
    code = f"""
import importlib
for name in {modules!r}:
    importlib.import_module(name)
print("imported", len({modules!r}))
"""
    run = run_without_extras(code, tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["imported", str(len(modules))]


def test_the_blocker_blocks(tmp_path: Path) -> None:
    """The child process really is without the extras (else the test above proves nothing)."""
    run = run_without_extras("import matplotlib", tmp_path)
    assert run.returncode == 1
    assert "No module named 'matplotlib'" in run.stderr


def test_a_chart_without_matplotlib_names_the_extra(tmp_path: Path) -> None:
    """``stats --plot`` refuses before any work (no store is opened, nothing is exported)."""
    code = f"""
import sys
sys.argv = ["jaslog", "stats", "declarer_success", "--plot", "chart.png",
            "--db", {str(tmp_path / "s.sqlite")!r}]
from jaslog.cli import main
main()
"""
    run = run_without_extras(code, tmp_path)
    assert run.returncode == 2, run.stderr
    said = " ".join(run.stderr.split())
    assert said == ("jaslog: drawing a chart needs matplotlib, which is not installed: "
                    "pip install 'jaslog[plot]'"), run.stderr
    assert not (tmp_path / "s.sqlite").exists()
    assert not (tmp_path / "chart.png").exists()
