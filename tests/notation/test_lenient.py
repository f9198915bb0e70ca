"""The reader takes what people type: T or 10, any case, suit symbols, the suit first, a space
inside a card, player names for seats, extra spaces and tabs, comments, blank lines, CRLF
line endings, a byte order mark, times written as clock times or in full."""

from __future__ import annotations

from typing import Any

from jaslog.events import canonical_json, event_from_dict
from jaslog.notation import read_games, write_game
from tests.notation.helpers import read_text

CANONICAL = """\
[Game "hand-1"]
[Ruleset "amsterdam"]
[Seats "ann bob cor dirk"]
[Dealer "3"]
[At "2026-11-27T19:30:00Z"]
[Event "Clubavond"]
[Table "2"]

Deal                            @2026-11-27T19:30:09Z
  0: 9C JC JD QD 8H 10H 10S KS
  1: KC 7D 8D 9D 9H QH 7S QS
  2: 8C 10C QC AC 10D KD AD JS
  3: 7C 7H JH KH AH 8S 9S AS
Bid 0: pass H                   @+9 +9
1. 0: 9C KC AC 7C               @+9 +4 +4 +4
2. 2: 10C 7S QC 7H  Roem 2 20   @+4 +4 +4 +4 +3
3. 3: AS KS QS JS
Note seat 1 round 1 "bob's card fell; no harm"
"""

TYPED = """\
\ufeff; typed at the table, then pasted
[game "hand-1"]   [ruleset Amsterdam]   ; two tags on a line
[seats "ann, bob, cor, dirk"]
[dealer dirk]
[AT 2026-11-27T19:30:00Z]
[event "Clubavond"] [TABLE "2"]

\tdeal  @ 2026-11-27T19:30:09Z   ; hands by name, symbols, T for ten, lower case
  ann :  9c jc  JD qd  8♥ t♥ 10♠ ks
  bob:KC 7D 8D 9D 9H QH 7S QS
  2: 8♣ ♣10 Q♣ a♣ 10 D k♦ A♦ JS
  DIRK: 7C 7H JH KH AH 8S 9S AS

bids ann: PASS hearts          @+9 19:30:27
1.  ann:  9C,KC,AC,7C          @ +9 +4 +4 +4
2. cor: TC 7S QC 7H roem cor 20 @+4 +4 +4 +4 +3
3. 3: as   ks qs js            ; no times: none recorded
note round 1 seat bob "bob's card fell; no harm"
"""


def events(text: str) -> list[dict[str, Any]]:
    [game] = read_games(text.encode().splitlines(keepends=True))
    assert game.errors == []
    return game.events


def test_a_typed_game_reads_as_its_canonical_text() -> None:
    assert events(TYPED) == events(CANONICAL)
    assert write_game(events(TYPED)) == CANONICAL


def test_crlf_line_endings_and_tabs_read_alike() -> None:
    assert events(TYPED.replace("\n", "\r\n").replace("  ", "\t")) == events(CANONICAL)


def test_the_readers_of_logs_take_it_too() -> None:
    assert [canonical_json(e) for e in read_text(TYPED)] == \
        [canonical_json(event_from_dict(e)) for e in events(CANONICAL)]


def one(body: str, head: str = '[Game "g"]\n[Ruleset "kloepper"]\n[Seats "a b c d"]\n'
                                '[Dealer 0]\n') -> list[dict[str, Any]]:
    """The events a body reads as, after a game_started, without envelopes."""
    out = []
    for e in events(head + body)[1:]:
        out.append({k: v for k, v in e.items() if k not in ("game", "seq")})
    return out


def test_calls_and_statements_in_any_case_and_spelling() -> None:
    assert one("Bid 1: Pass ACCEPT ♠ clubs Take SCHMEISS annul play D\n") == [
        {"type": "bid", "seat": s % 4, "call": c} for s, c in enumerate(
            ["pass", "accept", "S", "C", "take", "schmeiss", "annul", "play", "D"], 1)]
    assert one("knock-back 2\nKNOCK_BACK 3\nknock back 1\nsecond-deal bottom kd\n"
               "Second Deal BOTTOM t♦\nturn 4h\nCALL a alone\npartner 1 a♠\n") == [
        {"type": "knock_back", "seat": 2}, {"type": "knock_back", "seat": 3},
        {"type": "knock_back", "seat": 1}, {"type": "second_deal", "bottom": "KD"},
        {"type": "second_deal", "bottom": "10D"}, {"type": "trump_turned", "card": "4H"},
        {"type": "partner_call", "seat": 0, "call": "alone"},
        {"type": "partner_call", "seat": 1, "call": "AS"}]


def test_a_trick_may_go_on_over_lines_and_name_a_seat_anywhere() -> None:
    assert one("1. 1: 9C KC\n1... AC\n10C 2: QC\n") == [
        {"type": "play", "seat": s, "card": c}
        for s, c in [(1, "9C"), (2, "KC"), (3, "AC"), (0, "10C"), (2, "QC")]]


def test_corrections_retract_by_offset_or_by_seq() -> None:
    assert one("1. 0: 9C KC\nCorrection -1 \"typo\"\nfix 2 -3 \"again\"\n") == [
        {"type": "play", "seat": 0, "card": "9C"}, {"type": "play", "seat": 1, "card": "KC"},
        {"type": "correction", "retracts": [2], "reason": "typo"},
        {"type": "correction", "retracts": [2, 1], "reason": "again"}]


def test_a_round_by_its_score_and_the_facts_of_a_table() -> None:
    assert one('Score 2 4 0 0 4 chooser b points 36 24 0 60 result "queens"\n'
               "irregularity exposed-card seat c qh \"dropped\"\n"
               'Ruling 1 0 0 6 6 "as played"\ntimeout 3 40\n') == [
        {"type": "round_score", "round": 2, "score": [4, 0, 0, 4], "chooser": 1,
         "points": [36, 24, 0, 60], "result": "queens"},
        {"type": "irregularity", "kind": "exposed_card", "seat": 2, "cards": ["QH"],
         "text": "dropped"},
        {"type": "ruling", "round": 1, "score": [0, 0, 6, 6], "reason": "as played"},
        {"type": "timeout", "seat": 3, "seconds": 40}]


def test_any_event_can_be_given_as_json() -> None:
    assert one('Event {"type": "note", "text": "as JSON", "round": 2}\n') == [
        {"type": "note", "text": "as JSON", "round": 2}]
