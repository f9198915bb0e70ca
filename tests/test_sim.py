"""The simulator and its bots: legal games for every ruleset and option, faults, determinism.

Every simulated game is read back through the real parser and fold (what `jaslog check`
runs), so "legal" means: no integrity error, no rule violation unless a fault was asked
for, the game finished, and every round's card points add up to 162.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.cards import FULL_DECK, SUIT_MASK, cards_of
from jaslog.games import resolve
from jaslog.games.klaverjas.bots import HeuristicBot, RandomBot
from jaslog.games.klaverjas.rules import KlaverjasGame
from jaslog.logs import read_lines
from jaslog.play.audit import game_report
from jaslog.play.fold import FileGame, fold_lines
from jaslog.play.sim import (
    Faults,
    iter_game,
    result_stats,
    simulate,
    simulate_game,
    simulated_rulesets,
    to_jsonl,
)
from tests.cli import jaslog, process_env

ROOT = Path(__file__).resolve().parent.parent


def reports(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fold JSON Lines of the events the way `jaslog check` does; one report per game."""
    import io

    data = b"".join(to_jsonl(events))
    out = []
    for g in fold_lines(read_lines(io.BytesIO(data), "<sim>")):
        assert isinstance(g, FileGame), g
        out.append(game_report(g.game, g.fold, g.error))
    return out


def assert_legal(events: list[dict[str, Any]], options: dict[str, Any] | None = None) -> list[dict]:
    reps = reports(events)
    total = 152 + resolve("amsterdam", options or {})["last_trick_bonus"]
    for rep in reps:
        assert rep["error"] is None, rep["error"]
        assert rep["violations"] == [], rep["violations"][:3]
        assert rep["finished"], rep["game"]
        for r in rep["rounds"]:
            assert sum(r["points"]) == total, r
            assert r["result"] in ("made", "nat", "pit"), r
            assert len(r["tricks"]) == 8
    return reps


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    """The command as a user runs it, from ``cwd`` (in this process: tests.cli)."""
    return jaslog(*args, cwd=cwd)


# ------------------------------------------------------------------ every option of the rule book

OPTION_MATRIX: list[dict[str, Any]] = [
    {},
    {"trump_selection": "utrecht"},
    {"trump_selection": "dealer_must_choose", "first_lead": "trump_chooser"},
    {"trump_selection": "free", "free.start": "dealer", "free.forced": "dealer"},
    {"trump_selection": "free", "free.start": "forehand", "free.forced": "forehand"},
    {"trump_selection": "free", "free.start": "dealer", "free.forced": "starter"},
    {"trump_selection": "random", "random.all_pass": "second_card_forced"},
    {"trump_selection": "random", "random.all_pass": "forehand_names_other"},
    {"trump_selection": "random", "random.all_pass": "second_round_other_suits"},
    {"trump_selection": "random", "random.all_pass": "twents"},
    {"trump_selection": "random", "random.all_pass": "second_card_auction"},
    {"trump_selection": "random", "random.source": "dealers_last_card",
     "random.first_deal_clubs": True},
    {"play": "rotterdam"},
    {"play": "rotterdam", "rotterdam_must_undertrump": False},
    {"play": "amsterdam", "amsterdam_partner_trump": "discard_only"},
    {"play": "amsterdam", "amsterdam_partner_trump": "free",
     "amsterdam_cannot_overtrump": "must_undertrump"},
    {"roem.claim_mode": "auto"},
    {"roem.claim_by": "winning_team"},
    {"roem.stuk_in_hand": True, "roem.three_of_a_kind": 30,
     "roem.four_kind_ranks": ["A", "K", "Q", "10", "9", "8", "7"]},
    {"game_end": {"type": "target", "points": 1500}},
    {"game_end": {"type": "target", "points": 501}, "game_tie": "extra_deal"},
    {"game_end": {"type": "deals", "count": 4}, "game_tie": "extra_deal"},
    {"pit_for": "playing_team", "tie_is_failure": False, "pit_bonus": 50, "last_trick_bonus": 0},
    {"revoke": "reject"},
    {"revoke": "ignore"},
]


