"""Every script the pages load parses: a syntax error in one would blank a page that no
browser test happens to open. Checked with Node.js's parser, where the machine has it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "jaslog" / "service" / "static"


@pytest.mark.parametrize("script", sorted(p.name for p in STATIC.glob("*.js")))
def test_the_script_parses(script: str) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    r = subprocess.run([node, "--check", str(STATIC / script)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
