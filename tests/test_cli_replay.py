"""``jaslog replay``: --round, --to, --seat (a seat never sees another hand during a live
round), --game, stdin, and clean errors."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from jaslog.cli import app
from jaslog.events import event_from_dict
from jaslog.games import get_game
from jaslog.play.fold import start_fold
from jaslog.play.render import table_words
from jaslog.play.sim import Faults, simulate_game

from .rules.logs import DEAL_M, TRICKS_M, TRICKS_M_REVOKE, Log, round_m

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
SEATS = ["ann", "bob", "cor", "dirk"]
SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def two_rounds() -> Log:
    """Round 1: Deal M with the revoke of seat 1 in trick 4 (seq 16). Round 2: dealt by
    seat 0 without hands, seat 1 names spades, one card played."""
    log = round_m(Log().deal(DEAL_M).bid(0, "H"), TRICKS_M_REVOKE)
    return log.deal(None).bid(1, "S").play(1, "JS")


def replay(tmp_path: Path, log: Log, *args: str) -> tuple[int, str]:
    p = tmp_path / "game.jsonl"
    p.write_bytes(log.jsonl())
    r = runner.invoke(app, ["replay", str(p), *args])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


def seqs(out: str) -> list[int]:
    return [int(m) for m in re.findall(r"^seq +(\d+) ", out, re.M)]


def test_whole_game(tmp_path: Path) -> None:
    code, out = replay(tmp_path, two_rounds())
    assert code == 0
    assert seqs(out) == list(range(38))
    assert "seq    2 ann (0) names hearts trumps" in out
    assert "round 2 dealt by ann (0) (hands not recorded)" in out
    assert "(not recorded)" in out
    assert "revoke: 162–0" in out
    assert "✗ must_follow_suit: bob (1) played 9♦" in out  # in the table's words


def test_round(tmp_path: Path) -> None:
    code, out = replay(tmp_path, two_rounds(), "--round", "2")
    assert code == 0
    assert seqs(out) == [35, 36, 37]
    assert "round 1 dealt" not in out
    code, out = replay(tmp_path, two_rounds(), "--round", "1")
    assert seqs(out) == list(range(1, 35))


def test_to(tmp_path: Path) -> None:
    code, out = replay(tmp_path, two_rounds(), "--to", "6")
    assert code == 0
    assert seqs(out) == list(range(7))
    # trick 1 is complete at seq 6: seat 0 wins with JH, 24 points
    assert "round so far: points 24–0" in out
    code, out = replay(tmp_path, two_rounds(), "--round", "2", "--to", "35")
    assert seqs(out) == [35]


def test_nothing_to_show(tmp_path: Path) -> None:
    code, out = replay(tmp_path, two_rounds(), "--round", "3")
    assert code == 2 and "jaslog: nothing to show" in out


def other_hand_leaks(out: str, viewer: int) -> list[str]:
    """Lines of a live round's table showing a hand that is not the viewer's."""
    bad = []
    blocks = out.split("\n\n")
    for block in blocks:
        live = "round so far" in block and not re.search(r"; (made|nat|pit|revoke):", block)
        if not live:
            continue
        for line in block.splitlines():
            m = re.match(r"^(▶ |  )(\w+) \((\d)\)\s+(.*)$", line)
            if not m or int(m.group(3)) == viewer:
                continue
            hand = m.group(4)
            # another seat's row: a count of cards, then at most the card it has on the table
            if not re.match(r"^(\d cards?|\(not recorded\))(\s+\S+(\s+wins)?)?\s*$", hand):
                bad.append(line)
    return bad


@pytest.mark.parametrize("viewer", range(4))
def test_a_seat_never_sees_another_hand_in_a_live_round(tmp_path: Path, viewer: int) -> None:
    code, out = replay(tmp_path, two_rounds(), "--seat", str(viewer))
    assert code == 0
    assert other_hand_leaks(out, viewer) == []
    # the check itself finds a leak in the referee's view
    _, ref = replay(tmp_path, two_rounds())
    assert other_hand_leaks(ref, viewer) != []
    # nobody else's card appears before it is played: walk the events
    blocks = out.split("\n\n")
    for block in blocks:
        if "round 1" not in block or not re.search(r"^seq +\d+ ", block, re.M):
            continue
        seq = int(re.search(r"^seq +(\d+) ", block, re.M).group(1))  # type: ignore[union-attr]
        played = _played_up_to(seq)
        for seat, hand in enumerate(DEAL_M):
            if seat == viewer:
                continue
            for card in hand.split():
                if card in played:
                    continue
                face = card[:-1] + SYMBOL[card[-1]]
                assert face not in block, (seq, card)


def _played_up_to(seq: int) -> set[str]:
    out: set[str] = set()
    s = 3
    for _, cards in TRICKS_M_REVOKE:
        for c in cards.split():
            if s <= seq:
                out.add(c)
            s += 1
    return out


def test_seat_view_hides_violations_until_the_round_is_over(tmp_path: Path) -> None:
    code, out = replay(tmp_path, two_rounds(), "--seat", "0", "--to", "33")
    assert code == 0
    assert "must_follow_suit" not in out
    assert "QS KS" not in out                           # seat 1's hand, named in the message
    _, out = replay(tmp_path, two_rounds(), "--seat", "0", "--to", "34")
    assert "✗ must_follow_suit" in out                  # round over: shown


def test_seat_sees_its_own_hand(tmp_path: Path) -> None:
    _, out = replay(tmp_path, two_rounds(), "--seat", "2", "--to", "1")
    assert re.search(r"cor \(2\)\s+♣ A K  ♦ A 10  ♥ Q 8  ♠ J 9", out)
    assert re.search(r"ann \(0\)\s+8 cards", out)


def test_game_option_and_interleaved_games(tmp_path: Path) -> None:
    a = round_m(Log(game="a").deal(DEAL_M).bid(0, "H"), TRICKS_M)
    b = Log(game="b", seats=["eva", "finn", "gijs", "hanna"]).deal(DEAL_M).bid(0, "S")
    p = tmp_path / "ab.jsonl"
    lines = a.jsonl().splitlines()[:2] + b.jsonl().splitlines() + a.jsonl().splitlines()[2:]
    p.write_bytes(b"".join(x + b"\n" for x in lines))
    r = runner.invoke(app, ["replay", str(p), "--game", "b"])
    assert r.exit_code == 0
    assert seqs(r.output) == [0, 1, 2] and "eva (0) names spades trumps" in r.output
    r = runner.invoke(app, ["replay", str(p)])            # default: the first game, a
    assert r.exit_code == 0 and seqs(r.output) == list(range(35))
    r = runner.invoke(app, ["replay", str(p), "--game", "zz"])
    assert r.exit_code == 2 and "no game 'zz'" in r.output


def test_broken_log_shows_what_it_can_then_fails(tmp_path: Path) -> None:
    log = Log().deal(DEAL_M).bid(0, "H").play(0, "JH").play(2, "QH")
    code, out = replay(tmp_path, log)
    assert code == 2
    assert seqs(out) == [0, 1, 2, 3]
    assert "jaslog: " in out and ":5: game g1 seq 4: seat 2 played QH but it is seat 1's turn" in out
    assert "[not_your_turn]" in out
    # stopping before the bad event is fine
    code, out = replay(tmp_path, log, "--to", "3")
    assert code == 0 and seqs(out) == [0, 1, 2, 3]


def test_unreadable_line_after_to(tmp_path: Path) -> None:
    p = tmp_path / "bad.jsonl"
    log = Log().deal(DEAL_M).bid(0, "H")
    p.write_bytes(log.jsonl() + b'{"game":"g1","seq":3,"type":"play","seat":0,"card":"TH"}\n')
    r = runner.invoke(app, ["replay", str(p), "--to", "2"])
    assert r.exit_code == 0 and seqs(r.output) == [0, 1, 2]
    r = runner.invoke(app, ["replay", str(p)])
    assert r.exit_code == 2 and ":4: game g1: field 'card': 'TH' is not a card" in r.output


def test_missing_file(tmp_path: Path) -> None:
    r = runner.invoke(app, ["replay", str(tmp_path / "nope.jsonl")])
    assert r.exit_code == 2 and "no such file" in r.output and "Traceback" not in r.output


def test_stdin_as_a_process() -> None:
    data = two_rounds().jsonl()
    r = subprocess.run([sys.executable, "-m", "jaslog", "replay", "-", "--to", "3", "--seat", "1"],
                       input=data, capture_output=True, cwd=ROOT, timeout=60, check=False)
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    assert seqs(out) == [0, 1, 2, 3]
    assert other_hand_leaks(out, 1) == []


def test_sample_replay_round(tmp_path: Path) -> None:
    r = runner.invoke(app, ["replay", str(ROOT / "replays" / "amsterdam-revoke-ruling.jsonl"),
                            "--round", "2", "--seat", "3"])
    assert r.exit_code == 0
    assert other_hand_leaks(r.output, 3) == []
    assert "must_follow_suit" in r.output                # shown once round 2 is over
    # the referee's ruling on round 2 comes at the end of the log, after 14 more rounds
    out = " ".join(r.output.split())
    assert "seq 577 referee: round 2 scores 0–0: Director: the revoke followed a card " \
        "exposed by accident" in out and "seq 576 note: Round 2" in out
    assert "seq 100 " not in out  # no event of a later round


def test_a_later_ruling_on_the_round_in_each_game() -> None:
    r = runner.invoke(app, ["replay", str(ROOT / "replays" / "kloepper-faults.jsonl"),
                            "-g", "legion-2026-12-03-t2", "--round", "1"])
    assert r.exit_code == 0, r.output
    assert "seq 180 referee: round 1" in " ".join(r.output.split())


@pytest.mark.parametrize("data, message", [
    (b"\n", "no game found"),
    (b'{"game":"g1","seq":0,"type":"game_started","ruleset":"paris","seats":["a","b","c","d"],'
     b'"dealer":0}\n', ":1: game g1: field 'ruleset'"),
    (b'{"game":"g1","seq":0,"type":"game_started","ruleset":"amsterdam","options":{"play":"x"},'
     b'"seats":["a","b","c","d"],"dealer":0}\n', ":1: game g1 seq 0: option 'play' must be one of"),
    (b'{"game":"g1","seq":0,"type":"play","seat":0,"card":"JH"}\n', "[no_game_started]"),
])


def test_replay_errors_before_anything_is_shown(tmp_path: Path, data: bytes, message: str) -> None:
    p = tmp_path / "x.jsonl"
    p.write_bytes(data)
    r = runner.invoke(app, ["replay", str(p)])
    assert r.exit_code == 2
    assert "jaslog: " in r.output and message in r.output
    assert seqs(r.output) == []


def test_a_stored_game_is_named_once(tmp_path: Path) -> None:
    r = runner.invoke(app, ["replay", "store:g1", "--game", "g2", "--db",
                            str(tmp_path / "none.sqlite")])
    assert r.exit_code == 2
    assert "store:g1 names game g1, --game g2: name the stored game once" in r.stderr


SUIT_OF = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
RANKS = {"7", "8", "9", "10", "J", "Q", "K", "A"}


def hand_shown(row: str) -> set[str] | str:
    """A table row's hand column: the cards shown, or what stands instead of them."""
    if row.startswith("(not recorded)"):
        return "not recorded"
    if re.match(r"\d+ cards?\b", row):
        return "count"
    cards, suit = set(), None
    for tok in row.split():
        if tok in SUIT_OF:
            suit = SUIT_OF[tok]
        elif tok in RANKS and suit is not None:
            cards.add(tok + suit)
        else:  # the card on the table, "wins", a Kloepper side
            break
    return cards


