"""What jaslog reads of its own files at run time is inside the package and declared as its
package data, so that an installed jaslog (``pip install .``, not only a checkout) has it.
``scripts/wheel-check`` (run by ``make soak``) installs the built wheel and runs it."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from pathlib import Path

import jaslog
from jaslog.stats.analytics import QUESTIONS_DIR, questions

PACKAGE = Path(jaslog.__file__).resolve().parent
ROOT = PACKAGE.parent


def package_data() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(config["tool"]["setuptools"]["package-data"]["jaslog"])


def test_every_question_is_package_data() -> None:
    assert QUESTIONS_DIR.resolve().is_relative_to(PACKAGE)
    files = sorted(QUESTIONS_DIR.glob("*.sql"))
    assert len(files) == len(questions()) >= 17
    patterns = package_data()
    for f in files:
        name = f.resolve().relative_to(PACKAGE).as_posix()
        assert any(fnmatch(name, p) for p in patterns), f"{name} is not in jaslog's package data"
