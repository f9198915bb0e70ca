"""``jaslog export``, ``jaslog stats`` and ``jaslog sql`` from the command line: real files,
a real SQLite store, real Parquet, real DuckDB, real PNG files."""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from jaslog.cli import app
from jaslog.events import Event
from jaslog.export import load_manifest
from jaslog.store import open_store
from tests.cli import jaslog, process_env
from tests.export import reference as ref

runner = CliRunner()


def run(*args: str, env: dict[str, str] | None = None) -> Any:
    return runner.invoke(app, list(args), env={"JASLOG_DB": "", "JASLOG_EXPORT": "", **(env or {})})


def write_log(path: Path, games: list[list[Event]]) -> Path:
    with open(path, "wb") as f:
        for g in games:
            for e in g:
                f.write(orjson.dumps(e.model_dump(exclude_none=True)) + b"\n")
    return path


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory, corpus: list[list[Event]]) -> Path:
    tmp = tmp_path_factory.mktemp("cli")
    log = write_log(tmp / "games.jsonl", corpus)
    res = run("export", str(tmp / "ds"), "--from", str(log), "--json")
    assert res.exit_code == 0, res.output
    out = orjson.loads(res.stdout)
    assert out["games_added"] == len(corpus) and out["changed"] is True
    return tmp / "ds"


def test_export_prints_what_it_did(exported: Path, tmp_path: Path,
                                   corpus: list[list[Event]]) -> None:
    log = write_log(tmp_path / "few.jsonl", corpus[:3])
    res = run("export", str(tmp_path / "ds"), "--from", str(log))
    assert res.exit_code == 0, res.output
    assert res.stderr == ""  # no progress bar, nor a stray line, where stderr is not a terminal
    assert "exported 3 new games" in res.stdout and "plays" in res.stdout
    res = run("export", str(tmp_path / "ds"), "--from", str(log))
    assert res.exit_code == 0 and "up to date: nothing new since version 1 (3 games)" in res.stdout


def test_stats_json_matches_the_folded_games(exported: Path, corpus: list[list[Event]]) -> None:
    res = run("stats", "declarer", "--by", "trump", "--dataset", str(exported), "--json",
              "--no-refresh")
    assert res.exit_code == 0, res.output
    out = orjson.loads(res.stdout)
    assert out["name"] == "declarer_success" and out["by"] == "trump"
    want = ref.declarer_success(ref.read_games(corpus), "trump")
    got = {r["trump"]: r for r in out["rows"]}
    assert set(got) == set(want)
    for k, w in want.items():
        assert got[k]["rounds"] == w["rounds"] and got[k]["made"] == w["made"]
        assert got[k]["made_rate"] == pytest.approx(w["made_rate"])


def test_stats_csv_is_the_same_answer(exported: Path) -> None:
    args = ("stats", "nat_pit_rates", "--dataset", str(exported), "--no-refresh")
    as_json = orjson.loads(run(*args, "--json").stdout)
    res = run(*args, "--csv")
    assert res.exit_code == 0, res.output
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert rows[0] == as_json["columns"]
    assert len(rows) - 1 == len(as_json["rows"])
    for line, rec in zip(rows[1:], as_json["rows"], strict=True):
        assert line[0] == rec["ruleset"] and int(line[1]) == rec["rounds"]
        assert float(line[2]) == pytest.approx(rec["nat_rate"])


def test_stats_table_and_where(exported: Path) -> None:
    res = run("stats", "roem_frequency", "--dataset", str(exported), "--no-refresh",
              "--where", "ruleset = 'amsterdam-kbn'")
    assert res.exit_code == 0, res.output
    assert "four_of_a_kind" in res.stdout and "games where ruleset = 'amsterdam-kbn'" in res.stdout


