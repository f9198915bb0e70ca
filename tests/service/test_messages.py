"""What the API says when it refuses: the right status for every role, and sentences in the
API's own words (routes and JSON fields), never a `None`, a CLI command or a regex."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import httpx
from sqlalchemy import text

from jaslog.events import GAME_ID_PATTERN, PLAYER_ID_PATTERN, VERSION, event_from_dict
from jaslog.games import PRESETS, resolve
from jaslog.service.deps import PATTERN_NAMES, api_words, pattern_rule, pattern_sentence
from jaslog.store import open_store
from jaslog.store.codec import canonical, link
from tests.service.conftest import ROOT, SEATS, create, record, sim, timed

#: every token the test server has (see conftest.make_server)
ROLES = ["admin", "referee", "scorer", "scorer2", "player0", "player1", "player2", "player3",
         "public"]


def _new_game(server, gid: str, **meta: str) -> None:
    """A game with only its ``game_started`` event, created by the admin (no table unless
    ``meta`` names one)."""
    body: dict = {"game": gid, "ruleset": "amsterdam", "seats": SEATS}
    if meta:
        body["meta"] = meta
    with server.client("admin") as c:
        r = c.post("/api/games", json=body)
        assert r.status_code == 201, r.text


def test_a_seq_that_does_not_exist_is_404_for_every_role(server, gid):
    _new_game(server, gid)
    for role in ROLES:
        with server.client(role) as c:
            r = c.get(f"/api/games/{gid}/state", params={"seq": 5})
            assert r.status_code == 404, (role, r.text)
            body = r.json()
            assert body["code"] == "no_such_seq", (role, body)
            assert body["message"] == f"game {gid} has no seq 5 (its last is 0)", (role, body)
            assert "None" not in r.text
            ok = c.get(f"/api/games/{gid}/state", params={"seq": 0})
            assert ok.status_code == 200, (role, ok.text)
            assert ok.json()["seq"] == 0


def test_a_seq_in_the_live_round_is_403_naming_the_round(server, gid):
    events = timed(sim(gid, seed=31))
    with server.client("scorer") as c:
        assert create(c, gid, events[0]).status_code == 201
        record(c, gid, events[1:20])  # round 1 is being played
    deal = next(e["seq"] for e in events if e["type"] == "dealt")
    for role in ("public", "scorer2"):  # scorer2: another table's scorer sees as the public
        with server.client(role) as c:
            r = c.get(f"/api/games/{gid}/state", params={"seq": deal})
            assert r.status_code == 403, (role, r.text)
            assert r.json()["code"] == "not_visible"
            assert r.json()["message"] == (
                f"seq {deal} of game {gid} is in round 1, which is still being played; this "
                f"token sees finished rounds only (up to seq {deal - 1})")
            assert c.get(f"/api/games/{gid}/state", params={"seq": 19}).status_code == 403
            assert c.get(f"/api/games/{gid}/state", params={"seq": 20}).json()["code"] == \
                "no_such_seq"
    with server.client("player0") as c:  # a seat sees its own view of the live round
        r = c.get(f"/api/games/{gid}/state", params={"seq": deal})
        assert r.status_code == 200 and r.json()["view"] == "seat"


def test_a_seq_stored_past_where_the_log_stops_folding_is_422(server, gid):
    """A row written behind the service's back (a play out of turn) is stored but does not
    fold: the table after it cannot be shown, and no role is told 'round None'."""
    events = timed(sim(gid, seed=32))
    first_play = next(i for i, e in enumerate(events) if e["type"] == "play")
    with server.client("scorer") as c:
        assert create(c, gid, events[0]).status_code == 201
        record(c, gid, events[1:first_play])
    bad = dict(events[first_play], seat=(events[first_play]["seat"] + 1) % 4)
    with open_store(str(server.db)) as s:
        head = s.head(gid)
        payload = canonical(event_from_dict(bad))
        with s.engine.connect() as conn, conn.begin():
            # the event's bytes whole in the row, chained (behind the store's back)
            conn.execute(text(
                "INSERT INTO events (game, seq, pos, kind, version, rest, hash) VALUES "
                "((SELECT pos FROM games WHERE id = :g), :s, :p, "
                "(SELECT code FROM event_types WHERE name = 'play'), :v, :pl, :h)"),
                {"g": gid, "s": first_play, "p": s.cursor() + 1, "v": VERSION,
                 "pl": payload, "h": link(bytes.fromhex(head.hash), payload)})
    for role in ("admin", "scorer", "player0", "public"):
        with server.client(role) as c:
            r = c.get(f"/api/games/{gid}/state", params={"seq": first_play})
            assert r.status_code == 422, (role, r.text)
            assert r.json()["code"] == "not_folded"
            assert r.json()["message"] == (
                f"game {gid}: the table after seq {first_play} cannot be shown: its events stop "
                f"folding at seq {first_play} (GET /api/games/{gid}/audit says why)")
            assert c.get(f"/api/games/{gid}/state",
                         params={"seq": first_play + 1}).json()["code"] == "no_such_seq"


def test_a_table_scorer_may_not_write_to_a_game_without_a_table(server, gid):
    _new_game(server, gid)  # the admin's game: no meta.table
    note = {"expected_seq": 1, "events": [{"type": "note", "text": "hello"}]}
    with server.client("scorer") as c:
        r = c.post(f"/api/games/{gid}/events", json=note)
        assert r.status_code == 403, r.text
        assert r.json()["code"] == "other_table"
        assert r.json()["message"] == (
            f"game {gid} is not played at any table (it has no meta.table), so no scorer token "
            "may write to it; this one is for table 1")
        assert "None" not in r.text
    _new_game(server, gid + "-t2", table="2")
    with server.client("scorer") as c:
        r = c.post(f"/api/games/{gid}-t2/events", json=note)
        assert r.status_code == 403 and r.json()["message"] == (
            f"game {gid}-t2 is played at table 2; this scorer token is for table 1")
    with server.client("scorer2") as c:
        assert c.post(f"/api/games/{gid}-t2/events", json=note).status_code == 200


#: a command of the command line, or one of its options, in a sentence
CLI = re.compile(r"`jaslog|(^|[\s(\"'])--[a-z]")


def test_errors_speak_the_apis_words_not_the_command_lines(server, gid):
    """Messages that come from the store, the rules and the oracle (which serve the command
    line too) and the service's own name routes and JSON fields, not commands and options."""
    said = []

    def refused(r, status: int, code: str, *parts: str) -> None:
        assert r.status_code == status, r.text
        assert r.json()["code"] == code, r.text
        for part in parts:
            assert part in r.json()["message"], (part, r.text)
        said.append(r.text)

    admin_token = server.token("admin")
    with server.client("admin") as c:
        refused(c.get(f"/api/games/{gid}-nope"), 404, "no_such_game",
                f"no game '{gid}-nope' in the store (see GET /api/games)")
        refused(c.post("/api/tokens", json={"role": "scorer"}), 422, "bad_token_request",
                'a scorer token needs a table (the JSON field "table", such as "3")')
        refused(c.post("/api/tokens", json={"role": "player"}), 422, "bad_token_request",
                'a player token needs the player id (the JSON field "player", such as "ann")')
        refused(c.post("/api/games", json={"game": gid, "ruleset": "amsterdam", "seats": SEATS,
                                           "options": {"bogus": 1}}),
                422, "bad_options", "unknown option 'bogus' for klaverjas "
                "(see GET /api/rules/options)")
        refused(c.post("/api/oracle", json={"op": "legal", "ruleset": "amsterdam", "trump": "H",
                                            "options": {"bogus": 1}, "trick": [], "hand": ["7H"]}),
                422, "bad_query", "(see GET /api/rules/options)")
        refused(c.post("/api/oracle", json={"op": "legal", "ruleset": "kloepper", "trump": "H",
                                            "trick": [], "hand": ["7H"]}),
                422, "bad_query", "(GET /api/rules/options?ruleset=kloepper)", "leave out 'trump'")
        refused(c.get("/api/rules/options", params={"ruleset": "bridge"}), 422,
                "unknown_ruleset", "unknown ruleset 'bridge'")
        _new_game(server, gid)
        refused(c.post(f"/api/games/{gid}/events", json={"events": [{"type": "note",
                                                                     "text": "x"}]}),
                422, "bad_event", "or the batch an expected_seq")
    with httpx.Client(base_url=server.url, timeout=30,
                      headers={"Authorization": f"Bearer {admin_token}"}) as c:
        refused(c.delete(f"/api/tokens/{admin_token.split('_')[1]}"), 409, "own_token",
                "a token cannot revoke itself: send this DELETE with another admin token")
    for answer in said:
        assert not CLI.search(answer), answer


