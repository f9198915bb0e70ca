"""GET /api/stats and GET /api/stats/{question}: the questions ``jaslog stats`` answers, over
the service's Parquet export, the same figures as the command line's ``--json`` (every game
for an admin or a referee, ``--public`` for any other token), and nothing of a round the
public may not see."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from jaslog.events import event_from_dict
from jaslog.play.views import FULL, PUBLIC, report, timeline
from jaslog.service.auth import Tokens
from jaslog.service.db import service_engine
from jaslog.stats.analytics import Dataset, questions
from tests.cli import jaslog
from tests.service.conftest import start_server, stop_server
from tests.service.inprocess import Live, live_service
from tests.service.stats_club import SEATS as SEATS_OF_FOUR
from tests.service.stats_club import Club, make_club


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Club:
    return make_club(tmp_path_factory.mktemp("club"))


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, club: Club) -> Iterator[Live]:
    """The service, its statistics answered from the club's export; a token of every role."""
    with live_service(tmp_path_factory.mktemp("service"), players=["ann"]) as lv:
        lv.app.state.dataset = club.dataset
        tokens = Tokens(lv.app.state.service.engine)
        lv.tokens["scorer"] = tokens.create("scorer", table="1")[0]
        yield lv


def cli_answer(club: Club, name: str, *args: str) -> Any:
    r = jaslog("stats", name, "--dataset", str(club.dataset), "--no-refresh", "--json", *args,
               text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def api_answer(lv: Live, name: str, role: str, by: str | None = None) -> Any:
    url = f"/api/stats/{name}" + (f"?by={by}" if by else "")
    return lv.get(url, role)


#: Questions of every kind of source (the overview's counts, revokes from the violations,
#: a question over rounds): the fast test's; the slow one asks every question.
SOME = ("overview", "revokes", "declarer_success")


def _same_as_the_command_line(live: Any, club: Any, names: Any) -> None:
    for name in names:
        full = cli_answer(club, name)
        public = cli_answer(club, name, "--public")
        assert public["public"] is True and "public" not in full
        assert api_answer(live, name, "admin") == full, name
        assert api_answer(live, name, "public") == public, name


@pytest.mark.soak
@pytest.mark.slow
def test_every_answer_is_the_command_lines(live, club):
    """Each question, for an admin as `jaslog stats Q --json` prints it, for the public as
    `jaslog stats Q --public --json` does (``make soak``; ``make test`` asks some of each
    kind, below)."""
    _same_as_the_command_line(live, club, questions())


@pytest.mark.soak
def test_answers_are_the_command_lines_for_every_role(live, club):
    """Some questions as the command line answers them, for an admin and the public; grouped
    by each dimension of one question; and for every role, the referee's as the admin's, a
    player's and a scorer's as the public's."""
    _same_as_the_command_line(live, club, SOME)
    for by in questions()["overview"].dimensions[1:]:
        assert api_answer(live, "overview", "admin", by) == cli_answer(club, "overview", "--by", by)
        assert api_answer(live, "overview", "public", by) == \
            cli_answer(club, "overview", "--by", by, "--public")
    full, public = cli_answer(club, "revokes"), cli_answer(club, "revokes", "--public")
    assert full != public
    assert api_answer(live, "revokes", "referee") == full
    for role in ("ann", "scorer"):
        assert api_answer(live, "revokes", role) == public, role


def _report(events: list[dict[str, Any]], sight: Any) -> dict[str, Any]:
    return report(timeline(event_from_dict(e) for e in events), sight)


def test_the_public_counts_only_what_the_viewer_shows_it(live, club):
    """The public's overview counts the finished games, and of them the violations a public
    token's audit lists: not the revoke of the round a referee stopped (its hands stay
    secret), nor anything of a game in play. The admin's counts everything."""
    reports = {g: _report(evs, PUBLIC) for g, evs in club.games.items()}
    full = {g: _report(evs, FULL) for g, evs in club.games.items()}
    finished = [g for g, r in full.items() if r["finished"]]
    assert club.stopped in finished and not set(club.live) & set(finished)
    # the stopped round's revoke: in the referee's audit, not in the public's
    assert len(full[club.stopped]["violations"]) == len(reports[club.stopped]["violations"]) + 1

    public = {r["ruleset"]: r for r in api_answer(live, "overview", "public")["rows"]}
    admin = {r["ruleset"]: r for r in api_answer(live, "overview", "admin")["rows"]}
    for rs in admin:
        mine = [g for g in finished if full[g]["ruleset"] == rs]
        assert public[rs]["games"] == public[rs]["finished"] == len(mine), rs
        assert public[rs]["violations"] == sum(len(reports[g]["violations"]) for g in mine), rs
        every = [g for g in club.games if full[g]["ruleset"] == rs]
        assert admin[rs]["games"] == len(every)
        assert admin[rs]["violations"] == sum(len(full[g]["violations"]) for g in every), rs
    assert public["amsterdam"]["violations"] < admin["amsterdam"]["violations"]

    # revokes by rule: the public's sum is what its audits show of the finished games
    shown = sum(1 for g in finished for v in reports[g]["violations"] if v["trick"] is not None
                and v["card"] is not None)
    counted = sum(r["revokes"] for r in api_answer(live, "revokes", "public")["rows"])
    assert counted == shown


def test_the_public_sees_no_event_payload_and_no_secret_round(club):
    """Below the questions: the public's views hold no event payload (a Klaberjass stock is
    in it) and none of the rounds that ended with cards unplayed, which are exactly the
    rounds the viewer keeps secret in the finished games."""
    with Dataset(club.dataset, public=True) as ds:
        assert ds.query("SELECT count(*) FROM events WHERE payload IS NOT NULL").rows == [(0,)]
        assert ds.query("SELECT count(*) FROM events").rows[0][0] > 1000
        games = {g for (g,) in ds.query("SELECT game FROM games").rows}
        kept = set(ds.query("SELECT DISTINCT game, round FROM plays").rows)
    with Dataset(club.dataset) as ds:
        every = set(ds.query("SELECT DISTINCT game, round FROM plays").rows)
    for g, evs in club.games.items():
        tl = timeline(event_from_dict(e) for e in evs)
        if g not in games:
            assert tl.live_round is not None, g
            continue
        played = {r for (gg, r) in every if gg == g}
        assert {r for (gg, r) in kept if gg == g} == played - set(tl.secret_rounds), g
    assert (club.stopped, 16) in every and (club.stopped, 16) not in kept


def test_the_list_of_questions_and_who_sees_what(live, club):
    body = live.get("/api/stats", "admin")
    assert body["view"] == "full" and body["dataset"]["version"] == 1
    assert [q["name"] for q in body["questions"]] == list(questions())
    overview = next(q for q in body["questions"] if q["name"] == "overview")
    assert overview["by"][0] == "ruleset" and overview["notes"]
    roles = next(q for q in body["questions"] if q["name"] == "declarer_success")
    assert roles["plot"] == {"x": "<by>", "y": "made_rate"}
    assert live.get("/api/stats", "referee")["view"] == "full"
    for role in ("public", "ann", "scorer"):
        assert live.get("/api/stats", role)["view"] == "public"
    assert live.client.get("/api/stats").status_code == 401
    assert live.client.get("/api/stats/overview").status_code == 401


def test_refusals_say_what_to_do(live, club, tmp_path):
    r = live.client.get("/api/stats/no_such_thing", headers=live.as_("public"))
    assert r.status_code == 404 and r.json()["code"] == "no_such_question"
    assert "overview" in r.json()["message"]
    r = live.client.get("/api/stats/overview?by=colour", headers=live.as_("admin"))
    assert r.status_code == 422 and r.json()["code"] == "bad_dimension"
    assert "ruleset" in r.json()["message"]
    r = live.client.get("/api/stats/Overview;DROP", headers=live.as_("admin"))
    assert r.status_code == 422
    saved = live.app.state.dataset
    live.app.state.dataset = tmp_path / "nothing"
    try:
        r = live.client.get("/api/stats/overview", headers=live.as_("admin"))
        assert r.status_code == 404 and r.json()["code"] == "no_dataset"
        assert "jaslog export" in r.json()["message"]
        assert live.get("/api/stats", "admin")["dataset"] is None
    finally:
        live.app.state.dataset = saved


def test_the_command_line_says_an_answer_is_the_publics(club):
    r = jaslog("stats", "overview", "--dataset", str(club.dataset), "--db", str(club.db),
               "--public", env={"COLUMNS": "200"}, text=True)
    assert r.returncode == 0, r.stderr
    assert "finished games only" in r.stdout


@pytest.mark.slow
@pytest.mark.soak
def test_serve_answers_from_the_export_beside_the_store(club, tmp_path):
    """`jaslog serve` without --dataset answers from the `parquet` folder beside its SQLite
    store, as `jaslog stats` does (here: the club's export)."""
    tokens = Tokens(service_engine(str(club.db)))
    token = tokens.create("public")[0]
    tokens.engine.dispose()
    proc, url = start_server(club.db, tmp_path / "server.log")
    try:
        r = httpx.get(f"{url}/api/stats/overview", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        assert r.json() == cli_answer(club, "overview", "--public")
    finally:
        stop_server(proc)

    h = jaslog("serve", "--help", env={"COLUMNS": "200"}, text=True)
    assert "--dataset" in h.stdout and "JASLOG_EXPORT" in h.stdout


def test_a_director_counts_its_own_tournaments_games_only(tmp_path):
    """A tournament director's token (a referee token of a tournament) is answered over its
    tournament's games only, whole: not another tournament's, not the club's."""
    from jaslog.export import export_store
    from jaslog.play.sim import simulate_game
    from jaslog.store import open_store

    games = {}
    for i, (gid, tournament) in enumerate((("cup-r1-t1", "cup"), ("cup-r1-t2", "cup"),
                                           ("open-r1-t1", "open"), ("club-1", None))):
        evs = simulate_game(gid, "amsterdam", seed=300 + i, seats=SEATS_OF_FOUR)
        if tournament is not None:
            evs[0]["meta"] = {"table": "1", "tournament": tournament}
        games[gid] = evs
    dataset = tmp_path / "parquet"
    with open_store(str(tmp_path / "club.sqlite")) as store:
        assert not store.import_lines(json.dumps(e) for g in games.values() for e in g).rejected
        export_store(store, dataset)
    with live_service(tmp_path / "service") as lv:
        lv.app.state.dataset = dataset
        tokens = Tokens(lv.app.state.service.engine)
        lv.tokens["director"] = tokens.create("referee", tournament="cup")[0]
        every = {r["ruleset"]: r for r in api_answer(lv, "overview", "admin")["rows"]}
        assert every["amsterdam"]["games"] == 4
        assert api_answer(lv, "overview", "referee")["rows"] == \
            api_answer(lv, "overview", "admin")["rows"]
        mine = {r["ruleset"]: r for r in api_answer(lv, "overview", "director")["rows"]}
        assert mine["amsterdam"]["games"] == 2, mine
        with Dataset(dataset, where="game LIKE 'cup-%'") as ds:
            only_cup = ds.ask(questions()["overview"]).to_json()["rows"]
        assert api_answer(lv, "overview", "director")["rows"] == only_cup
        listed = lv.get("/api/stats", "director")
        assert (listed["view"], listed["tournament"]) == ("tournament", "cup")
        assert lv.get("/api/stats", "referee")["view"] == "full"
