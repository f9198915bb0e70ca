"""The notation is lossless: jaslog/1 -> text -> jaslog/1 gives back the same bytes, and
text -> jaslog/1 -> text the same text, for the replays, simulated games of every ruleset,
games recorded as a real table records them, games recorded live (times with fractions, store
times, ids) and any valid event (hypothesis)."""

from __future__ import annotations

import pickle
import re
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaslog.events import EVENT_MODELS, RULESETS, EventError, canonical_json, event_from_dict, parse_event
from jaslog.notation import TextView, ViewLine, read_games, write_game, write_games
from jaslog.notation.syntax import ENVELOPE, FIELDS
from jaslog.play.sim import simulated_rulesets
from tests.examples import examples
from tests.export.real_table import real_table
from tests.notation.helpers import assert_round_trips, read_text, simulated, text_lines

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))


def test_the_notation_knows_every_event_and_its_fields_in_canonical_order() -> None:
    assert set(FIELDS) == set(EVENT_MODELS)
    for t, model in EVENT_MODELS.items():
        assert ENVELOPE + FIELDS[t] == tuple(model.model_fields), t


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.stem)
def test_every_replay_round_trips_byte_for_byte(path: Path) -> None:
    events = [parse_event(line) for line in path.read_bytes().splitlines()]
    text = assert_round_trips(events)
    players = len(events[0].seats)  # type: ignore[attr-defined]
    plays = sum(e.type == "play" for e in events)
    tricks = [ln for ln in text.splitlines() if re.match(r"\d+\. ", ln)]
    assert len(tricks) == plays // players  # a trick a line (a declaration may break it)


@pytest.mark.parametrize("ruleset", simulated_rulesets())
def test_simulated_games_round_trip_with_their_times(ruleset: str) -> None:
    for i in range(12):
        events = simulated(ruleset, i)
        assert all("at" in e for e in events)
        assert_round_trips(events)


@pytest.mark.parametrize("ruleset", ["amsterdam", "rotterdam", "klaberjass-2p", "kloepper"])
def test_a_real_tables_record_round_trips(ruleset: str) -> None:
    """A round by its score alone, a typo and its correction, an irregularity, two rulings."""
    rt = real_table(f"club-{ruleset}", ruleset)
    text = assert_round_trips(rt.events)
    lines = text.splitlines()
    assert any(ln.startswith("Score round ") for ln in lines)
    assert 'Correction -1 "the scorer wrote the wrong card"' in text
    assert any(ln.startswith("Irregularity exposed_card ") for ln in lines)
    assert sum(ln.startswith("Ruling round 1 score ") for ln in lines) == 2
    # the play retracted stays in its trick's line; the trick goes on after the correction
    corrected = lines.index(next(ln for ln in lines if ln.startswith("Correction")))
    assert lines[corrected - 1][0].isdigit() and "..." in lines[corrected + 2].split()[0]


