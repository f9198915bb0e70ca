"""A round that ends with cards unplayed (a referee's ruling mid-round, a Klaberjass deal
annulled in the bidding) keeps its hands secret: a player sees only his own hand and the
cards played, the public no hand at all, the referee everything; a round played out still
shows every hand. Checked on every view jaslog.play.views gives (events, frames, state, audit)
and on ``jaslog replay --seat``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from jaslog.cards import CARD_INDEX, CARD_TEXT, cards_of
from jaslog.cli import app
from jaslog.events import event_from_dict
from jaslog.play.fold import fold
from jaslog.play.sim import simulate_game
from jaslog.play.views import FULL, PUBLIC, Sight, frames, report, state_at, timeline, visible_events

CARD_RE = re.compile(r"(?<![0-9A-Za-z])(10|[789JQKA])([CDHS♣♦♥♠])(?![A-Za-z0-9])")
SYMBOL = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
SEATS4 = ["ann", "bob", "cor", "dirk"]


def cards_in(text: str) -> set[str]:
    return {r + SYMBOL.get(s, s) for r, s in CARD_RE.findall(text)}


def ruled(events: list[dict[str, Any]], cut: int, round_: int, players: int) -> list[dict[str, Any]]:
    """``events[:cut]`` and a referee's ruling on ``round_`` (in play at ``cut``)."""
    score = [0, 0] if players == 4 and events[0]["ruleset"] != "kloepper" else [0] * players
    return [*events[:cut], {"game": events[0]["game"], "seq": cut, "type": "ruling",
                            "round": round_, "score": score, "reason": "the cards fell on the floor"}]


def everything(events: list[dict[str, Any]], sight: Sight) -> str:
    """Every view of the game ``sight`` gets, as one text."""
    tl = timeline(event_from_dict(e) for e in events)
    parts = [frames(tl, sight), visible_events(tl, sight), report(tl, sight),
             state_at(tl, None, sight)]
    return orjson.dumps(parts).decode()


def unplayed(events: list[dict[str, Any]], round_: int) -> list[set[str]]:
    """The cards each seat held in ``round_`` and never played (as the referee knows them),
    less what the table saw or heard named (Klaberjass: the turn-up, the bottom card, the
    dix, sequences shown after the first trick; Kloepper: the ace called)."""
    g = fold(event_from_dict(e) for e in events).state
    r = g.rounds[round_ - 1]
    held = list(r.dealt)
    if getattr(r, "second", None):
        held = [h | x for h, x in zip(held, r.second, strict=True)]
    public = r.played
    for attr in ("turn_up", "bottom"):
        if getattr(r, attr, None) is not None:
            public |= 1 << getattr(r, attr)
    if getattr(r, "dix_seat", None) is not None:
        from jaslog.games.klaberjass.rules import dix_card

        public |= 1 << dix_card(r.trump)
    if len(r.tricks) >= 2 or (r.tricks and r.tricks[0].complete):
        for d in getattr(r, "declarations", []):
            public |= d.cards
    call = getattr(r, "call", None)
    if call is not None and call.call != "alone":
        public |= 1 << CARD_INDEX[call.call]
    return [{CARD_TEXT[c] for c in cards_of(h & ~public)} for h in held]


def check_secret(events: list[dict[str, Any]], round_: int) -> None:
    """No seat sees another seat's unplayed card; the public sees none; the referee all."""
    left = unplayed(events, round_)
    players = len(left)
    assert sum(len(x) for x in left) > 8, "the ruling should leave cards unplayed"
    for seat in range(players):
        text = everything(events, Sight(seat=seat))
        secret = set().union(*(left[s] for s in range(players) if s != seat))
        assert not cards_in(text) & secret, f"seat {seat} sees {sorted(cards_in(text) & secret)}"
        assert left[seat] <= cards_in(text)  # its own hand is there (the scan can find cards)
    text = everything(events, PUBLIC)
    assert not cards_in(text) & set().union(*left), "the public sees unplayed cards"
    assert set().union(*left) <= cards_in(everything(events, FULL))  # the referee sees them all


def first_play(events: list[dict[str, Any]], after: int = 0) -> int:
    return next(i for i, e in enumerate(events) if i >= after and e["type"] == "play")


def test_klaverjas_ruling_mid_round_keeps_the_hands_secret() -> None:
    events = simulate_game("vr", seed=7, seats=SEATS4)
    cut = first_play(events) + 10  # in trick 3
    evs = ruled(events, cut, 1, 4)
    tl = timeline(event_from_dict(e) for e in evs)
    assert tl.live_round is None and tl.secret_rounds == {1}
    check_secret(evs, 1)
    fr = frames(tl, Sight(seat=2))
    assert all([h is None for h in f["hands"]] == [True, True, False, True]
               for f in fr if f["round"] == 1)
    assert all(h is not None for h in frames(tl, FULL)[-1]["hands"])
    dealt = visible_events(tl, PUBLIC)[1]
    assert dealt["redacted"] and dealt["hands"] == [None] * 4