def test_stats_plot_writes_a_png(exported: Path, tmp_path: Path) -> None:
    for q, by in (("declarer_success", "trump"), ("roem_frequency", "all")):
        png = tmp_path / f"{q}.png"
        res = run("stats", q, "--by", by, "--dataset", str(exported), "--no-refresh", "--plot",
                  str(png))
        assert res.exit_code == 0, res.output
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_stats_plot_writes_svg_and_pdf(exported: Path, tmp_path: Path) -> None:
    for name, magic in (("chart.svg", b"<?xml"), ("chart.pdf", b"%PDF-")):
        res = run("stats", "success", "--dataset", str(exported), "--no-refresh", "--plot",
                  str(tmp_path / name))
        assert res.exit_code == 0, res.output
        assert (tmp_path / name).read_bytes().startswith(magic)
    res = run("sql", "SELECT ruleset, count(*) AS games FROM games GROUP BY ALL", "--dataset",
              str(exported), "--no-refresh", "--plot", str(tmp_path / "sql.PNG"))
    assert res.exit_code == 0, res.output
    assert (tmp_path / "sql.PNG").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_chart_file_that_cannot_be_written_is_refused_first(exported: Path, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "folder.png").mkdir()
    cases = [
        ("out.txt", "name the file .png, .svg or .pdf (not .txt)"),
        ("out", "name the file .png, .svg or .pdf (it has no extension)"),
        ("missing/out.png", f"there is no folder {tmp_path / 'missing'}"),
        ("a-file/out.png", f"{tmp_path / 'a-file'} is not a folder"),
        ("folder.png", "is a folder; give the chart a file name"),
    ]
    for name, message in cases:
        for args in (("stats", "success"), ("sql", "SELECT 1 AS x")):
            res = run(*args, "--dataset", str(exported), "--no-refresh", "--plot",
                      str(tmp_path / name))
            assert res.exit_code == 2, (name, res.output)
            assert message in res.stderr and res.stderr.startswith("jaslog: "), res.stderr
            assert res.stdout == "" and "Traceback" not in res.output  # no table, no work
    assert not (tmp_path / "missing").exists() and not (tmp_path / "out.txt").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_chart_into_a_read_only_folder_is_refused(exported: Path, tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        res = run("stats", "success", "--dataset", str(exported), "--no-refresh", "--plot",
                  str(ro / "chart.png"))
    finally:
        ro.chmod(0o700)
    assert res.exit_code == 2 and "its folder is read-only" in res.stderr


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_chart_the_system_will_not_take_is_a_sentence(exported: Path) -> None:
    # even root cannot create a file in /proc: the error comes from writing, not from a check
    res = run("stats", "success", "--dataset", str(exported), "--no-refresh", "--plot",
              "/proc/jaslog-chart.png")
    assert res.exit_code == 2, res.output
    assert "cannot write the chart /proc/jaslog-chart.png" in res.stderr
    assert "Traceback" not in res.output


def jaslog_process(*args: str, columns: int) -> subprocess.CompletedProcess[str]:
    """``jaslog`` as a real process in a terminal ``columns`` wide (rich reads $COLUMNS)."""
    env = process_env(COLUMNS=str(columns))
    for name in ("JASLOG_DB", "JASLOG_EXPORT"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "jaslog", *args], capture_output=True, text=True,
                          timeout=300, check=False, env=env)


def jaslog_in(*args: str, columns: int) -> subprocess.CompletedProcess[str]:
    """``jaslog`` in this process, in a terminal ``columns`` wide."""
    return jaslog(*args, env={"COLUMNS": str(columns), "JASLOG_DB": None, "JASLOG_EXPORT": None},
                  text=True)


def test_overview_fits_80_columns_with_whole_names(exported: Path) -> None:
    res = jaslog_process("stats", "overview", "--dataset", str(exported), "--no-refresh",
                         columns=80)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    rule = next(k for k, line in enumerate(lines) if set(line.strip()) == {"─"})
    header = " ".join(lines[1:rule]).split()
    columns = ["ruleset", "games", "finished", "rounds", "players", "violations", "first_played",
               "last_played"]
    # a name is whole, or broken after its underscores: first_ / played, never first_playe / d
    pieces = {p for c in columns for p in re.split(r"(?<=_)", c) if p}
    assert set(header) <= set(columns) | pieces, header
    for c in columns:
        assert c in header or all(p in header for p in re.split(r"(?<=_)", c) if p), c
    body = [line for line in lines[rule + 1:] if line.strip()]
    rows = [line for line in body if not line.startswith(" ")]
    names: list[str] = []
    for line in rows:
        cells = line.split()
        if len(cells) == 1 and names and names[-1].endswith("-"):
            names[-1] += cells[0]  # the rest of a name broken after a hyphen
        elif len(cells) == len(columns):
            names.append(cells[0])
            assert all(re.fullmatch(r"\d{4}-\d\d-\d\d", d) for d in cells[-2:]), line
        else:
            break  # the caption
    assert names == ["amsterdam", "amsterdam-kbn", "klaverjas-online-501", "rotterdam"]


