"""Every question by month, weekday, evening and hour, for one player's games and a span of
dates, from the command line and the service."""

from __future__ import annotations

import json

import pytest

from jaslog.stats.analytics import TIME_DIMS, Dataset, games_filter, questions
from tests.cli import jaslog
from tests.club.conftest import Season
from tests.club.season import EVENT
from tests.service.inprocess import Live

GROUPED = [q for q in questions().values() if q.dims]


@pytest.mark.parametrize("by", list(TIME_DIMS))
def test_every_question_that_groups_takes_every_time_dimension(season: Season, by: str) -> None:
    with Dataset(season.dataset) as ds:
        for q in GROUPED:
            assert by in q.groupings
            res = ds.ask(q, by)
            assert res.by == by and by in res.columns, q.name


def test_overview_by_evening_counts_the_games_of_each_evening(season: Season) -> None:
    with Dataset(season.dataset) as ds:
        res = ds.ask(questions()["overview"], "evening")
    got = {r["evening"]: r["games"] for r in res.records()}
    expected: dict[str, int] = {}
    for g in season.games:
        key = g.at[:10] + (f" {EVENT}" if g.game.startswith("comp-") else "")
        expected[key] = expected.get(key, 0) + 1
    assert got == expected


def test_weekday_and_hour_by_when_the_game_began(season: Season) -> None:
    with Dataset(season.dataset) as ds:
        days = ds.ask(questions()["overview"], "weekday").records()
        hours = ds.ask(questions()["overview"], "hour").records()
    assert [(r["weekday"], r["games"]) for r in days] == [("2 Tuesday", len(season.games))]
    assert {r["hour"]: r["games"] for r in hours} == {"19:00": 7, "21:00": 6, "22:00": 2}


def test_a_player_by_id_or_display_name_and_a_span(season: Season) -> None:
    def answer(*args: str) -> dict:
        r = jaslog("stats", "overview", "--by", "month", "--db", str(season.db), "--dataset",
                   str(season.dataset), "--no-refresh", "--json", *args, text=True)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    by_name = answer("--player", "stella ster")
    assert by_name == answer("--player", "star")
    assert {r["month"]: r["games"] for r in by_name["rows"]} == {"2026-03": 10, "2026-04": 3}
    span = answer("--player", "star", "--from", "2026-03-10", "--to", "2026-03-17")
    assert {r["month"]: r["games"] for r in span["rows"]} == {"2026-03": 4}
    both = answer("--player", "star", "--player", "ann", "--where", "finished")
    assert sum(r["games"] for r in both["rows"]) == sum(
        1 for g in season.games if g.finished and {"star", "ann"} <= set(g.seats))
    bad = jaslog("stats", "overview", "--from", "March", "--dataset", str(season.dataset),
                 "--no-refresh", text=True)
    assert bad.returncode == 2 and "--from 'March'" in bad.stderr


def test_games_filter_keeps_what_it_says() -> None:
    assert games_filter() is None
    cond = games_filter(players=["o'neil"], date_to="2026-03-10")
    assert cond == ("list_contains(players, 'o''neil') AND first_at < "
                    "TIMESTAMPTZ '2026-03-11T00:00:00+00:00'")


def test_the_service_takes_the_same(season: Season, live: Live) -> None:
    api = live.get("/api/stats/declarer_success?by=evening&player=Stella%20Ster&from=2026-03-10"
                   "&to=2026-03-24", "admin")
    r = jaslog("stats", "declarer_success", "--by", "evening", "--player", "star", "--from",
               "2026-03-10", "--to", "2026-03-24", "--db", str(season.db), "--dataset",
               str(season.dataset), "--no-refresh", "--json", text=True)
    cli = json.loads(r.stdout)
    assert api["rows"] == cli["rows"] and len(api["rows"]) == 3
    listed = live.get("/api/stats", "public")
    assert "hour" in next(q for q in listed["questions"] if q["name"] == "overview")["by"]
    bad = live.client.get("/api/stats/overview?from=soon", headers=live.as_("admin"))
    assert bad.status_code == 422 and "from 'soon'" in bad.json()["message"]