def test_klaverjas_a_round_played_out_after_a_ruled_one_still_reveals() -> None:
    events = simulate_game("vr", seed=7, seats=SEATS4)
    deals = [i for i, e in enumerate(events) if e["type"] == "dealt"]
    cut = first_play(events) + 10
    evs = ruled(events, cut, 1, 4)
    # round 2 as simulated, played out in full, after the ruled round 1
    evs += [{**e, "seq": cut + 1 + j} for j, e in enumerate(events[deals[1]:deals[2]])]
    tl = timeline(event_from_dict(e) for e in evs)
    assert tl.live_round is None and tl.secret_rounds == {1}
    fr = frames(tl, Sight(seat=0))
    assert [h is None for h in fr[cut]["hands"]] == [False, True, True, True]  # round 1: own only
    mid2 = next(f for f in fr if f["round"] == 2 and f["trick"] == 3)
    assert all(h is not None for h in mid2["hands"])  # round 2 was played out: every hand
    got = visible_events(tl, Sight(seat=0))
    assert got[1]["hands"][1] is None and got[cut + 1]["hands"] == events[deals[1]]["hands"]
    assert all(h is not None for h in frames(tl, PUBLIC)[-1]["hands"])


def test_klaverjas_live_round_unchanged() -> None:
    events = simulate_game("vr", seed=3, seats=SEATS4)
    second = [i for i, e in enumerate(events) if e["type"] == "dealt"][1]
    tl = timeline(event_from_dict(e) for e in events[:second + 3])
    assert tl.live_round == 2 and tl.secret_rounds == {2}
    fr = frames(tl, Sight(seat=1))
    assert all(h is not None for h in fr[5]["hands"])
    assert [h is None for h in fr[-1]["hands"]] == [True, False, True, True]


def test_klaberjass_ruling_mid_deal_keeps_the_hands_secret() -> None:
    events = simulate_game("kr", "klaberjass-2p", seed=5, seats=["ann", "bob"])
    p = first_play(events)
    r = sum(1 for e in events[:p] if e["type"] == "dealt")
    evs = ruled(events, p + 3, r, 2)  # in trick 2
    check_secret(evs, r)
    tl = timeline(event_from_dict(e) for e in evs)
    assert r in tl.secret_rounds and tl.live_round is None
    assert all(e.get("stock") is None for e in visible_events(tl, Sight(seat=0)))


def test_klaberjass_annulled_deal_keeps_the_hands_secret() -> None:
    for seed in range(100):
        events = simulate_game("ka", "klaberjass-2p", seed=seed, seats=["ann", "bob"])
        g = fold(event_from_dict(e) for e in events).state
        k = next((k for k, r in enumerate(g.rounds) if r.annulled and r.hands_known), None)
        if k is not None:
            break
    else:
        pytest.skip("no annulled deal in the simulated games")
    # that deal alone, as the first of a game (no earlier deal shows any card)
    starts = [i for i, e in enumerate(events) if e["type"] == "dealt"] + [len(events)]
    body = events[starts[k]:starts[k + 1]]
    evs = [{**events[0], "dealer": g.rounds[k].dealer}] + [{**e, "seq": j + 1} for j, e in
                                                            enumerate(body)]
    assert fold(event_from_dict(e) for e in evs).state.rounds[0].annulled
    tl = timeline(event_from_dict(e) for e in evs)
    assert tl.live_round is None and tl.secret_rounds == {1}
    left = unplayed(evs, 1)
    assert all(len(x) == 6 for x in left)
    for seat in (0, 1):
        text = everything(evs, Sight(seat=seat))
        assert not cards_in(text) & left[1 - seat] and left[seat] <= cards_in(text)
    assert not cards_in(everything(evs, PUBLIC)) & (left[0] | left[1])
    assert left[0] | left[1] <= cards_in(everything(evs, FULL))


def test_kloepper_ruling_mid_deal_keeps_hands_and_sides_secret() -> None:
    events = simulate_game("kp", "kloepper", seed=6, seats=SEATS4)
    cut = first_play(events) + 5  # in trick 2
    evs = ruled(events, cut, 1, 4)
    check_secret(evs, 1)
    tl = timeline(event_from_dict(e) for e in evs)
    assert frames(tl, PUBLIC)[-1]["extra"]["sides"] == [None] * 4
    rep = report(tl, PUBLIC)["rounds"][0]
    assert "queens" not in rep and "hands" not in rep and rep["hidden"]


def _replay(tmp_path: Path, events: list[dict[str, Any]], *args: str) -> str:
    f = tmp_path / "g.jsonl"
    f.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    res = CliRunner().invoke(app, ["replay", str(f), *args])
    assert res.exit_code == 0, res.output
    return res.stdout


def test_replay_seat_after_a_ruling_mid_round(tmp_path: Path) -> None:
    events = simulate_game("vr", seed=7, seats=SEATS4)
    cut = first_play(events) + 10
    evs = ruled(events, cut, 1, 4)

    def rows_after_the_ruling(*args: str) -> dict[str, str]:
        out = _replay(tmp_path, evs, "--to", str(cut), *args).split(f"seq {cut:>4}")[-1]
        return {n: next(x for x in out.splitlines() if re.match(rf"^[▶ ]*{n} \(\d\)", x))
                for n in SEATS4}

    seat1 = rows_after_the_ruling("--seat", "1")
    for n in ("ann", "cor", "dirk"):  # only a count of cards for the other seats
        assert re.search(r"\(\d\)\s+\d cards", seat1[n]), seat1[n]
    assert "cards" not in seat1["bob"]
    referee = rows_after_the_ruling()
    assert not any(re.search(r"\(\d\)\s+\d cards", x) for x in referee.values()), referee
