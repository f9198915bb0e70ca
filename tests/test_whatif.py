"""What-if (``check --as``, ``replay --as``, ``analyze --as``): a game refolded under another
preset of its game or other options, beside the game as recorded, for every game of the
registry; the expected differences are worked out here from two folds of the log, one of
them with its ``game_started`` rewritten by the test."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.events import Event, canonical_json, event_from_dict
from jaslog.games import GAMES
from jaslog.play.audit import game_report
from jaslog.play.fold import fold
from jaslog.play.sim import Faults, simulate_game
from jaslog.play.whatif import WhatIfError, what_if
from jaslog.store import open_store
from tests.cli import jaslog
from tests.games.test_real_table import real_table_log

RULESETS = {name: next(iter(g.presets)) for name, g in GAMES.items()}
OTHER = {"klaverjas": "klaberjass-2p", "klaberjass": "kloepper", "kloepper": "amsterdam"}


@cache
def simulated(ruleset: str, seed: int, revoke_rate: float = 0.0,
              options: tuple[tuple[str, Any], ...] = ()) -> tuple[Event, ...]:
    return tuple(event_from_dict(d) for d in simulate_game(
        f"w{seed}", ruleset, dict(options) or None, seed=seed,
        faults=Faults(revoke_rate=revoke_rate)))


def rewritten(events: list[Event] | tuple[Event, ...], ruleset: str,
              options: dict[str, Any] | None) -> list[Event]:
    """The log with its game_started rewritten: the test's own what-if."""
    first = events[0].model_dump(exclude_none=True) | {"ruleset": ruleset}
    first.pop("options", None)
    if options:
        first["options"] = options
    return [event_from_dict(first), *events[1:]]


