"""jaslog.play.views without a server: what each sight gets from a game's timeline."""

from __future__ import annotations

from jaslog.events import event_from_dict
from jaslog.games.klaverjas.view import seat_view
from jaslog.play.fold import start_fold
from jaslog.play.sim import Faults, simulate_game
from jaslog.play.views import (
    FULL,
    PUBLIC,
    NotVisible,
    Sight,
    frames,
    report,
    state_at,
    timeline,
    visible_events,
)
from tests.service.conftest import SEATS


def tl_of(events):
    return timeline(event_from_dict(e) for e in events)


def test_the_public_horizon_is_the_deal_of_the_live_round():
    events = simulate_game("v", seed=2, seats=SEATS)
    deals = [i for i, e in enumerate(events) if e["type"] == "dealt"]
    tl = tl_of(events[:deals[1] + 5])  # round 2 is live
    assert tl.live_round == 2 and tl.horizon() == deals[1] - 1
    assert [e["seq"] for e in visible_events(tl, PUBLIC)] == list(range(deals[1]))
    assert len(frames(tl, PUBLIC)) == deals[1]
    assert report(tl, PUBLIC)["rounds"][-1]["round"] == 1
    try:
        state_at(tl, deals[1], PUBLIC)
        raise AssertionError("the public saw the live round")
    except NotVisible as e:
        assert "round 2" in str(e)
    done = tl_of(events)
    assert done.live_round is None and done.horizon() == len(events) - 1


def test_a_seat_sees_its_hand_now_and_every_hand_once_the_round_is_over():
    events = simulate_game("v", seed=3, seats=SEATS)
    second = [i for i, e in enumerate(events) if e["type"] == "dealt"][1]
    tl = tl_of(events[:second + 3])
    fr = frames(tl, Sight(seat=1))
    # round 1 is over: even mid-round 1 all four hands are shown
    assert all(h is not None for h in fr[5]["hands"])
    # round 2 is live: only seat 1's
    assert [h is None for h in fr[-1]["hands"]] == [True, False, True, True]
    dealt = visible_events(tl, Sight(seat=1))[second]
    assert dealt["redacted"] and dealt["hands"][1] == events[second]["hands"][1]
    assert dealt["hands"][0] is None
    assert visible_events(tl, FULL)[second]["hands"] == events[second]["hands"]


def test_violations_of_the_live_round_only_for_the_seat_that_made_them():
    events = simulate_game("v", seed=9, seats=SEATS, faults=Faults(revoke_rate=0.5))
    full = report(tl_of(events), FULL)
    v = full["violations"][0]
    rnd = v["round"]
    tl = tl_of(events[:v["seq"] + 1])  # right after the revoke
    assert tl.live_round == rnd
    mine = report(tl, Sight(seat=v["seat"]))
    other = report(tl, Sight(seat=(v["seat"] + 1) % 4))
    assert v in mine["violations"] and not mine["ok"]
    assert v not in other["violations"]
    assert all(x["seat"] == (v["seat"] + 1) % 4 or x["round"] != rnd for x in other["violations"])


def test_a_round_without_hands_shows_the_rebuilt_hands_once_over():
    events = simulate_game("v", seed=4, seats=SEATS, faults=Faults(no_hands_rate=1.0))
    second = [i for i, e in enumerate(events) if e["type"] == "dealt"][1]
    tl = tl_of(events[:second + 1])
    fr = frames(tl, FULL)
    assert fr[1]["hands_known"] and all(len(h) == 8 for h in fr[1]["hands"])  # rebuilt
    assert not fr[-1]["hands_known"] and fr[-1]["hands"] == [None] * 4  # round 2: unknown yet


