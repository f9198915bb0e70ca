"""``jaslog tournament new --online``, ``tokens`` (the seats' links) and ``play --bots`` on an
online tournament, on a real SQLite store: its games are online games, the bots play them
from the seats (nonces sent, the server deals), the standing shows the round, and
``jaslog verify --deals`` checks every deal of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli import jaslog

PLAYERS = "w1,w2,w3,w4,w5,w6,w7,w8"
ENV = {"JASLOG_NONCE_WAIT": "3"}  # the bots send every nonce: no deal waits for it


def ok(*args: str) -> tuple[str, str]:
    r = jaslog(*args, text=True, env=ENV)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    return r.stdout, r.stderr


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "online-cup.sqlite")
    out, _ = ok("tournament", "new", "--db", path, "--name", "Webbeker", "--players", PLAYERS,
                "--id", "web", "--seed", "5", "-o", "game_end=deals:1", "--online",
                "--clock", "15", "--json")
    st = json.loads(out)
    assert st["online"] is True and st["move_limit_s"] == 15 and st["on_timeout"] == "autoplay"
    return path


def show(db: str) -> dict[str, Any]:
    return dict(json.loads(ok("tournament", "show", "web", "--db", db, "--json")[0]))


def test_new_online_makes_online_games_and_tokens_prints_their_seat_links(db: str):
    lines = ok("tournament", "tokens", "web", "--round", "1", "--db", db, "--json",
               "--url", "https://jas.example")[0].splitlines()
    tables = [json.loads(line) for line in lines]
    assert [(t["table"], t["game"], t["round"]) for t in tables] == \
        [(1, "web-r1-t1", 1), (2, "web-r1-t2", 1)]
    standing = show(db)["rounds"][0]["tables"]
    for t, s in zip(tables, standing, strict=True):
        assert [x["player"] for x in t["seat_links"]] == s["seats"]
        for x in t["seat_links"]:
            assert x["link"] == f"https://jas.example/play/{t['game']}#token={x['token']}"
    out, _ = ok("tournament", "tokens", "web", "--table", "2", "--db", db)
    assert "table 2 (web-r1-t2), round 1:" in out and "table 1" not in out
    assert out.count("/play/web-r1-t2#token=jl_") == 4
    # the game's own events: the server committed its first deal
    dump = ok("dump", "web-r1-t1", "--db", db)[0]
    assert "deal_committed" in dump and '"dealt"' not in dump
    # --round is an online tournament's; --clock an online one's
    ok("tournament", "new", "--db", db, "--name", "Papier", "--players", "p1,p2,p3,p4",
       "--id", "paper")
    r = jaslog("tournament", "tokens", "paper", "--round", "1", "--db", db, text=True)
    assert r.returncode == 2 and "not_online" in r.stderr
    r = jaslog("tournament", "new", "--db", db, "--name", "x", "--players", "q1,q2,q3,q4",
               "--clock", "20", text=True)
    assert r.returncode == 2 and "bad_clock" in r.stderr


def test_bots_play_an_online_round_from_the_seats_and_every_deal_verifies(db: str):
    out, err = ok("tournament", "play", "web", "--bots", "--db", db)
    lines = err.strip().splitlines()
    assert [ln.split(" (")[0] for ln in lines] == ["table 1", "table 2"], err
    assert all("won by" in ln for ln in lines), err
    st = show(db)
    assert st["status"] == "round_over"
    tables = st["rounds"][0]["tables"]
    assert all(t["finished"] and isinstance(t["winner"], int) for t in tables)
    dealt = 0
    for t in tables:
        evs = [json.loads(line) for line in ok("dump", t["game"], "--db", db)[0].splitlines()]
        types = [e["type"] for e in evs]
        # the server dealt every round after the four seats' nonces and revealed its seed
        assert types.count("deal_committed") == types.count("deal_revealed") \
            == types.count("dealt") >= 1
        assert types.count("nonce") == 4 * types.count("dealt")
        dealt += types.count("dealt")
    out, _ = ok("verify", "--deals", "--db", db)
    assert f"{dealt} deals by the server checked, every one fair" in out
    # the winners go on, drawn into an online game again, which the bots play too
    ok("tournament", "draw", "web", "--db", db)
    done = json.loads(ok("tournament", "play", "web", "--bots", "--db", db, "--json")[0])
    assert done["round"] == 2 and [t["played"] for t in done["tables"]] == [True]
    final = show(db)
    assert final["status"] == "finished" and final["champions"] == done["tables"][0]["winners"]
    assert ok("verify", "--deals", "--db", db)[0].count("every one fair") == 1
    # a game over is left as it is
    again = json.loads(ok("tournament", "play", "web", "--bots", "--round", "1", "--db", db,
                          "--json")[0])
    assert [t["played"] for t in again["tables"]] == [False, False]
    assert all("is over" in t["reason"] for t in again["tables"])
