"""GET /api/games on a club's season (some sixty games in a real SQLite store): cursor paging
in both orders, every filter, and the refusals (an unknown parameter, a bad cursor); and a
page cut short by the scan budget, on a store of more games than one look-up batch."""

from __future__ import annotations

import json
import shutil
import warnings
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from jaslog.games import game_of, get_game
from jaslog.service import create_app
from jaslog.store import open_store
from jaslog.store.queries import winning_players
from tests.service.season import START, SeasonGame, make_season

with warnings.catch_warnings():  # Starlette's notice that it would rather have httpx2
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient


@pytest.fixture(scope="module")
def season_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[SeasonGame]]:
    db = tmp_path_factory.mktemp("season") / "season.sqlite"
    return db, make_season(db)


class Api:
    def __init__(self, client: TestClient, tokens: dict[str, str]) -> None:
        self.client, self.tokens = client, tokens

    def get(self, role: str = "admin", **params: Any) -> Any:
        return self.client.get("/api/games", params=params,
                               headers={"Authorization": f"Bearer {self.tokens[role]}"})

    def ids(self, **params: Any) -> list[str]:
        r = self.get(**params)
        assert r.status_code == 200, r.text
        return [g["game"] for g in r.json()]

    def all_ids(self, **params: Any) -> list[str]:
        """Every page, following X-Next-Cursor."""
        out: list[str] = []
        cursor = None
        for _ in range(1000):
            r = self.get(**params, **({"cursor": cursor} if cursor else {}))
            assert r.status_code == 200, r.text
            out += [g["game"] for g in r.json()]
            cursor = r.headers.get("x-next-cursor")
            if cursor is None:
                return out
        raise AssertionError("the pages never ended")


def serve(db: Path) -> Iterator[Api]:
    app = create_app(str(db))
    svc = app.state.service
    tokens = {"admin": svc.tokens.create("admin")[0], "public": svc.tokens.create("public")[0]}
    with TestClient(app) as client:
        yield Api(client, tokens)


@pytest.fixture(scope="module")
def api(season_db: tuple[Path, list[SeasonGame]], tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[Api]:
    db = tmp_path_factory.mktemp("served") / "season.sqlite"
    shutil.copy(season_db[0], db)
    yield from serve(db)


#: the games of the store of started games, and (patched) how many games the listing looks
#: up in one batch and at most for one page: the club night of 2026-03-05 (games 20-25)
#: straddles the first page's end
MANY, BATCH = 30, 22


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Api, list[tuple[str, str]]]]:
    """A store of MANY games, each only started (a club night's event in its meta), served;
    and each game's id and event, oldest first."""
    db = tmp_path_factory.mktemp("many") / "many.sqlite"
    games, lines = [], []
    for i in range(MANY):
        at = START + timedelta(hours=4 * i)
        gid, event = f"night-{i:04d}", f"club night {at.date().isoformat()}"
        games.append((gid, event))
        lines.append(json.dumps({
            "game": gid, "seq": 0, "type": "game_started", "at": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "ruleset": "amsterdam", "seats": ["ann", "bob", "cor", "dirk"], "dealer": i % 4,
            "meta": {"table": str(i % 4 + 1), "event": event}}))
    store = open_store(str(db))
    try:
        summary = store.import_lines(lines)
        assert not summary.rejected and summary.games == MANY, summary
    finally:
        store.close()
    for api in serve(db):
        yield api, games


@pytest.fixture(scope="module")
def games(season_db: tuple[Path, list[SeasonGame]]) -> list[SeasonGame]:
    return season_db[1]


def test_pages_of_fifty_by_default_with_the_next_cursor_in_a_header(api, games):
    r = api.get()
    assert r.status_code == 200
    assert [g["game"] for g in r.json()] == [g.game for g in games[:50]]
    nxt = r.headers["x-next-cursor"]
    assert r.headers["link"].endswith(f'cursor={nxt}>; rel="next"')
    assert api.ids(cursor=nxt) == [g.game for g in games[50:100]]
    # the body stays a list of games in the shape it had before paging
    assert set(r.json()[0]) == {"game", "ruleset", "scoring", "players", "seats", "dealer",
                                "table", "tournament", "created_at", "events", "last_at",
                                "view", "seat"}


