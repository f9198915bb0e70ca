"""The toy game through the contract and the product: registered at run time (``conftest``),
it passes the contract test and is checked, replayed, dumped as text, exported to Parquet
and served by the API like every game, though no file outside this folder names it."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from jaslog.cli import app as cli_app
from jaslog.games import GAMES, PRESETS
from jaslog.logs import read_file
from jaslog.play.sim import Faults, simulate_game
from jaslog.service import create_app
from jaslog.store import open_store
from tests.games.test_contract import GameContract
from tests.games.toy import GAME

with warnings.catch_warnings():  # Starlette's notice that it would rather have httpx2
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient


@pytest.mark.parametrize("game", [GAME], ids=["toy"])
class TestToyContract(GameContract):
    """The contract test's class, over the toy."""


def test_the_toy_is_registered_while_its_tests_run() -> None:
    assert GAMES["toy"] is GAME and PRESETS["toy"]["game"] == "toy"


# ------------------------------------------------------------------ through the product


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated toy game with doubles, a revoke and a round recorded without hands."""
    events = simulate_game("toy-1", "toy", seed=7, bot="random",
                           faults=Faults(revoke_rate=0.2, no_hands_rate=0.3, false_roem_rate=1.0))
    assert {"double", "dealt", "play"} <= {e["type"] for e in events}
    path = tmp_path_factory.mktemp("toy") / "toy.jsonl"
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    return path


def cli(*args: str) -> Any:
    return CliRunner().invoke(cli_app, list(args), env={"JASLOG_DB": "", "JASLOG_EXPORT": ""})


def test_check_reads_the_toy_game_and_its_own_event(log: Path) -> None:
    r = cli("check", str(log), "--json")
    assert r.exit_code in (0, 1), r.output   # 1: the faults injected are violations
    rep = json.loads(r.output)
    game = rep["games"][0] if "games" in rep else rep
    assert game["ruleset"] == "toy" and game["finished"] and game["error"] is None
    assert game["rounds"][0]["bids"] is not None and len(game["totals"]) == 2
    assert {v["rule"] for v in game["violations"]} & {"must_follow_suit", "double_late"}


def test_replay_draws_the_toy_table(log: Path) -> None:
    r = cli("replay", str(log))
    assert r.exit_code == 0, r.output
    assert "round 1" in r.output and "doubled" in r.output


def stored(log: Path, db: Path) -> Path:
    """The log's game in a real SQLite store."""
    with open_store(str(db)) as store:
        store.append("toy-1", [json.loads(line) for line in log.read_text().splitlines()])
    return db


def test_an_import_codes_a_type_the_store_did_not_know_in_its_batch(log: Path,
                                                                    tmp_path: Path) -> None:
    """A store made before the toy was registered has no code for its ``double``: the import
    reads such an event before the store has a code for it and encodes it when its batch is
    written, in the batch's transaction; the game reads back whole and verifies."""
    from jaslog.games import register, unregister
    from jaslog.store.rows import codec

    db = tmp_path / "older.sqlite"
    unregister(GAME)
    try:
        open_store(str(db)).close()
    finally:
        register(GAME)
    with open_store(str(db)) as store:
        with store.engine.connect() as conn:
            assert "double" not in codec(conn, refresh=True).codes
        s = store.import_files([log], workers=0)
        assert (s.games, s.rejected) == (1, [])
        with store.engine.connect() as conn:
            assert "double" in codec(conn, refresh=True).codes
        lines = log.read_bytes().splitlines()
        assert [r.payload for r in store.stored_events("toy-1")] == lines
        assert store.verify("toy-1").ok


def test_dump_as_text_writes_the_double_and_reads_it_back(log: Path, tmp_path: Path) -> None:
    db = stored(log, tmp_path / "s.sqlite")
    r = cli("dump", "toy-1", "--format", "text", "--db", str(db))
    assert r.exit_code == 0, r.output
    assert "\nDouble 0 " in r.output, r.output[:600]  # its statement, from its declared words
    text = tmp_path / "toy.txt"
    text.write_text(r.output)
    back = [ln.event for ln in read_file(text)]
    assert all(e is not None for e in back), [ln.error for ln in read_file(text) if ln.error]
    drop = ("at", "id", "recorded_at")
    want = [json.loads(line) for line in log.read_text().splitlines()]
    assert [{k: v for k, v in e.model_dump(exclude_none=True).items() if k not in drop}
            for e in back if e is not None] == want


def test_export_writes_the_toy_game_to_every_table(log: Path, tmp_path: Path) -> None:
    import duckdb

    r = cli("export", str(tmp_path / "ds"), "--from", str(log))
    assert r.exit_code == 0, r.output
    snapshot = next((tmp_path / "ds" / "snapshots").iterdir())
    con = duckdb.connect()

    def rows(table: str) -> list[Any]:
        return con.execute(f"select * from read_parquet('{snapshot / table}/**/*.parquet')"
                           ).fetchall()

    [game] = con.execute(f"select kind, finished, rounds from read_parquet("
                         f"'{snapshot / 'games'}/**/*.parquet')").fetchall()
    assert game[0] == "toy" and game[1] is True and game[2] >= 3
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(rows("events")) == len(events)
    assert len(rows("plays")) == sum(e["type"] == "play" for e in events)
    assert len(rows("players")) == 2 and rows("rounds") and rows("tricks") and rows("violations")


def test_api_serves_the_toy_game_state(log: Path, tmp_path: Path) -> None:
    app = create_app(str(stored(log, tmp_path / "s.sqlite")))
    token = app.state.service.tokens.create("admin")[0]
    with TestClient(app) as client:
        r = client.get("/api/games/toy-1/state", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    state = r.json()
    assert state["game"] == "toy-1" and state["finished"] and len(state["totals"]) == 2, state
    assert state["winner"] in (0, 1)


def test_checks_reading_folds_the_toy_as_the_models_do(log: Path) -> None:
    """check's reading (fold_log: canonical plays without their models, the toy's own event
    by its model) folds the toy game as the reading line by line does."""
    import contextlib

    from jaslog.logs import LogFiles
    from jaslog.play.audit import game_report
    from jaslog.play.fold import fold_lines
    from jaslog.play.logfold import fold_log

    def reports(fast: bool) -> list[Any]:
        with contextlib.ExitStack() as stack:
            files = LogFiles([log], stack)
            games = fold_log(files) if fast else fold_lines(files.lines(), files.is_last)
            return [game_report(g.game, g.fold, g.error) for g in games]  # type: ignore[union-attr]

    got = reports(True)
    assert got == reports(False) and got[0]["error"] is None


def test_the_store_folds_the_toy_as_its_events_fold(log: Path, tmp_path: Path) -> None:
    """The store's bulk fold (its plays read as columns and handed over as seat and card)
    folds the toy game as a fold of its events does, and check store: reports it so."""
    from jaslog.play.audit import game_report
    from jaslog.play.fold import fold

    db = stored(log, tmp_path / "s.sqlite")
    with open_store(str(db)) as store:
        [(gid, folded)] = list(store.fold_games())
        [(_, events)] = list(store.iter_games())
    by_events = fold(events)
    assert gid == "toy-1" and not isinstance(folded, Exception)
    assert game_report(gid, folded, None) == game_report(gid, by_events, None)
    assert [e.model_dump() for e in folded.log] == [e.model_dump() for e in by_events.log]
    stored_check = cli("check", "store:", "--db", str(db), "--json")
    file_check = cli("check", str(log), "--json")
    assert stored_check.exit_code == file_check.exit_code
    assert json.loads(stored_check.output)["violations"] == \
        json.loads(file_check.output)["violations"]
