"""The store's commands end to end: new, record, append, import, games, show, dump, verify,
players, and check / replay on stored games. Bad input never shows a traceback."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from jaslog.cli import app
from jaslog.events import canonical_json, parse_event
from jaslog.play.sim import Faults, simulate, simulate_game
from jaslog.store import open_store
from tests.cli import jaslog as jaslog_here
from tests.cli import pipe_path, process_env

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    path = str(tmp_path / "cli.sqlite")
    monkeypatch.setenv("JASLOG_DB", path)
    return path


def run(*args: str, input: str | bytes | None = None, code: int = 0) -> Any:
    res = CliRunner().invoke(app, list(args), input=input)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    assert res.exit_code == code, (res.exit_code, res.stdout, res.stderr)
    return res


def jaslog(*args: str, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """The real command in a real process (for stderr and exit codes exactly as users see)."""
    return subprocess.run([sys.executable, "-m", "jaslog", *args], input=input,
                          capture_output=True, env=process_env(COLUMNS="200"), timeout=120)


def write_jsonl(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    return path


def test_show_prints_the_score_sheet_rulings_and_what_was_retracted(db: str,
                                                                      tmp_path: Path) -> None:
    g = "sheet"
    events: list[dict[str, Any]] = [
        {"type": "game_started", "ruleset": "amsterdam", "seats": ["ann", "bob", "cor", "dirk"],
         "dealer": 3},
        {"type": "round_score", "round": 1, "score": [102, 60]},
        {"type": "dealt"}, {"type": "bid", "seat": 1, "call": "H"},
        {"type": "irregularity", "kind": "exposed_card", "seat": 3, "cards": ["QS"]},
        {"type": "play", "seat": 1, "card": "7D"},
        {"type": "correction", "retracts": [5], "reason": "typed 7D for 7H"},
        {"type": "ruling", "round": 2, "score": [0, 162], "reason": "abandoned"},
        {"type": "ruling", "round": 2, "score": [81, 81], "reason": "on appeal"},
    ]
    log = write_jsonl(tmp_path / "sheet.jsonl",
                      [{"game": g, "seq": i, **e} for i, e in enumerate(events)])
    run("import", str(log))
    shown = " ".join(run("show", g).stdout.split())
    assert "round 1 score only 102–60 → 102–60" in shown
    assert ("round 2 unfinished 0–0 ruled 0–162 (abandoned) ruled 81–81 (on appeal) → 183–141"
            in shown)
    assert "seq 4: irregularity exposed_card by dirk (3) Q♠" in shown
    assert "seq 5 (play 7D by seat 1) retracted at seq 6: typed 7D for 7H" in shown
    js = orjson.loads(run("show", g, "--json").stdout)
    assert [x["superseded"] for x in js["rounds"][1]["rulings"]] == [True, False]
    assert js["retracted"][0]["reason"] == "typed 7D for 7H"


def test_new_games_show(db: str) -> None:
    gid = run("new", "--ruleset", "rotterdam", "--seats", "ann,bob,cor,dirk", "--dealer", "2",
              "-o", "revoke=reject").stdout.strip()
    assert gid
    started = open_store(db).events(gid)[0]
    assert started.ruleset == "rotterdam" and started.dealer == 2  # type: ignore[attr-defined]
    assert started.options == {"revoke": "reject"}  # type: ignore[attr-defined]
    rows = [orjson.loads(x) for x in run("games", "--json").stdout.splitlines()]
    assert [r["game"] for r in rows] == [gid] and rows[0]["events"] == 1
    assert gid in run("games").stdout
    shown = run("show", gid).stdout
    assert "certificate" in shown and rows[0]["certificate"] in shown
    js = orjson.loads(run("show", gid, "--json").stdout)
    assert js["game"] == gid and js["events"] == 1 and js["certificate"] == rows[0]["certificate"]
    assert "already exists" in run("new", "--seats", "a,b,c,d", "--id", gid, code=2).stderr
    assert "unknown option" in run("new", "--seats", "a,b,c,d", "-o", "nope=1", code=2).stderr
    assert "unknown ruleset" in run("new", "--seats", "a,b,c,d", "-r", "whist", code=2).stderr
    assert "no game 'zz'" in run("show", "zz", code=2).stderr


@pytest.mark.slow
def test_new_show_dump_verify_and_players_in_real_processes(tmp_path: Path) -> None:
    """The store's commands as a script runs them, a real process each for a command that
    writes, one that answers on stdout, one that checks and a refusal: the exit code, the
    answer on stdout, a refusal on stderr with nothing on stdout. ``show --json`` and
    ``players set`` run in this process (the entry point is the same)."""
    db = str(tmp_path / "p.sqlite")
    new = jaslog("new", "--seats", "ann,bob,cor,dirk", "--id", "p-1", "--db", db)
    assert (new.returncode, new.stdout, new.stderr) == (0, b"p-1\n", b""), new
    show = jaslog_here("show", "p-1", "--json", "--db", db)
    assert show.returncode == 0 and orjson.loads(show.stdout)["events"] == 1, show
    dump = jaslog("dump", "p-1", "--db", db)
    started = open_store(db).events("p-1")[0]
    assert (dump.returncode, dump.stdout) == (0, canonical_json(started) + b"\n"), dump
    verify = jaslog("verify", "--db", db)
    assert verify.returncode == 0 and b"every chain is intact" in verify.stdout, verify
    players = jaslog_here("players", "set", "ann", "Ann de Vries", "--db", db)
    assert players.returncode == 0 and players.stderr == b"", players
    assert open_store(db).players() == {"ann": "Ann de Vries"}
    missing = jaslog("show", "zz", "--db", db)
    assert (missing.returncode, missing.stdout) == (2, b"") and b"no game 'zz'" in missing.stderr


def test_new_names_what_is_wrong_with_an_id_or_a_seat(db: str) -> None:
    """``new`` says which rule an id breaks (its length, a character that is not allowed) and
    which seat is empty, without echoing a 200-character id; nothing is stored."""
    long = "x" * 200
    err = run("new", "--seats", "a,b,c,d", "--id", long, code=2).stderr
    assert err.startswith("jaslog: --id: 'xxxxxxxx...' is 200 characters long: a game id has "
                          "at most 128"), err
    assert long not in err and "not a valid" not in err
    err = run("new", "--seats", "a,b,c,d", "--id", "x y", code=2).stderr
    assert "--id: 'x y' is not a valid game id: ' ' is not allowed (ASCII letters" in err
    err = run("new", "--seats", "a,,c,d", code=2).stderr
    assert err.startswith("jaslog: --seats 'a,,c,d': seat 1 is empty"), err
    assert "not 3" not in err
    assert "seats 1 and 2 are empty" in run("new", "--seats", "a,,,d", code=2).stderr
    assert "seat 4 is empty" in run("new", "--seats", "a,b,c,d,", code=2).stderr
    err = run("new", "--seats", "ánn,bob,cor,dirk", code=2).stderr
    assert err.startswith("jaslog: --seats: seat 0: 'ánn' is not a valid player id: 'á' is "
                          "not allowed (ASCII letters, digits and ._:@-)"), err
    err = run("players", "set", "ánn", "Ann", code=2).stderr
    assert "'á' is not allowed (ASCII letters, digits and ._:@-)" in err
    assert run("games", "--json").stdout == ""


def test_import_summary_reimport_and_dump(db: str, tmp_path: Path) -> None:
    f = write_jsonl(tmp_path / "three.jsonl", list(simulate(3, seed=2)))
    out = run("import", str(f)).stdout
    assert "imported 3 games" in out
    again = orjson.loads(run("import", str(f), "--json").stdout)
    assert (again["games"], again["events"], len(again["skipped"]), again["rejected"]) == (0, 0, 3, [])
    assert "skipped 3 games already present" in run("import", str(f)).stdout
    # dump: byte-identical to the canonical form of what was imported
    for name in ("amsterdam-free.jsonl", "rotterdam-random-trump.jsonl"):
        src = (ROOT / "replays" / name).read_bytes().splitlines()
        run("import", str(ROOT / "replays" / name))
        gid = parse_event(src[0]).game
        want = b"".join(canonical_json(parse_event(x)) + b"\n" for x in src
                        if x.strip() and parse_event(x).game == gid)
        assert run("dump", gid).stdout_bytes == want


def test_import_from_stdin(db: str) -> None:
    data = b"".join(orjson.dumps(e) + b"\n" for e in simulate_game("stdin-1", seed=4))
    assert "imported 1 game" in run("import", "-", input=data).stdout
    assert open_store(db).head("stdin-1").next_seq > 500


BAD_INPUTS = {
    "malformed": (b'{"game":"bad-1","seq":1,"type":"dealt",,}\n', "not valid JSON"),
    "wrong-types": (b'{"game":"bad-1","seq":"1","type":"dealt"}\n', "field 'seq'"),
    "truncated": (b'{"game":"bad-1","seq":1,"type":"de', "truncated"),
    "huge": (b'{"game":"bad-1","seq":1,"type":"note","text":"' + b"y" * (2 << 20) + b'"}\n',
             "the limit is"),
    "latin-1": ('{"game":"bad-1","seq":1,"type":"note","text":"caf\u00e9"}\n'.encode("latin-1"),
                "not UTF-8"),
}


@pytest.mark.parametrize("kind", list(BAD_INPUTS))
def test_bad_input_clear_errors_nothing_stored(tmp_path: Path, kind: str) -> None:
    db = str(tmp_path / "bad.sqlite")
    good = simulate_game("bad-1", seed=1)
    bad, expect = BAD_INPUTS[kind]
    f = tmp_path / f"{kind}.jsonl"
    f.write_bytes(orjson.dumps(good[0]) + b"\n" + orjson.dumps(good[1]) + b"\n" + bad)
    res = run("import", str(f), "--db", db, code=2)  # run() fails on any exception
    assert res.stderr.startswith("jaslog:") and "rejected" in res.stderr
    assert f"{f}:3: game bad-1" in res.stdout and expect in res.stdout, res.stdout
    assert open_store(db).games() == []


def test_bad_input_in_a_real_process_has_no_traceback(tmp_path: Path) -> None:
    db = str(tmp_path / "bad.sqlite")
    f = tmp_path / "mixed.jsonl"
    good = b"".join(orjson.dumps(e) + b"\n" for e in simulate_game("ok-1", seed=2))
    f.write_bytes(good + b'{"game":"bad-2","seq":0,"type":"game_started","ruleset":"amst' + b"\xe9")
    res = jaslog("import", str(f), "--db", db)
    err, out = res.stderr.decode(), res.stdout.decode("utf-8", "replace")
    assert res.returncode == 2 and "Traceback" not in err + out
    assert err.startswith("jaslog: 1 game(s) or line(s) rejected")
    assert "game bad-2" in out and "not UTF-8" in out
    assert [g.game for g in open_store(db).games()] == ["ok-1"]


def test_bad_files_and_databases(tmp_path: Path) -> None:
    res = run("import", str(tmp_path / "missing.jsonl"), "--db", str(tmp_path / "x.sqlite"), code=2)
    assert "no such file" in res.stderr
    (tmp_path / "notadb.sqlite").write_bytes(b"this is not a database" * 100)
    res = run("games", "--db", str(tmp_path / "notadb.sqlite"), code=2)
    assert res.stderr.startswith("jaslog: cannot open the store")
    res = run("games", "--db", "postgresql://nobody@127.0.0.1:1/none", code=2)
    assert res.stderr.startswith("jaslog: cannot open the store") and "refused" in res.stderr


@pytest.mark.parametrize("url", ["mysql://u:secret@db/club", "oracle://db/club", "db://x",
                                 "postgresql+psycopg2://db/club"])
def test_a_store_url_of_another_database_is_refused_in_a_sentence(tmp_path: Path,
                                                                  url: str) -> None:
    """A store is SQLite or PostgreSQL: any other URL is named (without its password) before
    a driver is looked for, with no traceback."""
    for args in (["games", "--db", url], ["import", "-", "--db", url],
                 ["new", "--seats", "a,b,c,d", "--db", url], ["check", "store:", "--db", url],
                 ["export", str(tmp_path / "pq"), "--db", url]):
        res = jaslog_here(*args, input=b"", env={"COLUMNS": "200"})
        err = res.stderr.decode()
        assert res.returncode == 2 and "Traceback" not in err, (args, err)
        assert err.startswith(f"jaslog: {url.replace('secret', '***')}: a store is an SQLite "
                              "file (a path or sqlite:///PATH) or a PostgreSQL database"), err
    assert not (tmp_path / "pq").exists()


def test_commands_that_only_read_do_not_create_a_store(tmp_path: Path) -> None:
    """A mistyped --db is an error for games, show, dump, verify, players, check / replay of
    store: games and export: nothing is created, neither the file nor its folder."""
    missing = tmp_path / "typo" / "club.sqlite"
    for args in (["games"], ["show", "g-1"], ["dump", "g-1"], ["verify"], ["players"],
                 ["check", "store:"], ["replay", "store:g-1"]):
        res = run(*args, "--db", str(missing), code=2)
        assert res.stderr.startswith(f"jaslog: no store at {missing}: import games first"), \
            (args, res.stderr)
    res = run("export", str(tmp_path / "pq"), "--db", str(missing), code=2)
    assert res.stderr.startswith(f"jaslog: no store at {missing}")
    assert not (tmp_path / "typo").exists() and not (tmp_path / "pq").exists()
    res = run("games", "--db", str(tmp_path), code=2)
    assert res.stderr.startswith(f"jaslog: {tmp_path}: not a store")
    (tmp_path / "empty.sqlite").touch()  # an SQLite file, but not a jaslog store
    res = run("verify", "--db", str(tmp_path / "empty.sqlite"), code=2)
    assert res.stderr.startswith(f"jaslog: no jaslog store at {tmp_path / 'empty.sqlite'}")
    assert (tmp_path / "empty.sqlite").stat().st_size == 0
    run("new", "--seats", "a,b,c,d", "--id", "g-1", "--db", str(missing))  # writing creates it
    assert "g-1" in run("games", "--db", str(missing)).stdout


def test_record_does_not_create_a_store(tmp_path: Path) -> None:
    """``record GAME`` records a stored game: on a missing store it says so and creates
    nothing (it made an empty store, then said 'no game')."""
    missing = tmp_path / "typo" / "new.sqlite"
    res = run("record", "g-1", "--db", str(missing), input="quit\n", code=2)
    assert res.stderr.startswith(f"jaslog: no store at {missing}: import games first"), res.stderr
    assert "jaslog new" in res.stderr and not (tmp_path / "typo").exists()
    (tmp_path / "empty.sqlite").touch()
    res = run("record", "g-1", "--db", str(tmp_path / "empty.sqlite"), input="quit\n", code=2)
    assert res.stderr.startswith("jaslog: no jaslog store at")
    assert (tmp_path / "empty.sqlite").stat().st_size == 0
    store = str(tmp_path / "club.sqlite")
    run("new", "--seats", "a,b,c,d", "--id", "g-2", "--db", store)
    res = run("record", "g-1", "--db", store, input="quit\n", code=2)
    assert res.stderr.startswith("jaslog: no game 'g-1' in the store")
    assert "0 events recorded" in run("record", "g-2", "--db", store, input="quit\n").stdout


def test_append_for_scripts(db: str) -> None:
    gid = run("new", "--seats", "ann,bob,cor,dirk", "--id", "ap-1").stdout.strip()
    note = '{"type":"note","text":"table 3 starts"}'
    out = orjson.loads(run("append", gid, "--json", note, "--expect", "1", "--json-out").stdout)
    assert (out["appended"], out["next_seq"]) == (1, 2) and len(out["certificate"]) == 19
    res = run("append", gid, "--json", note, "--expect", "1", code=3)
    assert "expected to append at seq 1" in res.stderr and "next seq is 2" in res.stderr
    with_id = '{"type":"note","text":"again","id":"6f1c2d3e-0000-4000-8000-000000000001"}'
    run("append", gid, "--json", with_id, "--expect", "2")
    retry = run("append", gid, "--json", with_id, "--expect", "2").stdout
    assert "appended 0 events (1 already stored)" in retry
    bad = run("append", gid, "--json", '{"type":"play","seat":0,"card":"JH"}', code=2).stderr
    assert bad.startswith("jaslog: game ap-1 seq 3: no round has been dealt yet [no_deal]")
    assert "nothing was written" in bad
    assert "not valid JSON" in run("append", gid, "--json", "{nope", code=2).stderr
    lines = b'{"type":"note","text":"a"}\n{"type":"note","text":"b"}\n'
    assert "appended 2 events" in run("append", gid, "--json", "-", input=lines).stdout
    assert open_store(db).head(gid).next_seq == 5


@pytest.mark.parametrize(("event", "said", "code"), [
    ('{"type":"note","text":"late","at":"2099-01-01T20:00:00Z"}',
     "at 2099-01-01T20:00:00Z is more than 5 minutes ahead of the store's clock", "at_in_future"),
    ('{"type":"note","text":"x","recorded_at":"2026-01-01T20:00:00Z"}',
     "recorded_at is set by the store's own clock; leave it out", "recorded_at_given"),
    ('{"type":"note","seat":9,"text":"x"}', "field 'seat'", "bad_event"),
    ('{"type":"play","seat":0,"card":"JH"}', "no round has been dealt yet", "no_deal"),
], ids=["at_in_future", "recorded_at_given", "bad_event", "no_deal"])
def test_every_refusal_of_append_says_its_code(db: str, event: str, said: str,
                                               code: str) -> None:
    """The sentence of a refused append names the refusal's code once, before "nothing was
    written", whether a rule, the event format or the store's clock refused it."""
    run("new", "--seats", "ann,bob,cor,dirk", "--id", "codes")
    message = " ".join(run("append", "codes", "--json", event, code=2).stderr.split())
    assert said in message and message.endswith(f" [{code}]; nothing was written"), message
    assert message.count(f"[{code}]") == 1
    out = orjson.loads(run("append", "codes", "--json", event, "--json-out", code=2).stdout)
    assert out["error"]["code"] == code
    again = " ".join(out["error"]["message"].split())  # the store's clock moved on meanwhile
    assert said in again and again.endswith(f" [{code}]; nothing was written"), again