@pytest.mark.parametrize("options", OPTION_MATRIX, ids=lambda o: ",".join(
    f"{k}={v}" for k, v in o.items()) or "defaults")
@pytest.mark.parametrize("bot", ["heuristic", "random"])
def test_every_option_simulates_legal_games(options: dict[str, Any], bot: str) -> None:
    events = list(simulate(2, "amsterdam", options, seed=41, bot=bot))
    reps = assert_legal(events, options)
    resolved = resolve("amsterdam", options)
    starts = [e for e in events if e["type"] == "game_started"]
    assert all(e.get("options") == (options or None) for e in starts)
    method = resolved["trump_selection"]
    bids = [e for e in events if e["type"] == "bid"]
    turned = [e for e in events if e["type"] == "trump_turned"]
    if method == "random":
        assert turned, "random trump turns a card"
        if resolved["random.source"] == "dealers_last_card":
            assert all(e["card"][:-1] not in "23456" for e in turned[:1])
        # the all-pass path of this mode was taken at least once
        assert any(all(b["call"] == "pass" for b in bids[i:i + 4]) for i in range(len(bids) - 3))
    else:
        assert not turned
    if method in ("utrecht", "dealer_must_choose"):
        assert all(b["call"] != "pass" for b in bids)
        for rep in reps:
            for r in rep["rounds"]:
                due = (r["dealer"] + (0 if method == "dealer_must_choose" else 1)) % 4
                assert r["chooser"] == due
    if resolved["first_lead"] == "trump_chooser":
        for rep in reps:
            for r in rep["rounds"]:
                assert r["tricks"][0]["leader"] == r["chooser"]
    if resolved["roem.claim_mode"] == "auto":
        assert not any(e["type"] == "roem" for e in events)
    elif bot == "heuristic":
        assert any(e["type"] == "roem" for e in events)
    end = resolved["game_end"]
    for rep in reps:
        if end["type"] == "target":
            assert max(rep["totals"]) >= end["points"]
        else:
            assert len(rep["rounds"]) >= end["count"]


@pytest.mark.parametrize("ruleset", simulated_rulesets())
def test_every_ruleset_simulates_legal_games(ruleset: str) -> None:
    events = list(simulate(3, ruleset, seed=7))
    reps = reports(events)
    assert len(reps) == 3
    for rep in reps:
        assert rep["ruleset"] == ruleset
        assert rep["error"] is None, rep["error"]
        assert rep["violations"] == []
        assert rep["finished"]


def test_the_klaverjas_presets_are_simulated() -> None:
    assert {"amsterdam", "rotterdam", "amsterdam-kbn", "klaverjas-online-501"} <= set(
        simulated_rulesets())


# ------------------------------------------------------------------ faults


def test_revokes_are_reported_and_scored() -> None:
    events = list(simulate(4, "amsterdam", seed=3, faults=Faults(revoke_rate=0.05)))
    reps = reports(events)
    rules = Counter(v["rule"] for rep in reps for v in rep["violations"])
    assert rules and set(rules) <= {"must_follow_suit", "must_trump", "must_overtrump",
                                    "no_undertrump"}
    assert rules["must_follow_suit"] > 0
    results = Counter(r["result"] for rep in reps for r in rep["rounds"])
    assert results["revoke"] > 0
    assert all(rep["error"] is None and rep["finished"] for rep in reps)


def test_revoke_rounds_limits_revokes_to_those_rounds() -> None:
    events = simulate_game("g", seed=5, faults=Faults(revoke_rate=0.3, revoke_rounds=(2,)))
    (rep,) = reports(events)
    assert rep["violations"] and {v["round"] for v in rep["violations"]} == {2}


def test_no_revokes_when_the_rules_reject_them() -> None:
    events = list(simulate(2, "amsterdam", {"revoke": "reject"}, seed=3,
                           faults=Faults(revoke_rate=0.5)))
    assert_legal(events, {"revoke": "reject"})


def test_false_roem_claims_are_reported() -> None:
    events = list(simulate(3, "amsterdam", seed=8, faults=Faults(false_roem_rate=0.05)))
    reps = reports(events)
    false = [v for rep in reps for v in rep["violations"]]
    assert false and {v["rule"] for v in false} == {"roem_false"}
    assert all(rep["error"] is None for rep in reps)


