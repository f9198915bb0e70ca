"""A club's competition table: the score sheets added up, by player or pair, three ways of
counting, from the command line and the service."""

from __future__ import annotations

import json

from tests.cli import jaslog
from tests.club.conftest import Season
from tests.club.season import EVENT
from tests.service.inprocess import Live


def table(season: Season, *args: str) -> dict:
    r = jaslog("standings", "--event", EVENT, "--db", str(season.db), "--dataset",
               str(season.dataset), "--no-refresh", "--json", *args, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def sheet_points(season: Season, player: str, upto: str = "9999") -> tuple[int, int]:
    """(games, points) of ``player`` added up from the games' own totals: finished
    Klaverjas games of the event (seats 0 and 2 are team 0)."""
    games = points = 0
    for g in season.games:
        if g.finished and g.game.startswith("comp-") and player in g.seats and g.at < upto:
            games += 1
            points += g.totals[g.seats.index(player) % 2]
    return games, points


def test_standings_add_up_the_games_scores(season: Season) -> None:
    out = table(season)
    by_id = {r["players"][0]: r for r in out["rows"]}
    for p in ("star", "dud", "ann", "fien"):
        assert (by_id[p]["games"], by_id[p]["points"]) == sheet_points(season, p)
    assert by_id["star"]["player"] == "Stella Ster"
    assert by_id["star"]["won"] == 12 and by_id["dud"]["lost"] == 12
    assert by_id["star"]["evenings"] == 6
    assert sum(r["games"] for r in out["rows"]) == 12 * 4  # the live game counts nowhere


def test_match_points_rank_the_winner_first_and_the_loser_last(season: Season) -> None:
    rows = table(season, "--count", "match")["rows"]
    assert rows[0]["players"] == ["star"] and rows[0]["match_points"] == 24
    assert rows[-1]["players"] == ["dud"] and rows[-1]["match_points"] == 0
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)


def test_average_and_a_date_span(season: Season) -> None:
    rows = table(season, "--count", "average", "--from", "2026-03-03", "--to", "2026-03-10")["rows"]
    star = next(r for r in rows if r["players"] == ["star"])
    games, points = sheet_points(season, "star", "2026-03-11")
    assert (star["games"], star["points"]) == (games, points) == (4, star["points"])
    assert star["average"] == round(points / games, 2)
    averages = [r["average"] for r in rows]
    assert averages == sorted(averages, reverse=True)


def test_by_team_counts_each_pair_once_a_game(season: Season) -> None:
    rows = table(season, "--by", "team")["rows"]
    assert all(len(r["players"]) == 2 for r in rows)
    assert sum(r["games"] for r in rows) == 12 * 2
    first = next(r for r in rows if r["players"] == sorted(["star", "ann"]))
    assert "Stella Ster" in first["team"]


def test_the_plain_table_prints_and_bad_counts_are_said(season: Season) -> None:
    r = jaslog("standings", "--event", EVENT.upper(), "--db", str(season.db), "--dataset",
               str(season.dataset), "--no-refresh", text=True, env={"COLUMNS": "140"})
    assert r.returncode == 0, r.stderr
    assert "Stella Ster" in r.stdout and "match points" in r.stdout
    bad = jaslog("standings", "--event", EVENT, "--count", "goals", "--db", str(season.db),
                 "--dataset", str(season.dataset), "--no-refresh", text=True)
    assert bad.returncode == 2 and "--count 'goals'" in bad.stderr


def test_the_service_gives_the_same_table(season: Season, live: Live) -> None:
    api = live.get(f"/api/standings?event={EVENT}&count=match&by=team", "public")
    cli = table(season, "--count", "match", "--by", "team")
    assert api["rows"] == cli["rows"]
    r = live.client.get("/api/standings?event=x&from=someday", headers=live.as_("admin"))
    assert r.status_code == 422 and "from 'someday'" in r.json()["message"]
