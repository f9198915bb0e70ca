"""The analysis columns of the export (``jaslog export --par``): ``rounds.par``,
``rounds.par_result`` and ``plays.loss``, and the questions that read them.

A small corpus of every game (Klaverjas games cut after a few rounds, so that solving stays
quick; a round dealt without hands and never played out; a round whose hands were rebuilt
from its plays; a Klaberjass game with a round on the score sheet and a ruling; a Kloepper
game) is exported to real Parquet, with and without par, and read back by DuckDB. Each
number is checked against :mod:`jaslog.analysis` run on the same folded games, and the
questions against the same counts made here in Python.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

from jaslog.analysis.rounds import RoundAnalysis, analyze_fold
from jaslog.batch import cluster as on_cluster
from jaslog.engine.fold import GameFold
from jaslog.events import Event, event_from_dict
from jaslog.export import export_files, export_games, export_store, load_manifest, store_status
from jaslog.export.cluster import build_file_chunk, build_store_chunk
from jaslog.play.fold import fold
from jaslog.play.sim import Faults, simulate_game
from jaslog.stats.analytics import Dataset, questions
from jaslog.store import open_store
from tests.export.real_table import real_table
from tests.export.test_cli import run, write_log
from tests.export.test_dataset import archive
from tests.export.test_parallel import files

#: The playing side makes it, by the result word of each game (as ``rounds.made``).
MADE = {"made": True, "pit": True, "queens": True,
        "nat": False, "tie": False, "bete": False, "others": False, "none": False}

#: The new questions: each counts only rounds with a par.
QUESTIONS = ("misplay_loss", "par_upsets", "nat_by_play")


def _cut(gid: str, ruleset: str, seed: int, rounds: int, extra: int, *, faults: Faults,
         strip_hands: bool = False) -> list[Event]:
    """The first ``rounds`` rounds of a simulated game and ``extra`` events of the next (its
    deal recorded without hands with ``strip_hands``)."""
    full = simulate_game(gid, ruleset, seed=seed, faults=faults)
    deals = [k for k, e in enumerate(full) if e["type"] == "dealt"]
    if strip_hands:
        full[deals[rounds]] = {k: v for k, v in full[deals[rounds]].items() if k != "hands"}
    return [event_from_dict(e) for e in full[:deals[rounds] + extra]]


def make_games() -> list[list[Event]]:
    revokes = Faults(revoke_rate=0.03)
    return [
        # a nat the deal lost and a nat a play lost; round 3 dealt without hands, unfinished
        _cut("par-ams", "amsterdam", 28, 2, 20, faults=revokes, strip_hands=True),
        # two rounds and half of a third (played with its hands: it has a par)
        _cut("par-rot", "rotterdam", 12, 2, 25, faults=revokes),
        # hands never recorded: rebuilt from the plays of the rounds played out
        _cut("par-blind", "amsterdam", 13, 2, 3, faults=Faults(revoke_rate=0.03,
                                                               no_hands_rate=1.0)),
        [event_from_dict(e) for e in simulate_game("par-kb", "klaberjass-2p", seed=14,
                                                   faults=Faults(revoke_rate=0.02))],
        [event_from_dict(e) for e in simulate_game("par-kl", "kloepper", seed=15,
                                                   faults=Faults(revoke_rate=0.02))],
        # a deal on the score sheet alone, a retracted card, two rulings on round 1
        real_table("par-so", "klaberjass-2p", 16).events,
    ]


#: The cheap games (Klaberjass, Kloepper and a short Klaverjas one): for the checks that
#: export several times.
CHEAP = ("par-blind", "par-kb", "par-kl", "par-so")


@pytest.fixture(scope="module")
def games() -> list[list[Event]]:
    return make_games()


@pytest.fixture(scope="module")
def folds(games: list[list[Event]]) -> dict[str, GameFold]:
    return {g[0].game: fold(g) for g in games}


@pytest.fixture(scope="module")
def analysis(folds: dict[str, GameFold]) -> dict[tuple[str, int], RoundAnalysis]:
    """Every round, as :mod:`jaslog.analysis` sees it."""
    return {(gid, a.round): a for gid, f in folds.items()
            for a in analyze_fold(f, best_cards=False)}


@pytest.fixture(scope="module")
def with_par(games: list[list[Event]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("par") / "ds"
    export_games(games, out, par=True)
    return out


@pytest.fixture(scope="module")
def without_par(games: list[list[Event]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("no-par") / "ds"
    export_games(games, out)
    return out


def sql(out: Path, query: str) -> list[tuple[Any, ...]]:
    """``query`` over the current snapshot's files, ``ROUNDS`` and ``PLAYS`` the tables."""
    with duckdb.connect() as con:
        for t in ("rounds", "plays"):
            query = query.replace(t.upper(), f"read_parquet('{out}/current/{t}/**/*.parquet', "
                                             "hive_partitioning = true)")
        return con.execute(query).fetchall()


