"""Who may write where, for how long, and what nobody else reads: scorer tokens scoped to a
table of a tournament, of an event or of the club; expiry; the tokens a tournament issues
ending with it; a tournament's seed kept from all but its director and the admins; failed
authentications limited per address; no token in a log line; the store's public keys."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from jaslog.play.sim import simulate_game
from jaslog.service.auth import TokenLogFilter, Tokens, redact_tokens
from jaslog.service.db import service_engine
from jaslog.service.deps import FailedLogins
from jaslog.store.signing import PublicKey, head_message_v2
from tests.service.conftest import Server, body_of
from tests.service.inprocess import HANDS, Live, live_service

PLAYERS = ["a1", "a2", "a3", "a4"]
SEATS = ["ann", "bob", "cor", "dirk"]
ONE_DEAL = {"game_end": {"type": "deals", "count": 1}}


def token(live: Live, role: str, **kw: Any) -> str:
    text, _ = live.app.state.service.tokens.create(role, **kw)
    return text


def call(live: Live, method: str, url: str, tok: str, body: Any = None) -> httpx.Response:
    return live.client.request(method, url, json=body, headers={"Authorization": f"Bearer {tok}"})


def note(live: Live, game: str, tok: str) -> httpx.Response:
    head = live.get(f"/api/games/{game}/head")
    return call(live, "POST", f"/api/games/{game}/events", tok,
                {"expected_seq": head["next_seq"], "events": [{"type": "note", "text": "x"}]})


def cup(live: Live, tid: str) -> dict[str, Any]:
    r = live.post("/api/tournaments", {"id": tid, "name": tid, "players": PLAYERS, "seed": 5,
                                       "options": ONE_DEAL}, status=201)
    return dict(r.json())


def club_game(live: Live, gid: str, table: str = "1", **meta: Any) -> None:
    live.post("/api/games", {"game": gid, "ruleset": "amsterdam", "seats": SEATS, "dealer": 0,
                             "meta": {"table": table, **meta}}, status=201)


# ---------------------------------------------------------------------- scoped scorers


def test_a_table_token_writes_to_its_own_tournament_or_club_table_only(tmp_path: Path) -> None:
    with live_service(tmp_path) as live:
        g1 = cup(live, "cup-a")["rounds"][0]["tables"][0]["game"]
        g2 = cup(live, "cup-b")["rounds"][0]["tables"][0]["game"]
        club_game(live, "club-1")
        club = token(live, "scorer", table="1")
        of_a = token(live, "scorer", table="1", tournament="cup-a")
        # table 1 of cup-a, of cup-b and of the club are three tables
        assert note(live, g1, of_a).status_code == 200
        for game, tok in ((g2, of_a), ("club-1", of_a), (g1, club), (g2, club)):
            r = note(live, game, tok)
            assert r.status_code == 403 and r.json()["code"] == "other_scope", r.text
        assert note(live, "club-1", club).status_code == 200
        r = note(live, g2, of_a)
        assert "tournament cup-b's, not one of tournament cup-a" in r.json()["message"]
        # what a table's token sees of another's game: what the public sees
        seen = call(live, "GET", f"/api/games/{g1}", club).json()
        assert seen["view"] == "public"
        assert call(live, "GET", f"/api/games/{g1}", of_a).json()["view"] == "full"
        # a tournament's table starts no game of its own
        r = call(live, "POST", "/api/games", of_a,
                 {"game": "x-1", "ruleset": "amsterdam", "seats": SEATS, "dealer": 0})
        assert r.status_code == 403 and r.json()["code"] == "tournament_game"
        who = call(live, "GET", "/api/whoami", of_a).json()
        assert (who["table"], who["tournament"], who["event"]) == ("1", "cup-a", None)


def test_a_table_token_of_an_event_writes_to_that_events_games(tmp_path: Path) -> None:
    with live_service(tmp_path) as live:
        tok = token(live, "scorer", table="2", event="club night")
        r = call(live, "POST", "/api/games", tok,
                 {"game": "ev-1", "ruleset": "amsterdam", "seats": SEATS, "dealer": 0})
        assert r.status_code == 201, r.text
        assert live.get("/api/games/ev-1")["meta"] == {"table": "2", "event": "club night"}
        club_game(live, "ev-2", table="2", event="cup final")
        club_game(live, "ev-3", table="2")
        assert note(live, "ev-1", tok).status_code == 200
        for game in ("ev-2", "ev-3"):
            r = note(live, game, tok)
            assert r.status_code == 403 and r.json()["code"] == "other_scope"
        r = call(live, "POST", "/api/games", tok, {"game": "ev-4", "ruleset": "amsterdam",
                                                   "seats": SEATS, "dealer": 0,
                                                   "meta": {"event": "cup final"}})
        assert r.status_code == 403 and r.json()["code"] == "other_event"


def test_a_club_table_token_writes_to_no_events_table(tmp_path: Path) -> None:
    """Table 1 of the club's own games is not table 1 of an event: the club's token neither
    appends to the event's game nor sees it whole, nor starts a game of an event."""
    with live_service(tmp_path) as live:
        club_game(live, "night-1", table="1", event="club night")
        club_game(live, "own-1", table="1")
        club = token(live, "scorer", table="1")
        r = note(live, "night-1", club)
        assert r.status_code == 403 and r.json()["code"] == "other_scope", r.text
        assert "of event 'club night'" in r.json()["message"]
        assert "of no tournament and no event" in r.json()["message"]
        assert call(live, "GET", "/api/games/night-1", club).json()["view"] == "public"
        assert note(live, "own-1", club).status_code == 200
        assert call(live, "GET", "/api/games/own-1", club).json()["view"] == "full"
        r = call(live, "POST", "/api/games", club, {"game": "night-2", "ruleset": "amsterdam",
                                                    "seats": SEATS, "dealer": 0,
                                                    "meta": {"event": "club night"}})
        assert r.status_code == 403 and r.json()["code"] == "other_event", r.text
        night = token(live, "scorer", table="1", event="club night")
        assert note(live, "night-1", night).status_code == 200


