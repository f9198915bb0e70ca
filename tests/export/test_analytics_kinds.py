"""The questions over a store that holds all three games (Klaverjas, Klaberjass, Kloepper):
a real SQLite store, exported to real Parquet, read back by DuckDB, and every number checked
against the same games folded in Python (``check --json`` reports and tests/export/reference).

Klaberjass deals also end ``made`` or ``revoke`` and Kloepper deals ``revoke``: a Klaverjas
question that keeps rounds by their result alone counts them too. Each Klaverjas question must
give exactly what it gives over the Klaverjas games alone; the questions over every game
(revokes, violations, overview) must keep each game's rows apart.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jaslog.events import Event, event_from_dict
from jaslog.export import export_store
from jaslog.games.klaberjass import export as klaberjass
from jaslog.games.klaverjas import export as klaverjas
from jaslog.games.kloepper import export as kloepper
from jaslog.play.audit import game_report
from jaslog.play.fold import fold
from jaslog.play.sim import DEFAULT_START, Faults, simulate
from jaslog.stats.analytics import Dataset, questions
from jaslog.store import open_store
from tests.export import reference as ref
from tests.export import test_analytics as checks

RULESETS = ["amsterdam", "klaberjass-2p", "kloepper", "rotterdam"]
#: Revokes in every game, and every play judged (the hands are always recorded).
FAULTS = Faults(revoke_rate=0.015, false_roem_rate=0.05)

#: The Klaverjas questions: over a mixed store they must answer as over its Klaverjas games.
KLAVERJAS_ONLY = ("declarer_success", "nat_pit_rates", "round_averages", "roem_frequency",
                  "roem_saves", "points_per_trick", "player_roles")

EXPORT_DOC = Path(__file__).resolve().parents[2] / "docs" / "export-and-stats.md"

#: The violation categories each game writes (docs/export-and-stats.md, "The dataset").
CATEGORIES = {"klaverjas": {"play", "roem", "bid"}, "klaberjass": {"play", "meld", "dix", "bid"},
              "kloepper": {"play", "call", "knock"}}


class Mixed:
    def __init__(self, games: list[list[Event]], parquet: Path) -> None:
        self.games = games
        self.parquet = parquet
        self.folds = {g[0].game: fold(g) for g in games}
        self.reports = {gid: game_report(gid, f) for gid, f in self.folds.items()}
        self.kind = {gid: f.game for gid, f in self.folds.items()}
        self.plays = {g[0].game: {e.seq for e in g if e.type == "play"} for g in games}

    def of(self, kind: str) -> list[str]:
        return [gid for gid, k in self.kind.items() if k == kind]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Mixed:
    tmp = tmp_path_factory.mktemp("mixed")
    by_game: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in simulate(12, RULESETS, seed=7, prefix="mix", faults=FAULTS, start=DEFAULT_START):
        by_game[e["game"]].append(e)
    with open_store(str(tmp / "jaslog.sqlite")) as store:
        for gid, events in by_game.items():
            store.append(gid, events)
        result = export_store(store, tmp / "parquet")
    assert result.games_added == len(by_game)
    games = [[event_from_dict(e) for e in events] for events in by_game.values()]
    return Mixed(games, tmp / "parquet")


@pytest.fixture(scope="module")
def ds(mixed: Mixed) -> Iterator[Dataset]:
    with Dataset(mixed.parquet) as d:
        yield d


def test_the_store_holds_the_trap(mixed: Mixed) -> None:
    """Without these rounds the checks below could not fail: Klaberjass deals that end 'made'
    and 'revoke', Kloepper deals that end 'revoke', and revokes in every game."""
    results = {(mixed.kind[gid], r["result"]) for gid, rep in mixed.reports.items()
               for r in rep["rounds"]}
    assert {("klaberjass", "made"), ("klaberjass", "revoke"), ("klaberjass", "bete"),
            ("kloepper", "revoke"), ("klaverjas", "made"), ("klaverjas", "nat"),
            ("klaverjas", "revoke")} <= results
    revoked = {mixed.kind[gid] for gid, rep in mixed.reports.items()
               for v in rep["violations"] if v["seq"] in mixed.plays[gid]}
    assert revoked == {"klaverjas", "klaberjass", "kloepper"}


def test_roem_frequency_divides_by_the_klaverjas_rounds(ds: Dataset, mixed: Mixed) -> None:
    complete = ("made", "nat", "pit", "revoke")
    klaverjas = sum(1 for gid in mixed.of("klaverjas")
                    for r in mixed.reports[gid]["rounds"] if r["result"] in complete)
    every_game = sum(1 for rep in mixed.reports.values()
                     for r in rep["rounds"] if r["result"] in complete)
    assert klaverjas < every_game
    res = ds.ask(questions()["roem_frequency"], "all")
    assert {r["rounds"] for r in res.records()} == {klaverjas}


@pytest.mark.parametrize(("name", "by"), [(n, by) for n in KLAVERJAS_ONLY
                                          for by in questions()[n].dimensions])
def test_klaverjas_questions_count_klaverjas_rounds_only(ds: Dataset, mixed: Mixed, name: str,
                                                         by: str) -> None:
    games = ref.read_games([g for g in mixed.games if mixed.kind[g[0].game] == "klaverjas"])
    res = ds.ask(questions()[name], by)
    checks.assert_same(checks.keyed(res, name, by), getattr(ref, name)(games, by))


def test_round_averages_by_ruleset_has_the_klaverjas_rulesets(ds: Dataset) -> None:
    res = ds.ask(questions()["round_averages"], "ruleset")
    assert [r["ruleset"] for r in res.records()] == ["amsterdam", "rotterdam"]


def test_revokes_are_counted_per_game(ds: Dataset, mixed: Mixed) -> None:
    revokes: Counter[tuple[str, str]] = Counter()
    plays: Counter[str] = Counter()
    for gid, rep in mixed.reports.items():
        plays[mixed.kind[gid]] += len(mixed.plays[gid])
        for v in rep["violations"]:
            if v["seq"] in mixed.plays[gid]:
                revokes[(mixed.kind[gid], v["rule"])] += 1
    got = {(r["kind"], r["rule"]): r for r in ds.ask(questions()["revokes"], "all").records()}
    assert set(got) == set(revokes)
    for (kind, rule), n in revokes.items():
        row = got[(kind, rule)]
        assert (row["revokes"], row["plays"]) == (n, plays[kind]), (kind, rule)
        assert row["per_1000_plays"] == pytest.approx(n * 1000 / plays[kind])


def test_violations_are_counted_per_game_with_their_categories(ds: Dataset, mixed: Mixed) -> None:
    want: Counter[tuple[str, str]] = Counter()
    for gid, rep in mixed.reports.items():
        for v in rep["violations"]:
            want[(mixed.kind[gid], v["rule"])] += 1
    rows = ds.ask(questions()["violations"], "all").records()
    assert {(r["kind"], r["rule"]): r["violations"] for r in rows} == dict(want)
    for r in rows:
        assert r["category"] in CATEGORIES[r["kind"]], r
    # a play (a card laid) is category play, and nothing else is
    plays = {(mixed.kind[gid], v["rule"]) for gid, rep in mixed.reports.items()
             for v in rep["violations"] if v["seq"] in mixed.plays[gid]}
    assert {(r["kind"], r["rule"]) for r in rows if r["category"] == "play"} == plays
    assert {r["category"] for r in rows} >= {"play", "roem", "meld", "knock"}


def test_overview_counts_every_game_by_kind(ds: Dataset, mixed: Mixed) -> None:
    got = {r["kind"]: r for r in ds.ask(questions()["overview"], "kind").records()}
    assert {k: r["games"] for k, r in got.items()} == dict(Counter(mixed.kind.values()))
    for kind, row in got.items():
        assert row["violations"] == sum(len(mixed.reports[g]["violations"]) for g in mixed.of(kind))


def test_the_export_doc_names_every_violation_category() -> None:
    """The categories the export's builders give the documented codes are the export doc's."""
    codes = {
        "klaverjas": (klaverjas.violation_category, ["roem_false", "bid_out_of_turn"]),
        "klaberjass": (klaberjass.violation_category,
                       ["bid_out_of_turn", "schmeiss_not_allowed", "suit_not_allowed", "must_choose",
                        "dix_not_allowed", "dix_late", "sequence_false", "sequence_late",
                        "bella_false", "bella_early", "bella_late"]),
        "kloepper": (kloepper.violation_category,
                     ["partner_call_not_allowed", "call_own_ace", "partner_call_missing",
                      "partner_call_late", "knock_not_allowed", "knock_back_not_allowed",
                      "knock_twice", "knock_late"]),
    }
    for kind, (category, rules) in codes.items():
        made = {category("must_follow_suit", 7)} | {category(r, None) for r in rules}
        assert made == CATEGORIES[kind], kind
    row = next(line for line in EXPORT_DOC.read_text().splitlines()
               if line.startswith("| `violations` | rule broken"))
    stated = re.search(r"`category` \(([^)]*)\)", row)
    assert stated, row
    said = {"klaverjas": stated.group(1).split(";")[0]}
    for part in stated.group(1).split(";")[1:]:
        name, _, cats = part.partition(":")
        said[name.strip().lower()] = cats
    # what every game lists besides its own rules: a claim it could not make (a shared rule,
    # one category: jaslog.export.rows.SHARED_CATEGORIES) and the irregularities recorded
    assert said.pop("every game").strip() == "claim or irregularity", stated.group(1)
    assert set(said) == set(CATEGORIES), stated.group(1)
    for kind, cats in CATEGORIES.items():
        assert set(re.findall(r"[a-z]+", said[kind])) - {"or"} == cats, (kind, said[kind])
