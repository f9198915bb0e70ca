"""``make load`` runs end to end: a real server, real clients, figures printed (not timed)."""

from __future__ import annotations

import json
import pstats
from pathlib import Path

import pytest

from benchmarks.load import main


@pytest.mark.soak
def test_the_load_script_appends_reads_and_reports(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--games", "6", "--clients", "3", "--seconds", "1.5", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["appends"] > 0 and out["errors"] == {}
    assert out["read_ms"]["reads"] > 0 and out["append_ms"]["p99"] >= out["append_ms"]["p50"]
    assert (out["games"], out["clients"], out["store"]) == (6, 3, "sqlite")


@pytest.mark.soak
def test_the_online_room_plays_its_tables_to_the_end(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    monkeypatch.setenv("JASLOG_NONCE_WAIT", "5")  # as the script sets it, undone after
    main(["--runs", "online-room", "--tables", "2", "--seconds", "60", "--think", "0.01",
          "--client-processes", "2", "--profile", str(tmp_path / "room.prof"), "--json"])
    out = json.loads(capsys.readouterr().out)["online_room"]
    # two deals a table: four nonces, a bid at least (forehand may choose at once) and 32
    # cards each; the bots wait for their turn and answer at once, so no clock runs out
    assert out["tables"] == 2 and out["games_finished"] == 2 and out["moves"] >= 2 * 2 * 37
    assert out["seconds"] < 60 and out["move_ms"]["p99"] >= out["move_ms"]["p50"]
    assert (out["timeouts"], out["server_caused_timeouts"], out["errors"]) == (0, 0, {})
    assert out["client_processes"] == 2
    # every long poll is timed, and none is answered long after the wait it asked for
    polls = out["long_poll_s"]
    assert polls["polls"] >= out["moves"] and polls["over_asked"] == 0
    assert 0 <= polls["p50"] <= polls["p99"] <= polls["max"] <= 26
    # the served process ran under cProfile, every thread: the turn route's work is in it
    profiled = pstats.Stats(str(tmp_path / "room.prof"))
    assert any(name == "turn_of" and file.endswith("api_record.py")
               for file, _, name in profiled.stats)  # type: ignore[attr-defined]


@pytest.mark.soak
def test_the_load_script_serves_with_workers(capsys: pytest.CaptureFixture[str]) -> None:
    """``--workers 2``: the served process runs two workers, the appends go through, and the
    server's CPU counts its workers' (more than the supervisor, which answers nothing)."""
    main(["--games", "6", "--clients", "3", "--seconds", "1.5", "--workers", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["workers"] == 2 and out["appends"] > 0 and out["errors"] == {}
    assert out["cpu_ms_per_append"]["server"] > 0.1


@pytest.mark.soak
def test_the_load_script_profiles_each_worker(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    """``--workers 2 --profile OUT``: the supervisor's profile in ``OUT``, and each worker's,
    every thread of it, in ``OUT.<pid>``: the requests the workers answered are in theirs."""
    out_path = tmp_path / "served.prof"
    main(["--games", "6", "--clients", "3", "--seconds", "1.5", "--workers", "2",
          "--profile", str(out_path), "--json"])
    assert json.loads(capsys.readouterr().out)["appends"] > 0
    assert out_path.exists()
    workers = sorted(tmp_path.glob("served.prof.*"))
    assert len(workers) == 2
    for p in workers:
        assert p.suffix[1:].isdigit()
        profiled = pstats.Stats(str(p))
        assert any(name == "__call__" and file.endswith("fast_append.py")
                   for file, _, name in profiled.stats)  # type: ignore[attr-defined]
