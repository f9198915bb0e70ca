"""The ``jaslog`` command: thin typer commands that call the layers and format the output.

Each area registers its commands from its own module, so the command list reads here.
"""

from __future__ import annotations

import inspect

import typer

from jaslog.cli import (
    analyze,
    check,
    club_cmds,
    feed_cmds,
    online_cmds,
    print_cmd,
    replay,
    rules_cmd,
    serve_cmds,
    sheet,
    sim_cmds,
    stats,
    store_cmds,
    tournament_cmds,
    verify_cmds,
)

app = typer.Typer(
    name="jaslog",
    help="Immutable event logs, replays, audits and statistics for Klaverjas, Klaberjass "
         "and Kloepper.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode="rich",
)

def _print_version(value: bool) -> None:
    if value:
        from jaslog import __version__, native

        typer.echo(f"jaslog {__version__}\n{native.describe()}")
        raise typer.Exit()


@app.callback()
def _options(version: bool = typer.Option(
        False, "--version", is_eager=True, callback=_print_version,
        help="Print jaslog's version and which build of the hot path runs, and stop.")) -> None:
    """Immutable event logs, replays, audits and statistics for Klaverjas, Klaberjass and
    Kloepper."""


for module in (check, replay, analyze, sheet, rules_cmd, sim_cmds, store_cmds, verify_cmds,
               serve_cmds, stats, club_cmds, feed_cmds, tournament_cmds, online_cmds, print_cmd):
    module.register(app)


def one_line_paragraphs(text: str) -> str:
    """A help text with each paragraph on one line, for the terminal to wrap at its width:
    typer's rich help keeps a docstring's line breaks, which then break a sentence in the
    middle of a line on any terminal wider or narrower than the source.

    >>> one_line_paragraphs('''Write the games as a Parquet dataset (events,
    ...     plays), incremental.
    ...
    ...     With --full, everything again.''')
    'Write the games as a Parquet dataset (events, plays), incremental.\\n\\nWith --full, everything again.'
    """
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n"))


def _reflow_help(t: typer.Typer) -> None:
    """Every command's and group's help of ``t`` in :func:`one_line_paragraphs`."""
    for c in t.registered_commands:
        text = c.help if isinstance(c.help, str) else inspect.getdoc(c.callback)
        if text:
            c.help = one_line_paragraphs(text)
    for g in t.registered_groups:
        sub = g.typer_instance
        if sub is None:
            continue
        if isinstance(sub.info.help, str):
            sub.info.help = one_line_paragraphs(sub.info.help)
        _reflow_help(sub)


_reflow_help(app)


def main() -> None:
    import sys

    from jaslog.cli.common import reported_errors

    args = sys.argv[1:]
    with reported_errors():  # a database's trouble is a sentence, never a traceback
        if args[:1] == ["append"] and "--json-out" in args:
            sys.exit(_append_json(args))
        app()


def _append_json(args: list[str]) -> int:
    """``append --json-out``: a command line the parser refuses (``--expect -1``, an unknown
    option...) is answered with the same JSON line as any other refusal, besides the usual
    message on stderr, so that a script reading stdout always gets its answer."""
    from typer import rich_utils
    from typer.exceptions import Abort, TyperException

    from jaslog.cli.common import err_console, write_json_line

    try:
        rv = app(args, standalone_mode=False)
    except Abort:
        err_console.print("Aborted!")
        return 1
    except TyperException as e:  # the parser's refusals (typer's own click)
        rich_utils.rich_format_error(e)  # type: ignore[arg-type]
        code = int(getattr(e, "exit_code", 2))
        write_json_line({"ok": False, "game": _game_argument(args), "error": {
            "code": "usage", "message": e.format_message(), "exit": code}})  # type: ignore[attr-defined]
        return code
    return rv if isinstance(rv, int) else 0


def _game_argument(args: list[str]) -> str | None:
    """The game id on an ``append`` command line (its one positional argument), if any."""
    takes_value = {"--json", "--expect", "--db"}
    it = iter(args[1:])
    for a in it:
        if a in takes_value:
            next(it, None)
        elif not a.startswith("-"):
            return a
    return None
