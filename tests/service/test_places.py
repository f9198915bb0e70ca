"""``GET /api/games?table=`` and ``?tournament=`` find their games through the store's index
of where games are played: a club's table among thousands of games is on the first page."""

from __future__ import annotations

import json
from pathlib import Path

from tests.service.inprocess import live_service
from tests.store.test_places import started


def test_a_table_among_thousands_of_games_is_found_at_once(tmp_path: Path) -> None:
    """2,100 games, one of them at table 7, the last: it is the first page's one game. (Looked
    up game by game, at most 2000 a page, the first page came back empty, with a cursor.)"""
    with live_service(tmp_path) as lv:
        with lv.app.state.service.pool.get() as store:
            store.import_lines(json.dumps(started(f"g-{i:04d}", table=str(i % 5)))
                               for i in range(2100))
            store.import_lines([json.dumps(started("g-last", table="7", tournament="cup"))])
        for query in ("table=7", "tournament=cup", "table=7&tournament=cup"):
            r = lv.client.get(f"/api/games?{query}&limit=5", headers=lv.as_("public"))
            assert r.status_code == 200, r.text
            assert [g["game"] for g in r.json()] == ["g-last"], query
            assert "x-next-cursor" not in r.headers
        r = lv.client.get("/api/games?table=3&limit=5", headers=lv.as_("admin"))
        assert [g["game"] for g in r.json()] == ["g-0003", "g-0008", "g-0013", "g-0018",
                                                 "g-0023"]
        assert all(g["table"] == "3" for g in r.json()) and "x-next-cursor" in r.headers