def test_append_sent_again_without_expect_is_a_no_op(db: str) -> None:
    """A script that retries an append (same event ids) without --expect stores nothing twice;
    an id reused for another event is refused in a sentence (exit 2)."""
    run("new", "--seats", "a,b,c,d", "--id", "p1")
    note = '{"type":"note","text":"z","id":"7f1c2a9e-1b2c-4d5e-8f90-123456789abc"}'
    assert "appended 1 event" in run("append", "p1", "--json", note).stdout
    again = orjson.loads(run("append", "p1", "--json", note, "--json-out").stdout)
    assert (again["appended"], again["already_stored"], again["next_seq"]) == (0, 1, 2)
    lines = (note + "\n" + note.replace("z", "y").replace("abc", "abd")).encode()
    assert orjson.loads(run("append", "p1", "--json", "-", "--json-out", input=lines).stdout)[
        "appended"] == 1
    assert orjson.loads(run("append", "p1", "--json", "-", "--json-out", input=lines).stdout)[
        "already_stored"] == 2
    other = run("append", "p1", "--json", note.replace('"z"', '"other"'), code=2).stderr
    assert "event id 7f1c2a9e-1b2c-4d5e-8f90-123456789abc is already stored at seq 1" in other
    assert "an id names one event" in other and "nothing was written" in other
    assert open_store(db).head("p1").next_seq == 3


