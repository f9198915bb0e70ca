"""User-supplied text (player ids, display names, reasons, notes) is printed literally by
every command: never read as rich markup (``[bold]``) or emoji codes (``:a:``, ``:x:``)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from jaslog.play.sim import Faults, simulate_game
from tests.cli import jaslog

SEATS = ["club:a:noor", "ann", "nl:x:noor", "bob:smile:"]
NAME = "[bold]Noor[/bold] [de] Vries :thumbs_up:"


def run(*args: str, env: dict[str, str | None], code: int = 0) -> str:
    r = jaslog(*args, env={**env, "COLUMNS": "250"}, text=True)
    assert r.returncode == code, (args, r.stdout, r.stderr)
    return r.stdout


@pytest.fixture
def store(tmp_path: Path) -> dict[str, str | None]:
    events = simulate_game("lit-1", "amsterdam", seed=3, seats=SEATS,
                           faults=Faults(revoke_rate=0.2))  # violations name the seats
    events += simulate_game("lit-2", "amsterdam", seed=4, seats=SEATS)  # rows for stats
    log = tmp_path / "lit.jsonl"
    log.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    env: dict[str, str | None] = {"JASLOG_DB": str(tmp_path / "lit.sqlite"),
                                  "JASLOG_EXPORT": str(tmp_path / "parquet")}
    run("import", str(log), env=env)
    return env


def literal(out: str, *texts: str) -> None:
    flat = out.replace("\n", "")
    for t in texts:
        assert t in out or t in flat, (t, out)
    for emoji in ("🅰", "❌", "😄", "👍"):
        assert emoji not in out, out


def test_player_ids_are_printed_literally(store: dict[str, str | None]) -> None:
    literal(run("check", "store:lit-1", env=store, code=1), *SEATS)
    literal(run("games", env=store), *SEATS)
    literal(run("show", "lit-1", env=store), *SEATS)
    literal(run("replay", "store:lit-1", env=store), *SEATS)
    literal(run("sql", "SELECT DISTINCT player FROM players ORDER BY 1", env=store), *SEATS)
    literal(run("stats", "player_roles", env=store), *SEATS)
    literal(run("sql", "SELECT '[red]x[/red] :a: ' || game AS t FROM games ORDER BY 1",
                env=store), "[red]x[/red] :a: lit-1")


def test_display_names_are_printed_literally(store: dict[str, str | None]) -> None:
    literal(run("players", "set", SEATS[0], NAME, env=store), SEATS[0], NAME)
    literal(run("games", env=store), NAME)
    literal(run("show", "lit-1", env=store), NAME, SEATS[0])
