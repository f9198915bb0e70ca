"""What the README's two commands install: ``make demo`` only jaslog, ``make test`` also the
servers and the browser the tests need (``scripts/setup --tests``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_demo_installs_no_test_server_or_browser() -> None:
    setup = (ROOT / "scripts" / "setup").read_text().splitlines()
    gate = setup.index('[ "${1:-}" = "--tests" ] || exit 0')
    installs = [i for i, line in enumerate(setup) if "apt-get" in line and "install" in line]
    assert installs and min(installs) > gate
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^demo: setup$", makefile, re.M)
    assert re.search(r"^test: setup-tests\b", makefile, re.M)
    assert re.search(r"^setup-tests:\n\t@./scripts/setup --tests$", makefile, re.M)


def test_setup_compiles_the_hot_path_once_per_machine_for_the_same_sources() -> None:
    """scripts/setup hands pip the build cache; setup.py keys a build on everything it reads
    and copies a cached build in place of compiling it again."""
    setup = (ROOT / "scripts" / "setup").read_text()
    assert re.search(r'^\s*pip=\(\.venv/bin/python -m pip install .*--no-compile\)$', setup, re.M)
    # the build's needs go into the virtualenv first, and the build uses them there
    needs = setup.index("\"${pip[@]}\" 'setuptools>=68' 'mypy>=1.10'")
    build_at = setup.index('JASLOG_BUILD_CACHE="$cache" "${pip[@]}" --no-build-isolation -e')
    assert needs < build_at
    import tomllib

    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    assert setup[needs:].split("\n")[0] == '"${pip[@]}" ' + " ".join(f"'{r}'" for r in requires)
    assert 'cache="${XDG_CACHE_HOME:-$HOME/.cache}/jaslog/build"' in setup
    build = (ROOT / "setup.py").read_text()
    assert 'os.environ.get("JASLOG_BUILD_CACHE", "")' in build
    key = build[build.index("def cache_key"):build.index("def cached_build")]
    for read in ("sys.version", "EXT_SUFFIX", '"mypy"', "Path(__file__)", "modules"):
        assert read in key


def test_the_pure_run_reads_the_doctests_and_the_rules_of_every_compiled_module() -> None:
    """make test's second run (JASLOG_PURE=1) holds the pure fallback to the compiled
    answers: it names every module of the hot path (or its package), for the doctests only
    a pure run can read, and the tests of the rules, the fold and the export."""
    from jaslog.native import HOT_PATH

    makefile = (ROOT / "Makefile").read_text()
    body = re.search(r"^PURE_TESTS := (.*?)\n(?!\t)", makefile, re.M | re.S)
    assert body
    named = body.group(1).replace("\\\n", " ").split()
    for module in HOT_PATH:
        path = module.replace(".", "/")
        assert any(path == n.removesuffix(".py") or path.startswith(n + "/") for n in named), module
    for tests in ("tests/rules", "tests/rules_klaberjass", "tests/rules_kloepper",
                  "tests/test_fold.py", "tests/test_native.py"):
        assert tests in named
    assert re.search(r"^\tJASLOG_PURE=1 .* \$\(PURE_TESTS\)$", makefile, re.M)