def test_following_the_cursor_lists_every_game_once_in_either_order(api, games):
    every = [g.game for g in games]
    assert api.all_ids(limit=37) == every
    assert api.all_ids(limit=500) == every
    assert api.all_ids(limit=41, order="newest") == every[::-1]
    # the last page has no cursor, even when it is full
    r = api.get(limit=len(games))
    assert len(r.json()) == len(games) and "x-next-cursor" not in r.headers


def test_limit_is_at_most_500(api):
    assert api.get(limit=501).status_code == 422
    assert api.get(limit=0).status_code == 422


def test_an_unknown_parameter_is_refused_not_ignored(api):
    r = api.get(offset=100)
    assert r.status_code == 422
    assert r.json()["code"] == "unknown_parameter"
    assert "offset" in r.json()["message"] and "cursor" in r.json()["message"]


def test_a_cursor_not_made_by_the_listing_or_of_the_other_order_is_refused(api):
    nxt = api.get(limit=5).headers["x-next-cursor"]
    for bad in ("zzz", "b2xkZXN0Oi0x", nxt + "A"):
        r = api.get(cursor=bad)
        assert r.status_code == 422 and r.json()["code"] == "bad_cursor", (bad, r.text)
    assert api.get(cursor=nxt, order="newest").json()["code"] == "bad_cursor"


def test_player_by_id_or_display_name(api, games):
    ann = [g.game for g in games if "ann" in g.seats]
    assert 0 < len(ann) < len(games)
    assert api.all_ids(player="ann", limit=20) == ann
    assert api.all_ids(player="ann de vries", limit=500) == ann


def test_ruleset(api, games):
    want = [g.game for g in games if g.ruleset == "klaberjass-2p"]
    assert want and api.all_ids(ruleset="klaberjass-2p") == want


def test_date_range_takes_whole_days_and_times(api, games):
    day = [g.game for g in games if g.at.startswith(("2026-03-10", "2026-03-11"))]
    assert len(day) == 12
    assert api.all_ids(**{"from": "2026-03-10", "to": "2026-03-11"}) == day
    assert api.all_ids(**{"from": "2026-03-10T12:00:00Z", "to": "2026-03-10T20:00:00+01:00"}) \
        == [g.game for g in games if "2026-03-10T12:00:00Z" <= g.at <= "2026-03-10T19:00:00Z"]
    r = api.get(to="2026-13-01")
    assert r.status_code == 422 and "2026-13-01" in r.json()["message"]


def test_table_event_and_tournament(api, games):
    assert api.all_ids(table="3") == [g.game for g in games if g.table == "3"]
    assert api.all_ids(tournament="spring") == [g.game for g in games if g.tournament]
    assert api.all_ids(event="Club Night 2026-03-05") == \
        [g.game for g in games if g.event == "club night 2026-03-05"]
    both = api.all_ids(table="1", player="bob", limit=3)
    assert both == [g.game for g in games if g.table == "1" and "bob" in g.seats]


def test_status_live_and_finished(api, games):
    live = [g.game for g in games if g.live]
    assert api.all_ids(status="live") == live
    assert api.all_ids(status="finished", limit=100) == [g.game for g in games if not g.live]
    assert api.get(status="over").status_code == 422


def test_winner_by_player_or_draw(api, games):
    rows = api.all_ids(limit=500, summary="true")
    assert rows == [g.game for g in games]
    summary = {g["game"]: g for g in api.get(limit=500, summary="true").json()}
    kinds = {g.game: get_game(game_of(g.ruleset)).scoring for g in games}
    won_by_cor = [g.game for g in games
                  if "cor" in winning_players(kinds[g.game], g.seats, summary[g.game]["winner"])]
    assert won_by_cor and api.all_ids(winner="cor") == won_by_cor
    won_by_ann = [g.game for g in games
                  if "ann" in winning_players(kinds[g.game], g.seats, summary[g.game]["winner"])]
    assert api.all_ids(winner="Ann de Vries") == won_by_ann
    draws = [g for g, s in summary.items() if s["winner"] == "draw"]
    assert api.all_ids(winner="draw") == [g.game for g in games if g.game in draws]


def test_summary_says_where_to_open_a_game(api, games):
    page = {g["game"]: g for g in api.get(limit=500, summary="true").json()}
    for g in games:
        s = page[g.game]
        assert s["finished"] is (not g.live)
        if g.live:
            # a live game opens at its newest event
            assert s["open_seq"] == s["events"] - 1
        elif s["violations"]:
            assert s["open_seq"] == s["first_violation"] is not None
        else:
            assert s["open_seq"] is None and s["first_violation"] is None
    assert any(page[g.game]["violations"] and not g.live for g in games)
    # the public sees a live game up to the round being played only
    pub = {g["game"]: g for g in api.get("public", limit=500, summary="true").json()}
    live = next(g.game for g in games if g.live and page[g.game]["live_round"] is not None)
    assert pub[live]["open_seq"] is not None and pub[live]["open_seq"] < page[live]["open_seq"]