def test_rule_options_are_listed_where_the_messages_point(server):
    with server.client("public") as c:
        every = c.get("/api/rules/options")
        assert every.status_code == 200, every.text
        assert set(every.json()) == set(PRESETS)
        one = c.get("/api/rules/options", params={"ruleset": "kloepper"}).json()
    assert list(one) == ["kloepper"]
    opts = one["kloepper"]
    assert {k: v["value"] for k, v in opts.items()} == resolve("kloepper")
    assert opts["trumps"]["kind"] == "cards" and opts["trumps"]["help"]
    choice = next(v for v in every.json()["amsterdam"].values() if v["kind"] == "choice")
    assert choice["value"] in choice["choices"]


def _is_super_init(call: ast.Call) -> bool:
    """``super().__init__(...)``: an exception class wording its own message."""
    f = call.func
    return (isinstance(f, ast.Attribute) and f.attr == "__init__" and isinstance(f.value, ast.Call)
            and isinstance(f.value.func, ast.Name) and f.value.func.id == "super")


def _raised_texts(path: Path, skip: frozenset[str]) -> list[tuple[int, str]]:
    """The literal text of every ``raise`` and exception's ``super().__init__`` in a module
    (f-string fields as ``{}``), except in the functions named in ``skip``."""
    out: list[tuple[int, str]] = []

    def text(node: ast.AST) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return "".join(text(v) if isinstance(v, ast.Constant) else "{}" for v in node.values)
        if isinstance(node, ast.BinOp):
            return text(node.left) + text(node.right)
        return ""

    def visit(node: ast.AST, in_skipped: bool) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            in_skipped = in_skipped or node.name in skip
        call = node.exc if isinstance(node, ast.Raise) else node
        if not in_skipped and isinstance(call, ast.Call) and (
                isinstance(node, ast.Raise) or _is_super_init(call)):
            said = " ".join(text(a) for a in call.args)
            if said:
                out.append((call.lineno, said))
        for child in ast.iter_child_nodes(node):
            visit(child, in_skipped)

    visit(ast.parse(path.read_text()), False)
    return out


