"""Hidden information in Kloepper: a seat's view of a live deal shows its own hand, the cards
played and the public calls and knocks, and the partnerships only once the cards revealed
them (both black queens played, or the called ace played). ``replay --seat`` honours it."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from jaslog.cards import CARD_TEXT, cards_of
from jaslog.engine.fold import GameFold
from jaslog.events import event_from_dict
from jaslog.games.kloepper.rules import known_sides
from jaslog.games.kloepper.view import seat_view
from jaslog.play.fold import start_fold
from jaslog.play.render import render_table
from jaslog.play.sim import Faults, simulate_game
from tests.cli import jaslog
from tests.examples import examples

from .logs import HANDS_C, HANDS_P, TRICKS_P, Log
from .test_deal import TRICKS_C

Q, X = "queens", "others"


def folds(log: Log) -> list[GameFold]:
    """The fold after every event (each a fresh fold, so earlier states are kept)."""
    out = []
    for n in range(1, len(log.events) + 1):
        f = start_fold(event_from_dict(log.events[0]))
        for e in log.events[1:n]:
            f.apply(event_from_dict(e))
        out.append(f)
    return out


def unplayed(f: GameFold, seat: int) -> set[str]:
    r = f.state.rounds[-1]
    return {CARD_TEXT[c] for c in cards_of(r.hands[seat])} if r.hands_known else set()


def leaks(view: dict[str, Any], f: GameFold, viewer: int) -> set[str]:
    """Cards of other seats' hands (not yet played) that appear anywhere in the view (but
    the public partner call, which names an ace aloud)."""
    text = orjson.dumps({k: v for k, v in view.items() if k != "call"}).decode()
    return {c for s in range(4) if s != viewer for c in unplayed(f, s) if f'"{c}"' in text}


def sides_after(log: Log, viewer: int) -> list[list[str | None]]:
    """The sides seat ``viewer`` is shown after the deal (index 0) and after each card."""
    return [seat_view(f, viewer)["sides"] for f in folds(log)[1:]]


def test_pair_partnership_revealed_by_the_two_queens() -> None:
    log = Log().deal(HANDS_P).tricks(TRICKS_P)
    # seat 2 holds no queen: it knows it is against the queens, nothing more
    views = sides_after(log, 2)
    assert views[0] == [None, None, None, None]              # after the deal: seat 2 holds
    assert views[1] == [None, None, X, None]                 # AS, and might yet be called
    assert views[4] == [None, None, X, None]                 # after trick 1 (no queen yet)
    assert views[5] == [Q, None, X, None]                    # QC played by seat 0
    assert views[14] == [Q, None, X, None]                   # trick 4 under way, QS not yet out
    assert views[15] == [Q, Q, X, X]                         # QS played by seat 1: revealed
    # seat 0 holds QC: it knows its side, not its partner, until QS is played
    views = sides_after(log, 0)
    assert views[0] == [Q, None, None, None] and views[14] == [Q, None, None, None]
    assert views[15] == [Q, Q, X, X]
    # the referee sees the truth from the deal on
    assert seat_view(folds(log)[1], None)["sides"] == [Q, Q, X, X]


def test_called_ace_partnership_revealed_by_the_ace() -> None:
    log = Log().deal(HANDS_C).call(0, "AC").tricks(TRICKS_C)
    fs = folds(log)
    # the call is public: everyone sees seat 0 called AC; only seat 1 (holding AC) knows
    # it is seat 0's partner until AC is played in the last trick, or (fs[23]) seat 3 has
    # played its last card without it
    for f in fs[3:23]:
        assert seat_view(f, 2)["sides"] == [Q, None, X, None]
        assert seat_view(f, 3)["sides"] == [Q, None, None, X]
        assert seat_view(f, 0)["sides"] == [Q, None, None, None]
        assert seat_view(f, 1)["sides"] == [Q, Q, X, X]
        assert seat_view(f, 2)["call"] == {"seat": 0, "call": "AC"}
    assert seat_view(fs[23], 2)["sides"] == [Q, Q, X, X]     # seat 3 has no card left
    assert seat_view(fs[23], 0)["sides"] == [Q, None, None, X]
    assert seat_view(fs[25], 0)["sides"] == [Q, Q, X, X]     # AC played by seat 1
    assert seat_view(fs[-1], 0)["revealed"]


def test_going_alone_is_public() -> None:
    log = Log().deal(HANDS_C).call(0, "alone")
    assert seat_view(log.fold(), 3)["sides"] == [Q, X, X, X]


def test_side_points_only_once_revealed() -> None:
    fs = folds(Log().deal(HANDS_P).tricks(TRICKS_P))   # fs[1 + n]: after n cards
    assert seat_view(fs[15], 2)["side_points"] is None
    assert seat_view(fs[15], None)["side_points"] == {"queens": 21, "others": 27}
    assert seat_view(fs[17], 2)["side_points"] == {"queens": 39, "others": 27}


@pytest.mark.parametrize("viewer", [0, 1, 2, 3])
def test_no_other_hand_in_a_live_deal(viewer: int) -> None:
    log = Log().deal(HANDS_P).knock(0).tricks(TRICKS_P[:5]).trick(3, "KD 9H KC")
    for f in folds(log)[1:]:
        v = seat_view(f, viewer)
        assert not leaks(v, f, viewer)
        assert [h is None for h in v["hands"]] == [s != viewer for s in range(4)]
        assert all(x["seat"] == viewer for x in v["violations"])
        con = Console(record=True, width=200)
        con.print(render_table(f, viewer))
        rows = [line for line in con.export_text().splitlines()
                if any(f"({x}) " in line for x in range(4) if x != viewer)
                and not line.lstrip().startswith(("deal", "score"))]
        assert len(rows) == 3 and all("cards" in row for row in rows), rows


def test_a_finished_deal_shows_everything() -> None:
    log = Log().deal(HANDS_P).tricks(TRICKS_P)
    v = seat_view(log.fold(), 2)
    assert v["sides"] == [Q, Q, X, X] and v["score"] == [0, 0, 4, 4]
    assert all(h is not None for h in v["dealt"])


def test_violations_of_others_stay_hidden_while_live() -> None:
    log = Log().deal(HANDS_P).knock(2).trick(0, "AH 9C 9S QH")
    assert [x["rule"] for x in seat_view(log.fold(), 2)["violations"]] == ["knock_not_allowed"]
    assert seat_view(log.fold(), 1)["violations"] == []
    assert [x["rule"] for x in seat_view(log.fold(), None)["violations"]] == ["knock_not_allowed"]


def test_unseen_hands_reveal_only_by_plays() -> None:
    log = Log().deal().tricks(TRICKS_P[:3])
    assert seat_view(log.fold(), 2)["sides"] == [Q, None, None, None]
    assert seat_view(log.fold(), None)["sides"] == [Q, None, None, None]


# ---------------------------------------------------------------- the knowledge function


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_known_sides_never_contradict_the_truth(seed: int) -> None:
    """Every side a seat is shown is the true side; once the deal is over all are known."""
    events = simulate_game(f"h{seed}", "kloepper", seed=seed, bot="random",
                           faults=Faults(false_roem_rate=0.1))[:120]
    f = start_fold(event_from_dict(events[0]))
    for e in events[1:]:
        f.apply(event_from_dict(e))
        r = f.state.rounds[-1]
        truth = r.sides()
        if truth is None:
            continue
        true = [Q if truth.on_queens(s) else X for s in range(4)]
        for viewer in range(4):
            v = seat_view(f, viewer)
            assert all(k is None or k == t for k, t in zip(v["sides"], true, strict=True)), \
                (e, viewer, v["sides"], true)
            assert v["sides"][viewer] is not None or not r.hands_known or (
                r.call is None and r.plays == 0)
            assert not leaks(v, f, viewer)
            if r.over:
                assert v["sides"] == true


def test_known_sides_before_the_call_window_closes() -> None:
    # no call yet and no card played: seat 2 (no queen, holding AS) might still be called
    own = sum(1 << c for c in range(32) if CARD_TEXT[c] in HANDS_P[2].split())
    assert known_sides(2, own, [], None, window_closed=False) == [None, None, None, None]
    assert known_sides(2, own, [], None, window_closed=True) == [None, None, X, None]


# ---------------------------------------------------------------- replay --seat


def test_replay_seat_shows_no_other_hand() -> None:
    log = Log(game="hidden").deal(HANDS_P).trick(0, "AH 9C 9S QH").play(0, "QC")
    r = jaslog("replay", "-", "--seat", "2", input=log.jsonl())
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    last = out.split("seq    6")[-1]
    # seat 2 sees its own cards (rank and suit symbol), the others' card counts only
    assert "♥ J  ♠ A K J 10" in last
    rows = [line for line in last.splitlines() if " plays " not in line
            and any(f"({x}) " in line for x in (0, 1, 3))]
    assert len(rows) == 3 and all("cards" in row for row in rows), rows
    assert "black queens" in last and last.count("black queens") == 1   # seat 0 (QC played)
    # the same file as the referee: every hand
    r = jaslog("replay", "-", input=log.jsonl())
    assert "cards" not in r.stdout.decode().split("seq    6")[-1]


def test_a_scorers_note_is_not_read_by_a_seat_mid_deal() -> None:
    from jaslog.play.render import describe_event

    log = Log().deal(HANDS_P).add("note", text="abe holds QC")
    f = log.fold()
    e = event_from_dict(log.events[-1])
    assert "QC" not in describe_event(f, e, 2).plain
    assert "abe holds QC" in describe_event(f, e, None).plain
    log.tricks(TRICKS_P)
    assert "abe holds QC" in describe_event(log.fold(), e, 2).plain
