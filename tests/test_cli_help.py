"""``jaslog --help`` and every command's ``--help`` at a terminal's usual widths: each
paragraph is wrapped by the terminal, never broken in the middle of a line where the
docstring happened to break."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from jaslog.cli import app
from tests.cli import jaslog


def _commands(t: object, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path of the ``jaslog`` typer app (groups and their commands)."""
    out = []
    for c in t.registered_commands:  # type: ignore[attr-defined]
        out.append((*prefix, c.name or c.callback.__name__.replace("_", "-")))
    for g in t.registered_groups:  # type: ignore[attr-defined]
        out.append((*prefix, g.name))
        out += _commands(g.typer_instance, (*prefix, g.name))
    return out


#: a line of the commands panel: ``│ name   text │`` or its continuation ``│        text │``
_ROW = re.compile(r"^│ (\S*)(\s+)(.*?)(\s*)│$")


def broken_lines(text: str, width: int) -> list[str]:
    """The lines of a help screen's description or commands panel that end early although
    the next line's first word would have fitted: a line break the docstring put there, not
    the terminal's wrapping.

    >>> broken_lines("╭─ Commands ──────────────────────╮\\n"
    ...              "│ show   A game: header,          │\\n"
    ...              "│        score, sheet.            │", 36)
    ['│ show   A game: header,          │']
    >>> broken_lines(" A game: header, the score\\n sheet.", 28)
    []
    """
    lines = text.splitlines()
    bad = []
    panel = None
    for line, nxt in pairwise(lines):
        if line.startswith("╭─"):
            panel = line.strip("╭─ ").split(" ")[0]
            continue
        if line.startswith("╰"):
            panel = None
            continue
        if panel is None:  # the description above the panels: indented paragraphs
            if line.strip() and nxt.strip() and nxt.startswith(" ") and \
                    len(nxt.split()[0]) < width - len(line.rstrip()) - 1:
                bad.append(line)
            continue
        m, n = _ROW.match(line), _ROW.match(nxt)
        if panel != "Commands" or m is None or n is None or n.group(1) or not n.group(3):
            continue  # only an entry of the commands panel followed by its continuation
        if len(n.group(3).split()[0]) < len(m.group(4)) - 1:
            bad.append(line)
    return bad


@pytest.mark.parametrize("width", [80, pytest.param(120, marks=pytest.mark.soak)])
def test_no_help_line_is_broken_mid_sentence(width):
    paths = [(), *_commands(app)]
    assert ("games",) in paths and ("token", "list") in paths
    for path in paths:
        r = jaslog(*path, "--help", env={"COLUMNS": str(width), "TERMINAL_WIDTH": None},
                   text=True)
        assert r.returncode == 0, (path, r.stderr)
        assert max(len(x) for x in r.stdout.splitlines()) <= width, path
        assert broken_lines(r.stdout, width) == [], (path, r.stdout)


def test_version_says_the_release_and_the_build_that_runs():
    from jaslog import __version__

    r = jaslog("--version", text=True)
    assert r.returncode == 0, r.stderr
    first_line, build = r.stdout.splitlines()
    assert first_line == f"jaslog {__version__}"
    assert "hot path runs" in build
