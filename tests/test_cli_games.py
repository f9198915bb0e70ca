"""``jaslog games`` on a club's season (a real SQLite store of some sixty games): the
filters the API has, pages with --limit and --cursor, and the refusals."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.cli import jaslog
from tests.service.season import SeasonGame, make_season


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[SeasonGame]]:
    db = tmp_path_factory.mktemp("season") / "season.sqlite"
    return str(db), make_season(db)


def ids(db: str, *args: str) -> list[str]:
    r = jaslog("games", "--json", "--db", db, *args, text=True)
    assert r.returncode == 0, r.stderr
    return [orjson.loads(line)["game"] for line in r.stdout.splitlines()]


def test_every_game_without_a_limit_as_before(season):
    db, games = season
    assert ids(db) == [g.game for g in games]
    assert ids(db, "--newest") == [g.game for g in games][::-1]


def test_pages_go_on_with_the_cursor_printed_on_stderr(season):
    db, games = season
    seen: list[str] = []
    args = ["--limit", "25", "--player", "cor"]
    for _ in range(20):
        r = jaslog("games", "--json", "--db", db, *args, text=True)
        assert r.returncode == 0, r.stderr
        seen += [orjson.loads(line)["game"] for line in r.stdout.splitlines()]
        more = [ln for ln in r.stderr.splitlines() if ln.startswith("more: --cursor ")]
        if not more:
            break
        args = ["--limit", "25", "--player", "cor", "--cursor", more[0].split()[-1]]
    assert seen == [g.game for g in games if "cor" in g.seats]


def test_the_filters(season):
    db, games = season
    assert ids(db, "--player", "Ann de Vries") == [g.game for g in games if "ann" in g.seats]
    assert ids(db, "--ruleset", "rotterdam") == [g.game for g in games if g.ruleset == "rotterdam"]
    assert ids(db, "--from", "2026-03-05", "--to", "2026-03-06") == \
        [g.game for g in games if "2026-03-05" <= g.at[:10] <= "2026-03-06"]
    assert ids(db, "--table", "2") == [g.game for g in games if g.table == "2"]
    assert ids(db, "--event", "NIGHT 2026-03-07") == \
        [g.game for g in games if g.event.endswith("2026-03-07")]
    assert ids(db, "--tournament", "spring") == [g.game for g in games if g.tournament]
    assert ids(db, "--status", "live") == [g.game for g in games if g.live]
    assert ids(db, "--status", "finished", "--table", "1", "--limit", "5") == \
        [g.game for g in games if not g.live and g.table == "1"][:5]


def test_winner_matches_what_show_says(season):
    db, games = season
    won = ids(db, "--winner", "eva")
    assert won
    for gid in won[:3]:
        shown = orjson.loads(jaslog("show", gid, "--json", "--db", db).stdout)
        seats = next(g.seats for g in games if g.game == gid)
        w = shown["winner"]
        assert "eva" in ([seats[w], seats[w + 2]] if len(seats) == 4 else [seats[w]])
    lost = set(ids(db, "--player", "eva", "--status", "finished")) - set(won)
    assert lost and not lost & set(won)


def test_bad_status_and_cursor_are_refused(season):
    db, _ = season
    r = jaslog("games", "--db", db, "--status", "over", text=True)
    assert r.returncode == 2 and "live or finished" in r.stderr
    r = jaslog("games", "--db", db, "--cursor", "nonsense", text=True)
    assert r.returncode == 2 and "--cursor nonsense" in r.stderr
    r = jaslog("games", "--db", db, "--to", "2026-02-30", text=True)
    assert r.returncode == 2 and "2026-02-30" in r.stderr and "Traceback" not in r.stderr


def test_the_table_lists_the_page(season, tmp_path: Path):
    db, games = season
    r = jaslog("games", "--db", db, "--limit", "2", "--newest", text=True)
    assert games[-1].game in r.stdout and games[-2].game in r.stdout
    assert games[-3].game not in r.stdout and "more: --cursor" in r.stderr
