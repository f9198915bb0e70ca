"""Every error of a notation text names its line and column and what was expected; reading goes
on with the next line and the next game; no input makes the reader raise (fuzzed)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaslog.logs import read_lines
from jaslog.notation import is_notation, read_games, write_game
from jaslog.notation.lexer import MAX_NESTING
from tests.cli import jaslog
from tests.examples import examples
from tests.notation.helpers import simulated, text_lines

HEAD = '[Game "g"]\n[Ruleset "amsterdam"]\n[Seats "ann bob cor dirk"]\n[Dealer 0]\n\n'

CASES = [  # (body: its last line is line 6, column, what the error says)
    ("Deal\n1. 0: JH 8H XH 8C", 7, 13, "expected a card (7-10, J, Q, K or A and a suit: 10H, "
                                       "JC, A♠), got 'XH'"),
    ("1. JH 8H", 6, 1, "expected the leader's seat after the trick's number (e.g. 2. 3: AS)"),
    ("Bid 0: pass hearts maybe", 6, 20, "expected a call (pass, accept, take, schmeiss, annul, "
                                        "play, or a suit C D H S), got 'maybe'"),
    ('Note "unterminated', 6, 6, 'a text in quotes has no closing "'),
    ("Roem 1", 6, 7, "expected the roem's points, got the end of the line"),
    ("Roem eve 20", 6, 6, "expected a seat (0-3 or a player of [Seats]: ann, bob, cor, dirk), "
                          "got 'eve'"),
    ("1. 0: JH 8H @+4", 6, 14, "expected 2 times (one for each event on the line, - for none), "
                               "got 1"),
    ("1. 0: JH @19:30:00", 6, 11, "'19:30:00' counts from the previous time, and there is none: "
                                  "write the first time in full (e.g. 2026-11-27T19:30:09Z)"),
    ("1. 0: JH @2026-11-27T19:30:00Z\n2. 0: 8H @yesterday", 7, 11,
     "expected a time (+9, 19:30:27 or 2026-11-27T19:30:27Z), got 'yesterday'"),
    ('1. 0: JH 8H {"at": 5', 6, 13, "an annotation {...} has no closing }"),
    ("Deal\n  0: JH 8H QQ", 7, 12, "expected a card of the hand, got 'QQ'"),
    ("Ruling round 1 score 80 82", 6, 27, "expected the reason in double quotes, got the end of "
                                         "the line"),
    ("Irregularity dropped 1", 6, 14, "expected the kind of irregularity (lead_out_of_turn, "
                                      "play_out_of_turn, exposed_card, misdeal, "
                                      "wrong_card_count, other), got 'dropped'"),
    ("Second deal KD", 6, 13, "expected bottom and the stock's bottom card (Second deal bottom "
                              "KD), got 'KD'"),
    ("pass", 6, 1, "expected a seat before the first bid (e.g. Bid 1: pass)"),
    ('{"seq": 4}', 6, 1, "an annotation {...} follows the event it completes"),
]


@pytest.mark.parametrize(("body", "line", "column", "message"), CASES,
                         ids=[c[0].splitlines()[-1][:24] for c in CASES])
def test_an_error_names_its_line_column_and_what_was_expected(body: str, line: int, column: int,
                                                              message: str) -> None:
    [game] = read_games(HEAD + body + "\n", "club.txt")
    assert [str(e) for e in game.errors] == [f"club.txt:{line}:{column}: {message}"]
    bad = [ln for ln in read_lines(text_lines(HEAD + body + "\n"), "club.txt") if ln.error]
    assert [(ln.source, ln.number, ln.game, ln.error) for ln in bad] == \
        [("club.txt", line, "g", f"column {column}: {message}")]


@pytest.mark.parametrize(("body", "line", "column", "message"), [
    ("1. 7: JH", 6, 7, "field 'seat': Input should be less than or equal to 3 (got 7)"),
    ('1. 0: JH {"card": "1H"}', 6, 7, "field 'card': '1H' is not a card (canonical text: 10H, "
                                      "JC, AS)"),
    ('Event {"type": "nothing"}', 6, 1, "unknown event type 'nothing' (known: game_started, "
                                        "dealt, bid, play, roem, claim, ruling, note, correction, "
                                        "irregularity, round_score, timeout, deal_committed, nonce, "
                                        "deal_revealed, trump_turned, "
                                        "second_deal, dix, sequence, bella, partner_call, knock, "
                                        "knock_back)"),
    ("Deal dealer 9", 6, 1, "field 'dealer': Input should be less than or equal to 3 (got 9)"),
])
def test_an_event_the_models_refuse_is_located_at_its_item(body: str, line: int, column: int,
                                                           message: str) -> None:
    [bad] = [ln for ln in read_lines(text_lines(HEAD + body + "\n"), "club.txt") if ln.error]
    assert (bad.number, bad.error) == (line, f"column {column}: {message}")


def test_tag_errors_are_located() -> None:
    text = '[Game "g"]\n[Seats "a b" x]\n[Dealer 0\n[Meta 5]\n1. 0: JH\n'
    [game] = read_games(text)
    assert [(e.line, e.column, e.message) for e in game.errors] == [
        (2, 14, "expected ] to close the tag [Seats ...]"),
        (3, 10, "expected ] to close the tag"),
        (4, 1, "expected a JSON object: [Meta {...}], got 5")]


def test_moves_before_any_game_tag_are_one_error() -> None:
    [game] = read_games("Deal\n1. 0: JH 8H\n")
    assert game.game is None
    assert [str(e) for e in game.errors] == [
        '<text>:1:1: expected a [Game "id"] tag before the moves']
    [ln] = list(read_lines([b"; a comment first\n", b"Deal\n"], "x.txt"))
    assert (ln.number, ln.game, ln.error) == \
        (2, None, 'column 1: expected a [Game "id"] tag before the moves')


def test_reading_goes_on_with_the_next_line_and_the_next_game() -> None:
    good = write_game(simulated("kloepper", 4))
    lines = good.splitlines()
    trick = next(i for i, ln in enumerate(lines) if ln.startswith("2. "))
    broken = [*lines[:trick], lines[trick].replace(" ", " ZZ ", 2), *lines[trick + 1:]]
    broken[trick + 2] = broken[trick + 2].replace("@+", "@?", 1)
    text = "\n".join(broken) + "\n" + good.replace("kloepper-4", "kloepper-4b")
    first, second = read_games(text, "two.txt")
    assert [(e.line, e.message.split(",")[0]) for e in first.errors] == [
        (trick + 1, "expected a card (7-10"),
        (trick + 3, "expected a time (+9")]
    assert len(first.events) > 100  # the rest of the game is read
    assert second.errors == [] and second.events == \
        [{**e, "game": "kloepper-4b"} for e in simulated("kloepper", 4)]


DEEP = 1000
NESTED = [  # (where, text, line, column of the bracket past the limit, what)
    ("annotation", HEAD + 'Deal\n1. 0: JH {"x":' + "[" * DEEP + "]" * DEEP + "}", 7, 78,
     "the annotation"),
    ("event", HEAD + "Event " + '{"a":' * DEEP + "1" + "}" * DEEP, 6, 327, "the annotation"),
    ("meta tag", '[Game "g"]\n[Meta ' + '{"a":' * DEEP + "1" + "}" * DEEP + "]\n" + HEAD[11:]
     + "Deal", 2, 327, "the tag's value"),
    ("game tag", "[Game " + "[" * DEEP + "]" * DEEP + "]\n" + HEAD[11:] + "Deal", 1, 71,
     "the tag's value"),
    ("unclosed", HEAD + 'Note "x" ' + "{" * DEEP, 6, 74, "the annotation"),
]


@pytest.mark.parametrize(("text", "line", "column", "what"), [n[1:] for n in NESTED],
                         ids=[n[0] for n in NESTED])
def test_json_nested_past_the_limit_is_one_located_error(tmp_path, text: str, line: int,
                                                         column: int, what: str) -> None:
    """An annotation or a tag's value nested a thousand deep is refused where it passes the
    limit, in a sentence; ``jaslog check`` says so with the code, and never traces back."""
    message = (f"{what} nests deeper than {MAX_NESTING} levels of {{ and [ (the free JSON of "
               "an event, meta and options, nests at most 32)")
    [game] = read_games(text + "\n", "deep.txt")
    assert [str(e) for e in game.errors] == [f"deep.txt:{line}:{column}: {message}"]
    [bad] = [ln for ln in read_lines(text_lines(text + "\n"), "deep.txt") if ln.error]
    assert (bad.number, bad.error) == (line, f"column {column}: {message}")
    path = tmp_path / "deep.txt"
    path.write_text(text + "\n")
    r = jaslog("check", str(path), text=True)
    assert r.returncode == 2, r.stderr
    assert f"deep.txt:{line}:" in r.stdout and f"column {column}: {message} [bad_event]" in r.stdout
    assert "Traceback" not in r.stdout + r.stderr


def test_json_nested_to_the_limit_is_read() -> None:
    """The limit leaves room for what a log may hold: meta nested 32 levels below the field
    comes back as written."""
    meta: dict[str, object] = {"a": 1}
    for _ in range(31):
        meta = {"a": meta}
    events = [{**e, "meta": {"deep": meta}} if e["type"] == "game_started" else e
              for e in simulated("klaberjass-2p", 7)[:20]]
    [game] = read_games(write_game(events), "deep.txt")
    assert game.errors == [] and game.events == events


# --------------------------------------------------------------------------- fuzz

PIECES = st.sampled_from([
    "[", "]", "[Game ", '"g"', "[Seats ", '"a b c d"', "[Ruleset amsterdam]", "[Meta ", "{",
    "}", '{"seq": 3}', '"', "\\", ";", ":", "@", "@@", "#", "+4", "+", "19:30:00",
    "2026-11-27T19:30:00Z", "2026-02-30T25:00:00Z", "1.", "1...", "0:", "3:", "9:", "JH", "10h",
    "T♥", "♠A", "xx", "pass", "H", "Deal", "Bid", "Roem", "Bella", "Dix", "Sequence", "Call",
    "Knock", "back", "Note", "Ruling", "round", "score", "Correction", "-1", "-99",
    "Irregularity", "exposed_card", "Score", "chooser", "trump", "points", "result", "Timeout",
    "Event", "Second", "deal", "bottom", "up", "dealer", "stock:", "Turn", "4h", "alone",
    "99999999999999999999", "-", " ", "  ", "\t", "\n", "\r\n", "\ufeff", "\u2028", "\x85", "é"])


def located_everywhere(text: bytes, source: str = "fuzz.txt") -> None:
    """Reading ``text`` raises nothing, and every error is at a place in it."""
    raw_lines = text.splitlines(keepends=True)
    for game in read_games(raw_lines, source):
        for e in game.errors:
            assert 1 <= e.line <= len(raw_lines), e
            assert 1 <= e.column <= len(raw_lines[e.line - 1]) + 1, e
            assert e.message and str(e).startswith(f"{source}:{e.line}:{e.column}: ")
    if not is_notation(text[:8192]):  # JSON Lines: read as such (tests/test_logs.py)
        return
    for ln in read_lines(raw_lines, source):
        assert 1 <= ln.number <= len(raw_lines)
        if ln.event is None:
            m = re.match(r"column (\d+): .", ln.error or "")
            assert m is not None, ln
            assert 1 <= int(m.group(1)) <= len(raw_lines[ln.number - 1]) + 1, ln


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES | st.text(max_size=6), max_size=60).map("".join))
def test_no_text_makes_the_reader_raise(text: str) -> None:
    located_everywhere(('[Game "g"]\n' + text).encode())
    located_everywhere(text.encode())


BASE = write_game(simulated("klaberjass-2p", 7)[:60]).encode()


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(BASE)), st.integers(0, 12),
                          st.binary(max_size=3) | PIECES.map(str.encode)), min_size=1,
                max_size=6))
def test_a_damaged_game_never_makes_the_reader_raise(cuts: list[tuple[int, int, bytes]]) -> None:
    text = BASE
    for at, drop, put in cuts:
        text = text[:at] + put + text[at + drop:]
    located_everywhere(text)