def test_the_corpus_holds_what_the_checks_tell_apart(analysis: dict[tuple[str, int],
                                                                    RoundAnalysis],
                                                     with_par: Path) -> None:
    """Rounds with a par in every game, rounds without (no hands, score sheet, annulled),
    hands rebuilt from the plays, an unfinished round with a par, nat rounds lost by a play
    and by the deal, and rounds made though par said lost."""
    rounds = sql(with_par, "SELECT game, round, kind, recorded, hands_recorded, result, par, "
                           "par_result FROM ROUNDS")
    assert {r[2] for r in rounds if r[6] is not None} == {"klaverjas", "klaberjass", "kloepper"}
    assert any(r[3] == "score_only" for r in rounds)
    assert any(r[3] == "played" and r[6] is None and r[5] == "unfinished" for r in rounds)
    assert any(r[5] == "annulled" and r[6] is None for r in rounds)
    assert any(not r[4] and r[6] is not None for r in rounds if r[3] == "played")
    assert any(r[5] == "unfinished" and r[6] is not None for r in rounds)
    nat = {r[7] for r in rounds if r[5] == "nat" and r[6] is not None}
    assert {"made", "nat"} <= nat
    assert any(MADE.get(r[5]) and not MADE[r[7]] for r in rounds if r[6] is not None)
    assert sum(1 for a in analysis.values() if a.par is not None) == \
        sum(1 for r in rounds if r[6] is not None)


def test_every_round_has_the_analysis_par(analysis: dict[tuple[str, int], RoundAnalysis],
                                          with_par: Path) -> None:
    rounds = sql(with_par, "SELECT game, round, par, par_result FROM ROUNDS")
    assert len(rounds) == len(analysis)
    for gid, number, par, par_result in rounds:
        a = analysis[(gid, number)]
        assert (par, par_result) == (a.par, a.par_result), (gid, number, a.reason)
        assert (par is None) == (a.reason is not None)


def test_every_play_has_the_analysis_loss(analysis: dict[tuple[str, int], RoundAnalysis],
                                          with_par: Path) -> None:
    """The loss of each analysed play, by its seq; NULL for the plays of a round without
    hands (nor any other)."""
    plays = sql(with_par, "SELECT game, round, seq, loss FROM PLAYS")
    want = {(gid, p.seq): p.loss for (gid, _), a in analysis.items() for p in a.plays}
    got = {(gid, seq): loss for gid, _, seq, loss in plays if loss is not None}
    assert got == want
    unanalysed = [(gid, n) for gid, n, _, loss in plays if loss is None]
    assert unanalysed and all(analysis[k].par is None for k in unanalysed)
    assert any(v > 0 for v in got.values()) and any(v == 0 for v in got.values())


#: Rounds played out as recorded and scored as played: no revoke, no ruling, every roem on
#: the table claimed in Klaverjas (par counts it all as claimed).
PLAYED_OUT = ("r.par IS NOT NULL AND r.complete AND r.made IS NOT NULL AND r.rulings = 0 "
              "AND (r.kind <> 'klaverjas' OR r.roem = r.roem_on_table) AND NOT EXISTS ("
              "SELECT 1 FROM PLAYS p WHERE p.game = r.game AND p.round = r.round AND NOT p.legal)")


