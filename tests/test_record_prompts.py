"""What ``jaslog record`` offers, refuses and prints, on a real SQLite store: the bids, roem,
bella, dix, sequences, knocks and partner calls its prompt and help offer are those the rules
accept; a word not due is refused with its rule code; ``cancel``, ``quit`` and end of input
stop cleanly with the summary. The recorder reads standard input (as from a pipe) in this
process; Ctrl-C and Ctrl-D in a pseudo-terminal, and a second writer while the recorder waits,
run it as a real process."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jaslog.store import open_store
from tests.cli import jaslog as run_jaslog

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "rec.sqlite")


def env(db: str) -> dict[str, str]:
    return dict(os.environ, JASLOG_DB=db, COLUMNS="200")


def jaslog(db: str, *args: str, input: str = "") -> subprocess.CompletedProcess[str]:
    return run_jaslog(*args, input=input, env={"JASLOG_DB": db, "COLUMNS": "200"}, text=True)


def new(db: str, gid: str, *options: str, seats: str = "ann,bob,cor,dirk",
        ruleset: str = "amsterdam") -> None:
    opts = [x for o in options for x in ("-o", o)]
    dealer = str(seats.count(","))  # the last seat deals first
    res = jaslog(db, "new", "--ruleset", ruleset, "--seats", seats, "--dealer", dealer, "--id", gid,
                 *opts)
    assert res.returncode == 0, res.stderr


def record(db: str, gid: str, *lines: str, end: str = "\n") -> subprocess.CompletedProcess[str]:
    return jaslog(db, "record", gid, input="\n".join(lines) + end)


def flat(text: str) -> str:
    return " ".join(text.split())


def test_end_of_input_at_a_violation_question_ends_cleanly(db: str) -> None:
    """Input that ends at "record it anyway?" ends like end of input at the prompt: nothing
    of the question is recorded, the summary and the certificate are printed, exit 0 (not
    click's ``Aborted.``, exit 1)."""
    new(db, "eof")
    # deal random 5: forehand ann leads JC (clubs trumps); bob holds KC, so AD is a revoke
    res = record(db, "eof", "deal random 5", "c", "jc", "ad")
    out = flat(res.stdout)
    assert res.returncode == 0, (res.stdout[-2000:], res.stderr)
    assert "this breaks a rule: must_follow_suit" in out
    assert "Aborted" not in res.stdout + res.stderr and "Traceback" not in res.stderr
    assert "3 events recorded; game eof is at seq 3; certificate" in out
    assert [e.type for e in open_store(db).events("eof")][-1] == "play"
    assert len(open_store(db).events("eof")) == 4


def terminal(db: str, gid: str, keys: list[bytes]) -> tuple[int, str]:
    """``jaslog record GID`` in a pseudo-terminal (its controlling terminal, so Ctrl-C is a
    SIGINT from the terminal): each key string is typed once the prompt has settled."""
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        # Ctrl-C as in a user's terminal, also when pytest runs where SIGINT is ignored (a
        # shell's background job, nohup): an ignored signal stays ignored across exec
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.chdir(ROOT)
        os.environ.update(env(db), TERM="dumb")
        os.execv(sys.executable, [sys.executable, "-m", "jaslog", "record", gid])
    out = b""

    def read_until(marker: bytes, timeout: float = 30) -> None:
        nonlocal out
        end = time.monotonic() + timeout
        while marker not in out and time.monotonic() < end:
            r, _, _ = select.select([fd], [], [], 0.1)
            if r:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    return
                if not data:
                    return
                out += data

    sent = 0
    for key in keys:
        deadline = time.monotonic() + 30  # wait for a new prompt (rich's prompts end in ": ")
        while not (len(out) > sent and out.endswith(b": ")) and time.monotonic() < deadline:
            read_until(b"__never__", 0.1)
        os.write(fd, key)
        sent = len(out)
    code = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        read_until(b"__never__", 0.1)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            break
    else:  # pragma: no cover - a hung recorder fails the test below
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    read_until(b"__never__", 0.2)
    os.close(fd)
    return (code if code is not None else -1), out.decode(errors="replace").replace("\r", "")


@pytest.mark.slow
@pytest.mark.parametrize("keys", [[b"\x03"],
                                  # Ctrl-C again, after three answers: make soak's
                                  pytest.param([b"c\r", b"jc\r", b"ad\r", b"\x03"],
                                               marks=pytest.mark.soak),
                                  [b"\x04"]],
                         ids=["ctrl-c at the prompt", "ctrl-c at a question", "ctrl-d"])
def test_ctrl_c_and_ctrl_d_in_a_terminal_stop_with_the_summary(db: str, keys: list[bytes]) -> None:
    """Ctrl-C in the terminal stops the recorder like ``quit``: it says so and prints the
    events recorded and the certificate the scorer writes down, on a line of its own, exit 0
    (not 130). Ctrl-D does the same quietly."""
    new(db, "tty")
    assert record(db, "tty", "deal random 5", "quit").returncode == 0
    code, out = terminal(db, "tty", keys)
    assert code == 0, out[-2000:]
    assert "Traceback" not in out and "Aborted" not in out
    n = sum(k.endswith(b"\r") for k in keys) - 1  # the revoke is not confirmed
    n = max(n, 0)
    summary = f"{n} event{'s' * (n != 1)} recorded; game tty is at seq {1 + n}; certificate"
    assert any(line.startswith(summary) for line in out.splitlines()), out[-2000:]
    if keys[-1] == b"\x03":
        assert "interrupted (Ctrl-C)" in out
    assert len(open_store(db).events("tty")) == 2 + n


@pytest.mark.parametrize(("options", "script", "prompt", "now"), [
    # utrecht and dealer_must_choose: the chooser may not pass (rule book 3.2 (a), (d))
    (["trump_selection=utrecht"], [], "seat 0 (ann) bids (c, d, h, s)>", "a suit: c, d, h, s"),
    (["trump_selection=dealer_must_choose"], [], "seat 3 (dirk) bids (c, d, h, s)>",
     "a suit: c, d, h, s"),
    # free: after four passes the starter is forced (3.2 (b) FORCED)
    ([], ["pass"] * 4, "seat 0 (ann) bids (c, d, h, s)>", "a suit: c, d, h, s"),
    ([], ["pass"], "seat 1 (bob) bids (pass, c, d, h, s)>", "pass, or a suit: c, d, h, s"),
    # random: the turned suit is accepted or passed, no other suit (3.2 (c) ACCEPT_ROUND)
    (["trump_selection=random"], ["turn 4h"], "seat 0 (ann) bids (pass, accept, h)>",
     "pass, accept (the turned suit, also 'h')"),
    (["trump_selection=random", "random.all_pass=second_round_other_suits"],
     ["turn 4h", *["pass"] * 4], "seat 0 (ann) bids (pass, c, d, s)>", "pass, or a suit: c, d, s"),
    (["trump_selection=random", "random.all_pass=forehand_names_other"],
     ["turn 4h", *["pass"] * 4], "seat 0 (ann) bids (c, d, s)>", "a suit: c, d, s"),
])
def test_klaverjas_bids_offered_are_those_the_rules_accept(
        db: str, options: list[str], script: list[str], prompt: str, now: str) -> None:
    """The prompt of a Klaverjas bid and help list what the rules accept from the seat due
    under each trump method (no pass where they call it must_choose, no suit where they call
    it suit_not_allowed), and the first call offered is recorded without a violation."""
    new(db, "bids", *options)
    res = record(db, "bids", "deal random 5", *script, "help", "quit")
    out = flat(res.stdout)
    assert res.returncode == 0 and "breaks a rule" not in out, out[-2000:]
    assert prompt in out, out[-1500:]
    assert f"a bid for {prompt.split(' bids')[0]}: {now} What to type" in out, out[-1500:]
    first = prompt.split("(")[2].split(",")[0].rstrip(")>")
    res = record(db, "bids", first, "quit")
    assert "breaks a rule" not in res.stdout and "1 event recorded" in res.stdout, res.stdout[-1500:]
    evs = open_store(db).events("bids")
    assert evs[-1].type == "bid"


def test_roem_is_offered_only_while_a_claim_is_in_time(db: str) -> None:
    """Help offers a roem claim for the trick just won when it holds roem, naming the points
    and the default claimant; not after the next trick's first card (rule book 9.3: the claim
    is then roem_late) nor after a trick without roem (a claim there is roem_false)."""
    new(db, "roem")
    hands = ["7h 8c 9c 10c jc qc kc ac", "8h 7c 7d 8d 9d 10d jd qd", "9h kd ad 7s 8s 9s 10s js"]
    # clubs by ann; trick 1 is 7H 8H 9H 10H: a run of four, 50 roem, won by dirk, who leads AH
    res = record(db, "roem", "deal", *hands, "c", "7h", "8h", "9h", "10h", "help", "ah", "help",
                 "quit")
    out = res.stdout
    assert res.returncode == 0 and "✗" not in out, out[-2000:]
    helps = [flat(h.split("What to type:")[0]) for h in out.split("Now (the recorder knows")[1:]]
    assert len(helps) == 2
    assert "roem 50 [SEAT]: a roem claim for trick 1 (50 on the table; default: its winner, " \
        "seat 3 (dirk))" in helps[0], helps[0]
    assert "roem" not in helps[1], helps[1]
    late = record(db, "roem", "roem 50 3", "n", "quit").stdout
    assert "roem_late" in late  # what help no longer offers is indeed a violation
    # a trick without roem: deal random 5, clubs by ann, trick 1 is JC KC AC 10D (0 roem)
    new(db, "roem0")
    res = record(db, "roem0", "deal random 5", "c", "jc", "kc", "ac", "10d", "help", "quit")
    now = flat(res.stdout.split("Now (the recorder knows")[1].split("What to type:")[0])
    assert "a card for seat 0 (ann)" in now and "roem" not in now, now


@pytest.mark.slow
def test_events_stored_by_another_writer_are_shown_before_the_next_prompt(db: str) -> None:
    """While a recorder waits at its prompt, another writer (a second recorder, ``jaslog
    append``) stores a bid: the recorder catches up before each prompt and before
    ``show``/``help``, says what was recorded elsewhere, then shows the table and the turn
    after it (a card due, not the bid)."""
    new(db, "two")
    p = subprocess.Popen([sys.executable, "-m", "jaslog", "record", "two"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(db),
                         cwd=ROOT)
    assert p.stdin is not None
    try:
        p.stdin.write("deal random 5\n")
        p.stdin.flush()
        deadline = time.monotonic() + 60
        while len(open_store(db).events("two")) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)  # the recorder waits at its prompt
        other = jaslog(db, "append", "two", "--json", '{"type": "bid", "seat": 0, "call": "H"}')
        assert other.returncode == 0, other.stderr
        out, err = p.communicate("show\nhelp\nquit\n", timeout=60)
    finally:
        if p.poll() is None:  # pragma: no cover - a hung recorder
            p.kill()
    assert p.returncode == 0 and "Traceback" not in err, err
    after = flat(out.split("round 1 dealt by dirk")[1])
    assert "1 event recorded elsewhere in this game" in after, after
    assert "seq 2 ann (0) names hearts trumps" in after
    assert "a bid for seat 0" not in after and "a card for seat 0 (ann):" in after
    assert "round 1: trick 1: seat 0 (ann) plays> show" in after \
        or "round 1: trick 1: seat 0 (ann) plays> help" in after
    assert "1 event recorded; game two is at seq 2" in after


@pytest.mark.parametrize("ruleset", ["amsterdam", "klaberjass-2p", "kloepper"])
def test_cancel_quit_and_help_inside_a_deal_or_a_ruling(db: str, ruleset: str) -> None:
    """Inside ``deal`` (or ``ruling``), asked for a hand (a card, a score): ``cancel`` goes
    back to the prompt and ``quit`` stops, nothing of the half-entered event recorded (not
    "'quit' is not a card", nor ``quit`` stored as a ruling's reason), and ``help`` says what
    is asked."""
    seats = "ann,bob" if ruleset.startswith("klaberjass") else "ann,bob,cor,dirk"
    new(db, "sub", ruleset=ruleset, seats=seats)
    first = "deal unseen" if ruleset.startswith("klaberjass") else "deal"  # asks a card / a hand
    res = record(db, "sub", first, "help", "cancel", "deal random 2", "ruling", "", "help",
                 "cancel", "ruling", "1", "1 2 3 4"[:3 if ruleset != "kloepper" else 7], "quit")
    out = flat(res.stdout)
    assert res.returncode == 0, out[-2000:]
    assert "not a card" not in out, out[-2000:]
    asked = "asked: the turn-up card, one card (e.g. 7C)" if ruleset.startswith("klaberjass") \
        else "asked: the 8 cards of seat 0 (ann)" if ruleset == "amsterdam" \
        else "asked: the 6 cards of seat 0 (ann) (e.g. 9C 10C JC QC KC AC), or 'unseen'"
    assert asked in out and "or 'cancel' (back to the prompt, nothing recorded) or 'quit'" in out
    assert out.count("✗ cancelled: nothing was recorded") == 2
    assert "quit: the half-entered event is not recorded" in out
    assert "1 event recorded; game sub is at seq 1" in out
    assert [e.type for e in open_store(db).events("sub")] == ["game_started", "dealt"]


@pytest.mark.parametrize(("ruleset", "lines", "refusals"), [
    ("amsterdam", ["pass", "jh", "deal random 5", "jh", "c", "pass"],
     ["no bid is due now: the next round must be dealt (seat 3 (dirk) deals): type 'deal' [no_deal]",
      "no card is due now: the next round must be dealt (seat 3 (dirk) deals): type 'deal' [no_deal]",
      "no card is due now: seat 0 (ann) must bid: pass, c, d, h, s [trump_not_chosen]",
      "no bid is due now: seat 0 (ann) must play a card [trump_already_chosen]"]),
    ("klaberjass-2p", ["take", "deal random 3", "jh", "take", "take"],
     ["no bid is due now: the next deal must be dealt (seat 1 (bob) deals): type 'deal' [no_deal]",
      "no card is due now: seat 0 (ann) must bid: take, pass, schmeiss [trump_not_chosen]",
      "no bid is due now: the second deal is due: type 'second' [bidding_over]"]),
    ("kloepper", ["alone", "9c"],
     ["no partner call is due now: the next deal must be dealt (seat 3 (dirk) deals): type 'deal' "
      "[no_deal]", "no card is due now: the next deal must be dealt (seat 3 (dirk) deals): type "
      "'deal' [no_deal]"]),
])
def test_a_word_that_is_not_due_is_refused_with_the_rule_code(
        db: str, ruleset: str, lines: list[str], refusals: list[str]) -> None:
    """A bid, a card or a call typed when none is due is refused in a sentence that ends with
    the code of the rule that refuses it (as ``append`` of the same event names it), and
    nothing is stored."""
    seats = "ann,bob" if ruleset.startswith("klaberjass") else "ann,bob,cor,dirk"
    new(db, "due", ruleset=ruleset, seats=seats)
    res = record(db, "due", *lines, "quit")
    out = flat(res.stdout)
    assert res.returncode == 0, out[-2000:]
    for r in refusals:
        assert f"✗ {r}" in out, (r, out[-3000:])
    stored = [e.type for e in open_store(db).events("due")]
    assert stored == {"amsterdam": ["game_started", "dealt", "bid"], "kloepper": ["game_started"],
                      "klaberjass-2p": ["game_started", "dealt", "bid"]}[ruleset], stored


def test_klaberjass_bella_is_offered_when_open_and_defaults_to_its_holder(db: str) -> None:
    """Help offers bella only to the player who has just played the second of the king and
    queen of trumps (rule book 4.6; earlier it is bella_early or bella_false), and ``bella``
    without a seat is hers: ann plays the queen of trumps after the king, bob replies, and
    ``bella`` is still ann's."""
    new(db, "bella", ruleset="klaberjass-2p", seats="ann,bob")
    res = record(db, "bella", "deal", "ks qs 7c 8c 9c 10c", "7d 8d 9d 10d jd qd", "as", "take",
                 "second", "jc qc kc", "kd ad 7h", "8h", "ks", "help", "7d", "qs", "8d", "help",
                 "bella", "help", "quit")
    out = res.stdout
    assert res.returncode == 0 and "✗" not in out and "breaks a rule" not in out, out[-3000:]
    helps = [flat(h.split("What to type:")[0]) for h in out.split("Now (the recorder knows")[1:]]
    assert len(helps) == 3
    assert "bella" not in helps[0] and "bella" not in helps[2]
    assert "bella: seat 0 (ann) announces bella" in helps[1]
    evs = open_store(db).events("bella")
    assert evs[-1].type == "bella" and evs[-1].model_dump()["seat"] == 0
    rep = jaslog(db, "check", "--json", "store:bella")
    assert rep.returncode == 0 and '"violations":[]' in rep.stdout.replace(" ", ""), rep.stdout[:2000]


@pytest.mark.parametrize("seen", [True, False])
def test_kloepper_help_offers_the_knock_then_the_knock_back(db: str, seen: bool) -> None:
    """Help offers the knock (naming the holders of a black queen when the hands were seen),
    after it the knock-back (naming the other side), then neither (rule book 5.5): never a
    knock-back before a knock (knock_back_not_allowed) nor a second knock (knock_twice)."""
    new(db, "kn", ruleset="kloepper")
    # deal random 3: ann (QS) and cor (QC) hold the black queens
    deal = ["deal random 3"] if seen else ["deal unseen"]
    res = record(db, "kn", *deal, "help", "knock 0", "help", "kb 1", "help", "quit")
    out = res.stdout
    assert res.returncode == 0 and "breaks a rule" not in out and "✗" not in out, out[-3000:]
    helps = [flat(h.split("What to type:")[0]) for h in out.split("Now (the recorder knows")[1:]]
    assert len(helps) == 3
    assert "knock SEAT: a knock (until the first card of trick 2)" in helps[0]
    assert "kb SEAT" not in helps[0]
    assert ("seat 0 (ann) or seat 2 (cor), who hold a black queen" in helps[0]) == seen
    assert "kb SEAT: a knock-back by the side without the black queens" in helps[1]
    assert "knock SEAT" not in helps[1]
    assert ("seat 1 (bob) or seat 3 (dirk)" in helps[1]) == seen
    assert "knock" not in helps[2] and "kb" not in helps[2]
    assert [e.type for e in open_store(db).events("kn")][-2:] == ["knock", "knock_back"]


@pytest.mark.parametrize(("options", "prompt"), [
    ([], "seat 2 (cor) holds both black queens: call ac, ah or alone>"),
    (["call_own_ace_allowed=true"], "seat 2 (cor) holds both black queens: call ac, ah, as or alone>"),
    (['both_queens=["alone"]'], "seat 2 (cor) holds both black queens: call alone>"),
])
def test_kloepper_partner_call_offers_only_calls_that_stand(
        db: str, options: list[str], prompt: str) -> None:
    """The prompt and help for the partner call offer only the calls that stand: not the
    caller's own ace when call_own_ace_allowed is false (call_own_ace), nor what the option
    both_queens leaves out (partner_call_not_allowed)."""
    new(db, "call", *options, ruleset="kloepper")
    # deal random 8: cor holds JC QC JD JS QS AS (both black queens and the ace of spades)
    res = record(db, "call", "deal random 8", "help", "quit")
    out = flat(res.stdout)
    assert res.returncode == 0, out[-2000:]
    assert prompt in out, out[-2000:]
    words = prompt.split(": call ")[1].rstrip(">")
    assert f"the partner call of seat 2 (cor): {words} What to type" in out
    first = words.split(",")[0].split(" or ")[0]
    res = record(db, "call", first, "quit")
    assert "breaks a rule" not in res.stdout and "1 event recorded" in res.stdout, res.stdout[-2000:]


@pytest.mark.parametrize("extra", ["jc qc kc", "jc qc 7s"])
def test_klaberjass_dix_is_offered_only_to_the_holder_of_the_seven(db: str, extra: str) -> None:
    """With the hands seen, help names the holder of the seven of trumps for the dix, and
    offers no dix when neither player holds it (the seven is in the stock)."""
    new(db, "dix", ruleset="klaberjass-2p", seats="ann,bob")
    res = record(db, "dix", "deal", "ks qs 7c 8c 9c 10c", "7d 8d 9d 10d jd qd", "as", "take",
                 "second", extra, "kd ad 7h", "8h", "help", "quit")
    out = flat(res.stdout)
    assert res.returncode == 0 and "✗" not in out, out[-2000:]
    now = out.split("Now (the recorder knows whose turn it is):")[1].split("What to type:")[0]
    if "7s" in extra:
        assert "dix: seat 0 (ann) exchanges 7s for the turn-up" in now
        res = record(db, "dix", "dix", "quit")
        assert "✗" not in res.stdout and "breaks a rule" not in res.stdout, res.stdout[-2000:]
        assert open_store(db).events("dix")[-1].type == "dix"
    else:
        assert "dix" not in now, now


def test_klaberjass_help_lists_the_sequences_held(db: str) -> None:
    """With the hands seen, help lists the runs each player holds and has not declared, until
    trick 2, and no sequence when neither holds three in a row (a declaration then is
    sequence_false)."""
    new(db, "seq", ruleset="klaberjass-2p", seats="ann,bob")
    res = record(db, "seq", "deal", "ks qs 7c 8c 9c 10c", "7d 8d 9d 10d jd qd", "as", "take",
                 "second", "jc qc 7s", "kd ad 7h", "8h", "help", "seq 7c 8c 9c 10c jc qc", "help",
                 "seq 7d 8d 9d 10d jd qd kd ad", "help",
                 "ruling 1 0 0 abandoned", "deal random 2", "take", "second", "help", "quit")
    out = res.stdout
    assert res.returncode == 0 and "✗" not in out and "breaks a rule" not in out, out[-3000:]
    helps = [flat(h.split("What to type:")[0]) for h in out.split("Now (the recorder knows")[1:]]
    assert len(helps) == 4
    assert "a sequence declared: seq 7c 8c 9c 10c jc qc by seat 0 (ann); seq 7d 8d 9d 10d jd qd kd " \
        "ad by seat 1 (bob)" in helps[0]
    assert "a sequence declared: seq 7d 8d 9d 10d jd qd kd ad by seat 1 (bob)" in helps[1]
    assert "seq" not in helps[1].split("by seat 1 (bob)")[1]
    assert "seq" not in helps[2]
    with open_store(db) as store:  # deal random 2: neither hand holds three in a row
        from jaslog.games.klaberjass.rules import runs
        r = store.fold("seq").state.rounds[-1]
        assert not runs(r.hands[0] | r.by_seat[0]) and not runs(r.hands[1] | r.by_seat[1])
    assert "seq" not in helps[3], helps[3]


@pytest.mark.parametrize("deal", ["deal random 5", "deal unseen"])
def test_turn_example_fits_random_source_dealers_last_card(db: str, deal: str) -> None:
    """With random.source dealers_last_card the prompt and help give as example a card of the
    dealer's hand (any card of the pack when it was not seen), never "turn 4h", which the
    rules refuse there ([bad_turned_card]: the turned card is the dealer's own); typing it is
    recorded, and the turns after four passes keep 'turn 4h'."""
    new(db, "dl", "trump_selection=random", "random.source=dealers_last_card")
    res = record(db, "dl", deal, "help", "quit")
    out = flat(res.stdout)
    prompt = out.split("seat 3 (dirk) turns a card: 'turn ")[1].split("'")[0]
    assert prompt != "4h"
    assert f"turns the last card dealt to him (random.source dealers_last_card; e.g. turn {prompt})" \
        in out
    res = record(db, "dl", f"turn {prompt}", *["pass"] * 4, "help", "quit")
    out = flat(res.stdout)
    assert "✗" not in out and "5 events recorded" in out, out[-2000:]
    assert "seat 3 (dirk) turns a card: 'turn 4h'" in out and "(e.g. turn 4h)" in out


def test_a_refused_value_is_one_sentence_about_what_was_typed(db: str) -> None:
    """A value the event format refuses (a ruling on round 0, roem of 99999) is refused in one
    sentence about what was typed: the field and the rule code, not the store's words for a
    batch ("event 1 of the batch ...; nothing was written"); nothing is stored."""
    new(db, "val")
    res = record(db, "val", "deal random 5", "ruling 0 0 0 misdeal", "roem 99999 1", "quit")
    out = flat(res.stdout)
    assert res.returncode == 0, out[-2000:]
    assert "✗ refused: field 'round': Input should be greater than or equal to 1 (got 0) " \
        "[bad_event]" in out, out[-2000:]
    assert "✗ refused: field 'points': Input should be less than or equal to 10000 (got 99999) " \
        "[bad_event]" in out
    assert "of the batch" not in out and "nothing was written" not in out
    assert len(open_store(db).events("val")) == 2