def test_no_message_that_can_reach_the_api_names_a_command_line_command():
    """Every refusal the layers under the service can raise, put in the API's words
    (``api_words``), names no command or option of the command line. The store's refusals
    while it is opened are left out: ``jaslog serve`` opens it before it answers anything."""
    pkg = ROOT / "jaslog"
    games = [f for f in sorted((pkg / "games").rglob("*.py"))
             if f.stem not in ("render", "record")]  # the terminal's adapters: never the API's
    files = [*sorted((pkg / "service").glob("*.py")), *sorted((pkg / "engine").glob("*.py")),
             pkg / "events" / "__init__.py", *games,
             *[pkg / f for f in ("play/fold.py", "cards.py", "play/oracle.py", "play/views.py",
                                 "play/audit.py", "store/types.py", "store/queries.py", "store/codec.py",
                                 "store/store.py")]]
    opening = frozenset({"__init__", "_ensure_schema", "_must_be_a_store", "open_store"})
    checked = 0
    for f in files:
        skip = opening if f.name == "store.py" else frozenset()
        for line, said in _raised_texts(f, skip):
            checked += 1
            assert not CLI.search(api_words(said)), f"{f.relative_to(ROOT)}:{line}: {said}"
    assert checked > 100  # the scan saw the modules' refusals


def test_a_bad_id_in_a_body_or_path_says_what_an_id_may_hold(server, gid):
    """No regular expression reaches the client: a pattern the service's own request models
    set is put as a sentence saying what is allowed."""
    with server.client("admin") as c:
        bad_game = c.post("/api/games", json={"game": "bad id!", "ruleset": "amsterdam",
                                              "seats": SEATS})
        bad_seat = c.post("/api/games", json={"ruleset": "amsterdam",
                                              "seats": ["ann", "b b", "cor", "dirk"]})
        bad_path = c.get("/api/games/bad%20id!/state")
        bad_tour = c.post("/api/tournaments", json={"id": "x" * 41, "name": "t",
                                                    "players": ["a", "b", "c", "d"]})
        bad_tid = c.get("/api/tournaments/a%20b")
        bad_token = c.delete("/api/tokens/XYZ")
    want = {
        bad_game: "game: 'bad id!' is not a game id: 1-128 letters, digits and . _ : -",
        bad_seat: "seats.1: 'b b' is not a player id: 1-64 letters, digits and . _ : @ -",
        bad_path: "game: 'bad id!' is not a game id: 1-128 letters, digits and . _ : -",
        bad_tour: f"id: '{'x' * 41}' is not a tournament id: 1-40 letters, digits and . _ : -",
        bad_tid: "tid: 'a b' is not a tournament id: 1-64 letters, digits and . _ : -",
        bad_token: "token_id: 'XYZ' is not a token id: 8 hex digits (0-9, a-f)",
    }
    for r, message in want.items():
        assert r.status_code == 422, r.text
        body = r.json()
        assert body["code"] == "bad_request" and body["message"] == message, r.text
        assert body["errors"][0]["message"] == message.split(": ", 1)[1], r.text
        assert "should match pattern" not in r.text and "^[" not in r.text, r.text


def test_every_pattern_the_api_checks_has_words(server):
    """Each pattern in the OpenAPI description (the request models' and paths') is named and
    put in words, so a new one cannot show a client its regular expression."""
    doc = httpx.get(server.url + "/openapi.json", timeout=30).json()
    patterns: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                patterns.add(node["pattern"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(doc)
    assert {GAME_ID_PATTERN, PLAYER_ID_PATTERN} <= patterns
    for p in patterns:
        assert p in PATTERN_NAMES and pattern_rule(p), p
        assert "match pattern" not in pattern_sentence("x y", p) and p not in \
            pattern_sentence("x y", p)