def test_a_table_too_wide_for_any_layout_keeps_its_words(exported: Path) -> None:
    res = jaslog_in("stats", "overview", "--dataset", str(exported), "--no-refresh",
                         columns=40)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert all(len(line) <= 40 for line in lines)
    words = res.stdout.split()
    for word in ("first_played", "last_played", "violations", "klaverjas-online-501"):
        assert word in words, word


def test_many_numeric_columns_are_turned_to_fit(exported: Path) -> None:
    """round_averages has ten columns of numbers: at 80 columns each ruleset becomes a column."""
    res = jaslog_in("stats", "round_averages", "--dataset", str(exported), "--no-refresh",
                         columns=80)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    want = orjson.loads(run("stats", "round_averages", "--dataset", str(exported), "--no-refresh",
                            "--json").stdout)
    got = {line.split()[0]: line.split()[1:] for line in lines if line.startswith("avg_")}
    assert set(got) == {c for c in want["columns"] if c.startswith("avg_")}
    for k, row in enumerate(want["rows"]):
        assert got["avg_points_playing"][k] == f"{row['avg_points_playing']:,.2f}"


def test_stats_list(exported: Path) -> None:
    res = run("stats", "--list", "--json")
    assert res.exit_code == 0
    listed = {q["name"]: q for q in orjson.loads(res.stdout)}
    assert "declarer_success" in listed and listed["declarer_success"]["by"][0] == "ruleset"
    assert "position" in listed["declarer_success"]["by"]
    res = run("stats", "--list")
    assert res.exit_code == 0 and "roem_saves" in res.stdout


def test_sql_select_star_on_a_wide_view_folds_its_middle_columns(exported: Path) -> None:
    """plays has some two dozen columns: at 100 columns the table keeps whole the first and
    last columns that fit, one … column for the others, and says how to see them all."""
    res = jaslog_in("sql", "SELECT * FROM plays ORDER BY game, seq LIMIT 3", "--dataset",
                    str(exported), "--no-refresh", columns=100)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert all(len(line) <= 100 for line in lines), lines
    want = orjson.loads(run("sql", "SELECT * FROM plays ORDER BY game, seq LIMIT 3", "--dataset",
                            str(exported), "--no-refresh", "--json").stdout)
    cols = want["columns"]
    head = lines[0].split()
    assert head[0] == cols[0] and head[-1] == cols[-1] and "…" in head, head
    shown = [c for c in head if c != "…"]
    assert shown == [c for c in cols if c in shown] and len(shown) < len(cols)
    assert set(shown) <= set(cols)  # every name whole
    rows = [line for line in lines[2:] if line.startswith(want["rows"][0]["game"])]
    assert len(rows) == 3
    assert f"{len(cols)} columns, {len(shown)} shown" in res.stdout
    # --vertical: every column of every row, one line each
    res = jaslog_in("sql", "SELECT * FROM plays ORDER BY game, seq LIMIT 2", "--dataset",
                    str(exported), "--no-refresh", "--vertical", columns=100)
    assert res.returncode == 0, res.stderr
    pairs = [line.split(" = ", 1) for line in res.stdout.splitlines() if " = " in line]
    assert [k.strip() for k, _ in pairs] == cols * 2
    assert pairs[0][1] == str(want["rows"][0][cols[0]])
    # Markdown, for a note or an issue
    res = jaslog_in("sql", "SELECT game, seq FROM plays ORDER BY game, seq LIMIT 2", "--dataset",
                    str(exported), "--no-refresh", "--format", "markdown", columns=100)
    assert res.stdout.splitlines()[:2] == ["| game | seq |", "|:--|--:|"], res.stdout
    for bad, said in ((("--format", "html"), "--format 'html': table, vertical, csv, json, "
                       "markdown"), (("--format", "csv", "--json"), "one format at a time")):
        res = jaslog_in("sql", "SELECT 1", "--dataset", str(exported), "--no-refresh", *bad,
                        columns=100)
        assert res.returncode == 2 and said in res.stderr, res.stderr


def test_sql_over_the_views(exported: Path, corpus: list[list[Event]]) -> None:
    res = run("sql", "SELECT count(*) AS n FROM plays", "--dataset", str(exported), "--json",
              "--no-refresh")
    assert res.exit_code == 0, res.output
    n = sum(1 for g in corpus for e in g if e.type == "play")
    assert orjson.loads(res.stdout)["rows"] == [{"n": n}]
    # CSV into a pipe, from a real process: the exit code, the rows on stdout, nothing else
    proc = jaslog_process("sql", "SELECT ruleset, count(*) AS games FROM games GROUP BY ALL "
                          "ORDER BY 1", "--dataset", str(exported), "--csv", "--no-refresh",
                          columns=80)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.splitlines()[0] == "ruleset,games"