def test_a_round_whose_plays_cost_nothing_ends_at_its_par(with_par: Path) -> None:
    rows = sql(with_par, f"SELECT r.game, r.round, r.par, r.score_playing - r.score_defending "
                         f"FROM ROUNDS r WHERE {PLAYED_OUT} AND NOT EXISTS (SELECT 1 FROM PLAYS p "
                         "WHERE p.game = r.game AND p.round = r.round AND p.loss > 0)")
    assert len(rows) >= 3
    for gid, number, par, difference in rows:
        assert difference == par, (gid, number)


def test_the_losses_account_for_the_gap_between_par_and_result(with_par: Path) -> None:
    """In a round played out, the par less what the playing side's plays cost, plus what the
    other side's cost, is the score difference: the losses are the whole story."""
    rows = sql(with_par, f"SELECT r.game, r.round, r.par, r.score_playing - r.score_defending, "
                         "(SELECT sum(CASE WHEN p.playing_team THEN -p.loss ELSE p.loss END) "
                         " FROM PLAYS p WHERE p.game = r.game AND p.round = r.round) "
                         f"FROM ROUNDS r WHERE {PLAYED_OUT}")
    assert len(rows) >= 10 and any(swing != 0 for *_, swing in rows)
    for gid, number, par, difference, swing in rows:
        assert par + swing == difference, (gid, number)


def test_without_par_the_columns_are_null_and_the_rest_the_same(with_par: Path,
                                                                without_par: Path) -> None:
    assert sql(without_par, "SELECT count(par), count(par_result), count(*) FROM ROUNDS")[0][:2] \
        == (0, 0)
    assert sql(without_par, "SELECT count(loss) FROM PLAYS") == [(0,)]
    for table, order in (("ROUNDS", "game, round"), ("PLAYS", "game, seq")):
        cut = "par, par_result" if table == "ROUNDS" else "loss"
        query = f"SELECT * EXCLUDE ({cut}) FROM {table} ORDER BY {order}"
        assert sql(with_par, query) == sql(without_par, query)
    assert load_manifest(with_par)[1]["par"] is True  # type: ignore[index]
    assert load_manifest(without_par)[1]["par"] is False  # type: ignore[index]


# ------------------------------------------------------------------ the questions


def _records(out: Path, name: str, by: str) -> tuple[list[dict[str, Any]], int | None]:
    with Dataset(out) as ds:
        res = ds.ask(questions()[name], by)
    return res.records(), res.score_only_left_out


def _close(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want, strict=True):
        assert g.keys() == w.keys()
        for k, v in w.items():
            assert g[k] == (pytest.approx(v) if isinstance(v, float) else v), (k, g, w)


def _misplay(folds: dict[str, GameFold], analysis: dict[tuple[str, int], RoundAnalysis],
             by: str) -> list[dict[str, Any]]:
    groups: dict[tuple[Any, str], dict[str, Any]] = defaultdict(
        lambda: {"rounds": set(), "losses": []})
    for (gid, number), a in analysis.items():
        for p in a.plays:
            key = {"kind": folds[gid].game, "all": None,
                   "side": "playing" if p.side == 0 else "defending"}[by]
            g = groups[(key, folds[gid].seats[p.seat])]
            g["rounds"].add((gid, number))
            g["losses"].append(p.loss)
    out = []
    for (key, player), g in groups.items():
        losses, n = g["losses"], len(g["rounds"])
        out.append({**({by: key} if by != "all" else {}), "player": player, "rounds": n,
                    "plays": len(losses), "costly_plays": sum(1 for x in losses if x > 0),
                    "mistakes": sum(1 for x in losses if x >= 20), "points_lost": sum(losses),
                    "loss_per_round": sum(losses) / n, "loss_per_play": sum(losses) / len(losses)})
    out.sort(key=lambda r: (str(r.get(by)), -r["loss_per_round"], r["player"]))
    return out


@pytest.mark.parametrize("by", ["kind", "side", "all"])
def test_misplay_loss_matches_the_analysis(with_par: Path, folds: dict[str, GameFold],
                                           analysis: dict[tuple[str, int], RoundAnalysis],
                                           by: str) -> None:
    got, left_out = _records(with_par, "misplay_loss", by)
    _close(got, _misplay(folds, analysis, by))
    assert left_out == 1  # the Klaberjass deal on the score sheet