def test_append_says_what_is_not_an_event(db: str) -> None:
    """Valid JSON that is no event (a string, a number, null, an array item) is named as such,
    not called invalid JSON; an array of events is one batch."""
    run("new", "--seats", "a,b,c,d", "--id", "p1")
    for text, said in [('"x"', '--json is "x", a JSON string, not an event'),
                       ("5", "--json is 5, a JSON number, not an event"),
                       ("null", "--json is JSON null, not an event"),
                       ('[{"type":"note","text":"a"},true]',
                        "--json: item 2 of the array is true, a JSON boolean, not an event")]:
        err = run("append", "p1", "--json", text, code=2).stderr
        assert err.startswith(f"jaslog: {said}: an event is a JSON object"), err
        assert "not valid JSON" not in err
    err = run("append", "p1", "--json", "-", input=b'{"type":"note","text":"a"}\n[1]\n', code=2)
    assert "event 2 (stdin) is a JSON array, not an event" in err.stderr
    assert "not valid JSON" in run("append", "p1", "--json", "{nope", code=2).stderr
    assert open_store(db).head("p1").next_seq == 1
    batch = '[{"type":"note","text":"a"},{"type":"note","text":"b"}]'
    assert "appended 2 events" in run("append", "p1", "--json", batch).stdout
    assert [e.text for e in open_store(db).events("p1")[1:]] == ["a", "b"]  # type: ignore[attr-defined]