def test_rounds_without_hands_fold_and_are_judged() -> None:
    events = list(simulate(3, "amsterdam", seed=2, faults=Faults(no_hands_rate=0.5,
                                                                 revoke_rate=0.02)))
    dealt = [e for e in events if e["type"] == "dealt"]
    blind = [e for e in dealt if "hands" not in e]
    assert 0 < len(blind) < len(dealt)
    reps = reports(events)
    assert all(rep["error"] is None and rep["finished"] for rep in reps)
    # revokes in rounds nobody saw are found once the round's 32 cards are in
    blind_rounds = set()
    for rep in reps:
        game_events = [e for e in events if e["game"] == rep["game"]]
        n = 0
        for e in game_events:
            if e["type"] == "dealt":
                n += 1
                if "hands" not in e:
                    blind_rounds.add((rep["game"], n))
    assert any((rep["game"], v["round"]) in blind_rounds for rep in reps for v in rep["violations"])


def test_roem_is_sometimes_left_unclaimed() -> None:
    events = list(simulate(6, "amsterdam", seed=4, faults=Faults(unclaimed_roem_rate=0.3)))
    rounds = [r for rep in assert_legal(events) for r in rep["rounds"]]
    assert any(sum(r["roem"]) < sum(r["roem_on_table"]) for r in rounds)
    assert sum(sum(r["roem"]) for r in rounds) > 0.4 * sum(sum(r["roem_on_table"]) for r in rounds)
    none = list(simulate(2, "amsterdam", seed=4, faults=Faults(unclaimed_roem_rate=0.0,
                                                                partial_roem_rate=0.0)))
    rounds = [r for rep in assert_legal(none) for r in rep["rounds"]]
    assert all(r["roem"] == r["roem_on_table"] for r in rounds)


def test_fault_rates_are_checked() -> None:
    with pytest.raises(ValueError, match="revoke-rate"):
        Faults(revoke_rate=1.5)


# ------------------------------------------------------------------ determinism and stamps


def test_same_seed_same_games() -> None:
    a = list(simulate(2, ["amsterdam", "rotterdam"], seed=11, faults=Faults(revoke_rate=0.01)))
    b = list(simulate(2, ["amsterdam", "rotterdam"], seed=11, faults=Faults(revoke_rate=0.01)))
    c = list(simulate(2, ["amsterdam", "rotterdam"], seed=12, faults=Faults(revoke_rate=0.01)))
    assert b"".join(to_jsonl(a)) == b"".join(to_jsonl(b))
    assert a != c
    assert [e["game"] for e in a if e["seq"] == 0] == ["sim-amsterdam-000000",
                                                       "sim-rotterdam-000001"]


def test_at_stamps_are_canonical_and_increasing() -> None:
    from jaslog.events import canonical_json, parse_event

    events = simulate_game("g", seed=1, at="2026-03-01T20:00:00Z")
    assert events[0]["at"] == "2026-03-01T20:00:00Z"
    stamps = [e["at"] for e in events]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
    for line in to_jsonl(events[:40]):
        assert canonical_json(parse_event(line)) + b"\n" == line


def test_unknown_bot_and_ruleset_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        list(iter_game("g", bot="genius"))
    from jaslog.engine.options import OptionError

    with pytest.raises(OptionError):
        list(iter_game("g", "amsterdam", {"play": "paris"}))


# ------------------------------------------------------------------ the bots


def test_heuristic_bot_plays_like_a_club_and_beats_random() -> None:
    """Declarer success and roem look like real play (club play: roughly 75-85% made)."""
    heur = result_stats(simulate(60, "amsterdam", seed=2026, bot="heuristic"))
    rand = result_stats(simulate(60, "amsterdam", seed=2026, bot="random"))
    assert heur["rounds"] == rand["rounds"] == 60 * 16
    assert 0.7 < heur["made_rate"] < 0.92
    assert heur["made_rate"] > rand["made_rate"]
    assert 0.01 < heur["pit_rate"] < 0.12
    assert abs(heur["failed_rate"] + heur["made_rate"] - 1) < 1e-3 and heur["tie_rate"] == 0
    # roem is claimed on most of the rounds that have it, and there is roem in most rounds
    assert 0.4 < heur["rounds_with_roem"] < 0.9
    assert 0.75 * heur["roem_on_table_per_round"] < heur["roem_per_round"] \
        <= heur["roem_on_table_per_round"]


