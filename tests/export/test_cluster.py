"""The export on a real Dask cluster (a LocalCluster of two worker processes): the same
dataset and manifest, byte for byte, as a run in one process, from a store (SQLite and
PostgreSQL, each worker opening it by its URL) and from log files, full and incremental."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.events import Event
from jaslog.export import ExportError, export_files, export_store
from jaslog.store import open_store
from tests.cli import jaslog
from tests.export.test_dataset import archive, content
from tests.export.test_parallel import files

distributed = pytest.importorskip("distributed")


def _dicts(events: list[Event]) -> list[dict[str, Any]]:
    return [e.model_dump(exclude_none=True) for e in events]


@pytest.mark.soak
def test_a_store_exported_on_the_cluster_is_the_same_dataset(
        tmp_path: Path, store_url: str, corpus: list[list[Event]], cluster: str) -> None:
    games, cut = corpus[:-1], corpus[-1]
    with open_store(store_url) as store:
        for g in games[:-3]:
            archive(store, _dicts(g))
        archive(store, _dicts(cut[:150]))
        progress: list[int] = []
        one = export_store(store, tmp_path / "one", chunk_games=3, workers=0)
        many = export_store(store, tmp_path / "many", chunk_games=3, cluster=cluster,
                            progress=progress.append)
        assert one.files_added > 1 and files(tmp_path / "one") == files(tmp_path / "many")
        assert (many.games_added, many.rows_total) == (one.games_added, one.rows_total)
        assert progress[-1] == len(games) - 3 + 1 and progress == sorted(progress)
        for g in games[-3:]:  # more games, and the rest of the game in progress
            archive(store, _dicts(g))
        archive(store, _dicts(cut[150:]))
        one = export_store(store, tmp_path / "one", chunk_games=2, workers=0)
        many = export_store(store, tmp_path / "many", chunk_games=2, cluster=cluster)
        assert (many.games_added, many.games_replaced) == (one.games_added, one.games_replaced) \
            == (3, 1)
    assert files(tmp_path / "one") == files(tmp_path / "many")
    assert content(tmp_path / "one") == content(tmp_path / "many")


@pytest.mark.soak
def test_log_files_exported_on_the_cluster_from_the_command_line(
        tmp_path: Path, corpus: list[list[Event]], cluster: str) -> None:
    log = tmp_path / "games.jsonl"
    log.write_bytes(b"".join(orjson.dumps(d) + b"\n" for g in corpus for d in _dicts(g)))
    one = export_files([log], tmp_path / "one", chunk_games=2, workers=0)
    res = jaslog("export", str(tmp_path / "many"), "--from", str(log), "--chunk", "2",
                 "--cluster", cluster, "--json")
    assert res.returncode == 0, res.stderr
    out = orjson.loads(res.stdout)
    assert out["games_added"] == one.games_added == len(corpus)
    assert files(tmp_path / "one") == files(tmp_path / "many")
    assert content(tmp_path / "one") == content(tmp_path / "many")


def test_no_scheduler_at_the_address_is_said_in_a_sentence(
        tmp_path: Path, corpus: list[list[Event]], monkeypatch: pytest.MonkeyPatch) -> None:
    from jaslog.batch import cluster as on_cluster

    monkeypatch.setattr(on_cluster, "CONNECT_SECONDS", 1)
    log = tmp_path / "games.jsonl"
    log.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in _dicts(corpus[0])))
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ExportError) as err:
        export_files([log], tmp_path / "out", cluster=f"tcp://127.0.0.1:{port}")
    assert err.value.code == "cluster_unreachable"
    assert f"no Dask scheduler answers at tcp://127.0.0.1:{port} within 1 s" in str(err.value)
    assert not (tmp_path / "out" / "current").exists()


def test_workers_and_a_cluster_together_are_refused(tmp_path: Path) -> None:
    res = jaslog("export", str(tmp_path / "out"), "--from", str(tmp_path / "none.jsonl"),
                 "--workers", "2", "--cluster", "tcp://127.0.0.1:1", text=True)
    assert res.returncode == 2
    assert "--workers and --cluster both say who folds the games: give one" in res.stderr