def test_append_refuses_an_empty_batch(db: str) -> None:
    run("new", "--seats", "a,b,c,d", "--id", "p1")
    for data in (b"", b"\n  \n", "\ufeff".encode()):
        err = run("append", "p1", "--json", "-", input=data, code=2).stderr
        assert err.startswith("jaslog: stdin held no events: nothing to append"), err
    assert "--json is an empty array" in run("append", "p1", "--json", "[]", code=2).stderr
    assert open_store(db).head("p1").next_seq == 1


def test_append_json_out_describes_errors_in_json(db: str) -> None:
    """``append --json-out`` answers every outcome with one JSON object on stdout: a conflict
    (exit 3) with the expected and actual seq, a refusal (exit 2) with its rule code, bad
    input; the sentence still goes to stderr."""
    run("new", "--seats", "a,b,c,d", "--id", "p1")
    note = '{"type":"note","text":"q"}'
    ok = orjson.loads(run("append", "p1", "--json", note, "--json-out").stdout)
    assert ok["ok"] is True and ok["next_seq"] == 2
    cases: list[tuple[list[str], bytes | None, int, dict[str, Any]]] = [
        (["--json", note, "--expect", "1"], None, 3,
         {"code": "conflict", "expected": 1, "actual": 2}),
        (["--json", '{"type":"play","seat":0,"card":"JH"}'], None, 2,
         {"code": "no_deal", "seq": 2, "seat": 0, "card": "JH"}),
        (["--json", '"x"'], None, 2, {"code": "not_an_event"}),
        (["--json", "{nope"], None, 2, {"code": "bad_json"}),
        (["--json", "-"], b"", 2, {"code": "empty_batch"}),
    ]
    for args, data, code, want in cases:
        res = run("append", "p1", *args, "--json-out", input=data, code=code)
        lines = res.stdout.splitlines()
        assert len(lines) == 1, res.stdout
        got = orjson.loads(lines[0])
        assert got["ok"] is False and got["game"] == "p1" and got["error"]["exit"] == code
        assert {k: got["error"][k] for k in want} == want, got
        assert res.stderr.startswith("jaslog: ") and got["error"]["message"] in res.stderr
    assert open_store(db).head("p1").next_seq == 2
    # and from a real process, as a script sees it
    proc = jaslog("append", "p1", "--db", db, "--json", note, "--expect", "0", "--json-out")
    assert proc.returncode == 3 and orjson.loads(proc.stdout)["error"]["actual"] == 2
    assert b"Traceback" not in proc.stderr


