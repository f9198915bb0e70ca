"""The violations ``jaslog replay`` shows, to the referee and to a seat, and ``check`` lists.

A round recorded without hands has its plays judged only when its last card is in, so replay
says so while the round is open (and, for a round a ruling ended with cards unplayed, that it
was never judged) instead of showing a table with no violations, which reads as a clean
round. A Klaverjas seat reads its own violations in the live round, as the service shows them."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from jaslog.cli import app

from .rules.logs import DEAL_M, TRICKS_M_REVOKE, Log, round_m
from .rules_kloepper.logs import Log as KloepperLog

runner = CliRunner()
PENDING = "hands not recorded: legality is judged when the round's last card is in"
NEVER = "hands not recorded, ruled before the last card: legality never judged"


def replay(tmp_path: Path, data: bytes, *args: str) -> str:
    p = tmp_path / "game.jsonl"
    p.write_bytes(data)
    r = runner.invoke(app, ["replay", str(p), *args], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    return r.output


def blocks(out: str) -> list[str]:
    return [b for b in out.split("\n\n") if b.strip()]


def test_klaverjas_round_without_hands_says_legality_waits_for_the_last_card(tmp_path: Path) -> None:
    # round 2 is dealt without hands; seat 1 names spades, then two cards are played
    log = round_m(Log().deal(DEAL_M).bid(0, "H"), TRICKS_M_REVOKE).deal(None).bid(1, "S")
    log.play(1, "JS").play(2, "7S")
    out = replay(tmp_path, log.jsonl(), "--round", "2")
    plays = [b for b in blocks(out) if " plays " in b]
    assert len(plays) == 2
    assert all(PENDING in b for b in plays), plays
    # the round with its hands recorded (round 1, a revoke in it) carries no such line
    out1 = replay(tmp_path, log.jsonl(), "--round", "1")
    assert "must_" in out1 and "not recorded" not in out1
    # a seat's view says it too (it names no card)
    assert PENDING in replay(tmp_path, log.jsonl(), "--round", "2", "--seat", "3")


def test_klaverjas_round_without_hands_ruled_mid_round_was_never_judged(tmp_path: Path) -> None:
    log = round_m(Log().deal(DEAL_M).bid(0, "H"), TRICKS_M_REVOKE).deal(None).bid(1, "S")
    log.play(1, "JS").play(2, "7S").ruling(2, [0, 100], "abandoned: a card exposed")
    out = replay(tmp_path, log.jsonl(), "--round", "2")
    last = blocks(out)[-1]
    assert "referee: round 2 scores 0–100" in last and NEVER in last, last


def test_kloepper_deal_without_hands_says_legality_waits(tmp_path: Path) -> None:
    log = KloepperLog().deal(None).play(0, "AC")
    out = replay(tmp_path, log.jsonl(), "--round", "1")
    assert PENDING in blocks(out)[-1], out


def test_klaverjas_seat_reads_its_own_violation_in_the_live_round_only(tmp_path: Path) -> None:
    # Deal M: seat 1 revokes in trick 4 (seq 16); the round is over at seq 34
    log = round_m(Log().deal(DEAL_M).bid(0, "H"), TRICKS_M_REVOKE)
    own = replay(tmp_path, log.jsonl(), "--seat", "1", "--to", "20")
    assert "✗ must_follow_suit: bob (1) played 9♦" in blocks(own)[-1]   # as the viewer says it
    before = [b for b in blocks(own) if b.startswith("seq   15 ")]
    assert len(before) == 1 and "✗" not in before[0]                 # not before the play
    other = replay(tmp_path, log.jsonl(), "--seat", "0", "--to", "20")
    assert "must_follow_suit" not in other                            # seat 1's cards stay hidden


def check_text(tmp_path: Path, data: bytes) -> str:
    p = tmp_path / "game.jsonl"
    p.write_bytes(data)
    r = runner.invoke(app, ["check", str(p)])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.output


def test_check_says_which_rounds_without_hands_are_not_judged(tmp_path: Path) -> None:
    log = round_m(Log().deal(DEAL_M).bid(0, "H"), TRICKS_M_REVOKE).deal(None).bid(1, "S")
    log.play(1, "JS").play(2, "7S")
    out = check_text(tmp_path, log.jsonl())
    assert "1 violation" in out
    assert ("round 2: hands not recorded and the round is not over: its plays are judged when its "
            "last card is in") in out
    assert "round 1: hands not recorded" not in out
    out = check_text(tmp_path, log.ruling(2, [0, 100], "abandoned").jsonl())
    assert ("round 2: hands not recorded and the round was ruled before its last card: its plays "
            "were never judged") in out
    # a Kloepper deal without hands, two cards in
    out = check_text(tmp_path, KloepperLog().deal(None).play(0, "AC").play(1, "9C").jsonl())
    assert "round 1: hands not recorded and the round is not over" in out
