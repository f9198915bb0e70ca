"""The ``jaslog`` command: thin typer commands that call the layers and format the output.

Each area registers its commands from its own module, so the command list reads here.
"""

from __future__ import annotations

import typer

from jaslog.cli import check, replay, rules_cmd, serve_cmds, sim_cmds, stats, store_cmds

app = typer.Typer(
    name="jaslog",
    help="Immutable event logs, replays, audits and statistics for Klaverjas, Klaberjass "
         "and Kloepper.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode="rich",
)

for module in (check, replay, rules_cmd, sim_cmds, store_cmds, serve_cmds, stats):
    module.register(app)


def main() -> None:
    app()