@pytest.mark.parametrize("ruleset,won,lost", [("klaberjass-2p", {"made"}, {"bete"}),
                                               ("kloepper", {"queens"}, {"others"})])
def test_result_rates_of_the_other_games(ruleset: str, won: set[str], lost: set[str]) -> None:
    """Klaberjass rounds end made, bete, tie or annulled, Kloepper deals are won by the black
    queens' side or the others: the rates count those, not Klaverjas's made and nat."""
    events = list(simulate(30, ruleset, seed=4, bot="heuristic"))
    s = result_stats(events)
    res = Counter(r["result"] for rep in reports(events) for r in rep["rounds"])
    assert s["results"] == dict(res) and set(res) - {"tie", "none", "annulled"} == won | lost
    played = sum(n for k, n in res.items() if k not in ("annulled", "revoke", "unfinished"))
    assert s["made_rate"] == round(sum(res[k] for k in won) / played, 4)
    assert 0.4 < s["made_rate"] < 0.95 and 0.05 < s["failed_rate"] < 0.6
    assert s["made_rate"] + s["failed_rate"] + s["tie_rate"] == pytest.approx(1, abs=2e-4)
    assert s["pit_rate"] is None and s["roem_on_table_per_round"] is None
    assert s["annulled_rounds"] == res["annulled"]
    if ruleset == "kloepper":
        assert s["roem_per_round"] is None and s["rounds_with_roem"] is None
    else:  # sequences and bella
        assert s["roem_per_round"] > 5 and 0.2 < s["rounds_with_roem"] < 0.9


def test_bots_choose_trumps_from_their_hand() -> None:
    events = list(simulate(10, "amsterdam", seed=6, bot="heuristic"))
    lengths = []
    hands: list[list[str]] = []
    for e in events:
        if e["type"] == "dealt":
            hands = e["hands"]
        elif e["type"] == "bid" and e["call"] != "pass":
            lengths.append(sum(c.endswith(e["call"]) for c in hands[e["seat"]]))
    assert len(lengths) == 160
    # a suit named at random would be held twice on average; players name their long suit
    assert sum(lengths) / len(lengths) > 3.2
    assert sum(n >= 2 for n in lengths) / len(lengths) > 0.95


def _mid_round(seed: int) -> tuple[KlaverjasGame, list[int], random.Random]:
    """A game in trick 3 of round 1, played by heuristic bots, and the true hands."""
    rng = random.Random(seed)
    game = KlaverjasGame(resolve("amsterdam"), 3)
    deck = list(range(32))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[i * 8:(i + 1) * 8]) for i in range(4)]
    game.deal(hands)
    bot = HeuristicBot(rng)
    while game.current_round.trump is None:
        _, seat = game.expected()
        assert seat is not None
        game.bid(seat, bot.bid(game, seat, hands[seat]))
    while len(game.current_round.tricks) < 3 or game.current_round.tricks[-1].complete:
        _, seat = game.expected()
        assert seat is not None
        r = game.current_round
        game.play(seat, bot.play(game, seat, r.hands[seat], game.legal_plays()))
    return game, hands, rng


@pytest.mark.parametrize("seed", range(6))
def test_heuristic_bot_does_not_look_at_other_hands(seed: int) -> None:
    """Deal the cards the bot cannot see differently: it must play the same card."""
    game, _, _ = _mid_round(seed)
    r = game.current_round
    _, seat = game.expected()
    assert seat is not None
    mine = r.hands[seat]
    choice = HeuristicBot(random.Random(0)).play(game, seat, mine, game.legal_plays())
    for shuffle in range(5):
        g2 = game.copy()
        r2 = g2.current_round
        others = [s for s in range(4) if s != seat]
        pool = [c for s in others for c in cards_of(r2.hands[s])]
        random.Random(shuffle).shuffle(pool)
        for s in others:
            n = r2.hands[s].bit_count()
            r2.hands[s] = sum(1 << c for c in pool[:n])
            pool = pool[n:]
        again = HeuristicBot(random.Random(0)).play(g2, seat, mine, g2.legal_plays())
        assert again == choice


