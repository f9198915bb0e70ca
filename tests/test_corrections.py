"""Corrections (rule book 9.1, decision 9), for every game: an event retracted and recorded
again folds to the same game; each misuse is refused with its code and changes nothing."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from jaslog.engine.fold import ROUND_OPENERS, FoldError, GameFold
from jaslog.events import Event, event_from_dict
from jaslog.games import GAMES
from jaslog.play.audit import game_report
from jaslog.play.fold import fold
from jaslog.play.sim import simulate_game

RULESETS = [next(iter(g.presets)) for g in GAMES.values()]


def shifted(e: Event, by: int) -> Event:
    return e.model_copy(update={"seq": e.seq + by})


def correction(game: str, seq: int, retracts: list[int], reason: str = "typo") -> Event:
    return event_from_dict({"game": game, "seq": seq, "type": "correction",
                            "retracts": retracts, "reason": reason})


def game(ruleset: str) -> list[Event]:
    return [event_from_dict(d) for d in simulate_game("c1", ruleset, seed=11)]


def last_round_play(events: list[Event]) -> int:
    """The index of a play in the middle of the game's last round."""
    deals = [i for i, e in enumerate(events) if e.type == "dealt"]
    plays = [i for i, e in enumerate(events) if e.type == "play" and i > deals[-1]]
    return plays[len(plays) // 2]


def plain(report: dict[str, Any]) -> dict[str, Any]:
    """A report without what a correction adds to it (what it retracted, where)."""
    return {k: v for k, v in report.items() if k not in ("retracted",)}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_an_event_retracted_and_recorded_again_folds_to_the_same_game(ruleset: str) -> None:
    events = game(ruleset)
    i = last_round_play(events)
    typo = events[i]
    fixed = [*events[:i], typo, correction("c1", typo.seq + 1, [typo.seq]),
             *(shifted(e, 2) for e in events[i:])]
    before, after = fold(events), fold(fixed)
    assert after.retracted.keys() == {typo.seq}
    a, b = game_report("c1", before), game_report("c1", after)
    for r in (a, b):
        for rnd in r["rounds"]:  # violations name seqs, which moved by two
            rnd.pop("violations", None)
        r.pop("violations")
    assert plain(a)["totals"] == plain(b)["totals"]
    assert plain(a)["winner"] == plain(b)["winner"]
    assert len(a["rounds"]) == len(b["rounds"])


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_correction_may_retract_several_events_and_the_deal(ruleset: str) -> None:
    events = game(ruleset)
    deals = [i for i, e in enumerate(events) if e.type == "dealt"]
    k = deals[-1]
    cut = events[:k + 3]
    f = fold(cut)
    rounds = len(f.state.rounds)
    f.apply(correction("c1", len(cut), [e.seq for e in cut[k:]]))
    assert len(f.state.rounds) == rounds - 1
    f.apply(shifted(events[k], len(cut) + 1 - k))  # the deal, recorded again
    assert len(f.state.rounds) == rounds


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_fold_keeps_the_events_that_opened_a_round(ruleset: str) -> None:
    """What the audit reads of how each round was recorded: every deal folded, in order, a
    retracted one too (and not a refused one); a copy keeps them apart."""
    events = game(ruleset)
    k = [i for i, e in enumerate(events) if e.type == "dealt"][-1]
    cut = events[:k + 3]
    f = fold(cut)
    with pytest.raises(FoldError):
        f.apply(shifted(events[k], len(cut) - k))  # a deal in the middle of a round
    f.apply(correction("c1", len(cut), [e.seq for e in cut[k:]]))
    f.apply(shifted(events[k], len(cut) + 1 - k))  # the deal, recorded again
    assert f.openers == [e for e in f.log if e.type in ROUND_OPENERS]
    assert [e.seq for e in f.openers if e.seq not in f.retracted] == [
        e.seq for e in f.log if e.type == "dealt" and e.seq not in f.retracted]
    twin = copy.deepcopy(f)
    assert twin.openers == f.openers and twin.openers is not f.openers
    rounds = game_report("c1", f)["rounds"]
    assert len(rounds) == len(f.state.rounds) and all(r["hands_recorded"] for r in rounds)


def codes(events: list[Event], retracts: list[int]) -> str:
    f = fold(events)
    state, retracted = f.state, dict(f.retracted)
    with pytest.raises(FoldError) as err:
        f.apply(correction(events[0].game, len(events), retracts))
    assert f.state is state and f.retracted == retracted  # nothing changed
    return err.value.code


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_misuse_has_its_code(ruleset: str) -> None:
    events = game(ruleset)
    i = last_round_play(events)
    cut = events[:i + 1]
    n = len(cut)
    deal = max(j for j, e in enumerate(cut) if e.type == "dealt")
    assert codes(cut, [n]) == "retract_unknown_seq"
    assert codes(cut, [n - 2]) == "retract_not_latest"
    assert codes(cut, [n - 1, n - 1]) == "retract_twice"
    assert codes(cut, [deal - 1]) == "retract_past_round"
    with pytest.raises(ValueError):  # seq 0, the game_started, is not even a valid correction
        correction("c1", n, [0])
    once = [*cut, correction("c1", n, [n - 1])]
    assert codes(once, [n - 1]) == "retract_twice"
    assert codes(once, [n]) == "retract_not_latest"  # a correction is final


def test_notes_are_passed_over_and_the_message_names_the_latest() -> None:
    events = game("amsterdam")
    i = last_round_play(events)
    cut = [*events[:i + 1], event_from_dict({"game": "c1", "seq": i + 1, "type": "note",
                                             "text": "bob asks for a break"})]
    f: GameFold = fold(cut)
    f.apply(correction("c1", i + 2, [i]))
    assert f.retracted.keys() == {i}
    with pytest.raises(FoldError, match=r"the 1 most recent is seq \d+ \(play \w+ by seat \d\)"):
        fold(cut).apply(correction("c1", i + 2, [i - 1]))


def test_a_retracted_typo_no_longer_blocks_the_real_card() -> None:
    """Hands not recorded: a typed 7H for 7D, once retracted, lets 7H be played later."""
    def ev(seq: int, **d: Any) -> Event:
        return event_from_dict({"game": "t", "seq": seq, **d})

    head = [ev(0, type="game_started", ruleset="amsterdam", seats=["a", "b", "c", "d"], dealer=3),
            ev(1, type="dealt"), ev(2, type="bid", seat=0, call="S"),
            ev(3, type="play", seat=0, card="7H")]
    with pytest.raises(FoldError, match="card_played_twice"):
        fold([*head, ev(4, type="play", seat=1, card="7H")])
    f = fold([*head, ev(4, type="correction", retracts=[3], reason="7H for 7D"),
              ev(5, type="play", seat=0, card="7D"), ev(6, type="play", seat=1, card="7H")])
    trick = game_report("t", f)["rounds"][0]["tricks"][0]
    assert trick["cards"] == ["7D", "7H"]


def test_a_copy_of_a_fold_moves_on_alone() -> None:
    """A recorder tries an event (a correction too) on a copy: the original is untouched."""
    import copy

    events = game("amsterdam")
    i = last_round_play(events)
    f = fold(events[:i + 1])
    g = copy.deepcopy(f)
    g.apply(correction("c1", i + 1, [i]))
    assert g.retracted.keys() == {i} and not f.retracted
    assert len(g.log) == len(f.log) + 1
    assert game_report("c1", f) != game_report("c1", g)
    assert game_report("c1", f) == game_report("c1", fold(events[:i + 1]))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_finished_game_takes_no_correction(ruleset: str) -> None:
    """Decision 9: a correction reaches no further back than the round in play, and a finished
    game has none; once it is over only a referee's ruling changes it."""
    events = game(ruleset)
    f = fold(events)
    assert f.state.finished
    n = len(events)
    assert codes(events, [n - 1]) == "retract_game_over"
    with pytest.raises(FoldError, match="only a referee's ruling changes it"):
        f.apply(correction("c1", n, [n - 1]))
    assert f.state.finished and f.next_seq == n


def test_a_finished_game_is_changed_by_a_ruling_and_then_takes_no_correction() -> None:
    events = game("amsterdam")
    n = len(events)
    ruled = [*events, event_from_dict({"game": "c1", "seq": n, "type": "ruling", "round": 1,
                                       "score": [0, 0], "reason": "appeal"})]
    f = fold(ruled)
    assert f.state.finished
    assert codes(ruled, [n]) == "retract_game_over"