@pytest.mark.parametrize(("args", "message"), [
    (("sql", "SELEC nonsense"), "syntax error"),
    (("sql", ""), "no query given"),
    (("sql", "  ;\n"), "no query given"),
    (("sql", "DROP VIEW games"), "'DROP VIEW games' is not a query (DuckDB reads it as DROP)"),
    (("sql", "CREATE TABLE t AS SELECT 1"), "not a query (DuckDB reads it as CREATE)"),
    (("sql", "SET threads = 1"), "not a query (DuckDB reads it as SET)"),
    (("sql", "EXPLAIN ANALYZE DROP VIEW games"), "not a query (DuckDB reads it as DROP)"),
    (("sql", "SELECT 1; DROP VIEW games"), "one query at a time"),
    (("stats", "no_such_question"), "no question 'no_such_question'"),
    (("stats", "roem"), "could be"),
    (("stats", "declarer_success", "--by", "colour"), "cannot be grouped by 'colour'"),
    (("stats", "declarer_success", "--where", "nope = 1"), "--where 'nope = 1'"),
    (("stats", "declarer_success", "--json", "--csv"), "exclude each other"),
])
def test_bad_input_is_a_message_not_a_traceback(exported: Path, args: tuple[str, ...],
                                                message: str) -> None:
    res = run(*args, "--dataset", str(exported), "--no-refresh")
    assert res.exit_code == 2
    assert message in res.stderr and "jaslog:" in res.stderr
    assert "Traceback" not in res.output


@pytest.mark.parametrize("query", [
    "DESCRIBE games", "SHOW TABLES", "SUMMARIZE SELECT 1 AS x", "EXPLAIN SELECT count(*) FROM plays",
    "EXPLAIN ANALYZE SELECT count(*) FROM plays", "PRAGMA table_info('rounds')",
    "CALL pragma_version()", "VALUES (1, 2)", "FROM games SELECT count(*)",
    "WITH g AS (SELECT * FROM games) SELECT count(*) FROM g;",
])
def test_sql_runs_every_kind_of_query(exported: Path, query: str) -> None:
    res = run("sql", query, "--dataset", str(exported), "--csv", "--no-refresh")
    assert res.exit_code == 0, res.output
    assert len(res.stdout.splitlines()) >= 2