def test_heuristic_bot_gives_points_to_a_partner_who_has_the_trick() -> None:
    from jaslog.cards import parse_card as p
    from jaslog.cards import parse_hand

    game = KlaverjasGame(resolve("amsterdam"), 3)
    hands = [parse_hand("AC 7C 8C 9C JS QS KS AD"), parse_hand("10C KC QC JC 7S 8S 9S 10S"),
             parse_hand("AS 10D KD QD JD 9D 8D 7D"), parse_hand("AH 10H KH QH JH 9H 8H 7H")]
    assert sum(hands) == FULL_DECK
    game.deal(hands)
    game.bid(0, "H")
    game.play(0, p("AC"))   # the ace of clubs: the partner (seat 2) holds the trick for sure
    game.play(1, p("JC"))
    bot = HeuristicBot(random.Random(0))
    # seat 2 has no clubs and no trumps: it gives the ten of diamonds (the ace is out),
    # keeps its ace of spades, and does not waste the trick on the 7
    assert bot.play(game, 2, hands[2], game.legal_plays()) == p("10D")


def test_random_bot_plays_any_legal_card() -> None:
    game, _, _ = _mid_round(3)
    _, seat = game.expected()
    assert seat is not None
    legal = game.legal_plays()
    seen = {RandomBot(random.Random(i)).play(game, seat, game.current_round.hands[seat], legal)
            for i in range(60)}
    assert seen == set(cards_of(legal))


def test_hand_value_prefers_the_suit_with_jack_and_nine() -> None:
    from jaslog.cards import parse_hand

    bot = HeuristicBot(random.Random(0))
    hand = parse_hand("JH 9H 7H AS 10S KC 8D 7D")
    values = [bot.hand_value(hand, s) for s in range(4)]
    assert max(range(4), key=values.__getitem__) == 2
    assert values[2] >= bot.BID_THRESHOLD > values[1]
    assert SUIT_MASK[2] & hand


# ------------------------------------------------------------------ the command