def _result(folds: dict[str, GameFold], gid: str, number: int) -> str:
    return str(folds[gid].state.outcomes()[number - 1].result)


@pytest.mark.parametrize("by", ["kind", "all"])
def test_par_upsets_match_the_analysis(with_par: Path, folds: dict[str, GameFold],
                                       analysis: dict[tuple[str, int], RoundAnalysis],
                                       by: str) -> None:
    groups: dict[Any, list[tuple[bool, bool]]] = defaultdict(list)
    for (gid, number), a in analysis.items():
        result = _result(folds, gid, number)
        if a.par is None or result not in MADE:
            continue
        assert a.par_result is not None
        groups[folds[gid].game if by == "kind" else None].append((MADE[a.par_result],
                                                                  MADE[result]))
    want = []
    for key in sorted(groups, key=str):
        rs = groups[key]
        par_made = [made for at_par, made in rs if at_par]
        par_lost = [made for at_par, made in rs if not at_par]
        failed, anyway = par_made.count(False), par_lost.count(True)
        want.append({**({by: key} if by != "all" else {}), "rounds": len(rs),
                     "par_made": len(par_made), "failed": failed,
                     "failed_rate": failed / len(par_made) if par_made else None,
                     "par_lost": len(par_lost), "made_anyway": anyway,
                     "made_anyway_rate": anyway / len(par_lost) if par_lost else None})
    got, left_out = _records(with_par, "par_upsets", by)
    _close(got, want)
    assert left_out == 1
    assert sum(r["failed"] for r in want) > 0 and sum(r["made_anyway"] for r in want) > 0


@pytest.mark.parametrize("by", ["ruleset", "all"])
def test_nat_by_play_matches_the_analysis(with_par: Path, games: list[list[Event]],
                                          folds: dict[str, GameFold],
                                          analysis: dict[tuple[str, int], RoundAnalysis],
                                          by: str) -> None:
    ruleset = {g[0].game: g[0].ruleset for g in games}  # type: ignore[attr-defined]
    groups: dict[Any, list[str]] = defaultdict(list)
    for (gid, number), a in analysis.items():
        if folds[gid].game == "klaverjas" and a.par is not None \
                and _result(folds, gid, number) == "nat":
            assert a.par_result is not None
            groups[ruleset[gid] if by == "ruleset" else None].append(a.par_result)
    want = [{**({by: key} if by != "all" else {}), "rounds": len(rs),
             "lost_by_play": sum(1 for r in rs if r in ("made", "pit")),
             "lost_by_deal": rs.count("nat"),
             "share_by_play": sum(1 for r in rs if r in ("made", "pit")) / len(rs)}
            for key, rs in sorted(groups.items(), key=lambda kv: str(kv[0]))]
    got, left_out = _records(with_par, "nat_by_play", by)
    _close(got, want)
    assert left_out == 0  # a Klaverjas question: the score sheet is a Klaberjass one
    assert 0 < want[-1]["share_by_play"] < 1


@pytest.mark.parametrize("name", QUESTIONS)
def test_without_par_the_questions_answer_nothing_and_say_why(without_par: Path,
                                                              name: str) -> None:
    q = questions()[name]
    assert any("only rounds with a par" in n for n in q.notes) and \
        any("--par" in n for n in q.notes)
    with Dataset(without_par) as ds:
        for by in q.dimensions:
            res = ds.ask(q, by)
            assert res.rows == [] and res.empty is not None and "--par" in res.empty


# ------------------------------------------------------------------ how it is exported


def _cheap(games: list[list[Event]]) -> list[list[Event]]:
    return [g for g in games if g[0].game in CHEAP]


