"""The events of a deal anyone can check (deal_committed, nonce, deal_revealed) in a log:
they validate, fold (changing nothing at the table), survive the notation both ways, and
``jaslog check`` finds a tampered deal (``deal_not_fair``)."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from jaslog.engine.fairdeal import commit_of, deck
from jaslog.events import EventError, event_from_dict, parse_event
from jaslog.games import get_game
from jaslog.notation.reader import read_games
from jaslog.notation.writer import write_games
from jaslog.play.audit import game_report
from jaslog.play.fold import fold, start_fold
from jaslog.service.move_clock import autoplay_event
from tests.cli import jaslog

SEED = hashlib.sha256(b"a seed for the tests").digest()


def online_round_log(game_id: str = "ot1") -> list[dict[str, Any]]:
    """A game of one round of Klaverjas dealt from a committed seed and two seats' nonces,
    played out by the lowest legal card, and revealed."""
    g = get_game("klaverjas")
    log: list[dict[str, Any]] = [
        {"type": "game_started", "ruleset": "klaverjas-online-501", "seats": ["a", "b", "c", "d"],
         "dealer": 0},
        {"type": "deal_committed", "round": 1, "commit": commit_of(SEED)},
        {"type": "nonce", "round": 1, "seat": 1, "nonce": "lucky 7"},
        {"type": "nonce", "round": 1, "seat": 3, "nonce": "x"},
    ]
    hands = g.deal_from_deck(deck(SEED, game_id, 1, ["", "lucky 7", "", "x"], g.pack), 0)
    log.append({"type": "dealt", "dealer": 0, **hands["dealt"]})
    for i, e in enumerate(log):
        e.update(game=game_id, seq=i)
    f = start_fold(event_from_dict(log[0]))
    for e in log[1:]:
        f.apply(event_from_dict(e))
    while True:
        kind, seat = f.state.expected()
        if kind not in ("bid", "play") or seat is None:
            break
        move = autoplay_event(f, kind, seat)
        assert move is not None
        e = {"game": game_id, "seq": f.next_seq, **move}
        f.apply(event_from_dict(e))
        log.append(e)
    log.append({"game": game_id, "seq": len(log), "type": "deal_revealed", "round": 1,
                "seed": SEED.hex()})
    return log


def test_a_fair_log_folds_and_checks_clean() -> None:
    log = online_round_log()
    f = fold(event_from_dict(e) for e in log)
    rep = game_report("ot1", f)
    assert rep["ok"], rep["violations"]
    assert len(rep["rounds"]) == 1 and rep["rounds"][0]["result"] != "unfinished"


def test_a_moved_card_is_deal_not_fair_in_the_report() -> None:
    log = online_round_log()
    dealt = next(e for e in log if e["type"] == "dealt")
    hands = dealt["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    # the plays no longer fit the hands: keep the deal only, and reveal
    short = [*log[:5], {"game": "ot1", "seq": 5, "type": "deal_revealed", "round": 1,
                        "seed": SEED.hex()}]
    rep = game_report("ot1", fold(event_from_dict(e) for e in short))
    assert not rep["ok"]
    assert [v["rule"] for v in rep["violations"]] == ["deal_not_fair"]
    assert "round 1" in rep["violations"][0]["message"]


@pytest.mark.parametrize("bad", [
    {"type": "deal_committed", "round": 1, "commit": "ABC"},
    {"type": "deal_revealed", "round": 0, "seed": "00" * 32},
    {"type": "nonce", "round": 1, "seat": 0, "nonce": ""},
    {"type": "nonce", "round": 1, "seat": 0, "nonce": "a|b"},
    {"type": "nonce", "round": 1, "seat": 0, "nonce": "x" * 65},
    {"type": "nonce", "round": 1, "seat": 4, "nonce": "x"},
])
def test_bad_deal_events_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(EventError):
        parse_event(json.dumps({"game": "g", "seq": 1, **bad}))


def test_a_correction_does_not_retract_the_deal_events() -> None:
    log = online_round_log()[:6]  # the deal and the first bid
    log.append({"game": "ot1", "seq": 6, "type": "correction", "retracts": [2],
                "reason": "no"})
    with pytest.raises(Exception, match="retract"):
        fold(event_from_dict(e) for e in log)


def test_the_fold_says_whether_its_log_holds_a_deal_event() -> None:
    """What the audit asks before it checks the deals: set by the first deal event folded,
    kept by a copy and by a correction's refold; a refused deal event sets nothing."""
    log = online_round_log()[:6]  # the commit, two nonces, the deal and the first bid
    f = start_fold(event_from_dict(log[0]))
    assert f.fair_deal is False
    with pytest.raises(Exception, match="seat"):
        f.apply(event_from_dict({**log[2], "seat": 7}))
    assert f.fair_deal is False and len(f.log) == 1
    for e in log[1:]:
        f.apply(event_from_dict(e))
    assert f.fair_deal is True
    f.apply(event_from_dict({"game": "ot1", "seq": 6, "type": "correction", "retracts": [5],
                             "reason": "misclick"}))
    assert f.fair_deal is True and copy.deepcopy(f).fair_deal is True
    plain = fold(event_from_dict(e) for e in [log[0], {**log[4], "seq": 1}])
    assert plain.fair_deal is False and copy.deepcopy(plain).fair_deal is False
    assert game_report("ot1", plain)["ok"] is True


def test_the_notation_writes_and_reads_them() -> None:
    log = online_round_log()
    text = write_games(log)
    # each by its declared words: the round (and seat) as arguments, the hex or text after
    assert f'Commit 1 {{"commit":"{commit_of(SEED)}"}}' in text
    assert 'Nonce 1 1 {"nonce":"lucky 7"}' in text
    assert f'Reveal 1 {{"seed":"{SEED.hex()}"}}' in text
    (game,) = list(read_games(text))
    assert not game.errors
    read = [{k: v for k, v in e.items() if v is not None} for e in game.events]
    assert [e["type"] for e in read] == [e["type"] for e in log]
    for want, got in zip(log, read, strict=True):
        if want["type"] in ("deal_committed", "nonce", "deal_revealed"):
            assert {k: got[k] for k in want} == want


def test_jaslog_check_reports_a_tampered_reveal(tmp_path: Path) -> None:
    log = online_round_log()
    log[-1]["seed"] = "11" * 32
    path = tmp_path / "online.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in log))
    out = jaslog("check", str(path), text=True)  # in this process, as the console script runs it
    assert out.returncode == 1, out.stdout + out.stderr
    assert "deal_not_fair" in out.stdout
    assert "commit" in out.stdout