def faulty_game(ruleset: str, seed: int, players: int) -> list[dict[str, object]]:
    """Two rounds played out (with faults, hands not always recorded), the third ruled after
    its sixth card, the fourth begun."""
    seats = SEATS[:players]
    events = simulate_game("one", ruleset, seed=seed, seats=seats, faults=Faults(
        no_hands_rate=0.5, revoke_rate=0.15, false_roem_rate=0.3))
    deals = [i for i, e in enumerate(events) if e["type"] == "dealt"]
    plays = [i for i in range(deals[2], deals[3]) if events[i]["type"] == "play"]
    cut = plays[5] + 1
    ruling = {"game": "one", "seq": cut, "type": "ruling", "round": 3,
              "score": [0] * (4 if ruleset == "kloepper" else 2), "reason": "cards fell"}
    after = [{**e, "seq": cut + 1 + j} for j, e in enumerate(events[deals[3]:deals[3] + 12])]
    return [*events[:cut], ruling, *after]


# Klaverjas and Klaberjass (four seats and two) in make test; Kloepper, four seats as
# Klaverjas and the slowest to draw, in make soak (its tables' hidden hands: the game contract)
@pytest.mark.parametrize("ruleset, seed, players", [
    ("amsterdam", 4, 4), ("klaberjass-2p", 4, 2),
    pytest.param("kloepper", 4, 4, marks=pytest.mark.soak)])
