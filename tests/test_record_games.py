"""``jaslog record`` for Klaberjass and Kloepper, end to end through the real command and a real
SQLite store: what a scorer types for every event of simulated games (hands seen and not
seen), refusals with their rule code, help that lists what is accepted now, undo by a ruling,
deals played out, and the stored game passing ``check`` and ``verify``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from jaslog.cards import cards_of, hand_text
from jaslog.cli import app
from jaslog.engine.fold import GameFold
from jaslog.events import event_from_dict
from jaslog.games.kloepper.rules import PACK, QC, QS
from jaslog.play.fold import start_fold
from jaslog.play.sim import Faults, simulate_game
from jaslog.store import open_store

STRIP = {"at", "id", "stock", "recorded_at"}


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    path = str(tmp_path / "rec.sqlite")
    monkeypatch.setenv("JASLOG_DB", path)
    monkeypatch.setenv("COLUMNS", "160")
    return path


def run(*args: str, input: str | None = None, code: int = 0) -> Any:
    res = CliRunner().invoke(app, list(args), input=input)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    assert res.exit_code == code, (res.exit_code, res.stdout[-3000:], res.stderr)
    return res


def lower(cards: list[str]) -> str:
    return " ".join(c.lower() for c in cards)


def typed(fold: GameFold, e: dict[str, Any]) -> list[str]:
    """What a scorer types for ``e`` at the table ``fold`` shows (before ``e``)."""
    t = e["type"]
    g = fold.state
    r: Any = g.rounds[-1] if g.rounds else None
    if t == "dealt":
        hands = e.get("hands")
        if fold.game == "klaberjass":
            if hands is None:
                return [f"deal unseen {e['turn_up'].lower()}"]
            return ["deal", lower(hands[0]), lower(hands[1]), e["turn_up"].lower()]
        return ["deal unseen"] if hands is None else ["deal", *[lower(h) for h in hands[:3]]]
    if t == "bid":
        return [e["call"].lower()]
    if t == "second_deal":
        if e.get("hands") is None:
            return ["second", e["bottom"].lower()]
        return ["second", lower(e["hands"][r.elder]), lower(e["hands"][r.dealer]),
                e["bottom"].lower()]
    if t == "dix":
        return ["dix"] if r.hands_known else [f"dix {e['seat']}"]
    if t == "sequence":
        return [f"seq {lower(e['cards'])}"]
    if t == "bella":
        return ["bella"]
    if t == "partner_call":
        kind, _ = g.expected()
        return [e["call"].lower()] if kind == "call" else [f"call {e['call'].lower()} {e['seat']}"]
    if t == "knock":
        return [f"knock {e['seat']}"]
    if t == "knock_back":
        return [f"kb {e['seat']}"]
    if t == "play":
        return [e["card"].lower().replace("10", "t")]
    raise AssertionError(t)


def script_of(events: list[dict[str, Any]]) -> list[list[str]]:
    """The lines typed for each event (index = position in ``events``; seq 0 types nothing)."""
    fold = start_fold(event_from_dict(events[0]))
    out: list[list[str]] = [[]]
    for e in events[1:]:
        out.append(typed(fold, e))
        fold.apply(event_from_dict(e))
    return out


def deals(events: list[dict[str, Any]], n: int) -> int:
    """The index just past the ``n``-th deal (the next deal's position, or the end)."""
    starts = [i for i, e in enumerate(events) if e["type"] == "dealt"]
    return starts[n] if len(starts) > n else len(events)


def new_game(sim: list[dict[str, Any]], gid: str) -> None:
    s = sim[0]
    run("new", "--ruleset", s["ruleset"], "--seats", ",".join(s["seats"]), "--id", gid,
        "--dealer", str(s["dealer"]))


def stored(db: str, gid: str) -> list[dict[str, Any]]:
    return [e.model_dump(exclude_none=True) for e in open_store(db).events(gid)]


def same(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> None:
    assert [{k: v for k, v in e.items() if k not in STRIP} for e in a] == \
        [{k: v for k, v in e.items() if k not in STRIP} for e in b]


def checked(gid: str) -> dict[str, Any]:
    """``jaslog check --json store:GID`` (no violation, no error) and ``jaslog verify``."""
    res = run("check", "--json", f"store:{gid}")
    rep = orjson.loads(res.stdout.splitlines()[0])
    assert rep["ok"] and rep["error"] is None, rep
    assert "every chain is intact" in run("verify").stdout
    assert run("verify", gid).exit_code == 0
    return rep


@pytest.mark.parametrize(("ruleset", "seen"), [("klaberjass-2p", True), ("klaberjass-2p", False),
                                               ("kloepper", True), ("kloepper", False)])
def test_record_simulated_deals(db: str, ruleset: str, seen: bool) -> None:
    seats = ["ann", "bob"] if ruleset.startswith("klaberjass") else ["ann", "bob", "cor", "dirk"]
    sim = simulate_game("s", ruleset, seed=11, seats=seats,
                        faults=Faults(no_hands_rate=0.0 if seen else 1.0))
    upto = deals(sim, 3)  # three deals
    gid = f"rec-{ruleset}-{seen}"
    sim = [e | {"game": gid} for e in sim]
    new_game(sim, gid)
    lines = [x for xs in script_of(sim[:upto]) for x in xs]
    res = run("record", gid, input="\n".join([*lines, "quit"]) + "\n")
    assert f"{upto - 1} events recorded" in res.stdout
    assert "✗" not in res.stdout, res.stdout[-3000:]
    same(stored(db, gid), sim[:upto])
    assert all("id" in e and "at" in e for e in stored(db, gid)[1:])
    rep = checked(gid)
    assert len(rep["rounds"]) == 3
    played = [r for r in rep["rounds"][:2] if r["result"] not in ("unfinished", "annulled")]
    assert played, rep["rounds"]  # at least one deal was played out and scored
    assert all(r["ruling"] is None for r in rep["rounds"])


def test_klaberjass_refusals_help_undo_and_a_finished_deal(db: str) -> None:
    sim = simulate_game("kb", "klaberjass-2p", seed=4, seats=["ann", "bob"])
    starts = [i for i, e in enumerate(sim) if e["type"] == "dealt"] + [len(sim)]
    # up to the end of the first deal that was played out (not annulled)
    k = next(k for k in range(len(starts) - 1)
             if any(e["type"] == "play" for e in sim[starts[k]:starts[k + 1]]))
    first, end = starts[k], starts[k + 1]
    new_game(sim, "kb")
    steps = script_of(sim[:end])
    first_bid = next(i for i, e in enumerate(sim) if e["type"] == "bid")
    first_play = next(i for i in range(first, end) if sim[i]["type"] == "play")
    seat = sim[first_play]["seat"]
    dealt = next(e for e in reversed(sim[:first_play]) if e["type"] == "dealt")
    second = next(e for e in reversed(sim[:first_play]) if e["type"] == "second_deal")
    held = set(dealt["hands"][seat]) | set(second["hands"][seat])
    not_held = next(c for c in dealt["hands"][1 - seat] if c not in held).lower()
    lines: list[str] = []
    for i, xs in enumerate(steps):
        if i == first_bid:
            lines += ["help", "annul", "pass pass"]  # help; no schmeiss to answer; unknown
        if i == first_play:
            lines += ["help", not_held, "qq", "play"]
        lines += xs
    lines += ["deal unseen 9h", "take", "undo", "n", "ruling", "", "0 0",
              "hand thrown in after a misdeal", "ruling 9 1 1 no such deal", "quit"]
    out = run("record", "kb", input="\n".join(lines) + "\n").stdout
    out = " ".join(out.split())  # the terminal's width may wrap lines anywhere
    # help lists what is accepted now: the bids of round 1, then the legal cards and the dix
    assert "a bid for seat" in out and "take, pass, schmeiss" in out
    # the hands were seen: help names the sequences held (tests/test_record_prompts.py)
    assert "a card for seat" in out and "seq [SEAT] CARDS" not in out
    # refusals: the rules' code and sentence; input the recorder does not know
    assert "'annul' is not a call of round 1 (take, pass or schmeiss) (calls: take, pass, schmeiss) " \
        "[bad_call]" in out
    assert "'pass pass': not something the recorder knows" in out
    assert f"played {not_held.upper()}, which is not in its hand" in out and "[card_not_held]" in out
    assert "type the card itself" in out
    # undo: 'fix' retracts the last events; a completed deal is offered a ruling; a ruling
    # on the deal in play abandons it
    assert "Events stay in the log; 'fix' retracts the last one as if it was never recorded: " \
        f"seq {end + 1}: seat" in out
    assert f"Deal {k + 1} is complete (deal {k + 2} was dealt at seq {end}): a correction " \
        "reaches back no further than that deal [retract_past_round]" in out
    assert f"record a ruling on deal {k + 1} now? [y/N]" in out
    assert "[no_such_round]" in out
    store = open_store(db)
    evs = stored(db, "kb")
    same(evs[:end], sim[:end])
    assert [e["type"] for e in evs[end:]] == ["dealt", "bid", "ruling"]
    assert evs[-1]["score"] == [0, 0] and evs[-1]["round"] == k + 2
    rep = checked("kb")
    played = rep["rounds"][len(rep["rounds"]) - 2]
    assert played["result"] in ("made", "bete", "tie") and len(played["tricks"]) == 9
    last = rep["rounds"][-1]
    assert last["ruling"]["reason"] == "hand thrown in after a misdeal" and last["result"] != "made"
    assert store.fold("kb").state.expected()[0] == "deal"


def test_klaberjass_random_deal_takes_the_second_deal_from_the_stock(db: str) -> None:
    run("new", "--ruleset", "klaberjass-2p", "--seats", "ann,bob", "--id", "kr", "--dealer", "1")
    out = run("record", "kr", input="deal random 3\ntake\ndeal\nquit\n").stdout
    out = " ".join(out.split())
    assert "from the stock: seat 0 (ann) gets" in out
    evs = stored(db, "kr")
    assert [e["type"] for e in evs] == ["game_started", "dealt", "bid", "second_deal"]
    stock = evs[1]["stock"]
    assert sorted(evs[3]["hands"][0] + evs[3]["hands"][1]) == sorted(stock[:6])
    assert evs[3]["bottom"] == stock[-1]
    assert open_store(db).fold("kr").state.expected() == ("play", 0)


def test_kloepper_refusals_help_knocks_undo_and_a_finished_deal(db: str) -> None:
    sim = simulate_game("kl", "kloepper", seed=2, seats=["ann", "bob", "cor", "dirk"])
    end = deals(sim, 1)
    new_game(sim, "kl")
    steps = script_of(sim[:end])
    first_play = next(i for i, e in enumerate(sim) if e["type"] == "play")
    seat = sim[first_play]["seat"]
    hands = sim[1]["hands"]
    not_held = hands[(seat + 1) % 4][0].lower()
    lines: list[str] = []
    for i, xs in enumerate(steps):
        if i == first_play:
            lines += ["help", "7h", not_held, "knock", "knock 9", "call ac"]
        lines += xs
    seed, knocker, back = knockers()
    lines += [f"deal random {seed}", "help", f"knock {knocker}", f"kb {back}", "undo", "n",
              "ruling", "", "0 1 2", "ruling", "", "0 0 6 6", "misdeal", "deal 0", "quit"]
    out = run("record", "kl", input="\n".join(lines) + "\n").stdout
    out = " ".join(out.split())  # the terminal's width may wrap lines anywhere
    assert "a card for seat" in out and "knock SEAT: a knock (until the first card of trick 2)" in out
    assert "7H is not in the kloepper pack" in out
    assert "which is not in its hand" in out and "[card_not_held]" in out
    assert "say who knocks: knock SEAT" in out and "'9' is not a seat (0-3)" in out
    assert "no partner call is due now" in out or "[partner_call_twice]" in out
    assert "a ruling's score is 4 numbers" in out
    assert "type 'deal' (the hands are asked next)" in out
    evs = stored(db, "kl")
    same(evs[:end], sim[:end])
    assert [e["type"] for e in evs[end:]] == ["dealt", "knock", "knock_back", "ruling"]
    assert evs[-1]["score"] == [0, 0, 6, 6]
    rep = checked("kl")
    assert rep["rounds"][0]["result"] not in (None, "unfinished") and len(rep["rounds"][0]["tricks"]) == 6
    assert rep["rounds"][1]["ruling"]["score"] == [0, 0, 6, 6]
    assert rep["totals"] == [a + b for a, b in zip(rep["rounds"][0]["score"], [0, 0, 6, 6], strict=True)]


def knockers() -> tuple[int, int, int]:
    """A seed for ``deal random SEED`` that puts the black queens in two hands, a seat holding
    one of them and a seat holding none: a knock and a knock-back that break no rule."""
    import random

    for seed in range(100):
        deck = list(cards_of(PACK))
        random.Random(seed).shuffle(deck)
        hands = [sum(1 << c for c in deck[6 * s:6 * s + 6]) for s in range(4)]
        q = [next(s for s in range(4) if hands[s] >> c & 1) for c in (QC, QS)]
        if q[0] != q[1]:
            return seed, q[0], next(s for s in range(4) if s not in q)
    raise AssertionError("no seed splits the black queens")


def test_kloepper_partner_call_is_prompted_and_a_violation_is_confirmed(db: str) -> None:
    # a deal where one player holds both black queens: the recorder asks for his call
    for seed in range(200):
        sim = simulate_game("kc", "kloepper", seed=seed, seats=["ann", "bob", "cor", "dirk"])
        i = next((i for i, e in enumerate(sim) if e["type"] == "partner_call"), None)
        if i is not None and sim[i - 1]["type"] == "dealt" and "hands" in sim[i - 1]:
            break
    else:
        pytest.skip("no simulated deal gave both black queens to one player")
    new_game(sim, "kc")
    steps = script_of(sim[:i])
    caller = sim[i]["seat"]
    hand = sim[i - 1]["hands"][caller]
    own_ace = next((c for c in hand if c in ("AC", "AS", "AH")), None)
    lines = [x for xs in steps for x in xs] + ["help"]
    if own_ace is not None:  # calling his own ace breaks the table's rule: asked, refused
        lines += [own_ace.lower(), "n"]
    lines += [sim[i]["call"].lower(), "quit"]
    out = run("record", "kc", input="\n".join(lines) + "\n").stdout
    out = " ".join(out.split())  # the terminal's width may wrap lines anywhere
    assert f"seat {caller} ({sim[0]['seats'][caller]}) holds both black queens: call" in out
    assert "the partner call of seat" in out
    if own_ace is not None:
        assert "this breaks a rule: call_own_ace" in out and "not recorded" in out
    evs = stored(db, "kc")
    assert evs[-1]["type"] == "partner_call" and evs[-1]["call"] == sim[i]["call"]


def test_klaverjas_help_lists_what_is_accepted_now(db: str) -> None:
    run("new", "--seats", "ann,bob,cor,dirk", "--id", "kv", "--dealer", "3")
    out = run("record", "kv", input="help\ndeal random 1\nhelp\nh\nhelp\nquit\n").stdout
    out = " ".join(out.split())
    assert "deal: seat 3 (dirk) deals round 1" in out
    assert "a bid for seat 0 (ann): pass, or a suit: c, d, h, s" in out
    f = open_store(db).fold("kv")
    legal = f.state.legal_plays()
    assert legal and f"a card for seat 0 (ann): {hand_text(legal).lower()}" in out


@pytest.mark.parametrize("ruleset", ["amsterdam", "klaberjass-2p", "kloepper"])
def test_deal_is_refused_before_any_hand_is_asked(db: str, ruleset: str) -> None:
    """``deal`` while a round is in play, or on a finished game, is refused at once with the
    rule's code and sentence: no hand (or turn-up card) is asked first."""
    seats = ["ann", "bob"] if ruleset.startswith("klaberjass") else ["ann", "bob", "cor", "dirk"]
    run("new", "--ruleset", ruleset, "--seats", ",".join(seats), "--id", "busy")
    out = run("record", "busy", input="deal random 3\ndeal\ndeal unseen\nquit\n").stdout
    word = "round" if ruleset == "amsterdam" else "deal"
    assert out.count(f"✗ refused: {word} 1 is not over (") == 2, out
    assert "[round_not_over]" in out
    assert "hand of" not in out and "turn-up card>" not in out
    done = simulate_game("done", ruleset, seed=5, seats=seats)
    with open_store(db) as store:
        store.append("done", done)
        assert store.fold("done").state.expected()[0] == "over"
    out = run("record", "done", input="deal\ndeal unseen\nquit\n").stdout
    assert out.count("✗ refused: the game is over; no more ") == 2, out
    assert "[game_over]" in out and "hand of" not in out and "turn-up card>" not in out
    assert "0 events recorded" in out


@pytest.mark.parametrize("ruleset", ["amsterdam", "klaberjass-2p", "kloepper"])
def test_help_fits_80_columns(db: str, ruleset: str) -> None:
    """Every line of ``help`` fits a terminal of 80 columns (what is accepted now is wrapped,
    even with long player ids); the terminal here is wider, so nothing else wraps them."""
    long = ["anne-marie.van.der.berg-jansen", "bob", "cor.de.vries-van.oranje", "dirk"]
    seats = long[:2] if ruleset.startswith("klaberjass") else long
    run("new", "--ruleset", ruleset, "--seats", ",".join(seats), "--id", "w")
    out = run("record", "w", input="help\ndeal random 4\nhelp\nquit\n").stdout
    blocks = out.split("Now (the recorder knows whose turn it is):")[1:]
    assert len(blocks) == 2
    for block in blocks:
        lines = block.split("  help, quit")[0].splitlines()
        assert len(lines) > 15
        too_long = [x for x in lines if len(x) > 80]
        assert not too_long, too_long