def test_a_klaverjas_frame_is_the_seat_view_of_its_sight():
    """The viewer's frames are drawn from Klaverjas's one visibility rule, its seat_view: in a
    secret round (round 3 ruled after its sixth card, recorded without hands; round 4 live)
    a seat's frame shows what seat_view shows that seat (its hand, counts, its legal cards,
    its violations, in seq order), the public's no seat's secrets; a round played out shows
    what the referee's seat_view shows, with the hands the head rebuilt."""
    events = simulate_game("v", seed=4, seats=SEATS, faults=Faults(
        no_hands_rate=0.5, revoke_rate=0.15, false_roem_rate=0.3))
    deals = [i for i, e in enumerate(events) if e["type"] == "dealt"]
    cut = [i for i in range(deals[2], deals[3]) if events[i]["type"] == "play"][5] + 1
    ruling = {"game": "v", "seq": cut, "type": "ruling", "round": 3, "score": [0, 0],
              "reason": "cards fell"}
    evs = [*events[:cut], ruling,
           *({**e, "seq": cut + 1 + j} for j, e in enumerate(events[deals[3]:deals[3] + 14]))]
    assert evs[deals[2]].get("hands") is None and evs[cut + 1].get("hands") is not None
    tl = tl_of(evs)
    assert tl.secret_rounds == {3, 4} and tl.live_round == 4
    keys = ("hands", "counts", "hands_known", "legal", "violations")
    seen = set()
    for sight in (FULL, *(Sight(seat=s) for s in range(4)), PUBLIC):
        f = start_fold(tl.events[0])
        for i, fr in enumerate(frames(tl, sight)):
            if i:
                f.apply(tl.events[i])
            secret = not sight.full and len(f.state.rounds) in tl.secret_rounds
            v = seat_view(f, sight.seat if secret else None, tl.fold)
            want = {k: v[k] for k in keys}
            want["violations"] = sorted(want["violations"], key=lambda x: x["seq"])
            if secret and sight.seat is None:
                want.update(hands=[None] * 4, legal=None, violations=[])
            assert {k: fr[k] for k in keys} == want, (fr["seq"], sight)
            seen.add((secret, sight.seat is None, fr["legal"] is not None,
                      bool(fr["violations"]), fr["hands_known"]))
    # every case was met: (secret, no seat, legal cards, violations, hands known)
    assert (True, False, True, True, True) in seen       # a seat in the live round
    assert (True, False, False, False, False) in seen     # a seat in the ruled round
    assert (True, True, False, False, False) in seen      # the public in the ruled round
    assert (False, True, True, True, True) in seen        # the referee


def _corrected(ruleset: str, seed: int) -> list[dict]:
    """A game whose last round has a play retracted by a correction and recorded again, and
    a note, as a client sends them."""
    events = simulate_game("w", ruleset, seed=seed, seats=None)
    deals = [i for i, e in enumerate(events) if e["type"] == "dealt"]
    plays = [i for i, e in enumerate(events) if e["type"] == "play" and i > deals[-1]]
    i = plays[len(plays) // 2]
    typo = events[i]

    def shifted(e: dict, by: int) -> dict:
        return {**e, "seq": e["seq"] + by}

    return [*events[:i], typo,
            {"game": "w", "seq": i + 1, "type": "note", "text": "a typo"},
            {"game": "w", "seq": i + 2, "type": "correction", "retracts": [i], "reason": "typo"},
            *(shifted(e, 3) for e in events[i:])]


def test_the_state_at_a_seq_is_the_viewers_frame_there():
    """``state_at`` draws only the table asked for, and it is the frame the viewer shows
    after that event, for every sight: in a secret round while a retracted card is pending
    (a seat sees the table from before it), after its correction, and once the game is
    over."""
    for ruleset in ("amsterdam", "klaberjass-2p", "kloepper"):
        events = _corrected(ruleset, 5)
        deals = [i for i, e in enumerate(events) if e["type"] == "dealt"]
        typo = next(e["seq"] for e in events if e["type"] == "correction") - 2
        # the round live at its correction, and after the play again; the game over
        for cut in (typo + 3, typo + 6, len(events)):
            tl = tl_of(events[:cut])
            assert tl.fold is not None and typo in tl.fold.retracted
            for sight in (FULL, *(Sight(seat=s) for s in range(tl.fold.players)), PUBLIC):
                shown = frames(tl, sight)
                assert state_at(tl, None, sight) == shown[-1], (ruleset, cut, sight)
                # the round's first events, those about the retracted card, and the last
                around = range(typo - 1, min(cut, typo + 6))
                for seq in sorted({0, deals[-1] - 1, deals[-1], deals[-1] + 1, *around, cut - 1}):
                    if seq < len(shown):
                        assert state_at(tl, seq, sight) == shown[seq], (ruleset, cut, sight, seq)


def test_the_state_of_a_long_game_draws_one_table(monkeypatch):
    """The state after the last event of a whole game draws the table once (the viewer's
    frames draw it after every event)."""
    import dataclasses

    from jaslog.games import GAMES

    drawn = []
    game = GAMES["klaverjas"]

    def counted(*args):
        drawn.append(args[1])
        return game.frame(*args)

    monkeypatch.setitem(GAMES, "klaverjas", dataclasses.replace(game, frame=counted))
    tl = tl_of(simulate_game("long", seed=4, seats=SEATS))
    assert tl.applied() > 500
    for sight in (FULL, Sight(seat=2), PUBLIC):
        drawn.clear()
        state = state_at(tl, None, sight)
        assert state["seq"] == (tl.applied() - 1 if not sight.public else tl.horizon())
        assert drawn == [sight.seat]
