"""Claims of the rest (rule book 9.1, decision 13): ``{type: "claim", seat, gives}`` ends the
play of a round; the tricks still to play go to the side named with their card points and the
last-trick bonus, and no roem. With the hands known the solver judges a claim
(``claim_not_guaranteed``); without them it stands as recorded.

Every game is tried at its last trick, where each seat holds one card and every play is
forced: the side that took the last trick as played has a sound claim, the other side none,
and the claimed round scores the tricks and card points the played one did."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from jaslog.analysis.rounds import analyze_fold
from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import canonical_json, event_from_dict
from jaslog.export import export_games
from jaslog.play.audit import game_report
from jaslog.play.fold import fold
from jaslog.play.render import describe_event, unjudged
from jaslog.play.sim import Faults, simulate_game
from tests.cli import jaslog
from tests.test_record_table import db, fold_of, new, record, stored  # noqa: F401  (db)

GAMES = [("amsterdam", 8, 4), ("rotterdam", 8, 4), ("klaberjass-2p", 9, 2), ("kloepper", 6, 4)]


def first_round(ruleset: str, seed: int, *, no_hands: bool = False) -> list[dict[str, Any]]:
    """The events of a simulated game up to the end of its first round that was played out
    (a Klaberjass deal may be annulled), with or without its hands."""
    events = simulate_game("c", ruleset, seed=seed)
    f = fold(event_from_dict(e) for e in events)
    number = next(r.number for r in f.state.rounds if r.tricks and r.over)
    out, rounds = [], 0
    for e in events:
        if e["type"] == "dealt":
            rounds += 1
            if rounds > number:
                break
            if no_hands:
                e = {k: v for k, v in e.items() if k not in ("hands", "stock")}
        if e["type"] == "second_deal" and no_hands:
            e = {k: v for k, v in e.items() if k != "hands"}
        out.append(e)
    return out


def cut_before_play(events: list[dict[str, Any]], trick: int, players: int) -> list[dict[str, Any]]:
    """The events before the first card of ``trick`` of the last round."""
    last_deal = max(i for i, e in enumerate(events) if e["type"] == "dealt")
    plays = [i for i, e in enumerate(events) if i > last_deal and e["type"] == "play"]
    return events[:plays[(trick - 1) * players]]


def claimed(events: list[dict[str, Any]], seat: int, gives: str = "rest_to_claimer") -> GameFold:
    claim = {"game": "c", "seq": len(events), "type": "claim", "seat": seat, "gives": gives}
    return fold(event_from_dict(e) for e in [*events, claim])


def seats_of_side(f: GameFold, seat: int) -> set[int]:
    """The seats on ``seat``'s side in the last round (teams, one player, or the black
    queens' side)."""
    if f.players == 2:
        return {seat}
    r = f.state.rounds[-1]
    if hasattr(r, "sides"):
        sd = r.sides()
        return {s for s in range(4) if sd.on_queens(s) == sd.on_queens(seat)}
    return {seat, (seat + 2) % 4}


def by_side(f: GameFold, values: list[int], seat: int) -> tuple[int, int]:
    """What ``seat``'s side and the other side hold of ``values`` (one per team or seat)."""
    if len(values) == 2 and f.players == 4:
        return values[seat & 1], values[1 - (seat & 1)]
    mine = seats_of_side(f, seat)
    return (sum(v for s, v in enumerate(values) if s in mine),
            sum(v for s, v in enumerate(values) if s not in mine))