def test_the_table_shows_what_the_seat_view_shows(tmp_path: Path, ruleset: str, seed: int,
                                                  players: int) -> None:
    """Every game's replay draws a seat's table from the game's one visibility rule, its
    ``seat_view``: after every event and for every viewer, the hands shown are the view's
    (another's by its count while the round is secret) and the violations are the view's,
    in its order; rounds recorded without hands, revokes and a round ruled mid-play."""
    events = faulty_game(ruleset, seed, players)
    p = tmp_path / "g.jsonl"
    p.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    evs = [event_from_dict(e) for e in events]
    seat_view = get_game(start_fold(evs[0]).game).seat_view
    for viewer in (None, *range(players)):
        r = runner.invoke(app, ["replay", str(p)] + ([] if viewer is None else ["--seat", str(viewer)]))
        assert r.exit_code == 0, r.output
        blocks = re.split(r"^(?=seq +\d+ )", r.output, flags=re.M)[1:]
        assert len(blocks) == len(evs)
        f = start_fold(evs[0])
        for i, (ev, block) in enumerate(zip(evs, blocks, strict=True)):
            if i:
                f.apply(ev)
            v = seat_view(f, viewer)
            if not v["round"]:
                continue
            rows = {int(m.group(1)): m.group(2) for m in re.finditer(
                r"^[▶ ] \w+ \((\d)\)\s+(.*)$", block, re.M)}
            assert sorted(rows) == list(range(players)), block
            for seat, row in rows.items():
                shown = hand_shown(row)
                want = v["hands"][seat]
                if want is None:
                    assert shown in ("count", "not recorded"), (ev.seq, viewer, seat, row)
                else:
                    assert shown == set(want), (ev.seq, viewer, seat, row)
            text = " ".join(block.split())
            assert len(re.findall(r"✗ \w+:", text)) == len(v["violations"]), (ev.seq, viewer, block)
            at = 0
            for x in v["violations"]:
                said = table_words(f.seats, " ".join(x["message"].split()))
                at = text.index(f"✗ {x['rule']}: {said}", at) + 1


