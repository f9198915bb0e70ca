"""`jaslog token` and `jaslog serve` as a user runs them: ``serve`` in real processes (the
console script's own real process is tests/test_cli_store.py's), the token commands in the
test process; and a game made with ``jaslog new`` on the file a running ``serve`` serves,
written to by its table's scorer."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.cli import jaslog as jaslog_here
from tests.service.conftest import JASLOG, ROOT, Server, free_port, stop_server


def jaslog_process(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*JASLOG, *args], capture_output=True, text=True, cwd=ROOT, timeout=60)


def jaslog(*args: str) -> subprocess.CompletedProcess[str]:
    return jaslog_here(*args, text=True)


def test_token_create_list_revoke(tmp_path: Path) -> None:
    db = str(tmp_path / "t.sqlite")
    r = jaslog("token", "create", "--role", "scorer", "--table", "3", "--label", "tablet 3",
               "--db", db)
    assert r.returncode == 0, r.stderr
    assert "scorer token for table 3" in r.stdout
    token = re.search(r"jl_[0-9a-f]{8}_\S+", r.stdout).group(0)  # type: ignore[union-attr]
    r = jaslog("token", "create", "--role", "player", "--player", "ann", "--db", db, "--json")
    made = json.loads(r.stdout)
    assert made["role"] == "player" and made["player"] == "ann" and made["token"].startswith("jl_")
    r = jaslog("token", "list", "--db", db, "--json")
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert [(x["role"], x["table"], x["player"]) for x in rows] == [
        ("scorer", "3", None), ("player", None, "ann")]
    assert token not in r.stdout and made["token"] not in r.stdout  # secrets are not kept
    tid = token.split("_")[1]
    assert jaslog("token", "revoke", tid, "--db", db).returncode == 0
    r = jaslog("token", "list", "--db", db)
    assert "revoked" in r.stdout and "tablet 3" in r.stdout
    r = jaslog("token", "revoke", tid, "--db", db)
    assert r.returncode == 2 and "no live token" in r.stderr


def test_token_list_of_a_new_store_without_revocations(tmp_path: Path) -> None:
    """The normal state of a new store: no token revoked. The list has no "revoked at"
    column then, and prints (it failed with a KeyError on the left-out column)."""
    db = str(tmp_path / "t.sqlite")
    assert jaslog("token", "create", "--role", "admin", "--label", "desk", "--db", db).returncode == 0
    for columns in ("200", "40"):
        r = jaslog_here("token", "list", "--db", db, env={"COLUMNS": columns}, text=True)
        assert r.returncode == 0, r.stderr
        assert "live" in r.stdout and "revoked" not in r.stdout


def test_token_mistakes_are_plain_errors(tmp_path: Path) -> None:
    db = str(tmp_path / "t.sqlite")
    for args, says in ((["--role", "scorer"], "needs a table"),
                       (["--role", "wizard"], "unknown role"),
                       (["--role", "public", "--table", "1"], "only a scorer token has a table"),
                       (["--role", "player"], "needs the player id")):
        r = jaslog("token", "create", *args, "--db", db)
        assert r.returncode == 2, args
        assert r.stderr.startswith("jaslog: ") and says in r.stderr
        assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_serve_makes_the_first_admin_token_and_serves(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    port = free_port()
    log = tmp_path / "serve.out"
    with open(log, "wb") as out:
        proc = subprocess.Popen([*JASLOG, "serve", "--db", str(db), "--port", str(port)],
                                stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                if httpx.get(url + "/", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                import time

                time.sleep(0.1)
        page = httpx.get(url + "/")
        assert page.status_code == 200 and "jaslog" in page.text
        assert httpx.get(url + "/static/viewer.js").status_code == 200
        text = log.read_text()
        token = re.search(r"jl_[0-9a-f]{8}_\S+", text).group(0)  # type: ignore[union-attr]
        assert f"{url}/#token={token}" in text
        who = httpx.get(url + "/api/whoami", headers={"Authorization": f"Bearer {token}"})
        assert who.json()["role"] == "admin"
    finally:
        stop_server(proc)
    r = jaslog("token", "list", "--db", str(db), "--json")
    assert len(r.stdout.splitlines()) == 1  # one admin token, made once


@pytest.mark.soak
def test_serve_refuses_a_store_it_cannot_open(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-db.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    # a process: a serve that did not refuse would not return
    r = jaslog_process("serve", "--db", str(bad), "--port", str(free_port()))
    assert r.returncode == 2 and r.stderr.startswith("jaslog: ")
    assert "Traceback" not in r.stderr


@pytest.mark.soak
def test_serve_on_a_busy_port_says_so_and_makes_no_token(tmp_path: Path) -> None:
    """A port another server holds is a sentence and exit 2 (3 means a concurrency conflict),
    before the first admin token would be made and shown once (and lost)."""
    import socket

    db = tmp_path / "busy.sqlite"
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        # a process: a serve that did not refuse would not return
        r = jaslog_process("serve", "--db", str(db), "--port", str(port))
    assert r.returncode == 2, r.stderr
    assert " ".join(r.stderr.split()) == (f"jaslog: cannot listen on 127.0.0.1:{port}: another "
                                          "server is listening there (choose another with --port)")
    assert "No tokens yet" not in r.stdout
    listed = jaslog("token", "list", "--db", str(db), "--json")
    assert listed.returncode == 0 and listed.stdout.strip() in ("", "[]"), listed.stdout


def test_a_scorer_token_writes_to_a_game_made_on_the_command_line(server: Server, gid: str) -> None:
    """``jaslog new --meta table=1`` on the store a real ``jaslog serve`` has open: the
    scorer token of table 1 writes to that game, and to no game of another table or of none."""
    games = {name: f"{gid}-{name}" for name in ("at-1", "at-2", "nowhere")}
    for name, meta in (("at-1", ["--meta", "table=1"]), ("at-2", ["--meta", "table=2"]),
                       ("nowhere", [])):
        made = jaslog("new", "--seats", "ann,bob,cor,dirk", "--id", games[name],
                      "--db", str(server.db), *meta)
        assert made.returncode == 0, made.stderr
    note = {"expected_seq": 1, "events": [{"type": "note", "text": "scored at table 1"}]}
    with server.client("scorer") as c:  # the session's scorer token is table 1's
        r = c.post(f"/api/games/{games['at-1']}/events", json=note)
        assert r.status_code == 200, r.text
        for name in ("at-2", "nowhere"):
            r = c.post(f"/api/games/{games[name]}/events", json=note)
            assert r.status_code == 403 and r.json()["code"] == "other_table", r.text
    with server.client("admin") as c:
        events = c.get(f"/api/games/{games['at-1']}/events").json()["events"]
    assert [e["type"] for e in events] == ["game_started", "note"]


@pytest.mark.parametrize(("level", "access_log"), [
    ("trace", True), ("debug", True), ("info", True), ("INFO", True),
    ("warning", False), ("Warning", False), ("error", False), ("critical", False)])
def test_the_access_log_is_on_only_where_its_lines_would_print(level: str,
                                                               access_log: bool) -> None:
    """uvicorn's access log writes its lines at level info: above it, off (uvicorn would
    still work out each request's line, to drop it); the level is passed on as given."""
    from jaslog.cli.serve_cmds import uvicorn_logging

    assert uvicorn_logging(level) == {"log_level": level, "access_log": access_log}