@pytest.mark.parametrize(("ruleset", "tricks", "players"), GAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_at_the_last_trick_the_side_that_took_it_has_a_sound_claim(
        ruleset: str, tricks: int, players: int, seed: int) -> None:
    events = first_round(ruleset, seed)
    played = fold(event_from_dict(e) for e in events)
    r = played.state.rounds[-1]
    last = r.tricks[-1]
    winner = r.winner_of(last) if hasattr(r, "winner_of") else last.winner
    before = cut_before_play(events, tricks, players)
    for seat in range(players):
        f = claimed(before, seat)
        c = f.state.rounds[-1].claim
        takes = winner in seats_of_side(f, seat)
        assert (c.trick, c.tricks, c.guaranteed) == (tricks, 1, takes)
        rules = [v.rule for v in f.state.rounds[-1].violations if v.seq == c.seq]
        assert rules == ([] if takes else ["claim_not_guaranteed"])
        if takes:  # the claimed round took what the played one did
            now, then = f.state.outcomes()[-1], played.state.outcomes()[-1]
            for key in ("points", "tricks"):
                assert by_side(f, getattr(now, key), seat) == by_side(f, getattr(then, key), seat)
            assert c.points == last.points
        assert f.state.rounds[-1].closed and f.state.rounds[-1].over


@pytest.mark.parametrize(("ruleset", "tricks", "players"), GAMES)
def test_a_concession_gives_the_rest_to_the_other_side_unjudged(
        ruleset: str, tricks: int, players: int) -> None:
    before = cut_before_play(first_round(ruleset, 4), 3, players)
    f = claimed(before, 1, "rest_to_opponents")
    c = f.state.rounds[-1].claim
    assert c.guaranteed is None and c.trick == 3 and c.tricks == tricks - 2
    assert c.taker not in seats_of_side(f, 1)
    assert not [v for v in f.state.rounds[-1].violations if v.seq == c.seq]
    o = f.state.outcomes()[-1]
    assert sum(o.tricks) == tricks  # every trick is someone's
    assert o.result not in ("unfinished", "")


def test_a_claim_in_the_middle_of_a_trick_gives_its_cards_too() -> None:
    events = first_round("amsterdam", 5)
    before = cut_before_play(events, 4, 4)
    mid = events[:len(before) + 2]  # two cards of trick 4 are on the table
    f = claimed(mid, 0, "rest_to_opponents")
    c = f.state.rounds[-1].claim
    assert (c.trick, c.tricks) == (4, 5)
    assert bin(c.cards).count("1") == 5 * 4  # the two on the table and the 18 not played
    o = f.state.outcomes()[-1]
    assert sum(o.points) == 162 and sum(o.tricks) == 8
    rep = game_report("c", f)
    assert rep["rounds"][0]["claim"] == {
        "seq": c.seq, "seat": 0, "gives": "rest_to_opponents", "trick": 4, "tricks": 5,
        "cards": rep["rounds"][0]["claim"]["cards"], "points": c.points, "taker": 1,
        "guaranteed": None}
    assert len(rep["rounds"][0]["claim"]["cards"]) == 20


def test_a_klaverjas_claim_without_hands_stands_and_its_plays_stay_unjudged() -> None:
    events = first_round("amsterdam", 6, no_hands=True)
    f = claimed(cut_before_play(events, 5, 4), 2)
    r = f.state.rounds[-1]
    assert r.claim.guaranteed is None and r.closed and not r.hands_known
    assert unjudged(r) == "claimed"
    assert sum(f.state.outcomes()[-1].points) == 162


@pytest.mark.parametrize("ruleset", ["klaberjass-2p", "kloepper"])
def test_a_claim_the_fold_cannot_score_without_hands_is_refused(ruleset: str) -> None:
    players = 2 if ruleset.startswith("klaberjass") else 4
    events = first_round(ruleset, 6, no_hands=True)
    with pytest.raises(FoldError) as err:
        claimed(cut_before_play(events, 3, players), 0)
    assert err.value.code == "claim_needs_hands"
    assert "record the deal's score with a ruling" in err.value.message


def test_a_claim_before_trumps_and_after_the_end_are_refused() -> None:
    events = first_round("amsterdam", 7)
    dealt = next(i for i, e in enumerate(events) if e["type"] == "dealt")
    with pytest.raises(FoldError) as err:
        claimed(events[:dealt + 1], 0)
    assert err.value.code == "claim_before_play"
    before = cut_before_play(events, 6, 4)
    f = claimed(before, 1, "rest_to_opponents")
    play = {"game": "c", "seq": f.next_seq, "type": "play", "seat": 0, "card": "7C"}
    with pytest.raises(FoldError) as err:
        f.apply(event_from_dict(play))
    assert err.value.code == "round_over"


def test_a_correction_retracts_a_claim_and_a_ruling_replaces_its_score() -> None:
    before = cut_before_play(first_round("amsterdam", 8), 2, 4)
    f = claimed(before, 0)
    s = f.next_seq
    f.apply(event_from_dict({"game": "c", "seq": s, "type": "correction", "retracts": [s - 1],
                             "reason": "nobody claimed"}))
    assert f.state.rounds[-1].claim is None and not f.state.rounds[-1].closed
    assert f.state.expected()[0] == "play"
    f = claimed(before, 0)
    c = f.state.rounds[-1].claim
    if c.guaranteed:  # make it the unsound one
        f = claimed(before, 1)
        c = f.state.rounds[-1].claim
    assert c.guaranteed is False
    f.apply(event_from_dict({"game": "c", "seq": f.next_seq, "type": "ruling", "round": 1,
                             "score": [81, 81], "reason": "claim not guaranteed: split"}))
    assert f.state.outcomes()[-1].final == [81, 81]


def test_replay_says_what_a_claim_gave_and_the_verdict() -> None:
    before = cut_before_play(first_round("amsterdam", 9), 7, 4)
    f = claimed(before, 0)
    c = f.state.rounds[-1].claim
    text = describe_event(f, f.log[-1]).plain
    side = f"{f.seats[c.taker]} ({c.taker})'s side"
    assert text.startswith(f"seq {c.seq:>4} {f.seats[0]} (0) claims the rest: 2 tricks from "
                           f"trick 7, {c.points} card points to {side}")
    assert ("not guaranteed" in text) is (c.guaranteed is False)


def test_the_export_and_the_analysis_show_each_claim(tmp_path: Path) -> None:
    """Three games, each ended by a claim, exported to Parquet and read back by DuckDB: each
    round's claim columns, the violation, and the claim in the analysis with the par of the
    position it was made from."""
    games, expected = [], {}
    three = [(ruleset, players) for ruleset, _, players in GAMES if ruleset != "rotterdam"]
    for gid, (ruleset, players) in zip(("ca", "cb", "cc"), three, strict=True):
        events = [{**e, "game": gid} for e in cut_before_play(first_round(ruleset, 3), 2,
                                                                players)]
        claim = {"game": gid, "seq": len(events), "type": "claim", "seat": 1,
                 "gives": "rest_to_claimer"}
        games.append([event_from_dict(e) for e in [*events, claim]])
        f = fold(games[-1])
        expected[gid] = (1, "rest_to_claimer", f.state.rounds[-1].claim.guaranteed)
        a = analyze_fold(f)[-1]
        assert a.claim is not None and a.claim["par"] == a.end == a.pars[-1]
        assert a.to_json()["claim"]["seq"] == claim["seq"]
    export_games(games, tmp_path / "ds")
    con = duckdb.connect()
    rows = con.execute(f"SELECT game, claimed_by, claim_gives, claim_guaranteed, complete FROM "
                       f"read_parquet('{tmp_path}/ds/current/rounds/**/*.parquet', "
                       "hive_partitioning = true) WHERE claimed_by IS NOT NULL ORDER BY game").fetchall()
    assert {g: (a, b, c) for g, a, b, c, _ in rows} == expected
    assert all(done for *_, done in rows)
    unsound = con.execute(f"SELECT count(*) FROM read_parquet('{tmp_path}/ds/current/violations/"
                          "**/*.parquet', hive_partitioning = true) WHERE rule = "
                          "'claim_not_guaranteed'").fetchone()
    assert unsound == (sum(1 for *_, ok in expected.values() if ok is False),)


def test_analyze_and_replay_name_the_claim(tmp_path: Path) -> None:
    before = cut_before_play(first_round("amsterdam", 9), 6, 4)
    f = claimed(before, 3)
    c = f.state.rounds[-1].claim
    path = tmp_path / "claimed.jsonl"
    path.write_text("".join(canonical_json(e).decode() + "\n" for e in f.log))
    r = jaslog("analyze", str(path), env={"COLUMNS": "200"}, text=True)
    verdict = "sound" if c.guaranteed else "not guaranteed against every defence"
    assert r.returncode == 0
    assert f"claim: {f.seats[3]} (3) claims the rest from trick 6; par there " in r.stdout
    assert r.stdout.rstrip().endswith(verdict)
    r = jaslog("replay", str(path), env={"COLUMNS": "200"}, text=True)
    assert f"{f.seats[3]} (3) claims the rest: 3 tricks from trick 6, {c.points} card points" \
        in r.stdout


# ---------------------------------------------------------------------- the recorder


def test_the_recorder_words_claim_and_concede(db: str) -> None:  # noqa: F811  (the fixture)
    new("cl")
    out = record("cl", "deal random 5", "c", "claim 7", "2 concede 1", "claim", "quit")
    assert "✗ '7' is not a seat (0-3)" in out
    assert "✗ give the claimer's seat once: before the word or after it" in out
    evs = stored(db, "cl")
    assert evs[-1]["type"] == "claim" and evs[-1]["gives"] == "rest_to_claimer"
    f = fold_of(db, "cl")
    r = f.state.rounds[-1]
    assert r.claim is not None and r.claim.seat == evs[-1]["seat"] and r.closed
    assert f.state.expected()[0] == "deal"
    new("cc")
    record("cc", "deal random 5", "c", "concede 3", "quit")
    last = stored(db, "cc")[-1]
    assert {k: last[k] for k in ("seq", "type", "seat", "gives")} == {
        "seq": 3, "type": "claim", "seat": 3, "gives": "rest_to_opponents"}


# ---------------------------------------------------------------------- simulated claims


@pytest.mark.parametrize("ruleset", ["amsterdam", "rotterdam", "klaberjass-2p", "kloepper"])
def test_simulated_games_with_claims_fold_and_judge_every_claim(ruleset: str) -> None:
    """Every game, played by bots that claim the rest at one trick in ten (and concede one
    claim in four), half the deals without hands: each game folds to its end, each claim is
    on its round, and each claim of the rest made with the hands known has a verdict."""
    faults = Faults(claim_rate=0.1, no_hands_rate=0.5)
    claims = 0
    for seed in range(4):
        events = simulate_game("s", ruleset, seed=seed, faults=faults)
        f = fold(event_from_dict(e) for e in events)
        assert f.state.finished
        ended = [r for r in f.state.rounds if r.claim is not None]
        assert len(ended) == sum(1 for e in events if e["type"] == "claim")
        for r in ended:
            c = r.claim
            judged = c.gives == "rest_to_claimer" and r.hands_known
            assert (c.guaranteed is not None) == judged
            unsound = [v for v in r.violations if v.rule == "claim_not_guaranteed"]
            assert len(unsound) == (c.guaranteed is False)
        claims += len(ended)
    assert claims >= 4