def live(events: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """The events as a live recorder and a store record them: a scorer's device time with
    milliseconds, the store's time a little later, an id on every event."""
    rnd = uuid.UUID(int=seed)
    clock = datetime(2026, 12, 1, 23, 58, 30)  # the game runs past midnight
    out = []
    for i, e in enumerate(events):
        clock += timedelta(milliseconds=1000 + (i * 7919) % 9000)
        stored = clock + timedelta(milliseconds=(i * 31) % 400)
        out.append({**e, "at": clock.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "+01:00",
                    "recorded_at": stored.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
                    "id": str(uuid.UUID(int=rnd.int + i))})
    return out


def test_a_game_recorded_live_round_trips_with_times_store_times_and_ids() -> None:
    text = assert_round_trips(live(simulated("amsterdam", 3), 3))
    trick = next(ln for ln in text.splitlines() if ln.startswith("1. "))
    cards, times = trick.split("@", 1)
    assert len(cards.split()) == 6  # "1." "3:" and four cards: the times come after them
    assert times.startswith("+") and "@@+" in times and "#" in times


def test_odd_times_round_trip_as_written() -> None:
    """A time in full when a short form would change its text: a space for T, a lower-case
    z, an offset, digits of a fraction, a clock going back, a new day, a long pause."""
    events = simulated("kloepper", 1)[:12]
    ats = ["2026-02-02T19:01:07Z", "2026-02-02 19:01:09Z", "2026-02-02t19:01:10z",
           "2026-02-02T19:01:11.5Z", "2026-02-02T19:01:11.50Z", "2026-02-02T19:01:12.500Z",
           "2026-02-02T19:01:11Z", "2026-02-02T21:00:00+01:00", "2026-02-03T21:00:00+01:00",
           "2026-02-03T21:10:01+01:00", "2026-02-03T21:10:01+01:00", "0001-01-01T00:00:00Z"]
    for e, at in zip(events, ats, strict=True):
        e["at"] = at
    text = assert_round_trips(events)
    assert '"2026-02-02 19:01:09Z"' in text


def test_games_of_a_file_are_written_one_after_another_and_read_apart() -> None:
    a, b = simulated("amsterdam", 5), simulated("klaberjass-2p", 5)
    mixed = [e for pair in zip(a, b, strict=False) for e in pair] + a[len(b):]
    text = write_games(mixed)
    games = list(read_games(text_lines(text)))
    assert [g.game for g in games] == ["amsterdam-5", "klaberjass-2p-5"]
    assert [g.events for g in games] == [a, b]
    assert not any(g.errors for g in games)


def test_a_part_of_a_game_round_trips() -> None:
    """Events that do not start at seq 0 (a game's later file): a [Seq] tag, no [Ruleset]."""
    events = simulated("amsterdam", 2)[300:340]
    text = assert_round_trips(events)
    assert text.startswith('[Game "amsterdam-2"]\n[Seq "300"]\n\n')


def test_seqs_that_skip_or_repeat_are_kept_in_an_annotation() -> None:
    events = simulated("amsterdam", 2)[:20]
    events[5]["seq"] = 9
    events[12]["seq"] = 3
    text = assert_round_trips(events)
    assert '{"seq":9}' in text and '{"seq":3}' in text


def test_a_view_line_keeps_where_it_was_written_in_a_worker_process() -> None:
    view = TextView(text_lines(write_game(simulated("kloepper", 0))))
    line = list(view)[-1]
    assert isinstance(line, ViewLine)
    again = pickle.loads(pickle.dumps(line))
    assert type(again) is ViewLine and again == line
    assert (again.line, again.column, again.game, again.seq) == \
        (line.line, line.column, line.game, line.seq)


# --------------------------------------------------------------------------- any valid event

AT = st.sampled_from(["2026-11-27T19:30:09Z", "2026-11-27 19:30:09Z", "2026-11-27t19:30:09z",
                      "2026-11-27T19:30:09.250+02:00", "2027-01-01T00:00:00.000001Z",
                      "2026-11-27T19:30:19Z", "2026-11-27T19:45:00Z", "2026-11-26T10:00:00Z"])
ID = st.uuids().map(str) | st.uuids().map(lambda u: u.hex.upper())
SEAT = st.integers(0, 3)
CARD = st.sampled_from([r + s for r in ("7", "8", "9", "10", "J", "Q", "K", "A") for s in "CDHS"])
CARDS = st.lists(CARD, max_size=8)
TEXT = st.text(st.characters(codec="utf-8"), min_size=1,
               max_size=40) | st.sampled_from(['a "quoted" ; @+9 {x} #1', "line\nbreak", "\\"])
POINTS = st.integers(0, 10_000)
SCORE = st.lists(POINTS, min_size=2, max_size=4)
JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | TEXT,
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(TEXT, c, max_size=3),
                    max_leaves=6)
PLAYERS = st.lists(st.from_regex(r"[A-Za-z0-9._:@-]{1,8}", fullmatch=True), min_size=2,
                   max_size=4)