def test_a_director_rules_on_its_own_tournament_only(tmp_path: Path) -> None:
    with live_service(tmp_path) as live:
        g1 = cup(live, "cup-d")["rounds"][0]["tables"][0]["game"]
        g2 = cup(live, "cup-e")["rounds"][0]["tables"][0]["game"]
        director = live.post("/api/tournaments/cup-d/tokens", {"role": "referee"},
                             status=201).json()
        assert (director["role"], director["tournament"], director["table"]) == \
            ("referee", "cup-d", None)
        tok = director["token"]
        assert note(live, g1, tok).status_code == 200
        r = note(live, g2, tok)
        assert r.status_code == 403 and r.json()["code"] == "other_tournament"
        assert call(live, "GET", f"/api/games/{g2}", tok).json()["view"] == "public"
        r = call(live, "POST", "/api/tournaments/cup-e/clock", tok)
        assert r.status_code == 403 and r.json()["code"] == "other_tournament"
        # a director hands out its tables' tokens, not other directors'
        r = call(live, "POST", "/api/tournaments/cup-d/tokens", tok, {"role": "scorer", "table": "1"})
        assert r.status_code == 201 and r.json()["tournament"] == "cup-d"
        r = call(live, "POST", "/api/tournaments/cup-d/tokens", tok, {"role": "referee"})
        assert r.status_code == 403
        r = live.post("/api/tournaments/cup-d/tokens", {"role": "scorer", "table": "2"})
        assert r.status_code == 422 and r.json()["code"] == "bad_table"  # 4 players: 1 table


# ---------------------------------------------------------------------- expiry


def test_an_expired_token_is_401_token_expired(tmp_path: Path) -> None:
    with live_service(tmp_path) as live:
        tokens: Tokens = live.app.state.service.tokens
        soon, later = tokens.create("referee", expires_at="2099-01-01T01:00:00+01:00")
        assert later.expires_at == "2099-01-01T00:00:00.000Z"
        text, info = tokens.create("scorer", table="1", expires_at=_in(live, 3600))
        assert call(live, "GET", "/api/whoami", text).json()["expires_at"] == info.expires_at
        live.clock.advance(3601)
        r = call(live, "GET", "/api/whoami", text)
        assert r.status_code == 401 and r.json()["code"] == "token_expired"
        assert info.expires_at in r.json()["message"]
        # the defaults: a month for every role but an admin's, which lasts until revoked
        _, scorer = tokens.create("scorer", table="1")
        _, admin = tokens.create("admin")
        assert scorer.expires_at == _in(live, 30 * 86400) and admin.expires_at is None
        state = next(t for t in tokens.list() if t.id == info.id)
        assert state.expired(live.clock())
        assert call(live, "GET", "/api/whoami", soon).status_code == 200
        r = live.post("/api/tokens", {"role": "public", "expires_at": "2001-01-01T00:00:00Z"})
        assert r.status_code == 422 and "expired already" in r.json()["message"]


def _in(live: Live, seconds: float) -> str:
    from datetime import timedelta

    from jaslog.store.clock import stamp

    return stamp(live.clock() + timedelta(seconds=seconds))