def test_append_json_out_answers_command_lines_the_parser_refuses(db: str) -> None:
    """A command line refused before ``append`` runs (a value out of range, an unknown
    option, a missing argument) still gets its JSON line on stdout with ``--json-out``, and
    the parser's usual message on stderr; without ``--json-out``, stdout stays empty."""
    note = '{"type":"note","text":"q"}'
    cases = [
        (["p1", "--json", note, "--expect", "-1"], "p1", "'--expect'"),
        (["p1", "--json", note, "--bogus"], "p1", "--bogus"),
        (["--db", db, "--json", note], None, "'game'"),
        (["p1"], "p1", "'--json'"),
    ]
    for args, game, named in cases:  # jaslog.cli.main: the console script's own path
        proc = jaslog_here("append", *args, "--json-out", env={"COLUMNS": "200"})
        assert proc.returncode == 2, proc
        got = orjson.loads(proc.stdout)
        assert got == {"ok": False, "game": game, "error": {
            "code": "usage", "message": got["error"]["message"], "exit": 2}}
        assert named in got["error"]["message"] and named in proc.stderr.decode()
        assert b"Traceback" not in proc.stderr
        plain = jaslog_here("append", *args, env={"COLUMNS": "200"})
        assert plain.returncode == 2 and plain.stdout == b"" and named in plain.stderr.decode()
    assert not Path(db).exists()  # nothing ran