FIELDS_OF: dict[str, Any] = {
    "game_started": st.fixed_dictionaries(
        {"ruleset": st.sampled_from(RULESETS), "seats": PLAYERS, "dealer": SEAT},
        optional={"options": st.dictionaries(TEXT, JSON, max_size=3),
                  "meta": st.dictionaries(st.sampled_from(["event", "table", "Event", "at",
                                                           "x y", "date", "seats"]) | TEXT,
                                          JSON, max_size=4)}),
    "dealt": st.fixed_dictionaries({}, optional={
        "hands": st.lists(CARDS, max_size=4), "dealer": SEAT, "turn_up": CARD,
        "stock": st.lists(CARD, max_size=19)}),
    "trump_turned": st.fixed_dictionaries({"card": st.sampled_from(["2C", "6H", "10D", "AS"])}),
    "bid": st.fixed_dictionaries({"seat": SEAT, "call": st.sampled_from(
        ["pass", "accept", "take", "schmeiss", "annul", "play", "C", "D", "H", "S"])}),
    "play": st.fixed_dictionaries({"seat": SEAT, "card": CARD}),
    "roem": st.fixed_dictionaries({"seat": SEAT, "points": POINTS}),
    "ruling": st.fixed_dictionaries({"round": st.integers(1, 9999), "score": SCORE,
                                     "reason": TEXT}),
    "note": st.fixed_dictionaries({"text": TEXT}, optional={"seat": SEAT,
                                                             "round": st.integers(1, 9999)}),
    "second_deal": st.fixed_dictionaries({"bottom": CARD}, optional={
        "hands": st.lists(st.lists(CARD, max_size=3), max_size=2)}),
    "dix": st.fixed_dictionaries({"seat": SEAT}),
    "sequence": st.fixed_dictionaries({"seat": SEAT, "cards": st.lists(CARD, min_size=3,
                                                                       max_size=8)}),
    "bella": st.fixed_dictionaries({"seat": SEAT}),
    "partner_call": st.fixed_dictionaries({"seat": SEAT, "call": st.sampled_from(
        ["AC", "AD", "AH", "AS", "alone"])}),
    "knock": st.fixed_dictionaries({"seat": SEAT}),
    "knock_back": st.fixed_dictionaries({"seat": SEAT}),
    "correction": st.fixed_dictionaries({"retracts": st.lists(st.integers(1, 200), min_size=1,
                                                              max_size=4), "reason": TEXT}),
    "irregularity": st.fixed_dictionaries(
        {"kind": st.sampled_from(["lead_out_of_turn", "play_out_of_turn", "exposed_card",
                                  "misdeal", "wrong_card_count", "other"]), "seat": SEAT},
        optional={"cards": CARDS, "text": TEXT}),
    "round_score": st.fixed_dictionaries(
        {"round": st.integers(1, 9999), "score": SCORE},
        optional={"chooser": SEAT, "trump": st.sampled_from("CDHS"), "points": SCORE,
                  "roem": SCORE, "result": TEXT | st.sampled_from(["made", "nat", "roem"])}),
    "timeout": st.fixed_dictionaries({"seat": SEAT, "seconds": st.integers(0, 86_400)}),
    "claim": st.fixed_dictionaries(
        {"seat": SEAT, "gives": st.sampled_from(["rest_to_claimer", "rest_to_opponents"])}),
    "deal_committed": st.fixed_dictionaries({"round": st.integers(1, 9999),
                                             "commit": st.from_regex(r"\A[0-9a-f]{64}\Z")}),
    "nonce": st.fixed_dictionaries({"round": st.integers(1, 9999), "seat": SEAT,
                                    "nonce": st.from_regex(r"\A[ -{}~]{1,64}\Z")}),
    "deal_revealed": st.fixed_dictionaries({"round": st.integers(1, 9999),
                                            "seed": st.from_regex(r"\A[0-9a-f]{64}\Z")}),
}
assert set(FIELDS_OF) == set(EVENT_MODELS)


@st.composite
def games(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A run of valid events of a game (and rarely of another), of any types, in any order:
    seqs mostly counting on, sometimes jumping; times, store times and ids on some."""
    n = draw(st.integers(1, 14))
    seq = draw(st.sampled_from([0, 0, 0, 7]))
    out = []
    for i in range(n):
        t = "game_started" if i == 0 and draw(st.booleans()) else \
            draw(st.sampled_from(sorted(FIELDS_OF)))
        game = draw(st.sampled_from(["g-1"] * 9 + ["other.game:2"]))  # rarely one of another
        e = {"game": game, "seq": seq, "type": t, **draw(FIELDS_OF[t])}
        for key, values in (("at", AT), ("recorded_at", AT), ("id", ID)):
            if draw(st.integers(0, 2)):
                e[key] = draw(values)
        try:
            event_from_dict(e)
        except EventError:
            continue
        out.append(e)
        seq = draw(st.sampled_from([seq + 1, seq + 1, seq + 1, seq + 3, 1]))
    return out


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_any_valid_events_round_trip(events: list[dict[str, Any]]) -> None:
    models = [event_from_dict(e) for e in events]
    text = write_game(models)
    back = read_text(text)
    assert [canonical_json(e) for e in back] == [canonical_json(e) for e in models], text
    assert write_game(back) == text