def test_the_tokens_a_tournament_issues_end_with_it_and_its_seed_is_kept_until_then(
        tmp_path: Path) -> None:
    with live_service(tmp_path, players=PLAYERS) as live:
        t = cup(live, "cup-s")
        gid = t["rounds"][0]["tables"][0]["game"]
        scorer = live.post("/api/tournaments/cup-s/tokens", {"role": "scorer", "table": "1"},
                           status=201).json()["token"]
        director = live.post("/api/tournaments/cup-s/tokens", {"role": "referee"},
                             status=201).json()["token"]
        referee = live.tokens["referee"]
        seeds = {who: call(live, "GET", "/api/tournaments/cup-s", tok).json()["seed"]
                 for who, tok in (("admin", live.tokens["admin"]), ("director", director),
                                  ("referee", referee), ("scorer", scorer),
                                  ("player", live.tokens["a1"]),
                                  ("public", live.tokens["public"]))}
        assert seeds == {"admin": 5, "director": 5, "referee": None, "scorer": None,
                         "player": None, "public": None}
        assert live.get("/api/tournaments", role="public")  # listed, without a seed
        assert "seed" not in live.get("/api/tournaments", role="public")[0]
        live.append(gid, [{"type": "dealt", "hands": HANDS}], role="admin")
        assert note(live, gid, scorer).status_code == 200
        # the final's player withdraws: the game, and with it the tournament, is decided
        live.post("/api/tournaments/cup-s/withdrawals", {"player": "a1"}, status=201)
        assert live.get("/api/tournaments/cup-s", role="public")["status"] == "finished"
        for tok in (scorer, director):
            r = call(live, "GET", "/api/whoami", tok)
            assert r.status_code == 401 and r.json()["code"] == "token_expired", r.text
            assert "tournament cup-s, which is over" in r.json()["message"]
        assert live.get("/api/tournaments/cup-s", role="public")["seed"] == 5  # over: told
        r = live.post("/api/tournaments/cup-s/tokens", {"role": "scorer", "table": "1"})
        assert r.status_code == 409 and r.json()["code"] == "tournament_over"


# ---------------------------------------------------------------------- guessing tokens


def test_failed_authentications_are_limited_per_address(tmp_path: Path) -> None:
    with live_service(tmp_path) as live:
        t = [0.0]
        live.app.state.failed_logins = FailedLogins(limit=3, window=60, clock=lambda: t[0])
        tokens: Tokens = live.app.state.service.tokens
        revoked, info = tokens.create("public")
        tokens.revoke(info.id)
        for _ in range(5):  # a revoked token was a real one: not a guess
            assert call(live, "GET", "/api/whoami", revoked).status_code == 401
        for guess in ("jl_0123abcd_" + "x" * 20, "jl_" + "f" * 8 + "_" + "y" * 20, "nonsense"):
            assert call(live, "GET", "/api/whoami", guess).status_code == 401
        r = call(live, "GET", "/api/whoami", live.tokens["admin"])  # even a good token now
        assert r.status_code == 429 and r.json()["code"] == "too_many_failures"
        assert r.headers["Retry-After"] == "60" and r.json()["retry_after"] == 60
        stream = live.client.get("/api/games/x/stream",
                                 params={"access_token": live.tokens["admin"]})
        assert stream.status_code == 429
        t[0] = 60.5
        assert call(live, "GET", "/api/whoami", live.tokens["admin"]).status_code == 200
    f = FailedLogins(limit=2, window=10, clock=lambda: 0.0, addresses=2)
    for address in ("a", "a", "b", "c"):  # three addresses: the quietest is forgotten
        f.failed(address)
    assert (f.wait("a"), f.wait("c")) == (0, 0)


# ---------------------------------------------------------------------- logs


def test_the_access_log_never_holds_a_token(server: Server) -> None:
    """A real `jaslog serve` at log level info (the session's): the access log prints every
    request's query string, where a browser's event stream carries its token. No token is
    anywhere in its log, of this test's requests or of any test's before it."""
    secret = server.token("admin")
    r = httpx.get(server.url + "/api/games/nope/stream", params={"access_token": secret},
                  timeout=10)
    assert r.status_code == 404
    last = f"probe={time.monotonic_ns()}"  # this request's line, and only its
    httpx.get(server.url + "/api/whoami", params={"probe": last.split("=")[1],
                                                  "access_token": secret + "x"}, timeout=10)
    text = ""
    for _ in range(500):  # the server writes a request's access line after it answers
        text = server.log.read_text()
        if last in text:
            break
        time.sleep(0.01)
    assert f"/api/whoami?{last}&access_token=***" in text, text[-2000:]
    # the access log's own lines, as uvicorn writes them (not a logging error's dump)
    assert re.search(r'"GET /api/games/nope/stream\?access_token=\*\*\* HTTP/1.1" 404', text), \
        text[-2000:]
    assert "Logging error" not in text, text[-3000:]
    assert secret not in text and not re.search(r"jl_[0-9a-f]{8}_\w", text)