def test_simulate_command_is_deterministic(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    args = ["simulate", "-r", "amsterdam", "-r", "rotterdam", "--games", "3", "--seed", "9",
            "--revoke-rate", "0.01", "--false-roem-rate", "0.02", "--no-hands-rate", "0.1"]
    r1 = run_cli(*args, "--out", str(a))
    assert r1.returncode == 0, r1.stderr
    r2 = run_cli(*args)  # to stdout
    assert r2.returncode == 0, r2.stderr
    assert a.read_bytes() == r2.stdout
    b.write_bytes(run_cli(*args[:-6], "--seed", "9", "--out", "-").stdout)  # no faults
    assert a.read_bytes() != b.read_bytes()
    assert b"simulated 3 games" in r1.stdout
    lines = a.read_bytes().splitlines()
    games = {orjson.loads(x)["game"] for x in lines}
    assert games == {"sim-amsterdam-000000", "sim-rotterdam-000001", "sim-amsterdam-000002"}
    check = run_cli("check", str(a))
    assert check.returncode == 1, check.stdout  # faults were injected: violations, not errors
    assert b"invalid" not in check.stdout


def test_simulate_command_options_stats_and_json(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    r = run_cli("simulate", "--ruleset", "rotterdam", "-n", "4", "--seed", "1", "--bot", "random",
                "-o", "trump_selection=random", "-o", "random.all_pass=twents",
                "-o", "game_end=target:1000", "--stats", "--json", "--no-times", "--out", str(out))
    assert r.returncode == 0, r.stderr
    summary = orjson.loads(r.stdout)
    assert summary["games"] == 4 and summary["bot"] == "random"
    assert summary["events"] == len(out.read_bytes().splitlines())
    stats = summary["stats"]
    assert stats["by_ruleset"]["rotterdam"]["games"] == 4
    assert 0 < stats["made_rate"] < 1
    first = orjson.loads(out.read_bytes().splitlines()[0])
    assert "at" not in first
    assert first["options"] == {"trump_selection": "random", "random.all_pass": "twents",
                                "game_end": {"type": "target", "points": 1000}}
    check = run_cli("check", "--json", str(out))
    assert check.returncode == 0
    assert all(orjson.loads(x)["finished"] for x in check.stdout.splitlines())


@pytest.mark.parametrize("args,message", [
    (["--ruleset", "paris"], b"unknown ruleset 'paris'"),
    (["-o", "play=paris"], b"option 'play' must be one of"),
    (["-o", "nonsense"], b"KEY=VALUE"),
    (["--bot", "genius"], b"unknown bot 'genius'"),
    (["--out", "x.jsonl", "--db", "y.sqlite"], b"not both"),
    (["--revoke-rate", "2"], b"revoke-rate"),
    (["--start", "yesterday"], b"not a date"),
])
def test_simulate_command_refuses_bad_input(tmp_path: Path, args: list[str], message: bytes) -> None:
    r = run_cli("simulate", "-n", "1", *args, cwd=tmp_path)
    assert r.returncode == 2
    assert message in r.stderr, r.stderr
    assert b"Traceback" not in r.stderr


def test_simulate_into_the_store(tmp_path: Path) -> None:
    db = tmp_path / "sim.sqlite"
    r = run_cli("simulate", "-r", "all", "-n", "4", "--seed", "3", "--db", str(db),
                "--revoke-rate", "0.01", "--json")
    assert r.returncode == 0, r.stderr
    summary = orjson.loads(r.stdout)
    assert summary["imported"]["games"] == 4 and summary["imported"]["rejected"] == []
    from jaslog.store import open_store

    with open_store(str(db)) as store:
        stored = list(store.iter_games())
        assert len(stored) == 4
        assert sum(len(ev) for _, ev in stored) == summary["events"]
        assert store.verify().ok
    # the same games again: already present, nothing stored twice
    again = orjson.loads(run_cli("simulate", "-r", "all", "-n", "4", "--seed", "3", "--db", str(db),
                                 "--revoke-rate", "0.01", "--json").stdout)
    assert again["imported"]["games"] == 0 and len(again["imported"]["skipped"]) == 4


@pytest.mark.slow
def test_simulate_into_a_closed_pipe_stops_quietly(tmp_path: Path) -> None:
    """A real process writing into ``head``: the pipe closes under it."""
    env = process_env()
    p = subprocess.run(f"'{sys.executable}' -m jaslog simulate -n 50 | head -n 3", shell=True,
                       cwd=tmp_path, capture_output=True, timeout=300, env=env, check=False)
    assert len(p.stdout.splitlines()) == 3
    assert b"Traceback" not in p.stderr and b"BrokenPipe" not in p.stderr


def test_result_stats_counts_every_round_once() -> None:
    from jaslog.play.sim import ResultStats

    events = list(simulate(4, ["amsterdam", "rotterdam"], seed=5, faults=Faults(revoke_rate=0.02)))
    stats = ResultStats()
    for e in events:
        stats.add(e)
    s = stats.summary()
    assert s == result_stats(events)
    reps = reports(events)
    assert s["games"] == 4 and s["events"] == len(events)
    assert s["rounds"] == sum(len(r["rounds"]) for r in reps)
    results = Counter(r["result"] for rep in reps for r in rep["rounds"])
    assert s["results"] == dict(results) and s["revoke_rounds"] == results["revoke"]
    played = results["made"] + results["pit"] + results["nat"]
    assert s["made_rate"] == round((results["made"] + results["pit"]) / played, 4)
    assert set(s["by_ruleset"]) == {"amsterdam", "rotterdam"}
    assert sum(v["rounds"] for v in s["by_ruleset"].values()) == s["rounds"]


def test_an_option_for_some_rulesets_only_says_how_to_choose() -> None:
    r = run_cli("simulate", "-r", "all", "-o", "trump_selection=random", "-n", "1")
    err = " ".join(r.stderr.decode().split())
    assert r.returncode == 2 and "Traceback" not in err
    assert "unknown option 'trump_selection'" in err and "(ruleset klaberjass-2p)" in err
    assert "-o applies to every ruleset of -r" in err
