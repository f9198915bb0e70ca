"""Builds jaslog's compiled parts; everything else is in pyproject.toml.

* The fold's hot path (the modules named in ``jaslog/native.py``'s ``HOT_PATH``), compiled
  with mypyc from the very sources that run as pure Python elsewhere, into one shared
  library (``jaslog._native__mypyc``) and a module beside each source. A stamp,
  ``jaslog/_native.txt``, names each module compiled and the hash of its source; jaslog
  runs the compiled modules only while every source still has that hash.
* The solver's core, ``jaslog.analysis._solver``, in C.

Both are optional: without mypyc, a C compiler or the Python headers, ``pip install`` says so
in one note and goes on, and jaslog runs on its pure-Python modules, which give the same
answers, more slowly. ``JASLOG_PURE_BUILD=1`` builds nothing compiled on purpose.
"""

import ast
import hashlib
import os
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
NATIVE_GROUP = "jaslog._native"
STAMP = "_native.txt"


def hot_path() -> list[str]:
    """``HOT_PATH`` of jaslog/native.py, read as text (jaslog's dependencies are not
    installed while it is built)."""
    tree = ast.parse((HERE / "jaslog" / "native.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "HOT_PATH" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise SystemExit("setup.py: jaslog/native.py has no HOT_PATH")


def note(what: str, e: object) -> None:
    print(f"note: {what} ({e}); jaslog uses its pure-Python modules instead, which give the "
          "same answers, more slowly. Install a C compiler and the Python headers (and "
          "mypy, which brings mypyc), then reinstall, to build it.")


def native_extensions(modules: list[str]) -> list[Extension]:
    """The mypyc extensions of the hot path, or none (with a note) where mypyc is missing."""
    if os.environ.get("JASLOG_PURE_BUILD", "") not in ("", "0"):
        print("note: JASLOG_PURE_BUILD is set: jaslog's hot path is not compiled")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as e:
        note("jaslog's compiled fold was not built: mypyc is missing", e)
        return []
    paths = [str(Path(*m.split(".")).with_suffix(".py")) for m in modules]
    try:
        return list(mypycify(paths, opt_level="3", group_name=NATIVE_GROUP))
    except BaseException as e:  # mypyc reports a type error by SystemExit
        note("jaslog's compiled fold was not built: mypyc refused it", e)
        return []


class OptionalBuildExt(build_ext):
    """Build what can be built; the hot path all or nothing, with its stamp."""

    native_failed = False

    def finalize_options(self) -> None:
        # mypyc type-checks and writes the C of the hot path here, when something is built,
        # not each time setup.py is read (pip reads it for the metadata too)
        dist = self.distribution
        if not getattr(dist, "jaslog_native", False):
            dist.jaslog_native = True  # type: ignore[attr-defined]
            dist.ext_modules = [*native_extensions(hot_path()), *(dist.ext_modules or [])]
        super().finalize_options()

    def run(self) -> None:
        try:
            super().run()
        except Exception as e:  # no compiler at all (setuptools raises before compiling)
            self.native_failed = True
            note("jaslog's compiled parts were not built", e)
        self._stamp()

    def build_extension(self, ext: Extension) -> None:
        solver = ext.name == "jaslog.analysis._solver"
        if self.native_failed and not solver:
            return  # the hot path is built whole or not at all: one note says so
        try:
            super().build_extension(ext)
        except Exception as e:  # the compiler failed (no headers...)
            if solver:
                note("jaslog's compiled solver was not built", e)
            else:
                self.native_failed = True
                note(f"jaslog's compiled fold was not built ({ext.name})", e)

    def _stamp(self) -> None:
        """Write the stamp beside the compiled modules if every one of them was built;
        otherwise remove what was built of them (half a build never runs)."""
        native = [e for e in self.extensions if e.name != "jaslog.analysis._solver"]
        stamp = Path(self.get_ext_fullpath("jaslog.native")).parent / STAMP
        # a module compiled by an earlier build and since taken off the hot path: its
        # compiled file would still be imported before its source, so it goes
        kept = {e.name for e in native}
        if stamp.exists():
            for line in stamp.read_text(encoding="ascii").splitlines():
                old = line.split(" ", 1)[0]
                if old and old not in kept:
                    Path(self.get_ext_fullpath(old)).unlink(missing_ok=True)
        if not native:
            stamp.unlink(missing_ok=True)  # (a working copy's earlier build)
            return
        built = [Path(self.get_ext_fullpath(e.name)) for e in native]
        if self.native_failed or not all(p.exists() for p in built):
            for p in built:
                p.unlink(missing_ok=True)
            stamp.unlink(missing_ok=True)
            return
        sources = {m: HERE / Path(*m.split(".")).with_suffix(".py") for m in hot_path()}
        lines = [f"{m} {hashlib.sha256(src.read_bytes()).hexdigest()}" for m, src in sources.items()]
        stamp.write_text("\n".join(lines) + "\n", encoding="ascii")
        print(f"jaslog: compiled {len(lines)} modules of the fold's hot path with mypyc")


setup(
    ext_modules=[Extension("jaslog.analysis._solver", ["jaslog/analysis/_solver.c"], optional=True)],
    cmdclass={"build_ext": OptionalBuildExt},
)
