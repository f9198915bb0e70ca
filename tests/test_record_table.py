"""``jaslog record`` at a real table, through the real command (typer's CliRunner) and a real
SQLite store: ``fix`` (a correction retracting the last event or the last N, shown and
confirmed; its misuses refused with their rule code), ``undo`` pointing to it and offering a
ruling on a completed round, a card given out of turn offered as an irregularity and the
``irregularity`` word, several cards in one line (all recorded or none), the Dutch words,
the round due, and each round's line of the score sheet with the certificate."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from jaslog.cards import CARD_INDEX, CARD_TEXT, cards_of
from jaslog.engine.fold import GameFold
from jaslog.events import event_from_dict
from jaslog.store import open_store
from tests.test_record_games import knockers, run


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    path = str(tmp_path / "table.sqlite")
    monkeypatch.setenv("JASLOG_DB", path)
    monkeypatch.setenv("COLUMNS", "200")
    return path


def flat(text: str) -> str:
    return " ".join(text.split())


def new(gid: str, ruleset: str = "amsterdam", seats: str = "ann,bob,cor,dirk",
        dealer: int = 3) -> None:
    run("new", "--ruleset", ruleset, "--seats", seats, "--dealer", str(dealer), "--id", gid)


def record(gid: str, *lines: str) -> str:
    """What ``jaslog record GID`` prints for these lines (spaces made single: the terminal's
    width may wrap a line anywhere)."""
    return flat(run("record", gid, input="\n".join(lines) + "\n").stdout)


def stored(db: str, gid: str) -> list[dict[str, Any]]:
    return [e.model_dump(exclude_none=True) for e in open_store(db).events(gid)]


def fold_of(db: str, gid: str) -> GameFold:
    with open_store(db) as store:
        return store.fold(gid)


def play(f: GameFold, card: int) -> None:
    """Play ``card`` for the seat due on the fold ``f`` (a copy the test walks on)."""
    _, seat = f.state.expected()
    f.apply(event_from_dict({"game": f.game_id, "seq": f.next_seq, "type": "play",
                             "seat": seat, "card": CARD_TEXT[card]}))


def legal_cards(db: str, gid: str, n: int) -> list[str]:
    """The next ``n`` cards in turn, each the lowest legal card of the seat due (lower case,
    as a scorer types them)."""
    f = copy.deepcopy(fold_of(db, gid))
    out = []
    for _ in range(n):
        c = next(iter(cards_of(f.state.legal_plays())))
        out.append(CARD_TEXT[c].lower())
        play(f, c)
    return out


# ---------------------------------------------------------------------- fix and undo


def test_fix_retracts_the_last_event_or_the_last_n(db: str) -> None:
    new("fx")
    record("fx", "deal random 5", "c")
    cards = legal_cards(db, "fx", 3)
    out = record("fx", *cards, "fix", "y", "fix 2 wrong cards", "ja", "quit")
    evs = stored(db, "fx")
    plays = evs[3:6]
    assert [e["type"] for e in evs] == ["game_started", "dealt", "bid", "play", "play", "play",
                                        "correction", "correction"]
    who = ["seat 0 (ann)", "seat 1 (bob)", "seat 2 (cor)", "seat 3 (dirk)"]
    # what is retracted is shown in the scorer's words, then asked
    assert (f"fix: retract seq 5: {who[plays[2]['seat']]} played {plays[2]['card']} (reason: "
            "scorer's correction) retract it? [y/N]>") in out
    assert (f"fix: retract these 2 events (reason: wrong cards): seq 4: {who[plays[1]['seat']]} "
            f"played {plays[1]['card']} seq 3: {who[plays[0]['seat']]} played "
            f"{plays[0]['card']} retract these 2 events? [y/N]>") in out
    assert evs[6]["retracts"] == [5] and evs[6]["reason"] == "scorer's correction"
    assert evs[7]["retracts"] == [3, 4] and evs[7]["reason"] == "wrong cards"
    f = fold_of(db, "fx")
    assert set(f.retracted) == {3, 4, 5}
    assert f.state.expected() == ("play", plays[0]["seat"])  # as if never recorded
    # the game goes on from there: the first card again, then the whole line
    out = record("fx", " ".join(cards), "quit")
    assert "3 events recorded" in out
    assert [e.get("card") for e in stored(db, "fx")[8:]] == [c.upper() for c in cards]


def test_fix_misuse_is_refused_with_its_code_and_nothing_stored(db: str) -> None:
    new("fm")
    out = record("fm", "fix", "deal random 5", "fix 5", "fix 0", "fix", "n", "fix", "",
                 "ruling 1 0 162 misdeal", "deal random 6", "fix 2", "fix 3 typo", "quit")
    assert ("✗ nothing to fix: no event since the game's start can be retracted (the game's "
            "start and notes stay, a correction is final) [retract_unknown_seq]") in out
    assert ("✗ fix 5: only 1 event can be retracted (seq 1; the game's start and notes stay, "
            "a correction is final) [retract_unknown_seq]") in out
    assert "✗ fix N retracts the last N events, N from 1 to 64 (fix: the last one)" in out
    assert out.count("retract it? [y/N]>") == 2 and out.count("not recorded") == 2
    past = ("✗ refused: fix {n} reaches seq 2 (a ruling on round 1: 0–162 (misdeal)), in round "
            "1, which is complete: round 2 was dealt at seq 3. A correction reaches back no "
            "further than the deal of the round in play; a completed round is changed only by "
            "a referee's ruling ('ruling', or 'undo') [retract_past_round]")
    assert past.format(n=2) in out
    assert ("✗ refused: fix 3 reaches seq 1 (the deal of round 1 (the hands seen)), in round 1, "
            "which is complete") in out
    assert [e["type"] for e in stored(db, "fm")] == ["game_started", "dealt", "ruling", "dealt"]


def test_undo_points_to_fix_and_offers_a_ruling_on_a_completed_round(db: str) -> None:
    new("ud")
    out = record("ud", "deal random 5", "undo", "c", "ruling 1 0 162 misdeal", "undo", "y",
                 "10 152", "typed for the wrong team", "deal random 6", "undo", "n", "quit")
    pointer = ("Events stay in the log; 'fix' retracts the last one as if it was never "
               "recorded: {last} ('fix N' the last N, 'fix N REASON' says why).")
    # round 1 in play and none complete: the pointer, nothing asked ('c' is the next bid)
    assert pointer.format(last="seq 1: the deal of round 1 (the hands seen)") + \
        " [seq 2] round 1: seat 0 (ann) bids" in out
    # round 1 ruled (complete): the pointer, and a ruling offered
    assert pointer.format(last="seq 3: a ruling on round 1: 0–162 (misdeal)") in out
    assert ("Round 1 is complete: 'fix' takes back its last events until round 2 is dealt; a "
            "referee's ruling replaces its score. record a ruling on round 1 now? [y/N]>") in out
    # every ruling is kept; the sheet shows the one that counts and the one superseded
    assert ("round 1 on the score sheet: played 0–0 (unfinished) · ruled 10–152 (typed for the "
            "wrong team; 1 earlier ruling superseded) · totals 10–152 (ann & cor – bob & dirk)"
            ) in out
    # round 2 dealt: a correction no longer reaches round 1
    assert ("Round 1 is complete (round 2 was dealt at seq 5): a correction reaches back no "
            "further than that deal [retract_past_round], so only a referee's ruling changes "
            "round 1: it replaces the round's score.") in out
    evs = stored(db, "ud")
    assert [e["type"] for e in evs] == ["game_started", "dealt", "bid", "ruling", "ruling",
                                        "dealt"]
    assert evs[4]["score"] == [10, 152] and evs[4]["round"] == 1


@pytest.mark.parametrize(("ruleset", "seats"), [("klaberjass-2p", "ann,bob"),
                                                ("kloepper", "ann,bob,cor,dirk")])
def test_fix_in_every_game(db: str, ruleset: str, seats: str) -> None:
    """A deal retracted and dealt again: the game is where it was before the deal."""
    new("fg", ruleset=ruleset, seats=seats, dealer=seats.count(","))
    out = record("fg", "deal random 3", "fix dealt twice", "j", "deal random 4", "quit")
    assert "fix: retract seq 1: the deal of deal 1 (the hands seen" in out
    assert "(reason: dealt twice) retract it? [y/N]> j" in out
    evs = stored(db, "fg")
    assert [e["type"] for e in evs] == ["game_started", "dealt", "correction", "dealt"]
    f = fold_of(db, "fg")
    assert set(f.retracted) == {1} and len(f.state.rounds) == 1
    assert f.state.rounds[0].dealer == seats.count(",")  # the same dealer deals again


# ---------------------------------------------------------------------- irregularities


def test_a_card_out_of_turn_is_offered_as_an_irregularity(db: str) -> None:
    new("ir")
    record("ir", "deal random 5", "c")
    f = fold_of(db, "ir")
    _, due = f.state.expected()
    hands = f.state.rounds[-1].hands
    early = (due + 1) % 4
    led = CARD_TEXT[next(iter(cards_of(hands[early])))]
    first = legal_cards(db, "ir", 1)[0]
    late = (due + 3) % 4
    late_card = CARD_TEXT[next(iter(cards_of(hands[late])))]
    out = record("ir", f"{early} {led.lower()}", "y", first, f"{late} {late_card.lower()}", "n",
                 "quit")
    who = ["seat 0 (ann)", "seat 1 (bob)", "seat 2 (cor)", "seat 3 (dirk)"]
    assert (f"✗ refused: seat {early} played {led} but it is seat {due}'s turn [not_your_turn] "
            f"record it as an irregularity, lead_out_of_turn by {who[early]} with {led} (the "
            f"card goes back to the hand; {who[due]} plays)? [y/N]>") in out
    assert (f"play_out_of_turn by {who[late]} with {late_card} (the card goes back to the hand; "
            f"{who[(due + 1) % 4]} plays)? [y/N]> n not recorded") in out
    evs = stored(db, "ir")
    assert [e["type"] for e in evs[3:]] == ["irregularity", "play"]
    assert {k: evs[3][k] for k in ("kind", "seat", "cards")} == \
        {"kind": "lead_out_of_turn", "seat": early, "cards": [led]}
    assert evs[4]["seat"] == due  # the seat due played: the card out of turn went back


def test_the_irregularity_word(db: str) -> None:
    new("iw")
    out = record("iw", "deal random 5", "irregularity exposed_card 2 qs",
                 "irregularity misdeal 3 dirk dealt bob nine cards",
                 "irr exposed 1 ah 7c shown while sorting", "irregularity bogus 1",
                 "irregularity exposed 7", "irregularity", "quit")
    assert "4 events recorded" in out
    assert "✗ 'bogus' is not a kind of irregularity: lead_out_of_turn, play_out_of_turn, " \
        "exposed_card, misdeal, wrong_card_count, other" in out
    assert "✗ '7' is not a seat (0-3)" in out
    assert "✗ write an irregularity as: irregularity KIND SEAT [CARDS] [TEXT]" in out
    evs = stored(db, "iw")[2:]
    assert [(e["kind"], e["seat"], e.get("cards"), e.get("text")) for e in evs] == [
        ("exposed_card", 2, ["QS"], None), ("misdeal", 3, None, "dirk dealt bob nine cards"),
        ("exposed_card", 1, ["AH", "7C"], "shown while sorting")]
    f = fold_of(db, "iw")
    assert len(f.irregularities) == 3 and f.state.expected() == ("bid", 0)  # nothing changed


# ---------------------------------------------------------------------- several cards a line


def revoke_line(db: str, gid: str) -> tuple[list[str], str, str]:
    """Legal cards up to a trick whose second player holds a card that breaks a rule (not
    the first player's suit though he holds it), that trick's first card, and that card."""
    f = copy.deepcopy(fold_of(db, gid))
    before: list[str] = []
    while True:
        r = f.state.rounds[-1]
        trick_starts = not r.tricks or r.tricks[-1].complete
        lead = next(iter(cards_of(f.state.legal_plays())))
        if trick_starts:
            trial = copy.deepcopy(f)
            play(trial, lead)
            _, second = trial.state.expected()
            bad = trial.state.rounds[-1].hands[second] & ~trial.state.legal_plays()
            if bad:
                return before, CARD_TEXT[lead].lower(), CARD_TEXT[next(iter(cards_of(bad)))].lower()
        before.append(CARD_TEXT[lead].lower())
        play(f, lead)


def test_several_cards_in_one_line_are_recorded_whole_or_not_at_all(db: str) -> None:
    new("ml")
    record("ml", "deal random 5", "c")
    six = legal_cards(db, "ml", 6)  # a whole trick and two cards of the next
    f = copy.deepcopy(fold_of(db, "ml"))
    for c in six:
        play(f, CARD_INDEX[c.upper()])
    _, third = f.state.expected()
    hands = f.state.rounds[-1].hands
    not_held = CARD_TEXT[next(iter(cards_of(hands[(third + 2) % 4])))]
    nxt = CARD_TEXT[next(iter(cards_of(f.state.legal_plays())))]
    out = record("ml", " ".join(six), f"{nxt.lower()} {not_held.lower()}", "3 kh jc", "quit")
    assert "6 events recorded" in out
    assert (f"✗ refused: '{nxt.lower()} {not_held.lower()}': card 2 of the line ({not_held}), by "
            f"seat {(third + 1) % 4} (") in out
    assert "[card_not_held]; nothing of the line was recorded" in out
    assert "✗ several cards in one line are played in turn, each by the seat due: leave out " \
        "the seat" in out
    evs = stored(db, "ml")
    assert [e.get("card", "").lower() for e in evs[3:]] == six
    seats = [e["seat"] for e in evs[3:]]
    assert seats[:4] == [(seats[0] + i) % 4 for i in range(4)]  # each in turn
    assert fold_of(db, "ml").state.expected() == ("play", third)


def test_a_line_that_breaks_a_rule_is_asked_once_and_kept_whole(db: str) -> None:
    new("mv")
    record("mv", "deal random 5", "c")
    before, lead, bad = revoke_line(db, "mv")
    if before:
        record("mv", " ".join(before), "quit")
    start = len(stored(db, "mv"))
    out = record("mv", f"{lead} {bad}", "n", f"{lead} {bad}", "y", "quit")
    assert out.count("! this breaks a rule: must_") == 2, out[-2000:]
    assert "record it anyway? it will stand as a violation [y/N]> n not recorded" in out
    evs = stored(db, "mv")
    assert [e["card"].lower() for e in evs[start:]] == [lead, bad]
    assert len(fold_of(db, "mv").state.violations) == 1


# ---------------------------------------------------------------------- Dutch words


def test_dutch_words_beside_the_english_ones(db: str) -> None:
    new("nl")
    out = record("nl", "deal random 5", "pas", "harten", "fix", "ja", "schoppen", "klaar")
    assert "seq 3 bob (1) names hearts trumps" in out and "retract it? [y/N]> ja" in out
    assert [(e.get("seat"), e.get("call")) for e in stored(db, "nl")[2:]] == [
        (0, "pass"), (1, "H"), (None, None), (1, "S")]
    assert "5 events recorded" in out  # klaar: the recorder stops as with quit
    new("nk", ruleset="klaberjass-2p", seats="ann,bob", dealer=1)
    out = record("nk", "deal random 3", "pas", "klaar")
    assert [e.get("call") for e in stored(db, "nk")[2:]] == ["pass"]
    new("nq", ruleset="kloepper", dealer=3)
    seed, knocker, back = knockers()
    record("nq", f"deal random {seed}", f"klop {knocker}", f"klop terug {back}", "klaar")
    assert [(e["type"], e["seat"]) for e in stored(db, "nq")[2:]] == [
        ("knock", knocker), ("knock_back", back)]


# ---------------------------------------------------------------------- after every round


def test_after_a_round_its_score_sheet_line_the_certificate_and_the_round_due(db: str) -> None:
    new("sh")
    record("sh", "deal random 5", "c")
    cards = legal_cards(db, "sh", 32)
    lines = [" ".join(cards[i:i + 8]) for i in range(0, 32, 8)]
    out = record("sh", *lines, "quit")
    with open_store(db) as store:
        f = store.fold("sh")
        head = store.head("sh")
        key = store.signing_key().id  # the store signed the round's end
    o = f.state.outcomes()[0]
    score = "–".join(map(str, o.score))
    assert (f"round 1 on the score sheet: played {score} ({o.result}) · totals {score} (ann & "
            f"cor – bob & dirk) certificate {head.certificate} (seq 34, signed by key {key}): "
            "write it on the score sheet round 2 is due: seat 0 (ann) deals: type 'deal' (or "
            "'score S0 S1' for a round written by its score)") in out
    assert "[seq 35] round 2: seat 0 (ann) deals: type 'deal'>" in out
    assert out.count("round 1 on the score sheet") == 1  # once, when the round ended
    # a ruling on the completed round: its line again, ruled, with the new certificate
    out = record("sh", "ruling 1 0 162 revoke by bob", "quit")
    with open_store(db) as store:
        cert = store.head("sh").certificate
    assert (f"round 1 on the score sheet: played {score} ({o.result}) · ruled 0–162 (revoke by "
            f"bob) · totals 0–162 (ann & cor – bob & dirk) certificate {cert} (seq 35, signed by "
            f"key {key})") in out


# ---------------------------------------------------------------------- score-only rounds


def test_a_round_written_by_its_score_alone(db: str) -> None:
    new("sc")
    out = record("sc", "score 102 80 chooser 0 trump h points 82 80 roem 20 0",
                 "score 0 182 kiezer 2 troef harten nat", "score 100 60",
                 "score 100 62 nat pit", "score 100", "score 100 62 bogus", "score 100 62 points 1",
                 "score 100 62 chooser", "score 100 62 trump x", "deal random 5",
                 "score 100 62", "quit")
    assert ("round 1 on the score sheet: written 102–80 (made) · totals 102–80 (ann & cor – bob "
            "& dirk)") in out
    assert "round 2 on the score sheet: written 0–182 (nat) · totals 102–262" in out
    assert "round 3 is due: seat 1 (bob) deals" in out
    # what does not add up is the rules' sentence, with its code
    assert ("✗ refused: round 3: score 100 + 60 = 160: a round's scores add up to 162 plus its "
            "roem and any pit bonus, which come in tens [bad_round_score]") in out
    # what the recorder cannot read is said before anything is tried
    assert "✗ 'pit': the result is given twice" in out
    assert "✗ write a round by its score as: score S0 S1 [...] (e.g. score 102 80 chooser 0 " \
        "trump h points 82 80 roem 20 0); 'help' lists the words" in out
    assert "✗ 'bogus' is not a part of a round's score here" in out
    assert "✗ points takes 2 numbers, like the score: points 100 62" in out
    assert "✗ chooser takes a seat: chooser 1" in out
    assert "✗ trump takes a suit: trump h (or harten)" in out
    # only the round due, before its deal
    assert ("✗ a round is written by its score when it is due, before its deal: seat 2 (cor) "
            "must bid: pass, c, d, h, s [round_not_over]") in out
    evs = stored(db, "sc")
    assert [e["type"] for e in evs] == ["game_started", "round_score", "round_score", "dealt"]
    assert {k: v for k, v in evs[1].items() if k in ("round", "score", "chooser", "trump",
                                                      "points", "roem", "result")} == {
        "round": 1, "score": [102, 80], "chooser": 0, "trump": "H", "points": [82, 80],
        "roem": [20, 0]}
    assert {k: evs[2].get(k) for k in ("round", "score", "chooser", "trump", "result")} == {
        "round": 2, "score": [0, 182], "chooser": 2, "trump": "H", "result": "nat"}
    assert fold_of(db, "sc").state.totals() == [102, 262]


@pytest.mark.parametrize(("ruleset", "seats", "good", "bad", "fields"), [
    ("klaberjass-2p", "ann,bob", "score 182 0 maker 0 trump h points 162 0 melds 20 0",
     "score 81 81 tie", {"chooser": 0, "trump": "H", "points": [162, 0], "roem": [20, 0]}),
    ("kloepper", "ann,bob,cor,dirk", "score 4 0 4 0 holder 0 points 70 20 30 0",
     "score 4 0 4 0 melds 1 1 1 1", {"chooser": 0, "points": [70, 20, 30, 0]}),
])
def test_score_words_of_klaberjass_and_kloepper(db: str, ruleset: str, seats: str, good: str,
                                                 bad: str, fields: dict[str, Any]) -> None:
    new("sk", ruleset=ruleset, seats=seats, dealer=seats.count(","))
    out = record("sk", bad, good, "quit")
    assert "✗" in out and "1 event recorded" in out
    assert "deal 1 on the score sheet: written " in out and "deal 2 is due" in out
    e = stored(db, "sk")[1]
    assert e["type"] == "round_score" and {k: e[k] for k in fields} == fields


def test_the_game_over_after_its_last_round(db: str) -> None:
    new("go")
    out = record("go", *["score 102 60"] * 16, "quit")
    assert "round 16 on the score sheet: written 102–60 · totals 1632–960" in out
    assert "the game is over: ann & cor win" in out
    assert "[seq 17] round 16: game over: note, ruling or quit>" in out


def test_a_finished_game_takes_no_fix(db: str) -> None:
    """Decision 9: once the game is over, only a referee's ruling changes it."""
    new("gf")
    out = record("gf", *["score 102 60"] * 16, "fix", "fix 2 typo", "quit")
    assert ("✗ refused: the game is over: a correction reaches no further back than the round in "
            "play, and a finished game has none; once a game is over, only a referee's ruling "
            "changes it [retract_game_over]") in out
    assert len(stored(db, "gf")) == 17 and fold_of(db, "gf").state.finished