def test_sql_refuses_a_copy_and_writes_nothing(exported: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    for query in (f"COPY (SELECT 1) TO '{target}'", f"EXPLAIN ANALYZE COPY (SELECT 1) TO '{target}'"):
        res = run("sql", query, "--dataset", str(exported), "--no-refresh")
        assert res.exit_code == 2 and "not a query (DuckDB reads it as COPY)" in res.stderr
    assert not target.exists()


def test_no_dataset_no_store(tmp_path: Path) -> None:
    res = run("stats", "overview", "--dataset", str(tmp_path / "none"), "--db",
              str(tmp_path / "none.sqlite"))
    assert res.exit_code == 2 and "no export at" in res.stderr
    assert not (tmp_path / "none.sqlite").exists()
    res = run("export", str(tmp_path / "out"), "--db", str(tmp_path / "none.sqlite"))
    assert res.exit_code == 2 and "no store at" in res.stderr


def test_export_verify(exported: Path, tmp_path: Path, corpus: list[list[Event]]) -> None:
    res = run("export", str(exported), "--verify")
    assert res.exit_code == 0 and "every file matches" in res.stdout
    log = write_log(tmp_path / "g.jsonl", corpus[:2])
    out = tmp_path / "damaged"
    assert run("export", str(out), "--from", str(log)).exit_code == 0
    snap, man = load_manifest(out)  # type: ignore[misc]
    (snap / man["files"][0]["path"]).unlink()
    res = run("export", str(out), "--verify", "--json")
    assert res.exit_code == 1
    assert orjson.loads(res.stdout)["problems"] == [f"{man['files'][0]['path']}: missing"]


def test_stats_exports_first_when_the_store_moved_on(tmp_path: Path,
                                                     corpus: list[list[Event]]) -> None:
    db = tmp_path / "jaslog.sqlite"
    with open_store(str(db)) as store:
        for g in corpus[:4]:
            store.append(g[0].game, [e.model_dump(exclude_none=True) for e in g])
    # the dataset defaults to 'parquet' beside the SQLite file
    res = run("stats", "overview", "--by", "all", "--db", str(db), "--json")
    assert res.exit_code == 0, res.output
    assert orjson.loads(res.stdout)["rows"][0]["games"] == 4
    assert (tmp_path / "parquet" / "current" / "manifest.json").is_file()
    with open_store(str(db)) as store:
        for g in corpus[4:6]:
            store.append(g[0].game, [e.model_dump(exclude_none=True) for e in g])
    res = run("stats", "overview", "--by", "all", "--db", str(db), "--json")
    assert orjson.loads(res.stdout)["rows"][0]["games"] == 6
    assert "exported 2 new and 0 changed games" in res.stderr
    res = run("sql", "SELECT count(*) AS n FROM games", "--db", str(db), "--json")
    assert orjson.loads(res.stdout)["rows"] == [{"n": 6}] and res.stderr == ""
    # a dataset exported from files is not overwritten by the store
    log = write_log(tmp_path / "g.jsonl", corpus[10:11])
    other = tmp_path / "other"
    assert run("export", str(other), "--from", str(log)).exit_code == 0
    res = run("sql", "SELECT count(*) AS n FROM games", "--db", str(db), "--dataset", str(other),
              "--json")
    assert orjson.loads(res.stdout)["rows"] == [{"n": 1}] and "querying it as it is" in res.stderr


def test_show_sql_and_lists_in_csv(exported: Path) -> None:
    res = run("stats", "declarer_success", "--by", "position", "--show-sql")
    assert res.exit_code == 0
    assert "CASE declarer_position WHEN 1 THEN '1 forehand'" in res.stdout
    assert '"position"' in res.stdout and "{by}" not in res.stdout
    res = run("sql", "SELECT cards FROM tricks ORDER BY game, round, trick LIMIT 1",
              "--dataset", str(exported), "--csv", "--no-refresh")
    cell = list(csv.reader(io.StringIO(res.stdout)))[1][0]
    assert len(orjson.loads(cell)) == 4
    res = run("stats")
    assert res.exit_code == 0 and "declarer_success" in res.stdout


def test_sql_reads_the_export_and_nothing_else_unless_external(
        tmp_path: Path, corpus: list[list[Event]]) -> None:
    """``jaslog sql`` over a store's export reads its views, and no other file (the store's
    private key beside it included), no folder listing, nothing over the network, no
    extension; ``--external`` lets a query read another file."""
    db = tmp_path / "club.sqlite"
    res = run("import", "--db", str(db), str(write_log(tmp_path / "games.jsonl", corpus[:4])))
    assert res.exit_code == 0, res.output
    [key] = (tmp_path / "club.sqlite.keys").glob("*.key")
    res = run("sql", "SELECT count(*) AS n FROM games", "--db", str(db), "--csv")
    assert (res.exit_code, res.stdout) == (0, "n\n4\n"), res.output
    for query in (f"SELECT content FROM read_text('{key}')",
                  f"SELECT * FROM read_csv('{db}')",
                  f"SELECT file FROM glob('{tmp_path}/**')",
                  "SELECT * FROM 'https://example.com/games.parquet'"):
        res = run("sql", query, "--db", str(db), "--no-refresh")
        assert res.exit_code == 2 and res.stdout == "", (query, res.stdout)
        said = " ".join(res.stderr.split())
        assert "disabled by configuration: a query reads the export's views only (jaslog sql " \
               "--external lets it read other files and the network)" in said, (query, said)
        assert "Traceback" not in res.output
    # an extension is neither installed nor loaded for a query (here: to read the store)
    res = run("sql", f"SELECT * FROM sqlite_scan('{db}', 'events')", "--db", str(db),
              "--no-refresh")
    assert res.exit_code == 2 and "it exists in the sqlite_scanner extension" in res.stderr
    assert "install" not in res.stderr
    res = run("sql", "SELECT current_setting('autoinstall_known_extensions') AS i, "
              "current_setting('autoload_known_extensions') AS l, "
              "current_setting('lock_configuration') AS c", "--db", str(db), "--no-refresh",
              "--csv")
    assert (res.exit_code, res.stdout) == (0, "i,l,c\nFalse,False,True\n"), res.output
    secret = tmp_path / "note.txt"
    secret.write_text("kept\n")
    res = run("sql", f"SELECT content FROM read_text('{secret}')", "--db", str(db),
              "--no-refresh", "--external", "--csv")
    assert res.exit_code == 0 and "kept" in res.stdout, res.output
