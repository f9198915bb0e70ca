"""Ratings: openskill Plackett-Luce over the finished games, the same from the store and
from the export, from the command line and the service."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from jaslog.export import load_manifest
from jaslog.export.ratings import latest
from jaslog.stats.analytics import AnalyticsError
from jaslog.stats.ratings import as_of_time, export_ratings, standings_of, store_ratings
from jaslog.store import open_store
from tests.cli import jaslog
from tests.club.conftest import Season
from tests.service.inprocess import Live


def klaverjas(rows: list[dict]) -> list[str]:
    return [r["player"] for r in rows if r["kind"] == "klaverjas"]


def test_the_player_always_on_the_winning_side_ranks_first_and_the_loser_last(
        season: Season) -> None:
    ranked = klaverjas(standings_of(export_ratings(season.dataset)))
    assert ranked[0] == "star"
    assert ranked[-1] == "dud"
    assert len(ranked) == 8


def test_the_store_and_the_export_give_the_same_ratings(season: Season) -> None:
    with open_store(str(season.db), create=False) as store:
        rebuilt = store_ratings(store)
    exported = export_ratings(season.dataset)
    key = lambda r: (r.kind, r.player, r.games)  # noqa: E731
    assert sorted(rebuilt, key=key) == sorted(exported, key=key)
    assert len(rebuilt) == 12 * 4 + 2 * 2  # a row per player per finished game


def test_only_finished_games_count_in_their_own_family(season: Season) -> None:
    rows = export_ratings(season.dataset)
    assert "comp-live" not in {r.game for r in rows}
    now = {(r.kind, r.player): r for r in latest(rows)}
    assert now[("klaverjas", "star")].games == 12
    assert now[("klaberjass", "ann")].games == 2
    assert ("klaberjass", "star") not in now


def test_as_of_gives_the_ratings_of_that_date(season: Season) -> None:
    rows = export_ratings(season.dataset)
    then = {r["player"]: r for r in standings_of(rows, kind="klaverjas",
                                                 as_of=as_of_time("2026-03-10"))}
    # the first two evenings: four games each for star and dud
    assert then["star"]["games"] == 4 and then["dud"]["games"] == 4
    assert then["star"]["after"] == "comp-01-1"
    # the same as rating only the games that ended by then
    first = [g for g in season.games if g.at < "2026-03-11"]
    assert {r.game for r in rows if r.at < datetime(2026, 3, 11, tzinfo=UTC)} == \
        {g.game for g in first if g.finished}
    final = {r["player"]: r for r in standings_of(rows, kind="klaverjas")}
    assert final["star"]["rating"] > then["star"]["rating"]
    assert "fien" not in then  # her first game is on the third evening


def test_a_bad_as_of_is_said() -> None:
    with pytest.raises(AnalyticsError, match="give a date"):
        as_of_time("last tuesday")


def test_the_export_holds_a_ratings_table(season: Season) -> None:
    loaded = load_manifest(season.dataset)
    assert loaded is not None
    assert loaded[1]["tables"]["ratings"]["rows"] == 52


def test_the_command_line_from_export_and_store(season: Season) -> None:
    args = ("ratings", "--db", str(season.db), "--dataset", str(season.dataset), "--json")
    exported = json.loads(jaslog(*args, text=True).stdout)
    rebuilt = json.loads(jaslog(*args, "--rebuild", text=True).stdout)
    assert exported["ratings"] == rebuilt["ratings"]
    assert exported["source"] == "export" and rebuilt["source"] == "store"
    assert exported["ratings"][0]["kind"] == "klaberjass"
    star = next(r for r in exported["ratings"] if r["player"] == "star")
    assert star["name"] == "Stella Ster" and star["rank"] == 1
    text = jaslog("ratings", "--db", str(season.db), "--dataset", str(season.dataset),
                  "--game", "amsterdam", text=True)
    assert text.returncode == 0, text.stderr
    assert "Stella Ster" in text.stdout and "klaberjass" not in text.stdout
    bad = jaslog("ratings", "--db", str(season.db), "--game", "skat", text=True)
    assert bad.returncode == 2 and "no such game" in bad.stderr


def test_the_service_gives_what_the_command_line_does(season: Season, live: Live) -> None:
    out = live.get("/api/ratings?game=klaverjas&as_of=2026-03-10", "public")
    cli = json.loads(jaslog("ratings", "--db", str(season.db), "--dataset",
                            str(season.dataset), "--game", "klaverjas", "--as-of", "2026-03-10",
                            "--json", "--no-refresh", text=True).stdout)
    assert out["ratings"] == cli["ratings"]
    assert out["ratings"][0]["player"] == "star"
    r = live.client.get("/api/ratings?as_of=soon", headers=live.as_("admin"))
    assert r.status_code == 422 and "as_of" in r.json()["message"]


def test_the_ratings_view_is_there_for_sql_and_for_the_public(season: Season) -> None:
    from jaslog.stats.analytics import Dataset

    for public in (False, True):
        with Dataset(season.dataset, public=public) as ds:
            rows = ds.query("SELECT player, max(games) FROM ratings WHERE kind = 'klaverjas' "
                            "GROUP BY player ORDER BY player").rows
        assert dict(rows)["star"] == 12, public


def test_the_ratings_are_openskills_own_to_the_last_bit() -> None:
    """``rate`` hands openskill's ``rate`` sides that it copies without ``copy.deepcopy``:
    every number is the one openskill gives for the same games passed as plain lists."""
    from openskill.models import PlackettLuce

    from jaslog.export.ratings import START_RATING, START_UNCERTAINTY, Outcome, rate

    names = ["ann", "bob", "cas", "dee", "eve", "fay"]
    games = [Outcome(f"g-{i}", "klaverjas", "", i, None,
                     ((names[i % 6], names[(i + 2) % 6]), (names[(i + 1) % 6], names[(i + 3) % 6])),
                     (1000 + 37 * (i % 5), 1000 + 53 * (i % 3))) for i in range(30)]
    games += [Outcome(f"k-{i}", "kloepper", "", 100 + i, None, tuple((n,) for n in names[:4]),
                      (i % 3, 2, 5 - i % 4, 2)) for i in range(10)]
    model = PlackettLuce(mu=START_RATING, sigma=START_UNCERTAINTY)
    now: dict[tuple[str, str], Any] = {}
    theirs = []
    for o in games:
        teams = [[now.get((o.kind, p)) or model.rating(name=p) for p in side] for side in o.sides]
        for side, new in zip(o.sides, model.rate(teams, scores=list(o.scores)), strict=True):
            for p, r in zip(side, new, strict=True):
                now[(o.kind, p)] = r
                theirs.append((o.game, p, r.mu.hex(), r.sigma.hex()))
    ours = [(r.game, r.player, r.rating.hex(), r.uncertainty.hex()) for r in rate(games)]
    assert ours == theirs and len(ours) == 30 * 4 + 10 * 4
