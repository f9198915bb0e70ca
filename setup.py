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

``JASLOG_BUILD_CACHE=DIR`` (``scripts/setup`` sets it to ``~/.cache/jaslog/build``) keeps the
compiled hot path of each build in ``DIR/<key>``, the key being the SHA-256 of everything the
build reads (this file, the hot path's sources, the Python and the mypy that compile them);
an install whose key is there copies those files instead of compiling again (a fresh clone of
the same sources: a second instead of a minute).
"""

import ast
import hashlib
import os
import shutil
import sys
import sysconfig
from importlib import metadata
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
    # The modules the hot path imports are type-checked for their types, their own errors
    # silenced: where the build runs before jaslog's dependencies are installed (a fresh
    # virtualenv, pip's isolated build environment) a module importing one of them (the
    # store's tables import sqlmodel) would otherwise stop the whole build.
    try:
        return list(mypycify(["--follow-imports=silent", *paths], opt_level="3",
                             group_name=NATIVE_GROUP))
    except BaseException as e:  # mypyc reports a type error by SystemExit
        note("jaslog's compiled fold was not built: mypyc refused it", e)
        return []


def cache_key(modules: list[str]) -> str:
    """The SHA-256 of everything a build of the hot path reads: this file, the modules'
    names and sources, the Python that runs it (version and extension suffix) and mypy's
    version."""
    try:
        mypy = metadata.version("mypy")
    except metadata.PackageNotFoundError:
        mypy = "none"
    h = hashlib.sha256()
    for part in (sys.version, str(sysconfig.get_config_var("EXT_SUFFIX")), mypy, " ".join(modules)):
        h.update(part.encode() + b"\0")
    for path in [Path(__file__).resolve(), *(HERE / Path(*m.split(".")).with_suffix(".py")
                                             for m in modules)]:
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def cached_build(modules: list[str]) -> Path | None:
    """The folder of ``$JASLOG_BUILD_CACHE`` for a build of ``modules`` (None: no cache)."""
    root = os.environ.get("JASLOG_BUILD_CACHE", "")
    if not root or os.environ.get("JASLOG_PURE_BUILD", "") not in ("", "0"):
        return None
    return Path(root) / cache_key(modules)


def cached_names(folder: Path | None) -> list[str]:
    """The extensions a cached build holds, all of them there (otherwise none)."""
    if folder is None:
        return []
    try:
        names = (folder / "names.txt").read_text(encoding="ascii").split()
    except OSError:
        return []
    suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))
    if not names or not all((folder / (n + suffix)).is_file() for n in names):
        return []
    return names


class OptionalBuildExt(build_ext):
    """Build what can be built; the hot path all or nothing, with its stamp."""

    native_failed = False

    def finalize_options(self) -> None:
        # mypyc type-checks and writes the C of the hot path here, when something is built,
        # not each time setup.py is read (pip reads it for the metadata too); not at all when
        # the build cache holds this very build
        dist = self.distribution
        if not getattr(dist, "jaslog_native", False):
            dist.jaslog_native = True  # type: ignore[attr-defined]
            modules = hot_path()
            cache = cached_build(modules)
            dist.jaslog_cached = cached_names(cache)  # type: ignore[attr-defined]
            dist.jaslog_cache = cache  # type: ignore[attr-defined]
            native = [] if dist.jaslog_cached else native_extensions(modules)  # type: ignore[attr-defined]
            dist.ext_modules = [*native, *(dist.ext_modules or [])]
        super().finalize_options()

    def run(self) -> None:
        try:
            super().run()
        except Exception as e:  # no compiler at all (setuptools raises before compiling)
            self.native_failed = True
            note("jaslog's compiled parts were not built", e)
        if self.distribution.jaslog_cached:  # type: ignore[attr-defined]
            self._from_cache()
            return
        self._stamp()
        self._to_cache()

    def _from_cache(self) -> None:
        """Copy the cached build of the hot path (its modules and its stamp) into place."""
        cache: Path = self.distribution.jaslog_cache  # type: ignore[attr-defined]
        suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))
        names = self.distribution.jaslog_cached  # type: ignore[attr-defined]
        for name in names:
            dest = Path(self.get_ext_fullpath(name))
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(cache / (name + suffix), dest)
        stamp = Path(self.get_ext_fullpath("jaslog.native")).parent / STAMP
        shutil.copy2(cache / STAMP, stamp)
        print(f"jaslog: the compiled hot path ({len(hot_path())} modules) taken from the build "
              f"cache {cache}")

    def _to_cache(self) -> None:
        """Keep a complete build of the hot path in the build cache, for the next install
        of the same sources (written to a new folder, then renamed: never half a build)."""
        cache: Path | None = self.distribution.jaslog_cache  # type: ignore[attr-defined]
        native = [e.name for e in self.extensions if e.name != "jaslog.analysis._solver"]
        stamp = Path(self.get_ext_fullpath("jaslog.native")).parent / STAMP
        if cache is None or not native or not stamp.exists() or cache.exists():
            return
        suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))
        part = cache.with_name(f"{cache.name}.{os.getpid()}.part")
        try:
            part.mkdir(parents=True, exist_ok=True)
            for name in native:
                shutil.copy2(self.get_ext_fullpath(name), part / (name + suffix))
            shutil.copy2(stamp, part / STAMP)
            (part / "names.txt").write_text("\n".join(native) + "\n", encoding="ascii")
            part.rename(cache)
        except OSError as e:  # a cache is a convenience: the build itself is done
            shutil.rmtree(part, ignore_errors=True)
            print(f"note: the compiled hot path was not kept in the build cache ({e})")

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