def test_append_and_record_summaries_fit_80_columns(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The summary keeps 'certificate' next to the certificate: on one line when it fits,
    else the certificate on a line of its own (wrapping split it from its word)."""
    monkeypatch.setenv("COLUMNS", "80")
    gid = run("new", "--seats", "ann,bob,cor,dirk").stdout.strip()  # a generated id: 15 chars
    run("new", "--seats", "ann,bob,cor,dirk", "--id", "p1")
    ids = [str(uuid.uuid5(uuid.NAMESPACE_URL, f"fit/{i}")) for i in range(10)]
    notes = b"".join(orjson.dumps({"type": "note", "text": "z", "id": i}) + b"\n" for i in ids)
    for command, data, first in (
            (["append", gid, "--json", "-"], notes, f"appended 10 events to {gid}; next seq 11"),
            (["append", gid, "--json", "-"], notes,
             f"appended 0 events (10 already stored) to {gid}; next seq 11"),
            (["append", "p1", "--json", '{"type":"note","text":"z"}'], None,
             "appended 1 event to p1; next seq 2"),
            (["record", gid], b"quit\n", f"0 events recorded; game {gid} is at seq 10")):
        out = run(*command, input=data).stdout
        cert = open_store(db).head(command[1]).certificate
        lines = out.splitlines()
        assert all(len(x) <= 80 for x in lines), out
        one = f"{first}; certificate {cert}"
        if len(one) <= 80:
            assert lines[-1] == one, out
        else:
            assert lines[-2:] == [first, f"certificate {cert}"], out


def test_check_and_replay_stored_games(db: str, tmp_path: Path) -> None:
    faulty = simulate_game("st-f", seed=3, faults=Faults(revoke_rate=0.1))
    clean = simulate_game("st-c", seed=4)
    run("import", str(write_jsonl(tmp_path / "f.jsonl", faulty + clean)))
    run("check", "store:st-c")
    res = run("check", "store:st-f", code=1)
    assert "st-f" in res.stdout and "must_" in res.stdout
    reports = [orjson.loads(x) for x in run("check", "--json", "store:", code=1).stdout.splitlines()]
    assert sorted(r["game"] for r in reports) == ["st-c", "st-f"]
    # the same report as for the file
    file_rep = [orjson.loads(x) for x in run("check", "--json", str(tmp_path / "f.jsonl"),
                                              code=1).stdout.splitlines()]
    assert sorted(file_rep, key=lambda r: r["game"]) == sorted(reports, key=lambda r: r["game"])
    shown = run("replay", "store:st-c", "--round", "1").stdout
    assert "round 1" in shown and "seq" in shown
    assert "no game 'zz'" in run("replay", "store:zz", code=2).stderr
    assert "no game 'zz'" in run("check", "store:zz", code=2).stderr


def test_a_seq_changed_to_a_fraction_is_an_unreadable_game_not_a_traceback(
        db: str, tmp_path: Path) -> None:
    """A seq stored as a fraction behind the store's back: ``check store:`` names the game
    unreadable, with the value as stored, and checks the others (exit 2, no traceback)."""
    import sqlite3

    run("import", str(write_jsonl(tmp_path / "g.jsonl", simulate_game("st-a", seed=3)
                                  + simulate_game("st-b", seed=4))))
    con = sqlite3.connect(db)
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        con.execute(f"DROP TRIGGER {name}")
    con.execute("UPDATE events SET seq = 5.5 WHERE seq = 5 AND game = "
                "(SELECT pos FROM games WHERE id = 'st-a')")
    con.commit()
    con.close()
    res = run("check", "store:", code=2)
    bad = [ln for ln in res.stdout.splitlines() if "st-a" in ln]
    assert bad and "unreadable_game" in bad[0] and "(got 5.5)" in bad[0], res.stdout
    reports = [orjson.loads(x) for x in run("check", "--json", "store:", code=2).stdout.splitlines()]
    assert sorted(r["game"] for r in reports) == ["st-a", "st-b"]



def test_verify_finds_tampering_and_certificates(db: str, tmp_path: Path) -> None:
    run("import", str(write_jsonl(tmp_path / "v.jsonl", list(simulate(2, seed=6)))))
    gid = "sim-amsterdam-000001"
    assert "every chain is intact" in run("verify").stdout
    one = run("verify", gid).stdout
    cert = open_store(db).head(gid).certificate
    assert cert in one
    assert "it certifies seq" in run("verify", gid, "--certificate", cert).stdout
    for typo in ("zzzz", "3f2a"):  # not a certificate at all: bad input, exit 2
        res = run("verify", gid, "--certificate", typo, code=2)
        assert f"--certificate {typo!r} is not a certificate" in res.stderr
    res = run("verify", gid, "--certificate", "0000-0000-0000-0000", code=1)
    assert "0000-0000-0000-0000 is the hash of no event of this game" in res.stdout
    # the game goes on after the score sheet was signed: the certificate still holds, for the
    # events it covers, and says how many came after it
    head = open_store(db).head(gid)
    run("append", gid, "--json", '{"type": "note", "text": "signed"}')
    res = run("verify", gid, "--certificate", cert)
    assert (f"the certificate holds: it certifies seq {head.seq}; 1 event appended since, "
            "which it does not cover") in " ".join(res.stdout.split())
    js = orjson.loads(run("verify", gid, "--certificate", cert, "--json").stdout)
    key = open_store(db).current_key()
    assert key is not None  # the import signed the game's head: the certified seq
    assert js["ok"] and js["certified"] == {"game": gid, "seq": head.seq, "appended_since": 1,
                                            "signed_by": key.id}
    import sqlite3

    con = sqlite3.connect(db)
    con.execute("DROP TRIGGER events_no_update")
    # even one space more in the bytes the row gives back is found
    with open_store(db, create=False) as store:
        stored = store.stored_events(gid)[7].payload
    con.execute("UPDATE events SET rest = ? WHERE game = (SELECT pos FROM games WHERE id = ?) "
                "AND seq = 7", (stored.replace(b'"seq":', b'"seq": '), gid))
    con.commit()
    con.close()
    res = run("verify", code=1)
    assert f"game {gid} seq" in res.stdout and "changed" in res.stdout
    assert "1 problem in 1 game, " in run("verify", gid, code=1).stdout  # counted in words
    js = orjson.loads(run("verify", "--json", code=1).stdout)
    assert not js["ok"] and js["problems"][0]["game"] == gid


def test_players(db: str) -> None:
    run("new", "--seats", "p1,p2,p3,p4", "--id", "pl-1")
    run("players", "set", "p1", "Ann de Vries")
    assert run("players").stdout.split() == ["p1", "Ann", "de", "Vries"]
    assert orjson.loads(run("players", "--json").stdout) == {"p1": "Ann de Vries"}
    assert "Ann de Vries" in run("games").stdout
    assert [orjson.loads(x)["game"] for x in
            run("games", "--json", "--player", "Ann de Vries").stdout.splitlines()] == ["pl-1"]
    run("players", "erase", "p1")
    assert "no display names" in run("players").stdout
    assert "'bad id!' is not a valid player id: ' ' is not allowed" in \
        run("players", "set", "bad id!", "X", code=2).stderr
    assert "a display name is at most 100 printable characters, on one line (5000 given)" in \
        " ".join(run("players", "set", "p1", "x" * 5000, code=2).stderr.split())
    assert "no tabs, line breaks" in run("players", "set", "p1", "Ann\nde Vries", code=2).stderr
    assert "every chain is intact" in run("verify").stdout


def short_input(e: dict[str, Any]) -> list[str]:
    """What a scorer types for a simulated event."""
    t = e["type"]
    if t == "dealt":
        return ["deal", *[" ".join(h).lower() for h in e["hands"][:3]]]
    if t == "bid":
        return [e["call"].lower()]
    if t == "play":
        return [e["card"].lower().replace("10", "t")]
    if t == "roem":
        return [f"roem {e['points']} {e['seat']}"]
    if t == "trump_turned":
        return [f"turn {e['card'].lower()}"]
    raise AssertionError(t)


def test_record_two_rounds_at_the_table(db: str) -> None:
    sim = simulate_game("rec-1", seed=5, seats=["ann", "bob", "cor", "dirk"])
    upto = [i for i, e in enumerate(sim) if e["type"] == "dealt"][2]  # two rounds
    run("new", "--seats", "ann,bob,cor,dirk", "--id", "rec-1", "--dealer", str(sim[0]["dealer"]))
    typed = [x for e in sim[1:upto] for x in short_input(e)]
    res = run("record", "rec-1", input="\n".join([*typed, "quit"]) + "\n")
    assert f"{upto - 1} events recorded" in res.stdout
    assert "the rest of the pack" in res.stdout and "round 2" in res.stdout
    stored = open_store(db).events("rec-1")
    strip = {"at", "id", "recorded_at"}
    assert [{k: v for k, v in e.model_dump(exclude_none=True).items() if k not in strip}
            for e in stored[1:]] == [{k: v for k, v in e.items() if k not in strip}
                                     for e in sim[1:upto]]
    assert all(e.id and e.at and e.recorded_at for e in stored[1:])


def test_record_refuses_warns_and_corrects(db: str) -> None:
    sim = simulate_game("rec-2", seed=8, seats=["ann", "bob", "cor", "dirk"])
    run("new", "--seats", "ann,bob,cor,dirk", "--id", "rec-2", "--dealer", str(sim[0]["dealer"]))
    first_play = next(i for i, e in enumerate(sim) if e["type"] == "play")
    typed = [x for e in sim[1:first_play] for x in short_input(e)]
    seat = sim[first_play]["seat"]
    hand = sim[1]["hands"][seat]
    not_held = next(c for h in sim[1]["hands"] if h is not hand for c in h).lower()
    script = [
        *typed,
        "pass",                     # refused: a card is due
        not_held,                   # refused by the rules: not in the hand
        "h",                        # a suit is not a card
        "xyz",                      # unknown
        "note the scorer sneezed",  # a note changes nothing
        "undo",                     # points to 'fix'; no round is complete: nothing asked
        "ruling", "", "0 0", "recorded twice by mistake",  # a ruling ends the round
        "deal unseen",              # the round was ruled: the next may be dealt
        "quit",
    ]
    res = run("record", "rec-2", input="\n".join(script) + "\n")
    out = res.stdout
    assert "must play a card" in out
    assert "[card_not_held]" in out and "[seq 2]" in out
    assert "a card has a rank too" in out
    assert "not something the recorder knows" in out
    assert "Events stay in the log; 'fix' retracts the last one" in out
    types = [e.type for e in open_store(db).events("rec-2")]
    assert types[-3:] == ["note", "ruling", "dealt"]
    assert len(types) == first_play + 3


def test_record_warns_before_a_violation(db: str) -> None:
    sim = simulate_game("rec-3", seed=1, seats=["ann", "bob", "cor", "dirk"])
    run("new", "--seats", "ann,bob,cor,dirk", "--id", "rec-3", "--dealer", str(sim[0]["dealer"]))
    store = open_store(db)
    from jaslog.cards import CARD_TEXT, cards_of
    from jaslog.play.fold import fold as fold_events

    # find the first play where an illegal card exists in the player's hand
    for i, e in enumerate(sim):
        if e["type"] != "play":
            continue
        f = fold_events(parse_event(orjson.dumps(x)) for x in sim[:i])
        g = f.state
        r = g.rounds[-1]
        illegal = r.hands[e["seat"]] & ~g.legal_plays()
        if illegal:
            break
    else:
        pytest.skip("no illegal card was ever possible")
    bad = CARD_TEXT[next(cards_of(illegal))].lower()
    typed = [x for e in sim[1:i] for x in short_input(e)]
    res = run("record", "rec-3", input="\n".join([*typed, bad, "n", bad, "y", "quit"]) + "\n")
    assert "this breaks a rule" in res.stdout and "not recorded" in res.stdout
    f = store.fold("rec-3")
    assert len(f.state.violations) == 1 and store.head("rec-3").next_seq == i + 1


def test_record_opens_a_klaberjass_game(db: str) -> None:
    # recording every game is tested in tests/test_record_*.py
    run("import", str(ROOT / "replays" / "klaberjass-full.jsonl"))
    gid = open_store(db).games()[0].game
    out = run("record", gid, input="quit\n").stdout
    assert "(klaberjass-2p)" in out and "0 events recorded" in out
    assert "certificate" in run("show", gid).stdout


def test_games_on_a_narrow_terminal_keep_whole_ids(db: str) -> None:
    """Ids are what a reader copies into the next command: a narrow terminal leaves columns
    out (and says so) rather than cut an id or a certificate short."""
    gid = "club-de-klaverheer-2026-11-30-table-07"
    run("new", "--seats", "ann,bob,cor,dirk", "--id", gid)
    cert = orjson.loads(run("games", "--json").stdout)["certificate"]
    for columns, hidden in (("200", None), ("80", "players, certificate left out"),
                            ("60", "started, players, certificate left out"),
                            ("40", "ruleset, started, players, events, certificate left out")):
        out = jaslog_here("games", env={"JASLOG_DB": db, "COLUMNS": columns}, text=True).stdout
        assert gid in out and "…" not in out, out
        assert max(len(line) for line in out.splitlines()) <= int(columns)
        if hidden is None:
            assert cert in out and "ann, bob, cor, dirk" in out and "left out" not in out
        else:
            assert f"({hidden} for the terminal's width; --json has every field)" \
                in " ".join(out.split())
    # narrower than the id itself: the id is folded onto the next line, not cut (in a real
    # process, whose terminal width rich reads from $COLUMNS)
    out = subprocess.run([sys.executable, "-m", "jaslog", "games"], capture_output=True,
                         text=True, env=process_env(JASLOG_DB=db, COLUMNS="20"),
                         timeout=120).stdout
    assert gid[:20] in out and gid[20:] in out and "…" not in out, out


def test_token_list_never_cuts_a_value(tmp_path: Path) -> None:
    """``token list`` on 80 columns and narrower: times are whole (to the second), a long
    label wraps at spaces, the columns that do not fit are left out and said."""
    import re

    db = str(tmp_path / "t.sqlite")
    label = "the organiser's laptop in the back room"
    for args in (["--role", "scorer", "--table", "3", "--label", "tablet 3"],
                 ["--role", "player", "--player", "ann"], ["--role", "admin", "--label", label]):
        assert jaslog_here("token", "create", *args, "--db", db).returncode == 0
    rows = [orjson.loads(x) for x in
            jaslog_here("token", "list", "--db", db, "--json").stdout.splitlines()]
    assert jaslog_here("token", "revoke", rows[0]["id"], "--db", db).returncode == 0
    stamp = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
    # (the scorer's and the player's tokens expire: an admin's only when asked)
    for columns, stamps, hidden in (("200", 6, None), ("80", 3, "expires, revoked at"),
                                    ("60", 3, "label, expires, revoked at")):
        out = jaslog_here("token", "list", "--db", db, env={"COLUMNS": columns}, text=True).stdout
        assert "…" not in out and max(len(x) for x in out.splitlines()) <= int(columns), out
        assert len(stamp.findall(out)) == stamps, out
        assert all(r["id"] in out for r in rows) and "revoked" in out
        if hidden is None:
            assert label in out and "left out" not in out
        else:
            assert f"({hidden} left out for the terminal's width" in " ".join(out.split())
        if columns == "80":
            assert all(word in out.split() for word in label.split()), out


def test_import_and_export_read_pipes_and_byte_order_marks(tmp_path: Path) -> None:
    """``jaslog import <(zcat a.gz)`` and ``export --from <(...)``: pipes read as files are, and
    a UTF-8 byte order mark at the start (a Windows editor's) is not part of the first line."""
    log = tmp_path / "bom.jsonl"
    log.write_bytes(b"\xef\xbb\xbf" + b"".join(orjson.dumps(e) + b"\n"
                                                for e in simulate(2, seed=4)))
    store, out = tmp_path / "pipe.sqlite", tmp_path / "parquet"
    with pipe_path(log.read_bytes()) as pipe:
        r = jaslog_here("import", "--json", "--db", str(store), pipe)
    assert r.returncode == 0, r.stderr
    imported = orjson.loads(r.stdout)
    with pipe_path(log.read_bytes()) as pipe:
        r = jaslog_here("export", str(out), "--json", "--from", pipe)
    assert r.returncode == 0, r.stderr
    exported = orjson.loads(r.stdout)
    assert imported["games"] == 2 and imported["rejected"] == []
    assert exported["games_added"] == 2 and exported["rows_total"]["events"] == imported["events"]
    assert sorted(g.game for g in open_store(str(store)).games()) == \
        sorted({orjson.loads(x)["game"] for x in log.read_bytes()[3:].splitlines()})
    assert "is a directory, not a log file" in run("import", str(tmp_path), code=2).stderr


def test_show_every_game(db: str, tmp_path: Path) -> None:
    """`show` states the standing as `check` does: teams in Klaverjas, seats (players) in
    Klaberjass and Kloepper, whose totals are per player (it failed with a traceback there)."""
    events = list(simulate(3, ["amsterdam", "klaberjass-2p", "kloepper"], seed=8))
    run("import", str(write_jsonl(tmp_path / "three.jsonl", events)))
    out = {g: " ".join(run("show", g).stdout.split()) for g in
           ("sim-amsterdam-000000", "sim-klaberjass-2p-000001", "sim-kloepper-000002")}
    assert "; finished, team " in out["sim-amsterdam-000000"]
    for g in ("sim-klaberjass-2p-000001", "sim-kloepper-000002"):
        assert "; finished, seat " in out[g] and " wins with " in out[g] and "team" not in out[g]
    assert "–" in out["sim-kloepper-000002"].split(" wins with ")[1].split(";")[0]


def test_append_to_a_game_that_is_not_there(db: str) -> None:
    run("new", "--seats", "a,b,c,d", "--id", "g-1")
    res = run("append", "g-2", "--json", '{"type": "note", "text": "x"}', code=2)
    assert "[no_game_started]; there is no game 'g-2' in the store (see `jaslog games`): a new " \
        "game begins with its game_started event; nothing was written" in " ".join(res.stderr.split())


def test_dump_bare_leaves_out_ids_and_store_times(tmp_path: Path) -> None:
    """A game recorded live carries an id and the store's time on every event; ``dump
    --bare`` writes the game as a table tells it (its own ``at`` kept), which reads back."""
    import json
    import uuid

    from typer.testing import CliRunner

    from jaslog.logs import read_file
    from jaslog.store import open_store

    db = str(tmp_path / "live.sqlite")
    runner = CliRunner()
    replay = Path(__file__).parent.parent / "replays" / "amsterdam-revoke-ruling.jsonl"
    log = [json.loads(x) for x in replay.read_text().splitlines() if x.strip()][:30]
    gid = log[0]["game"]
    with open_store(db) as store:
        for e in log:
            store.append(gid, [{k: v for k, v in e.items() if k != "at"} | {"id": str(uuid.uuid4())}])
    full = runner.invoke(app, ["dump", gid, "--db", db, "--format", "text"])
    bare = runner.invoke(app, ["dump", gid, "--db", db, "--format", "text", "--bare"])
    assert full.exit_code == 0 and bare.exit_code == 0, (full.output, bare.output)
    stamped = [json.loads(x) for x in runner.invoke(app, ["dump", gid, "--db", db]).stdout.splitlines()]
    assert all(e.get("id") and e.get("recorded_at") for e in stamped)
    for e in stamped[1:]:
        assert e["id"] not in bare.stdout and e["recorded_at"][:19] not in bare.stdout
    p = tmp_path / "bare.txt"
    p.write_text(bare.stdout)
    back = [ln.event.model_dump(exclude_none=True) for ln in read_file(p) if ln.event]
    assert back == [{k: v for k, v in e.items() if k not in ("id", "recorded_at")} for e in stamped]
    refused = runner.invoke(app, ["dump", gid, "--db", db, "--bare", "--signatures",
                                  str(tmp_path / "s.jsonl")])
    assert refused.exit_code == 2 and "--bare" in refused.output
