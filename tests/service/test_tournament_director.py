"""The director's routes of a tournament (the service in this process, on a real SQLite file):
table cards with a scorer token, its link and a QR code per table; the move clock set; and
who may call them (an admin or the tournament's director; a scorer's or a seat's token is
403 with its code, an unknown query parameter 422)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import segno

from tests.service.inprocess import Live, live_service

PLAYERS = [f"d{i}" for i in range(8)]
ONE_DEAL = {"game_end": {"type": "deals", "count": 1}}


@pytest.fixture
def live(tmp_path: Path) -> Any:
    with live_service(tmp_path) as lv:
        r = lv.post("/api/tournaments", {"id": "desk", "name": "Directeursbeker",
                                         "players": PLAYERS, "seed": 4, "options": ONE_DEAL},
                    status=201)
        assert r.json()["status"] == "playing"
        svc = lv.app.state.service
        lv.tokens["director"] = lv.post("/api/tournaments/desk/tokens", {"role": "referee"},
                                        status=201).json()["token"]
        lv.tokens["other_director"] = svc.tokens.create("referee", tournament="elsewhere")[0]
        lv.tokens["scorer"] = lv.post("/api/tournaments/desk/tokens",
                                      {"role": "scorer", "table": "1"}, status=201).json()["token"]
        lv.tokens["seat"] = svc.tokens.create("seat", game="desk-r1-t1", seat=0)[0]
        lv.tokens["player"] = svc.tokens.create("player", player="d1")[0]
        yield lv


def test_table_cards_give_each_table_a_scorer_link_and_its_qr_code(live: Live):
    r = live.post("/api/tournaments/desk/table-cards", {}, role="director", status=201)
    body = r.json()
    assert (body["tournament"], body["name"], body["round"]) == ("desk", "Directeursbeker", 1)
    cards = body["cards"]
    standing = live.get("/api/tournaments/desk")["rounds"][0]["tables"]
    assert [c["table"] for c in cards] == [1, 2]
    for card, table in zip(cards, standing, strict=True):
        assert card["game"] == table["game"] and card["teams"] == table["teams"]
        # the link opens the table's pad, the token in the fragment (never sent to a server)
        assert card["link"] == f"http://testserver/record/{card['game']}#token={card['token']}"
        svg = card["qr_svg"]
        assert svg.startswith("<svg ") and 'class="qr"' in svg and "viewBox" in svg
        assert re.search(r"<path [^>]*d=\"M", svg)
        # the QR code is the link's, as segno draws it (error correction M)
        code = segno.make(card["link"], error="m", micro=False)
        assert svg == code.svg_inline(scale=4, omitsize=True, svgclass="qr",
                                      title=f"table {card['table']}: scorer's pad of "
                                            f"{card['game']}")
        # the token records its table's game of this tournament
        who = live.client.get("/api/whoami", headers={"Authorization": f"Bearer {card['token']}"})
        assert who.status_code == 200, who.text
        assert (who.json()["role"], who.json()["table"]) == ("scorer", str(card["table"]))
    # and no other table's game
    r = live.client.post(f"/api/games/{cards[1]['game']}/events",
                         json={"expected_seq": 1, "events": [{"type": "note", "seat": 0,
                                                              "text": "not my table"}]},
                         headers={"Authorization": f"Bearer {cards[0]['token']}"})
    assert r.status_code == 403, r.text
    # one table, for an admin; a table the round has not is said
    one = live.post("/api/tournaments/desk/table-cards", {"tables": [2]}, status=201).json()
    assert [c["table"] for c in one["cards"]] == [2]
    bad = live.post("/api/tournaments/desk/table-cards", {"tables": [3]}, status=422).json()
    assert bad["code"] == "bad_table" and "tables 1 to 2" in bad["message"]
    assert live.post("/api/tournaments/desk/table-cards", {"round": 2},
                     status=404).json()["code"] == "no_such_round"


def test_the_move_clock_is_set_from_the_director_s_desk(live: Live):
    r = live.post("/api/tournaments/desk/clock-settings",
                  {"move_limit_s": 45, "on_timeout": "autoplay"}, role="director", status=200)
    assert r.json() == {"tournament": "desk", "move_limit_s": 45, "on_timeout": "autoplay"}
    st = live.get("/api/tournaments/desk")
    assert (st["move_limit_s"], st["on_timeout"], st["time_limit"]["limit"]) == \
        (45, "autoplay", 45)
    # what is left out stays; the last setting holds
    live.post("/api/tournaments/desk/clock-settings", {"move_limit_s": 20}, status=200)
    st = live.get("/api/tournaments/desk")
    assert (st["move_limit_s"], st["on_timeout"]) == (20, "autoplay")
    for body, code in (({}, "nothing_to_set"), ({"move_limit_s": 0}, None),
                       ({"on_timeout": "panic"}, None), ({"limit": 5}, None)):
        r = live.post("/api/tournaments/desk/clock-settings", body, status=422)
        if code is not None:
            assert r.json()["code"] == code


@pytest.mark.parametrize("role", ["scorer", "seat", "player", "public", "other_director"])
@pytest.mark.parametrize(("path", "body"), [
    ("/api/tournaments/desk/table-cards", {}),
    ("/api/tournaments/desk/clock-settings", {"move_limit_s": 10}),
    ("/api/tournaments/desk/rounds", None),
])
def test_only_an_admin_or_the_director_may(live: Live, role: str, path: str, body: Any):
    r = live.post(path, body, role=role, status=403)
    code = r.json()["code"]
    assert code == ("other_tournament" if role == "other_director" else "forbidden"), r.text
    assert r.json()["message"]
    # nothing was issued or changed
    assert live.get("/api/tournaments/desk")["move_limit_s"] == 30


def test_unknown_parameters_are_refused(live: Live):
    r = live.client.post("/api/tournaments/desk/table-cards?print=1", json={},
                         headers=live.as_("director"))
    assert r.status_code == 422 and r.json()["code"] == "unknown_parameter", r.text
    r = live.post("/api/tournaments/desk/table-cards", {"table": 1}, status=422)
    assert "table" in r.text


def test_cards_of_an_unknown_tournament_are_404(live: Live):
    assert live.post("/api/tournaments/nope/table-cards", {},
                     status=404).json()["code"] == "no_such_tournament"