@pytest.mark.soak
def test_workers_and_the_cluster_build_the_same_par(games: list[list[Event]],
                                                    tmp_path: Path) -> None:
    """From files and from a store, with workers and without: the same bytes; a cluster's
    worker builds its chunk with par when told (worker processes: ``make soak``)."""
    few = _cheap(games)
    log = write_log(tmp_path / "few.jsonl", few)
    one = export_files([log], tmp_path / "one", chunk_games=1, workers=0, par=True)
    many = export_files([log], tmp_path / "many", chunk_games=1, workers=2, par=True)
    assert one.files_added > 1 and files(tmp_path / "one") == files(tmp_path / "many")
    assert many.rows_total == one.rows_total
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    with open_store(url) as store:
        for g in few:
            archive(store, [e.model_dump(exclude_none=True) for e in g])
        export_store(store, tmp_path / "s-one", chunk_games=1, workers=0, par=True)
        export_store(store, tmp_path / "s-many", chunk_games=1, workers=2, par=True)
        ids = [gid for batch in store.game_id_batches(batch=10) for gid in batch]
    assert files(tmp_path / "s-one") == files(tmp_path / "s-many")
    assert sql(tmp_path / "s-many", "SELECT count(loss) > 0 FROM PLAYS") == [(True,)]
    lines = [[("few.jsonl", i, orjson.dumps(e.model_dump(exclude_none=True)))
              for i, e in enumerate(g, 1)] for g in few]
    try:
        built = [build_file_chunk(lines, {}, True), build_store_chunk(url, None, ids, {}, True)]
    finally:  # the store a cluster worker keeps open for its next chunks
        on_cluster._stores.pop(url).close()
    for chunk in built:
        plays = [t for name, _, t in chunk.tables if name == "plays"]
        assert plays and sum(t.column("loss").null_count for t in plays) \
            < sum(t.num_rows for t in plays)
    chunk = build_file_chunk(lines, {}, False)
    assert all(t.column("loss").null_count == t.num_rows
               for name, _, t in chunk.tables if name == "plays")


def test_a_change_of_par_exports_everything_afresh(games: list[list[Event]],
                                                   tmp_path: Path) -> None:
    """The manifest says whether par was computed; an export the other way does not build on
    it (no snapshot mixes rounds with and without par), and the store's status says stale."""
    few = _cheap(games)
    out = tmp_path / "ds"
    with open_store(f"sqlite:///{tmp_path / 's.sqlite'}") as store:
        for g in few[:-1]:
            archive(store, [e.model_dump(exclude_none=True) for e in g])
        first = export_store(store, out, workers=0)
        assert first.games_added == len(few) - 1
        assert not store_status(store, out)["stale"] and store_status(store, out, par=True)["stale"]
        again = export_store(store, out, workers=0, par=True)
        assert (again.games_added, again.games_unchanged, again.files_linked) == \
            (len(few) - 1, 0, 0)
        assert sql(out, "SELECT count(par) > 0 FROM ROUNDS") == [(True,)]
        # incremental with par: only the new game is solved, the rest is carried over
        archive(store, [e.model_dump(exclude_none=True) for e in few[-1]])
        more = export_store(store, out, workers=0, par=True)
        assert (more.games_added, more.games_unchanged) == (1, 0) and more.files_linked > 0
        assert export_store(store, out, workers=0, par=True).changed is False
        rounds = sql(out, "SELECT count(*) FILTER (WHERE par IS NULL AND recorded = 'played' "
                          "AND result NOT IN ('annulled', 'unfinished')) FROM ROUNDS")
        assert rounds == [(0,)]  # every round played out has its par: none left without
        back = export_store(store, out, workers=0)
        assert back.games_added == len(few) and back.files_linked == 0
        assert sql(out, "SELECT count(par) FROM ROUNDS") == [(0,)]
    manifest = json.loads((out / "current" / "manifest.json").read_text())
    assert manifest["par"] is False


