"""Every package jaslog imports is one it declares: a module of the standard library, one of
``pyproject.toml``'s dependencies, or one of an extra's (plot, cluster), so that what
``pip install jaslog`` gives runs (the wheel check in ``make soak`` runs it; this finds a
missing one in ``make test``, by reading the imports)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, packages_distributions, requires
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _name(requirement: str) -> str:
    """The distribution a requirement names, normalized (``psycopg[binary]>=3`` -> psycopg)."""
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _extras(requirement: str) -> set[str]:
    """The extras a requirement names (``dask[distributed]`` -> {"distributed"})."""
    head = requirement.split(";")[0]
    return set(re.findall(r"[\w-]+", head.split("[", 1)[1].split("]", 1)[0])) if "[" in head else set()


def installed_with(requirements: list[str]) -> set[str]:
    """The distributions these requirements install: themselves and, recursively, what each
    requires (its extras' requirements only for the extras named, as ``dask[distributed]``)."""
    seen: set[str] = set()
    todo = list(requirements)
    while todo:
        req = todo.pop()
        name = _name(req)
        extras = _extras(req)
        if name in seen and not extras:
            continue
        seen.add(name)
        try:
            reqs = requires(name) or []
        except PackageNotFoundError:
            continue
        for r in reqs:
            marker = r.split(";", 1)[1] if ";" in r else ""
            wanted = re.findall(r'extra\s*==\s*"([^"]+)"', marker)
            if not wanted or set(wanted) & extras:
                todo.append(r.split(";", 1)[0].strip())
    return seen


def imported_top_levels() -> dict[str, str]:
    """Each top-level module jaslog's sources import (functions' imports included), with a
    file that imports it."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "jaslog").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for n in names:
                found.setdefault(n.split(".")[0], str(path.relative_to(ROOT)))
    return found


def test_every_imported_package_is_declared() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    # what the core install brings, and the extras' own packages (not what those bring:
    # matplotlib brings numpy, which the core must not count on)
    declared = installed_with(project["dependencies"])
    for extra in ("plot", "cluster"):
        for req in project["optional-dependencies"][extra]:
            declared.add(_name(req))
            declared |= {_name(r.split(";")[0]) for r in requires(_name(req)) or []
                         if set(re.findall(r'extra\s*==\s*"([^"]+)"', r)) & _extras(req)}
    dists = packages_distributions()
    missing = {}
    for module, where in imported_top_levels().items():
        if module in sys.stdlib_module_names or module in ("jaslog", "__future__"):
            continue
        names = {d.lower().replace("_", "-") for d in dists.get(module, [module])}
        if not names & declared:
            missing[module] = where
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"
