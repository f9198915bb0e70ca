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