def test_the_command_line_exports_par_and_answers_the_questions(games: list[list[Event]],
                                                                tmp_path: Path) -> None:
    log = write_log(tmp_path / "few.jsonl", _cheap(games))
    res = run("export", str(tmp_path / "ds"), "--from", str(log), "--par", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["games_added"] == len(CHEAP)
    assert load_manifest(tmp_path / "ds")[1]["par"] is True  # type: ignore[index]
    listed = run("stats", "--list", "--json")
    assert listed.exit_code == 0, listed.output
    names = [q["name"] for q in json.loads(listed.stdout)]
    assert set(QUESTIONS) <= set(names)
    for name in QUESTIONS:
        res = run("stats", name, "--json", "--dataset", str(tmp_path / "ds"), "--no-refresh")
        assert res.exit_code == 0, res.output
        out = json.loads(res.stdout)
        assert out["name"] == name and (out["rows"] or name == "nat_by_play"), out
    help_text = " ".join(run("export", "--help").stdout.split())
    assert "--par" in help_text


def test_a_round_solved_once_is_kept_in_the_store_and_read_back(games: list[list[Event]],
                                                               tmp_path: Path) -> None:
    """The first ``export --par`` from a store keeps each round it solved (``round_par``);
    the next reads them back instead of solving them (a value put in the store behind its
    back comes out as it is), in this process and in a cluster's worker; a game stored
    since is solved (its rounds kept too), the others read back."""
    from sqlalchemy import text

    few = _cheap(games)
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    with open_store(url) as store:
        for g in few:
            archive(store, [e.model_dump(exclude_none=True) for e in g])
        export_store(store, tmp_path / "one", workers=0, par=True)
        solved = sql(tmp_path / "one", "SELECT count(par) FROM ROUNDS")[0][0]
        with store.engine.begin() as conn:
            kept = conn.execute(text("SELECT count(*) FROM round_par")).scalar_one()
            assert kept == solved > 5
            conn.execute(text("UPDATE round_par SET par = 4321 WHERE round = 1"))
        export_store(store, tmp_path / "two", workers=0, par=True)
        pars = sql(tmp_path / "two", "SELECT round, par FROM ROUNDS WHERE par IS NOT NULL")
        assert {p for r, p in pars if r == 1} == {4321}
        assert all(p != 4321 for r, p in pars if r != 1) and len(pars) == solved
        ids = [gid for batch in store.game_id_batches(batch=10) for gid in batch]
        with store.engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM round_par")).scalar_one() == kept
        # the stored facts say the par beside each round's result
        facts = [r for r in store.round_facts() if r.par is not None]
        assert facts and {r.par for r in facts if r.round == 1} == {4321}
    try:
        chunk = build_store_chunk(url, None, ids, {}, True)
    finally:  # the store a cluster worker keeps open for its next chunks
        on_cluster._stores.pop(url).close()
    assert chunk.solved == []  # every round read back
    # a game stored since: solved and kept; the rounds kept before read back
    other = [e.model_dump(exclude_none=True) for e in few[1]]
    for e in other:
        e["game"] = "moved"
    with open_store(url) as store:
        archive(store, other)
        export_store(store, tmp_path / "three", workers=0, par=True)
        with store.engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM round_par")).scalar_one() > kept
        moved = sql(tmp_path / "three", "SELECT round, par FROM ROUNDS WHERE game = 'moved' "
                                         "AND par IS NOT NULL")
    assert moved and 4321 not in {p for _, p in moved}


def test_a_deal_played_again_is_solved_with_its_first_solve_and_the_same_answers(
        analysis: dict[tuple[str, int], RoundAnalysis]) -> None:
    """The same deals played at another table (here: the same game under another id, cut
    short in its last round: other positions of the same deals) are solved with the
    solvers their first solve filled (those solvers search on), and answer what a fresh
    solve does."""
    from jaslog.export.par import _FAMILIES, game_par

    events = make_games()[1]  # par-rot: two rounds and half of a third, hands known
    first = game_par(fold(events))
    assert len(first.rounds) == 3
    solvers = {id(s): s for s in _FAMILIES.values()}
    nodes = {k: s.nodes for k, s in solvers.items()}
    again = [event_from_dict(e.model_dump(exclude_none=True) | {"game": "par-rot-2"})
             for e in events[:-3]]
    second = game_par(fold(again))
    assert second.rounds == first.rounds
    assert second.losses == {s: v for s, v in first.losses.items() if s < len(again)}
    assert {id(s) for s in _FAMILIES.values()} == set(solvers)  # no new solver
    assert sum(1 for k, s in solvers.items() if s.nodes > nodes[k]) == 3  # each searched on
    assert set(first.rounds.items()) == {(r, (a.par, a.par_result)) for (g, r), a
                                         in analysis.items() if g == "par-rot"}
