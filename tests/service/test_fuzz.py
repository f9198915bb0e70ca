"""Fuzz the API from its own OpenAPI schema with schemathesis: no 500s, every refusal a
documented 4xx with a JSON body that matches the schema.

Schemathesis runs as its command-line tool against a server of its own (it creates games,
tokens and tournaments, and revokes tokens it finds), as the admin, who reaches every code
path, and as a player. The endless event stream is left out (test_stream.py tests it). Bounded: a few
examples per operation and phase, a deterministic seed, and a time budget.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.service.conftest import Server, create, make_server, record, sim

#: schemathesis's command line, run by this interpreter (no console script needed)
SCHEMATHESIS = [sys.executable, "-c", "from schemathesis.cli import schemathesis; schemathesis()"]
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance," \
         "response_schema_conformance"


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from make_server(tmp_path_factory.mktemp("fuzz"))


@pytest.mark.soak
def test_schemathesis_finds_no_server_error(fuzz_server: Server, tmp_path: Path) -> None:
    s = fuzz_server
    for gid, seed in (("fuzz-klaverjas", 3),):
        events = sim(gid, seed=seed)
        with s.client("admin") as c:
            assert create(c, gid, events[0]).status_code == 201
            record(c, gid, events[1:60])
    for role, examples, budget in (("admin", "8", "30"), ("player1", "3", "10")):
        cmd = [*SCHEMATHESIS, "run", f"{s.url}/openapi.json", "--checks", CHECKS,
               "--header", f"Authorization: Bearer {s.tokens[role]}",
               "--max-examples", examples, "--seed", "7",
               "--phases", "examples,coverage,fuzzing" if role == "admin" else "examples,fuzzing",
               "--exclude-path-regex", "/stream$", "--max-time", budget, "--request-timeout", "20",
               "--no-color", "--report", "junit", "--report-dir", str(tmp_path / role)]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        out = run.stdout + run.stderr
        assert run.returncode == 0, out[-6000:]
        assert "Tested: " in out and " passed" in out, out[-3000:]
    # the run reached the core: it appended to and read real games
    with s.client("admin") as c:
        assert len(c.get("/api/games").json()) > 1


def test_the_schema_describes_every_route(server: Server) -> None:
    doc = httpx.get(server.url + "/openapi.json").json()
    paths = set(doc["paths"])
    for p in ("/api/games", "/api/games/{game}/events", "/api/games/{game}/state",
              "/api/games/{game}/audit", "/api/games/{game}/head", "/api/games/{game}/stream",
              "/api/games/{game}/replay", "/api/games/{game}/timing", "/api/oracle",
              "/api/tournaments", "/api/tournaments/{tid}/rounds", "/api/tokens", "/api/whoami"):
        assert p in paths, p
    assert doc["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    append = doc["paths"]["/api/games/{game}/events"]["post"]["responses"]
    assert {"200", "400", "401", "403", "404", "409", "413", "422"} <= set(append)
    # every route that reads a body says it may be too large (413 body_too_large)
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            if "requestBody" in op:
                assert "413" in op["responses"], (method, path)