def test_the_log_filter_blanks_tokens_in_any_record() -> None:
    import logging

    rec = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1,
                            '%s - "%s %s HTTP/%s" %d',
                            ("127.0.0.1:5", "GET", "/s?since=3&access_token=jl_0123abcd_s3cr3t", "1.1",
                             200), None)
    assert TokenLogFilter().filter(rec)
    assert rec.getMessage() == '127.0.0.1:5 - "GET /s?since=3&access_token=*** HTTP/1.1" 200'
    # uvicorn's access formatter reads the five arguments themselves: they keep their shape
    from uvicorn.logging import AccessFormatter

    line = AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s',
                           use_colors=False).format(rec)
    assert line == '127.0.0.1:5 - "GET /s?since=3&access_token=*** HTTP/1.1" 200 OK'
    assert redact_tokens("Bearer jl_0123abcd_abcdefghijklmnop") == "Bearer ***"


# ---------------------------------------------------------------------- keys


def test_the_keys_are_served_to_anyone_and_check_a_heads_signature(tmp_path: Path) -> None:
    events = simulate_game("k-1", "amsterdam", ONE_DEAL, seed=2, seats=SEATS)
    with live_service(tmp_path) as live:
        keys = live.client.get("/api/keys")  # no token
        assert keys.status_code == 200
        (key,) = keys.json()["keys"]
        assert key["current"] and key["algorithm"] == "ed25519"
        live.post("/api/games", {"game": "k-1", "ruleset": "amsterdam", "seats": SEATS,
                                 "dealer": events[0]["dealer"], "options": ONE_DEAL,
                                 "meta": {"table": "1"}}, status=201)
        live.append("k-1", body_of(events[1:]))
        head = live.get("/api/games/k-1/head", role="public")
        sig = head["signature"]
        assert sig["seq"] == head["seq"] and sig["hash"] == head["hash"] and sig["key"] == key["id"]
        public = PublicKey.parse(key["public_key"])
        signed = sig["signed"].encode()  # the text signed: the head and the positions it pins
        assert signed == head_message_v2("k-1", sig["seq"], sig["hash"], sig["event_pos"],
                                         sig["pos"]) and sig["version"] == 2
        assert public.verify(sig["signature"], signed)
        assert not public.verify(sig["signature"], head_message_v2(
            "k-1", sig["seq"] - 1, sig["hash"], sig["event_pos"], sig["pos"]))


@pytest.mark.parametrize("role,kw,words", [
    ("player", {"player": "ann", "tournament": "cup"}, "only a scorer token (a table of the "
                                                       "tournament) or a referee token (its "
                                                       "director) has a tournament"),
    ("referee", {"event": "night"}, "only a scorer token has an event"),
    ("scorer", {"table": "1", "event": "night", "tournament": "cup"}, "not both"),
])
def test_scopes_a_token_cannot_have(tmp_path: Path, role: str, kw: dict[str, Any],
                                    words: str) -> None:
    with live_service(tmp_path) as live:
        r = live.post("/api/tokens", {"role": role, **kw})
        assert r.status_code == 422 and words in r.json()["message"], r.text


# ---------------------------------------------------------------------- tokens in memory


def test_a_token_is_checked_from_memory_and_its_revocation_holds_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A token that passed is taken from memory (no row read: the database could be gone);
    revoked through the service, it is refused at its very next request, from memory or
    not; revoked by another process, once it is checked again."""
    import jaslog.service.auth as auth

    with live_service(tmp_path) as live:
        svc = live.app.state.service
        tok = token(live, "referee")
        assert call(live, "GET", "/api/whoami", tok).status_code == 200
        assert svc.tokens.remembered(tok) is not None
        check = auth._CHECK
        monkeypatch.setattr(auth, "_CHECK", None)  # a read of the token's row would fail
        try:
            for _ in range(3):
                assert call(live, "GET", "/api/whoami", tok).status_code == 200
        finally:
            monkeypatch.setattr(auth, "_CHECK", check)
        tid = tok.split("_")[1]
        r = call(live, "DELETE", f"/api/tokens/{tid}", live.tokens["admin"])
        assert r.status_code == 200
        assert svc.tokens.remembered(tok) is None
        for method, path in (("GET", "/api/whoami"), ("POST", "/api/games/x/events")):
            r = call(live, method, path, tok, {"events": [{"type": "note", "text": "x"}]}
                     if method == "POST" else None)
            assert r.status_code == 401 and r.json()["code"] == "bad_token", r.text
        # revoked by another process (its own Tokens on the same database): seen once the
        # kept token is checked again
        other = token(live, "referee")
        assert call(live, "GET", "/api/whoami", other).status_code == 200
        Tokens(service_engine(str(tmp_path / "service.sqlite"))).revoke(other.split("_")[1])
        monkeypatch.setattr(auth, "RECHECK_S", 0.0)
        r = call(live, "GET", "/api/whoami", other)
        assert r.status_code == 401 and r.json()["code"] == "bad_token"