def test_replay_strikes_what_a_correction_retracted_and_marks_superseded_rulings(
        tmp_path: Path) -> None:
    events: list[dict[str, Any]] = [
        {"type": "game_started", "ruleset": "amsterdam", "seats": ["ann", "bob", "cor", "dirk"],
         "dealer": 3},
        {"type": "round_score", "round": 1, "score": [102, 60], "chooser": 0},
        {"type": "dealt"}, {"type": "bid", "seat": 1, "call": "H"},
        {"type": "irregularity", "kind": "lead_out_of_turn", "seat": 2, "cards": ["7H"]},
        {"type": "play", "seat": 1, "card": "7D"},
        {"type": "correction", "retracts": [5], "reason": "typed 7D for 7H"},
        {"type": "play", "seat": 1, "card": "7H"},
        {"type": "ruling", "round": 2, "score": [0, 162], "reason": "abandoned"},
        {"type": "ruling", "round": 2, "score": [81, 81], "reason": "on appeal"},
    ]
    p = tmp_path / "table.jsonl"
    p.write_bytes(b"".join(orjson.dumps({"game": "t", "seq": i, **e}) + b"\n"
                           for i, e in enumerate(events)))
    res = CliRunner().invoke(app, ["replay", str(p)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.stdout
    lines = [ln for ln in res.stdout.splitlines() if ln.startswith("seq")]
    text = "\n".join(" ".join(ln.split()) for ln in lines)
    assert "seq 1 round 1 recorded by its score alone: 102–60 (chooser 0)" in text
    assert "seq 4 irregularity: lead out of turn by cor (2) 7♥" in text
    assert "seq 5 bob (1) plays 7♦ retracted at seq 6: typed 7D for 7H" in text
    assert "seq 6 correction: retracts seq 5: typed 7D for 7H" in text
    assert "seq 8 referee: round 2 scores 0–162: abandoned superseded by the ruling at seq 9" in text
    assert text.endswith("seq 9 referee: round 2 scores 81–81: on appeal")


def test_check_and_replay_take_a_bare_stored_game_id_as_show_does(tmp_path: Path) -> None:
    db = str(tmp_path / "club.sqlite")
    log = Path(__file__).parent.parent / "replays" / "klaberjass-faults.jsonl"
    assert runner.invoke(app, ["import", "--db", db, str(log)]).exit_code == 0
    by_id = runner.invoke(app, ["replay", "klok-2026-12-01-b", "--db", db])
    by_ref = runner.invoke(app, ["replay", "store:klok-2026-12-01-b", "--db", db])
    assert by_id.exit_code == 0, by_id.output
    assert by_id.output == by_ref.output and "game over: umut wins" in by_id.output
    checked = runner.invoke(app, ["check", "klok-2026-12-01-b", "--db", db, "--json"])
    assert checked.exit_code == 1, checked.output  # the game holds violations: check says 1
    assert '"game":"klok-2026-12-01-b"' in checked.output and '"rule":"bella_early"' in checked.output
    missing = runner.invoke(app, ["check", "no-such-game", "--db", db])
    assert missing.exit_code == 2 and "no-such-game" in missing.output
    assert "Traceback" not in missing.output
    file_like = runner.invoke(app, ["replay", str(tmp_path / "missing.jsonl")])
    assert file_like.exit_code == 2 and "missing.jsonl" in file_like.output


@pytest.mark.parametrize("name", ["klaverjas", "klaberjass", "kloepper"])
def test_a_seat_never_sees_another_seat_s_retracted_card_in_a_live_round(
        tmp_path: Path, name: str) -> None:
    """The scorer recorded a seat's card before the one it played and retracted it: that
    card is still in its holder's hand, so ``replay --seat`` shows another seat neither the
    card (in the play's line, on the table) nor the correction's reason, note or text that
    name it; the holder sees it."""
    from jaslog.events import canonical_json
    from jaslog.play.render import card_text
    from tests.test_share import typo_live

    events, holder, typo = typo_live(name)
    p = tmp_path / "typo.jsonl"
    p.write_bytes(b"".join(canonical_json(e) + b"\n" for e in events))
    players = get_game(name).players
    for seat in range(players):
        r = runner.invoke(app, ["replay", str(p), "--seat", str(seat)])
        assert r.exit_code == 0, r.output
        live = r.output[r.output.rindex(" dealt by "):]  # the round being played
        shown = card_text(typo) in live or re.search(rf"\b{typo}\b", live) is not None
        assert shown is (seat == holder), (seat, holder, typo)
        if seat != holder:
            assert "its card is shown when the round is over" in live


@pytest.mark.slow
@pytest.mark.parametrize("what", ["live, half played", "claimed with cards unplayed"])
def test_a_seat_reads_a_round_s_analysis_only_once_it_is_played_out(tmp_path: Path,
                                                                     what: str) -> None:
    """The analysis names every hand (par, the best cards): ``replay --seat --analyze``
    prints it after a round's last card only when every card was played, never of the
    round being played nor of one a claim ended; the referee's replay prints it."""
    from jaslog.events import canonical_json, event_from_dict
    from tests.games.test_contract import cuts

    cut = next(c for c in cuts("klaverjas") if c.what == what)
    p = tmp_path / "cut.jsonl"
    p.write_bytes(b"".join(canonical_json(event_from_dict(e)) + b"\n" for e in cut.events))
    head = re.compile(rf"^round {cut.round}  (par|no par)", re.M)
    referee = runner.invoke(app, ["replay", str(p), "--analyze", "--round", str(cut.round)])
    assert referee.exit_code == 0 and head.search(referee.output), referee.output[-500:]
    for seat in range(4):
        r = runner.invoke(app, ["replay", str(p), "--seat", str(seat), "--analyze", "--round",
                                str(cut.round)])
        assert r.exit_code == 0, r.output
        assert not head.search(r.output), (what, seat)
