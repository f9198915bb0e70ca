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
    assert re.search(r'^\s*JASLOG_BUILD_CACHE="\$cache" \.venv/bin/python -m pip install', setup, re.M)
    assert 'cache="${XDG_CACHE_HOME:-$HOME/.cache}/jaslog/build"' in setup
    build = (ROOT / "setup.py").read_text()
    assert 'os.environ.get("JASLOG_BUILD_CACHE", "")' in build
    key = build[build.index("def cache_key"):build.index("def cached_build")]
    for read in ("sys.version", "EXT_SUFFIX", '"mypy"', "Path(__file__)", "modules"):
        assert read in key
