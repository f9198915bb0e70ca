"""The fold: events -> states, integrity errors located by game and seq, several games per
file, and rounds recorded without hands."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any, ClassVar

import orjson
import pytest

from jaslog.engine.fold import FoldError, GameFold, Handlers
from jaslog.events import EVENT_MODELS, Bid, Play, canonical_json, event_from_dict
from jaslog.events.fast import FastPlay, fast_play
from jaslog.games.klaverjas.events import TrumpTurned
from jaslog.games.klaverjas.fold import KlaverjasFold
from jaslog.logs import read_lines
from jaslog.play.fold import FileGame, fold, fold_lines, start_fold

from .rules.logs import (
    DEAL_M,
    REVOKE_SEQ_M,
    SEATS,
    TRICKS_M,
    TRICKS_M_REVOKE,
    Log,
    masks,
    round_m,
    suit_round,
)


def m_round(log: Log | None = None, tricks: list[tuple[int, str]] = TRICKS_M,
            hands: bool = True) -> Log:
    log = log or Log()
    log.deal(DEAL_M if hands else None).bid(0, "H")
    return round_m(log, tricks)


def edit(log: Log, index: int, **fields: Any) -> Log:
    log.events[index] = {**log.events[index], **fields}
    return log


def fold_error(log: Log) -> FoldError:
    with pytest.raises(FoldError) as err:
        log.fold()
    return err.value


def fold_jsonl(data: bytes, source: str = "f.jsonl") -> list[FileGame | FoldError]:
    return list(fold_lines(read_lines(io.BytesIO(data), source)))


# Each case: (code, build a log, seq of the bad event); the fold stops there.
CASES: list[tuple[str, Callable[[], Log], int]] = [
    ("card_dealt_twice_across", lambda: Log().deal([DEAL_M[0], DEAL_M[0].replace("JH", "10H"),
                                                     DEAL_M[2], DEAL_M[3]]), 1),
    ("card_dealt_twice_in_a_hand", lambda: Log().deal([DEAL_M[0].replace("9H", "JH"), *DEAL_M[1:]]), 1),
    ("bad_deal_7_cards", lambda: Log().deal([DEAL_M[0].rsplit(" ", 1)[0], *DEAL_M[1:]]), 1),
    ("bad_deal_3_hands", lambda: Log().deal(DEAL_M[:3]), 1),
    ("seq_gap", lambda: edit(m_round(), 5, seq=6), 6),
    ("seq_duplicate", lambda: edit(m_round(), 5, seq=4), 4),
    ("play_after_round_over", lambda: m_round().play(0, "JH"), 35),
    ("play_out_of_turn", lambda: Log().deal(DEAL_M).bid(0, "H").play(1, "KH"), 3),
    ("play_out_of_turn_next_trick", lambda: Log().deal(DEAL_M).bid(0, "H")
     .trick(0, "JH KH 8H 7H").play(1, "10H"), 7),
    ("card_not_held", lambda: Log().deal(DEAL_M).bid(0, "H").play(0, "KH"), 3),
    ("card_played_twice_unseen", lambda: Log().deal(None).bid(0, "H").trick(0, "JH KH 8H 7H")
     .play(0, "KH"), 7),
    ("deal_while_round_unfinished", lambda: Log().deal(DEAL_M).bid(0, "H").play(0, "JH")
     .deal(None), 4),
    ("deal_after_game_over", lambda: suit_round(Log(options={"game_end": {"type": "deals",
                                                                           "count": 1}}), 3)
     .deal(None), 35),
    ("wrong_dealer", lambda: Log().deal(None, dealer=0), 1),
    ("game_started_twice", lambda: Log().add("game_started", ruleset="amsterdam",
                                              seats=["a", "b", "c", "d"], dealer=0), 1),
    ("play_before_trumps", lambda: Log().deal(DEAL_M).play(0, "JH"), 2),
    ("roem_before_a_deal", lambda: Log().roem(0, 20), 1),
    ("note_of_an_undealt_round", lambda: Log().deal(None).note("x", round=2), 2),
    ("turn_in_free_choice", lambda: Log().deal(None).turn("4H"), 2),
]
CODES = {
    "card_dealt_twice_across": "dealt_twice", "card_dealt_twice_in_a_hand": "dealt_twice",
    "bad_deal_7_cards": "bad_deal", "bad_deal_3_hands": "bad_deal", "seq_gap": "seq_gap",
    "seq_duplicate": "seq_duplicate", "play_after_round_over": "round_over",
    "play_out_of_turn": "not_your_turn", "play_out_of_turn_next_trick": "not_your_turn",
    "card_not_held": "card_not_held", "card_played_twice_unseen": "card_played_twice",
    "deal_while_round_unfinished": "round_not_over", "deal_after_game_over": "game_over",
    "wrong_dealer": "wrong_dealer", "game_started_twice": "misplaced_event",
    "play_before_trumps": "trump_not_chosen", "roem_before_a_deal": "no_deal",
    "note_of_an_undealt_round": "no_such_round", "turn_in_free_choice": "turn_unexpected",
}


@pytest.mark.parametrize("build, seq", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_integrity_errors(request: pytest.FixtureRequest, build: Callable[[], Log], seq: int) -> None:
    code = CODES[request.node.callspec.id]
    e = fold_error(build())
    assert (e.code, e.game, e.seq) == (code, "g1", seq)
    assert str(e).startswith(f"game g1 seq {seq}: ")
    assert str(e).endswith(f"[{code}]")


def test_integrity_messages_say_what_and_who() -> None:
    e = fold_error(Log().deal(DEAL_M).bid(0, "H").play(0, "KH"))
    assert (e.seat, e.card) == (0, "KH")
    assert "seat 0 played KH, which is not in its hand (" in e.message
    e = fold_error(Log().deal(DEAL_M).bid(0, "H").play(1, "KH"))
    assert "seat 1 played KH but it is seat 0's turn" in e.message
    e = fold_error(Log().deal([DEAL_M[0], DEAL_M[0].replace("JH", "10H"), DEAL_M[2], DEAL_M[3]]))
    assert "dealt twice" in e.message and "9H" in e.message
    e = fold_error(Log().deal(DEAL_M).bid(0, "H").play(0, "JH").deal(None))
    assert "round 1 is not over (1 of 32 cards played)" in e.message
    e = fold_error(edit(m_round(), 5, seq=6))
    assert "seq 6 is a gap before the expected seq 5" in e.message


def test_the_fold_changes_nothing_on_an_error() -> None:
    log = Log().deal(DEAL_M).bid(0, "H")
    f = log.fold()
    before = f.state.copy()
    with pytest.raises(FoldError):
        f.apply(event_from_dict({"game": "g1", "seq": 3, "type": "play", "seat": 0, "card": "KH"}))
    assert f.next_seq == 3
    f.apply(event_from_dict({"game": "g1", "seq": 3, "type": "play", "seat": 0, "card": "JH"}))
    assert before.rounds[0].played == 0 and f.state.rounds[0].played != 0


@pytest.mark.parametrize("first, code", [
    ({"game": "g1", "seq": 0, "type": "play", "seat": 0, "card": "JH"}, "no_game_started"),
    ({"game": "g1", "seq": 1, "type": "game_started", "ruleset": "amsterdam",
      "seats": ["a", "b", "c", "d"], "dealer": 0}, "no_game_started"),
    ({"game": "g1", "seq": 0, "type": "game_started", "ruleset": "amsterdam",
      "options": {"play": "paris"}, "seats": ["a", "b", "c", "d"], "dealer": 0}, "bad_options"),
    ({"game": "g1", "seq": 0, "type": "game_started", "ruleset": "amsterdam",
      "options": {"bella": 20}, "seats": ["a", "b", "c", "d"], "dealer": 0}, "bad_options"),
    ({"game": "g1", "seq": 0, "type": "game_started", "ruleset": "amsterdam",
      "seats": ["a", "b", "c"], "dealer": 0}, "bad_seats"),
    ({"game": "g1", "seq": 0, "type": "game_started", "ruleset": "amsterdam",
      "seats": ["a", "b", "a", "d"], "dealer": 0}, "bad_seats"),
])
def test_start_errors(first: dict[str, Any], code: str) -> None:
    with pytest.raises(FoldError) as err:
        start_fold(event_from_dict(first))
    assert (err.value.code, err.value.game, err.value.seq) == (code, "g1", first["seq"])


def test_empty_and_wrong_game() -> None:
    with pytest.raises(FoldError) as err:
        fold([])
    assert err.value.code == "empty_game"
    f = Log().fold()
    with pytest.raises(FoldError) as err:
        f.apply(event_from_dict({"game": "g2", "seq": 1, "type": "dealt"}))
    assert err.value.code == "wrong_game"


def test_fold_of_a_whole_round_and_its_state() -> None:
    f = m_round().fold()
    assert isinstance(f, KlaverjasFold)
    assert f.next_seq == 35 and f.seats == ["ann", "bob", "cor", "dirk"]
    st = f.state
    assert st.rounds[0].closed and st.rounds[0].over
    assert st.rounds[0].hands == [0, 0, 0, 0]
    assert st.expected() == ("deal", 0)


def test_notes_change_nothing() -> None:
    a = m_round().fold().state.outcomes()
    log = Log().deal(DEAL_M).note("coffee", seat=2, round=1).bid(0, "H")
    f = round_m(log, TRICKS_M).fold()
    assert f.state.outcomes() == a
    assert [n.text for n in f.notes] == ["coffee"]   # type: ignore[attr-defined]


# ---------------------------------------------------------------- hands not recorded


def test_unseen_hands_are_rebuilt_and_judged_when_the_32_cards_are_in() -> None:
    log = m_round(tricks=TRICKS_M_REVOKE, hands=False)
    events = log.events
    f = start_fold(event_from_dict(events[0]))
    for e in events[1:-1]:
        f.apply(event_from_dict(e))
    assert f.state.violations == []                 # 31 cards in: nothing can be judged yet
    assert not f.state.rounds[0].closed
    f.apply(event_from_dict(events[-1]))
    r = f.state.rounds[0]
    assert r.closed and r.dealt == masks(DEAL_M)
    [v] = f.state.violations
    assert (v.rule, v.seq, v.seat, v.trick, v.round) == ("must_follow_suit", REVOKE_SEQ_M, 1, 4, 1)
    o = f.state.outcomes()[0]
    assert (o.score, o.result) == ([162, 0], "revoke")   # claimed mode, nothing claimed


def test_unseen_legal_round_is_clean() -> None:
    f = m_round(hands=False).fold()
    assert f.state.violations == []
    assert f.state.outcomes()[0].score == [133, 29]


def test_unseen_hands_with_revoke_reject_fail_at_the_last_card() -> None:
    log = Log(options={"revoke": "reject"}).deal(None).bid(0, "H")
    e = fold_error(round_m(log, TRICKS_M_REVOKE))
    assert (e.code, e.seq) == ("must_follow_suit", log.seq)
    assert "9D" in e.message


# ---------------------------------------------------------------- several games in one file


def test_interleaved_games_fold_separately() -> None:
    a, b = m_round(Log(game="a")), m_round(Log(game="b", dealer=3))
    lines = [orjson.dumps(e) for pair in zip(a.events, b.events, strict=True) for e in pair]
    out = fold_jsonl(b"\n".join(lines) + b"\n")
    assert [g.game for g in out] == ["a", "b"]   # type: ignore[union-attr]
    for g in out:
        assert isinstance(g, FileGame) and g.error is None and g.fold is not None
        assert g.fold.state.outcomes()[0].score == [133, 29]
    assert out[1].lines[0] == ("f.jsonl", 2)     # type: ignore[union-attr]
    assert out[1].lines[34] == ("f.jsonl", 70)   # type: ignore[union-attr]


def test_an_error_in_one_game_does_not_stop_another() -> None:
    a = Log(game="a").deal(DEAL_M).bid(0, "H").play(1, "KH")      # out of turn at seq 3
    b = m_round(Log(game="b"))
    data = a.jsonl() + b.jsonl()
    out = fold_jsonl(data)
    ga, gb = out
    assert isinstance(ga, FileGame) and isinstance(gb, FileGame)
    assert ga.error is not None and ga.error.code == "not_your_turn"
    assert (ga.error.source, ga.error.line, ga.error.seq) == ("f.jsonl", 4, 3)
    assert str(ga.error).startswith("f.jsonl:4: game a seq 3: seat 1 played KH")
    assert gb.error is None


def test_unreadable_lines() -> None:
    good = Log(game="a")
    data = (good.jsonl() + b"{oops\n"
            + b'{"game":"a","seq":1,"type":"dealt","hands":[["TH"]]}\n'
            + b'{"game":"c","seq":0,"type":"bogus"}\n')
    out = fold_jsonl(data)
    bare = [g for g in out if isinstance(g, FoldError)]
    games = {g.game: g for g in out if isinstance(g, FileGame)}
    [e] = bare
    assert (e.code, e.line, e.game) == ("bad_event", 2, None)
    assert str(e).startswith("f.jsonl:2: not valid JSON")
    ea = games["a"].error
    assert ea is not None and (ea.code, ea.line, ea.seq) == ("bad_event", 3, 1)
    assert str(ea).startswith("f.jsonl:3: game a seq 1: field 'hands.0.0': 'TH' is not a card")
    ec = games["c"].error
    assert ec is not None and "unknown event type 'bogus'" in str(ec)
    assert "game c seq 0" in str(ec) and games["c"].fold is None


def test_unknown_field_and_bad_card_lines() -> None:
    a = Log(game="a").deal(DEAL_M).bid(0, "H")
    a.events.append({"game": "a", "seq": 3, "type": "play", "seat": 0, "card": "JH", "face": "up"})
    [g] = fold_jsonl(a.jsonl())
    assert isinstance(g, FileGame) and g.error is not None
    assert g.error.code == "bad_event" and "unknown field 'face'" in str(g.error)
    assert "f.jsonl:4: game a seq 3" in str(g.error)
    # the fold up to the bad line is kept for the report
    assert g.fold is not None and g.fold.state.rounds[0].trump is not None


def test_unseen_hands_judge_each_play_against_the_cards_before_it() -> None:
    # regression: the close of an unseen round judged a play against the whole trick, so
    # a card that broke "must trump" (trick 4 of this game) was reported as a bare 'revoke'
    from jaslog.play.sim import Faults, simulate_game

    events = simulate_game("h", "amsterdam", {"game_end": {"type": "deals", "count": 1}}, seed=19,
                           faults=Faults(revoke_rate=0.3))
    seen = fold(event_from_dict(e) for e in events)
    blind = fold(event_from_dict({k: v for k, v in e.items() if k != "hands"}) for e in events)
    rules = [(v.seq, v.rule, v.trick) for v in seen.state.violations]
    assert "must_trump" in [r for _, r, _ in rules]
    assert sorted((v.seq, v.rule, v.trick) for v in blind.state.violations) == sorted(rules)
    assert all(v.message for v in blind.state.violations)



# ------------------------------------------------------------------ dispatch on the event class

#: The events each game takes besides game_started (rule book sections 3, 4 and 5).
#: What every game's fold takes, whatever the game (the table's facts and the referee's).
COMMON_EVENTS = {"claim", "ruling", "note", "correction", "irregularity", "timeout", "round_score",
                 "deal_committed", "nonce", "deal_revealed"}
GAME_EVENTS = {
    "amsterdam": {"dealt", "trump_turned", "bid", "play", "roem"} | COMMON_EVENTS,
    "klaberjass-2p": {"dealt", "bid", "second_deal", "dix", "sequence", "bella", "play"}
    | COMMON_EVENTS,
    "kloepper": {"dealt", "partner_call", "knock", "knock_back", "play"} | COMMON_EVENTS,
}


def started_fold(ruleset: str) -> GameFold:
    players = 2 if ruleset == "klaberjass-2p" else 4
    return start_fold(event_from_dict({"game": "g", "seq": 0, "type": "game_started",
                                       "ruleset": ruleset, "seats": SEATS[:players], "dealer": 0}))


@pytest.mark.parametrize("ruleset", list(GAME_EVENTS))
def test_each_game_takes_its_events_by_class_and_refuses_the_others(ruleset: str) -> None:
    f = started_fold(ruleset)
    table = type(f).dispatch
    assert {name for name, model in EVENT_MODELS.items() if model in table} == GAME_EVENTS[ruleset]
    assert set(table) == {EVENT_MODELS[name] for name in GAME_EVENTS[ruleset]} | {FastPlay}
    assert table[FastPlay] is table[Play]
    for name, model in EVENT_MODELS.items():
        if name in GAME_EVENTS[ruleset]:
            continue
        e = model.model_construct(game="g", seq=1, type=name)  # the class decides, not the fields
        with pytest.raises(FoldError) as err:
            f.apply(e)
        what = ("is only the first event of a game" if name == "game_started"
                else f"is not an event of {f.game}")
        assert str(err.value) == f"game g seq 1: {name} {what} [misplaced_event]"
        assert f.next_seq == 1


@pytest.mark.parametrize("ruleset", list(GAME_EVENTS))
def test_a_play_read_without_its_model_folds_as_the_model(ruleset: str) -> None:
    """The store and the importer hand canonical plays over as FastPlay objects: each game's
    fold takes them as it takes Play models, to the same state and report."""
    from jaslog.play.audit import game_report
    from jaslog.play.sim import Faults, simulate_game

    raw = simulate_game("g", ruleset, seed=5, faults=Faults(revoke_rate=0.05, no_hands_rate=0.5))
    models = [event_from_dict(e) for e in raw]
    fast: list[Any] = [fast_play(canonical_json(e)) or e for e in models]
    assert sum(isinstance(e, FastPlay) for e in fast) > 50
    reports = [orjson.dumps(game_report("g", fold(es), None)) for es in (models, fast)]
    assert reports[0] == reports[1]


def test_handlers_are_read_from_the_declared_tables() -> None:
    """A fold class's table joins the tables it and its bases declare, each event's most
    derived entry winning, each name read as the most derived method; None drops an event a
    base takes; anything else is refused."""

    class Base(GameFold):
        handlers: ClassVar[Handlers] = {Bid: "bid", Play: "play"}

        def bid(self, e: Bid) -> None: ...

        def play(self, e: Play) -> None: ...

    class Derived(Base):
        handlers: ClassVar[Handlers] = {Play: None}  # no longer taken

        def bid(self, e: Bid) -> None: ...

    every = set(GameFold.dispatch)  # the table's facts every game takes
    assert every == {EVENT_MODELS[t] for t in ("note", "correction", "irregularity", "timeout",
                                              "round_score", "claim", "deal_committed", "nonce",
                                              "deal_revealed")}
    assert set(Base.dispatch) == {Bid, Play, FastPlay} | every
    assert Derived.dispatch[Bid] is Derived.bid and Base.dispatch[Bid] is Base.bid
    assert set(Derived.dispatch) == {Bid} | every

    with pytest.raises(TypeError, match="not an event class"):
        class NotAnEvent(GameFold):
            handlers: ClassVar[Any] = {int: "bid"}

            def bid(self, e: Any) -> None: ...

    with pytest.raises(TypeError, match="by its method 'turned', which it does not have"):
        class Missing(GameFold):
            handlers: ClassVar[Handlers] = {TrumpTurned: "turned"}


def fold_by_apply_play(events: list[Any]) -> GameFold:
    """``events`` folded with every play handed over as its seat and card alone."""
    from jaslog.cards import CARD_INDEX

    f = start_fold(events[0])
    for e in events[1:]:
        if e.type == "play":
            assert e.seq == f.next_seq
            f.apply_play(e.seat, CARD_INDEX[e.card], e.at)
        else:
            f.apply(e)
    return f


@pytest.mark.parametrize("ruleset", list(GAME_EVENTS))
def test_a_play_given_as_seat_and_card_folds_as_the_model(ruleset: str) -> None:
    """``apply_play(seat, card, at)`` (the store's replay hands plays over so): the same
    state, report and log as the play's model, and the same error for a play the rules
    refuse, the fold unchanged by it."""
    import copy

    from jaslog.cards import CARD_INDEX
    from jaslog.play.audit import game_report
    from jaslog.play.sim import Faults, simulate_game

    raw = simulate_game("g", ruleset, seed=5, faults=Faults(revoke_rate=0.05, no_hands_rate=0.5))
    models = [event_from_dict(e) for e in raw]
    by_model, by_ints = fold(models), fold_by_apply_play(models)
    assert orjson.dumps(game_report("g", by_ints, None)) == \
        orjson.dumps(game_report("g", by_model, None))
    assert [e.model_dump() for e in by_ints.log] == [e.model_dump() for e in by_model.log]
    assert (by_ints.next_seq, by_ints.last_at) == (by_model.next_seq, by_model.last_at)
    assert sum(isinstance(e, FastPlay) for e in by_ints.log) > 50

    # a round under way: a card played a second time, and a seat that is not one
    first = next(i for i, e in enumerate(models) if e.type == "play")
    played: Any = models[first]
    for seat, card in ((played.seat, played.card), (7, played.card)):
        f = fold(models[:first + 1])
        g = copy.deepcopy(f)
        with pytest.raises(FoldError) as by_model_err:
            f.apply(FastPlay("g", f.next_seq, seat, card, None, None, None))  # type: ignore[arg-type]
        with pytest.raises(FoldError) as by_ints_err:
            g.apply_play(seat, CARD_INDEX[card])
        assert str(by_ints_err.value) == str(by_model_err.value)
        assert (by_ints_err.value.seat, by_ints_err.value.card) == \
            (by_model_err.value.seat, by_model_err.value.card)
        assert (g.next_seq, len(g.log)) == (first + 1, first + 1)


def test_source_lines_are_the_list_of_pairs_they_keep_as_runs() -> None:
    """A game's ``lines`` (where each event was read) kept as runs of consecutive lines
    read as the list of ``(source, line)`` pairs would: length, indexes (negative ones and
    slices too), iteration and equality, whatever the runs."""
    import random

    from jaslog.play.fold import SourceLines

    rng = random.Random(5)
    for _ in range(50):
        pairs: list[tuple[str, int]] = []
        kept = SourceLines()
        for _ in range(rng.randrange(0, 30)):
            source = rng.choice(["a.jsonl", "b.jsonl"])
            first = rng.choice([pairs[-1][1] + 1 if pairs else 1, rng.randrange(1, 99)])
            count = rng.choice([0, 1, 1, 3, 40])
            if count == 1 and rng.random() < 0.5:
                kept.append((source, first))
            else:
                kept.add_run(source, first, count)
            pairs += [(source, first + k) for k in range(count)]
        assert len(kept) == len(pairs) and list(kept) == pairs and kept == pairs
        assert pairs == kept and kept == SourceLines(pairs) and kept != [*pairs, ("a", 1)]
        assert [kept[i] for i in range(-len(pairs), len(pairs))] == pairs + pairs
        assert kept[1:-1:2] == pairs[1:-1:2]
        with pytest.raises(IndexError):
            kept[len(pairs)]