def test_a_short_page_with_a_cursor_when_a_looked_up_filter_leaves_most_games_out(
        many, monkeypatch):
    from jaslog.service import api_listing

    api, games = many
    monkeypatch.setattr(api_listing, "SCAN_BUDGET", BATCH)
    monkeypatch.setattr(api_listing, "LOOKUP_BATCH", BATCH)
    night = "Club Night 2026-03-05"  # the event is looked up game by game (a table or a
    r = api.get(event=night, limit=50)  # tournament is found through an index)
    first = [g["game"] for g in r.json()]
    assert first and first == [g for g, event in games[:BATCH] if event == night.lower()]
    rest = api.get(event=night, limit=50, cursor=r.headers["x-next-cursor"])
    assert [g["game"] for g in rest.json()] == [g for g, event in games[BATCH:]
                                                if event == night.lower()] != []
    assert "x-next-cursor" not in rest.headers


def test_status_and_winner_fill_a_page_through_the_store_s_index(api, games, monkeypatch):
    """status and winner are where each game stands as the store keeps it (game_results):
    however few games match, a page is full, not cut short by a look at game after game."""
    from jaslog.service import api_listing

    monkeypatch.setattr(api_listing, "SCAN_BUDGET", 20)
    live = [g.game for g in games if g.live]
    r = api.get(status="live", limit=5)
    assert [g["game"] for g in r.json()] == live[:5]
    rest = api.get(status="live", limit=50, cursor=r.headers["x-next-cursor"])
    assert [g["game"] for g in rest.json()] == live[5:55]
    by_cor = api.ids(winner="cor", limit=500)
    r = api.get(winner="cor", limit=7)
    assert [g["game"] for g in r.json()] == by_cor[:7] and len(by_cor) > 7


def test_the_store_pages_by_position(season_db):
    store = open_store(str(season_db[0]), create=False)
    try:
        first = store.game_page(limit=3)
        assert [i.game for _, i in first] == ["season-0000", "season-0001", "season-0002"]
        nxt = store.game_page(limit=2, after=first[-1][0])
        assert [i.game for _, i in nxt] == ["season-0003", "season-0004"]
        back = store.game_page(limit=2, after=first[-1][0], newest=True)
        assert [i.game for _, i in back] == ["season-0001", "season-0000"]
    finally:
        store.close()


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Api, list[str]]]:
    """A store whose games were stored in another order than they started (an old evening
    imported after a newer one), two of them at the same minute; and the games by start."""
    db = tmp_path_factory.mktemp("imported") / "imported.sqlite"
    hours = [30, 5, 50, 5, 0, 70, 20, 5, 60, 10]  # after START, in the order stored
    lines = [json.dumps({
        "game": f"old-{i:02d}", "seq": 0, "type": "game_started",
        "at": (START + timedelta(hours=h)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "ruleset": "amsterdam", "seats": ["ann", "bob", "cor", "dirk"], "dealer": 0})
        for i, h in enumerate(hours)]
    store = open_store(str(db))
    try:
        assert store.import_lines(lines).games == len(hours)
    finally:
        store.close()
    by_start = [f"old-{i:02d}" for i, _ in sorted(enumerate(hours), key=lambda x: (x[1], x[0]))]
    for api in serve(db):
        yield api, by_start


def test_sort_started_lists_by_each_game_s_start_over_every_page(imported):
    api, by_start = imported
    assert api.all_ids(limit=100) != by_start  # stored order is not the start's
    for limit in (1, 3, 4, 100):
        assert api.all_ids(limit=limit, sort="started") == by_start, limit
        assert api.all_ids(limit=limit, sort="started", order="newest") == by_start[::-1], limit
    started = [g["created_at"] for g in api.get(sort="started").json()]
    assert started == sorted(started)
    # a cursor of one order is not one of another
    nxt = api.get(limit=3, sort="started").headers["x-next-cursor"]
    assert api.get(cursor=nxt).json()["code"] == "bad_cursor"
    assert api.get(cursor=nxt, sort="started", order="newest").json()["code"] == "bad_cursor"
    assert api.get(sort="begun").status_code == 422
