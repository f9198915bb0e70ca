"""No layer branches on a game's name: outside ``jaslog/games/`` a game is read through what
its :class:`~jaslog.engine.game.Game` declares (``scoring``, ``players``, ...), so a game
registered under a new name works everywhere. The Python is read as code (a comparison, a
dict key or a ``case`` against a game's name; the docstrings' examples may name games); the
web pages' scripts and markup may not name a game in quotes at all."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from jaslog.games import GAMES

PACKAGE = Path(__file__).resolve().parent.parent / "jaslog"
NAMES = frozenset(GAMES)


def _named(node: ast.AST | None) -> bool:
    """Whether ``node`` is a game's name, or a tuple, list or set holding one."""
    if isinstance(node, ast.Constant):
        return node.value in NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_named(e) for e in node.elts)
    return False


def branches_on_a_name(source: str, filename: str) -> list[int]:
    """The lines of ``source`` that compare with, key by or match a game's name.

    >>> branches_on_a_name('if kind == "kloepper": pass\\nx = {"klaverjas": 1}\\n', "m.py")
    [1, 2]
    >>> branches_on_a_name("'''get_game('klaverjas')'''\\nf('klaberjass')\\n", "m.py")
    []
    """
    lines = []
    for node in ast.walk(ast.parse(source, filename)):
        compared = isinstance(node, ast.Compare) and any(
            _named(x) for x in (node.left, *node.comparators))
        keyed = isinstance(node, ast.Dict) and any(_named(k) for k in node.keys)
        matched = isinstance(node, ast.MatchValue) and _named(node.value)
        if compared or keyed or matched:
            lines.append(getattr(node, "lineno", 0))
    return sorted(lines)


def test_no_python_outside_the_games_branches_on_a_game_name() -> None:
    found = [f"{p.relative_to(PACKAGE.parent)}:{n}"
             for p in sorted(PACKAGE.rglob("*.py")) if "games" not in p.relative_to(PACKAGE).parts[:1]
             for n in branches_on_a_name(p.read_text(encoding="utf-8"), str(p))]
    assert found == [], "read the game's Game (scoring, players, ...) instead: " + ", ".join(found)


def test_no_web_page_names_a_game() -> None:
    quoted = re.compile("['\"`](" + "|".join(sorted(NAMES)) + ")['\"`]")
    static = PACKAGE / "service" / "static"
    found = [f"{p.name}:{n}" for p in sorted(static.iterdir()) if p.suffix in (".js", ".html")
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if quoted.search(line)]
    assert found == [], "a page reads a game's scoring and players from the API: " + ", ".join(found)
