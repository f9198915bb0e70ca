"""Klaberjass and Kloepper through the service: replays for every role, and during a live
deal no other hand, no stock, no hidden declaration and (Kloepper) no partnership before the
cards reveal it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from jaslog.cards import CARD_INDEX, CARD_TEXT, cards_of
from jaslog.events import event_from_dict
from jaslog.games import GAMES, PRESETS
from jaslog.games.kloepper import view as kloepper
from jaslog.play.audit import game_report
from jaslog.play.fold import fold
from jaslog.play.sim import simulate_game
from jaslog.store import open_store
from tests.service.conftest import ROOT, SEATS, Server, create, record, timed, unstamped
from tests.service.test_roles import bodies, cards_in

BLACK_QUEENS = {"QC", "QS"}


def _load(server: Server, role: str, events: list[dict[str, Any]], upto: int | None = None) -> str:
    gid = events[0]["game"]
    with server.client(role) as c:
        r = create(c, gid, events[0])
        assert r.status_code == 201, r.text
        record(c, gid, events[1:upto], batch=100)
    return gid


# the samples with faults in make test (their violations are listed too); the whole games
# without faults are make soak's (the same routes, the same checks, on a longer log)
@pytest.mark.parametrize("sample", [pytest.param("kloepper-full.jsonl", marks=pytest.mark.soak),
                                    pytest.param("klaberjass-full.jsonl", marks=pytest.mark.soak),
                                    "kloepper-faults.jsonl", "klaberjass-faults.jsonl"])
def test_the_samples_replay_for_every_role(server, sample):
    events = [json.loads(x) for x in (ROOT / "replays" / sample).read_text().splitlines() if x]
    gid = events[0]["game"] = f"svc-{sample[:-6]}"
    for e in events:
        e["game"] = gid
    # a sample is an archive (its at times may lie ahead of this machine's clock): imported
    with open_store(str(server.db)) as s:
        assert s.import_lines([json.dumps(e) + "\n" for e in events], source=sample).ok
    want = game_report(gid, fold(event_from_dict(e) for e in events))
    with server.client("referee") as c:
        assert c.get(f"/api/games/{gid}/audit").json() == want
        rep = c.get(f"/api/games/{gid}/replay").json()
        assert rep["kind"] == want["ruleset"].split("-")[0] if "kl" in want["ruleset"] else True
        assert len(rep["frames"]) == len(events)
        assert rep["frames"][-1]["finished"] == want["finished"]
        assert [v["seq"] for f in rep["frames"] for v in f["violations"] if v["seq"] == f["seq"]] \
            == [v["seq"] for v in want["violations"]]
        assert rep["timing"]["clock"] == "at"  # an archive is timed on the table's clock
    for role in ("public", "player0", "player1"):
        with server.client(role) as c:
            for p in ("/replay", "/audit", "/events", "/state", "/head", "/timing"):
                assert c.get(f"/api/games/{gid}{p}").status_code == 200, (role, p)


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_says_its_scoring_and_seats_to_the_pages(server, name):
    """The pages read a game's kind from its ``scoring`` and ``players`` (never its name):
    the header, the listing and the replay send both, as the game declares them."""
    game = GAMES[name]
    ruleset = next(r for r, p in PRESETS.items() if p["game"] == name)
    gid = f"kind-{name}"
    events = simulate_game(gid, ruleset, seed=7, seats=SEATS[:game.players])
    want = {"scoring": game.scoring, "players": game.players}
    with server.client("scorer") as c:
        made = create(c, gid, events[0])
        assert made.status_code == 201, made.text
        assert {k: made.json()[k] for k in want} == want
        record(c, gid, events[1:9])
    with server.client("referee") as c:
        head = c.get(f"/api/games/{gid}").json()
        listed = next(g for g in c.get("/api/games", params={"limit": 500, "summary": "true"}
                                       ).json() if g["game"] == gid)
        replay = c.get(f"/api/games/{gid}/replay").json()
    for got in (head, listed, replay):
        assert {k: got[k] for k in want} == want


def _kloepper_cut(seed: int, plays: int) -> tuple[list[dict[str, Any]], int]:
    events = simulate_game(f"klo-{seed}-{plays}", "kloepper", seed=seed, seats=SEATS)
    n = [i for i, e in enumerate(events) if e["type"] == "play"][plays - 1] + 1
    assert all(e["type"] != "dealt" for e in events[2:n])  # still in round 1
    return events, n


@pytest.mark.parametrize(("seed", "plays"), [(1, 3), (2, 7), (5, 10)])
def test_kloepper_live_deal_hides_hands_and_partners(server, seed, plays):
    events, n = _kloepper_cut(seed, plays)
    gid = _load(server, "scorer", events, n)
    g = fold(event_from_dict(e) for e in events[:n])
    r = g.state.rounds[0]
    called = {e["call"] for e in events[:n] if e["type"] == "partner_call"}
    for seat in range(4):
        secret = {CARD_TEXT[c] for s in range(4) if s != seat
                  for c in cards_of(r.hands[s])} - called
        with server.client(f"player{seat}") as c:
            got = bodies(c, gid, n)
            for where, text in got.items():
                leaked = cards_in(text) & secret
                assert not leaked, f"kloepper seat {seat} sees {sorted(leaked)} in {where}"
            frames = c.get(f"/api/games/{gid}/replay").json()["frames"]
        # the sides shown are exactly what the rules layer says the cards revealed
        f = fold(event_from_dict(events[0]) for _ in range(1))
        for i, e in enumerate(events[1:n], 1):
            f.apply(event_from_dict(e))
            want = kloepper.seat_view(f, seat)["sides"]
            assert frames[i]["extra"]["sides"] == want, (seat, i)


def _queen_swap(events: list[dict[str, Any]], n: int, viewer: int) -> list[dict[str, Any]] | None:
    """The record with a black queen still hidden from ``viewer`` moved to another hidden
    hand (so the partnerships differ), every play staying what it was; or None."""
    deal = events[1]
    hands = deal["hands"]
    played = {e["card"] for e in events[:n] if e["type"] == "play"}
    if any(e["type"] in ("partner_call", "knock", "knock_back") for e in events[:n]):
        return None
    base = [(v.rule, v.seq) for v in fold(event_from_dict(e) for e in events[:n]).state.violations]
    holders = {q: next(s for s in range(4) if q in hands[s]) for q in BLACK_QUEENS}
    if viewer in holders.values() or len(set(holders.values())) != 2 or BLACK_QUEENS & played:
        return None
    for q, a in holders.items():
        for b in range(4):
            if b in (viewer, *holders.values()):
                continue
            for x in hands[b]:
                if x in played or x in BLACK_QUEENS:
                    continue
                new = [list(h) for h in hands]
                new[a][new[a].index(q)] = x
                new[b][new[b].index(x)] = q
                new = [sorted(h, key=CARD_INDEX.__getitem__) for h in new]
                evs = [dict(e) for e in events[:n]]
                evs[1] = {**deal, "hands": new}
                try:
                    vs = fold(event_from_dict(e) for e in evs).state.violations
                except ValueError:
                    continue
                if [(v.rule, v.seq) for v in vs] == base:
                    return evs
    return None


def test_kloepper_a_player_cannot_tell_who_partners_whom(server):
    """Non-interference: two deals that differ only in where a black queen hides (so in who
    partners whom) look the same to a seat until the cards reveal it."""
    found = None
    for seed in range(40):
        for plays in (2, 4, 5):
            events, n = _kloepper_cut(seed, plays)
            for viewer in range(4):
                other = _queen_swap(events, n, viewer)
                if other is not None:
                    found = (events[:n], other, viewer)
                    break
            if found:
                break
        if found:
            break
    assert found is not None
    a_events, b_events, viewer = found
    ga, gb = a_events[0]["game"] + "-a", a_events[0]["game"] + "-b"
    a_events = timed([{**e, "game": ga} for e in a_events])  # the same times in both
    b_events = timed([{**e, "game": gb} for e in b_events])
    _load(server, "scorer", a_events)
    _load(server, "scorer", b_events)
    with server.client("referee") as c:  # the partnerships do differ
        sa = c.get(f"/api/games/{ga}/state").json()["extra"]["sides"]
        sb = c.get(f"/api/games/{gb}/state").json()["extra"]["sides"]
        assert sa != sb
    with server.client(f"player{viewer}") as c:
        a = bodies(c, ga, len(a_events))
        b = bodies(c, gb, len(b_events))
    for where in a:
        if where != "/games":
            assert unstamped(a[where].replace(ga, "G")) == \
                unstamped(b[where].replace(gb, "G")), where


def test_klaberjass_live_deal_hides_the_other_hand_the_stock_and_declarations(server):
    seed = next(s for s in range(60) if any(
        e["type"] == "sequence" for e in simulate_game("k", "klaberjass-2p", seed=s,
                                                       seats=SEATS[:2])[:8]))
    events = simulate_game(f"klab-{seed}", "klaberjass-2p", seed=seed, seats=SEATS[:2])
    decl = next(i for i, e in enumerate(events) if e["type"] == "sequence")
    n = decl + 1  # right after the declaration, before trick 1 is over
    gid = _load(server, "scorer", events, n)
    g = fold(event_from_dict(e) for e in events[:n])
    r = g.state.rounds[0]
    public = {e.get("turn_up") for e in events[:n]} | {e.get("bottom") for e in events[:n]}
    declarer = events[decl]["seat"]
    for seat in (0, 1):
        other = 1 - seat
        secret = {CARD_TEXT[c] for c in cards_of(r.hands[other])} - public
        with server.client(f"player{seat}") as c:
            got = bodies(c, gid, n)
            evs = c.get(f"/api/games/{gid}/events").json()["events"]
        for where, text in got.items():
            leaked = cards_in(text) & secret
            assert not leaked, f"klaberjass seat {seat} sees {sorted(leaked)} in {where}"
        assert all("stock" not in e for e in evs)
        seq_event = evs[decl]
        if seat == declarer:
            assert seq_event["cards"] == events[decl]["cards"]
        else:
            assert "cards" not in seq_event and seq_event["length"] == len(events[decl]["cards"])