def verdicts_of(events: list[Event]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for v in game_report("g", fold(events))["violations"]:
        out.setdefault(v["seq"], []).append(v["rule"])
    return {k: sorted(v) for k, v in out.items()}


def expected(events: list[Event], ruleset: str, options: dict[str, Any] | None
             ) -> tuple[dict[int, tuple[list[str], list[str]]], dict[int, tuple[Any, Any]]]:
    """The verdicts and the rounds' (result, score, final) that differ, from two folds."""
    other = rewritten(events, ruleset, options)
    a, b = verdicts_of(list(events)), verdicts_of(other)
    verdicts = {s: (a.get(s, []), b.get(s, [])) for s in set(a) | set(b)
                if a.get(s, []) != b.get(s, [])}
    ra = game_report("g", fold(events))["rounds"]
    rb = game_report("g", fold(other))["rounds"]
    keys = ("result", "score", "final")
    rounds = {x["round"]: ([x[k] for k in keys], [y[k] for k in keys])
              for x, y in zip(ra, rb, strict=True) if [x[k] for k in keys] != [y[k] for k in keys]}
    return verdicts, rounds


def found(w: Any) -> tuple[dict[int, tuple[list[str], list[str]]], dict[int, tuple[Any, Any]]]:
    d = w.to_dict()
    verdicts = {v["seq"]: (sorted(x["rule"] for x in v["recorded"]),
                           sorted(x["rule"] for x in v["as_if"])) for v in d["verdicts"]}
    rounds = {r["round"]: ([r["recorded"][k] for k in ("result", "score", "final")],
                           [r["as_if"][k] for k in ("result", "score", "final")])
              for r in d["rounds"]}
    return verdicts, rounds


@pytest.mark.parametrize("name", list(GAMES))
def test_the_same_rules_change_nothing_also_at_a_real_table(name: str) -> None:
    for events in (simulated(RULESETS[name], 2, 0.05), real_table_log(name)):
        w = what_if(events)
        d = w.to_dict()
        assert (d["options_differ"], d["verdicts"], d["rounds"], d["refused"]) == ([], [], [], None)
        assert d["compared_to"] == len(events) - 1
        assert d["totals"]["recorded"] == d["totals"]["as_if"]


@pytest.mark.parametrize("name", list(GAMES))
def test_ignoring_revokes_changes_the_scores_not_the_verdicts(name: str) -> None:
    events = simulated(RULESETS[name], 3, 0.05)
    w = what_if(events, None, ["revoke=ignore"])
    assert w.options_differ == [("revoke", "penalty", "ignore")]
    verdicts, rounds = found(w)
    assert (verdicts, rounds) == expected(list(events), RULESETS[name], {"revoke": "ignore"})
    assert verdicts == {} and rounds
    assert all(r[0][0] == "revoke" != r[1][0] for r in rounds.values())


@pytest.mark.parametrize("ruleset,other", [("amsterdam", "rotterdam"), ("rotterdam", "amsterdam"),
                                           ("amsterdam", "amsterdam-kbn")])
def test_another_preset_changes_verdicts_both_ways(ruleset: str, other: str) -> None:
    events = simulated(ruleset, 4, 0.05)
    w = what_if(events, other)
    verdicts, rounds = found(w)
    assert (verdicts, rounds) == expected(list(events), other, None)
    if {ruleset, other} == {"amsterdam", "rotterdam"}:
        assert any(not a and b for a, b in verdicts.values())  # legal -> a violation
    d = w.to_dict()
    for v in d["verdicts"]:  # each named with its event: seq, round, seat and card
        e = events[v["seq"]]
        assert (v["type"], v["seat"]) == (e.type, getattr(e, "seat", None))
    assert d["as"] == {"ruleset": other, "options": None}


def test_the_game_s_own_options_are_replaced_and_said() -> None:
    events = simulated("amsterdam", 5, 0.05, (("revoke", "ignore"), ("pit_bonus", 50)))
    w = what_if(events, "amsterdam")
    assert w.options_differ == [("pit_bonus", 50, 100), ("revoke", "ignore", "penalty")]
    assert found(w) == expected(list(events), "amsterdam", None)
    assert w.to_dict()["options"] == {"revoke": "ignore", "pit_bonus": 50}
    w = what_if(events, "rotterdam", ["revoke=ignore"])
    assert [k for k, _, _ in w.options_differ] == ["pit_bonus", "play"]
    assert found(w) == expected(list(events), "rotterdam", {"revoke": "ignore"})


@pytest.mark.parametrize("name", list(GAMES))
def test_a_refused_event_is_the_first_refusal_and_the_comparison_stops_before_it(name: str) -> None:
    events = simulated(RULESETS[name], 6, 0.1)
    w = what_if(events, None, ["revoke=reject"])
    assert w.refused is not None
    first = min(verdicts_of(list(events)))  # the first revoke is refused outright
    assert w.refused.seq == first and w.compared_to == first - 1
    assert w.refused_round == len(fold(events[:first + 1]).state.rounds)
    # both sides are judged on the events before it
    before = list(events[:first])
    assert found(w) == expected(before, RULESETS[name], {"revoke": "reject"})
    assert w.to_dict()["totals"]["recorded"] == fold(before).state.totals()


def test_a_bid_the_other_trump_selection_does_not_have_is_refused() -> None:
    events = simulated("amsterdam", 2, 0.0, (("trump_selection", "random"),))
    d = what_if(events, "amsterdam").to_dict()
    assert d["options_differ"] == [{"option": "trump_selection", "recorded": "random",
                                    "as_if": "free"}]
    assert d["refused"]["seq"] == 2 and d["refused"]["code"] == "turn_unexpected"
    assert d["compared_to"] == 1 and d["rounds"] == []


def test_a_game_that_ends_sooner_refuses_the_next_deal() -> None:
    events = simulated("klaberjass-2p", 3)
    d = what_if(events, None, ["target=150"]).to_dict()
    assert d["refused"]["code"] == "game_over"
    assert events[d["refused"]["seq"]].type == "dealt"
    assert d["finished"] == {"recorded": False, "as_if": True}


@pytest.mark.parametrize("name", list(GAMES))
def test_only_a_preset_of_the_same_game(name: str) -> None:
    events = simulated(RULESETS[name], 2)
    with pytest.raises(WhatIfError) as err:
        what_if(events, OTHER[name])
    assert err.value.code == "other_game"
    assert f"a {name} game is refolded only under a preset of {name}" in str(err.value)
    with pytest.raises(WhatIfError) as err:
        what_if(events, "paris")
    assert err.value.code == "unknown_preset"
    with pytest.raises(WhatIfError) as err:
        what_if(events, None, ["revoke=sometimes"])
    assert err.value.code == "bad_options" and "revoke" in str(err.value)


# ---------------------------------------------------------------------- the commands


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("whatif")
    (d / "a.jsonl").write_bytes(b"".join(canonical_json(e) + b"\n"
                                         for e in simulated("amsterdam", 4, 0.05)))
    (d / "k.jsonl").write_bytes(b"".join(canonical_json(e) + b"\n"
                                         for e in simulated("klaberjass-2p", 3)))
    return d


def test_check_as_lists_the_changes_side_by_side(logs: Path) -> None:
    r = jaslog("check", "--as", "rotterdam", str(logs / "a.jsonl"), text=True)
    w = what_if(simulated("amsterdam", 4, 0.05), "rotterdam")
    out = r.stdout
    assert r.returncode == 1, out  # violations under the what-if rules
    assert out.startswith(f"! w4 (amsterdam) as rotterdam: {len(w.verdicts)} verdicts and "
                          f"{len(w.rounds)} rounds change\n    options differ: play amsterdam → "
                          "rotterdam\n")
    v = next(v for v in w.to_dict()["verdicts"] if not v["recorded"])
    assert (f"    seq {v['seq']} round {v['round']} trick {v['trick']} seat {v['seat']} "
            f"(") in out and f"{v['card']} play: legal → {v['as_if'][0]['rule']}: " in out
    r0 = w.rounds[0]
    a, b = r0["recorded"], r0["as_if"]
    assert (f"    round {r0['round']}: {a['result']} {a['score'][0]}–{a['score'][1]} → "
            f"{b['result']} {b['score'][0]}–{b['score'][1]}") in out
    assert "    as recorded: finished" in out and "    as if:       finished" in out


def test_check_as_json_is_the_comparison(logs: Path) -> None:
    r = jaslog("check", "--as", "rotterdam", "-o", "revoke=ignore", "--json",
               str(logs / "a.jsonl"))
    d = orjson.loads(r.stdout)
    assert d == orjson.loads(orjson.dumps(
        what_if(simulated("amsterdam", 4, 0.05), "rotterdam", ["revoke=ignore"]).to_dict()))
    assert d["as"] == {"ruleset": "rotterdam", "options": {"revoke": "ignore"}}
    assert d["error"] is None


def test_check_as_says_why_it_cannot_and_what_refused(logs: Path) -> None:
    r = jaslog("check", "--as", "amsterdam", str(logs / "k.jsonl"), text=True)
    assert r.returncode == 2
    assert r.stdout == ("✗ w3: cannot refold it as asked: amsterdam is a preset of klaverjas: a "
                        "klaberjass game is refolded only under a preset of klaberjass "
                        "(klaberjass-2p) [other_game]\n")
    js = jaslog("check", "--as", "amsterdam", "--json", str(logs / "k.jsonl"))
    assert orjson.loads(js.stdout)["error"]["code"] == "other_game"
    r = jaslog("check", "-o", "target=150", str(logs / "k.jsonl"), text=True)
    assert r.returncode == 2
    assert "✗ w3 (klaberjass-2p) as klaberjass-2p -o target=150: " in r.stdout
    assert "    first refusal: seq " in r.stdout and "[game_over]; the comparison stops there" \
        in r.stdout


def test_check_as_reads_a_stored_game_and_leaves_it_as_it_was(logs: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "w.sqlite")
    with open_store(db) as st:
        st.import_files([logs / "a.jsonl"])
        before = st.head("w4")
    r = jaslog("check", "--as", "rotterdam", "--json", "--db", db, "store:w4")
    assert orjson.loads(r.stdout)["as"]["ruleset"] == "rotterdam"
    with open_store(db) as st:
        assert st.head("w4") == before


def test_replay_as_marks_each_change_under_its_event(logs: Path) -> None:
    w = what_if(simulated("amsterdam", 4, 0.05), "rotterdam")
    v = next(v for v in w.to_dict()["verdicts"] if not v["recorded"])
    r = jaslog("replay", "--as", "rotterdam", "-r", str(v["round"]), str(logs / "a.jsonl"),
               text=True)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith("what-if: w4 (amsterdam) as rotterdam\n")
    lines = out.splitlines()
    at = lines.index(next(x for x in lines if x.startswith(f"seq {v['seq']:>4} ")))
    assert lines[at + 1] == (f"  ↳ as rotterdam: legal → {v['as_if'][0]['rule']}: "
                             f"{v['as_if'][0]['message']}")
    marked = sum(x.startswith("  ↳ as rotterdam: ") for x in lines)
    assert marked == sum(x["round"] == v["round"] for x in w.verdicts)
    assert "    options differ: play amsterdam → rotterdam" in out
    changed = [x["round"] for x in w.rounds]
    assert (f"    round {v['round']}: " in out) == (v["round"] in changed)


def test_replay_as_stops_at_the_first_refusal(logs: Path) -> None:
    r = jaslog("replay", "-o", "target=150", str(logs / "k.jsonl"), text=True)
    assert r.returncode == 2
    assert "    as if:       finished" in r.stdout
    assert "as klaberjass-2p -o target=150: the game is over; no more deals [game_over]: the " \
           "what-if rules refuse this event" in r.stderr.replace("\n", " ")


def test_analyze_as_analyses_the_game_under_the_what_if_rules(logs: Path) -> None:
    r = jaslog("analyze", "--as", "rotterdam", "-r", "1", "--json", str(logs / "a.jsonl"))
    d = orjson.loads(r.stdout)
    assert d["ruleset"] == "rotterdam" and d["what_if"]["as"]["ruleset"] == "rotterdam"
    t = jaslog("analyze", "--as", "kloepper", str(logs / "a.jsonl"), text=True)
    assert t.returncode == 2 and "[other_game]" in t.stderr
