"""The tables built a column at a time (:mod:`jaslog.export.columnar`) hold exactly the rows
the row builder writes: every value, in the same order, for every table and partition, on
the export corpus (presets and options, faults, no times, a game cut mid-round, rulings), on
games with claims of the rest and high fault rates, and on the other games of the family
(which keep the row builder)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pyarrow as pa
import pytest

from jaslog.events import Event
from jaslog.export.columnar import Verdicts, game_verdicts
from jaslog.export.dataset import build_chunks
from jaslog.export.rows import GameContext, fold_events
from jaslog.games import get_game
from jaslog.play.sim import Faults, simulate_game
from tests.export.conftest import to_events
from tests.export.real_table import real_table


def tables(games: Sequence[list[Event]], columnar: bool, chunk: int = 5
           ) -> dict[tuple[str, str], pa.Table]:
    out: dict[tuple[str, str], list[pa.Table]] = {}
    for c in build_chunks(games, {}, chunk, columnar=columnar):
        for table, part, t in c.tables:
            out.setdefault((table, part), []).append(t)
    return {k: pa.concat_tables(v) for k, v in out.items()}


def columnar_games(games: Sequence[list[Event]]) -> int:
    """How many of ``games`` the Klaverjas adapter builds a column at a time."""
    from jaslog.export.columns import Columns

    n = 0
    for events in games:
        fold, error = fold_events(events)
        if fold is None:
            continue
        adapter = get_game(fold.game).adapter("export")
        by_columns = getattr(adapter, "columnar", None)
        rows = {"events": Columns("events")}
        ctx = GameContext(events[0].game, fold, events, [], rows, {}, {}, {}, 0,  # type: ignore[arg-type]
                          error=error, types=frozenset(e.type for e in events))
        n += by_columns is not None and by_columns(ctx) is not None
    return n


def assert_same(games: Sequence[list[Event]], chunk: int = 5) -> None:
    by_columns, by_rows = tables(games, True, chunk), tables(games, False, chunk)
    assert by_columns.keys() == by_rows.keys()
    for key, want in by_rows.items():
        got = by_columns[key]
        assert got.schema == want.schema, key
        assert got.num_rows == want.num_rows, key
        for name in want.column_names:
            a, b = got.column(name).to_pylist(), want.column(name).to_pylist()
            if a != b:
                at = next(i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)
                raise AssertionError(f"{key} {name}: row {at}: {a[at]!r} != {b[at]!r}")


def test_the_corpus_is_the_same_both_ways(corpus: list[list[Event]]) -> None:
    """Every preset and option of the corpus, turned trumps and rulings too."""
    assert columnar_games(corpus) == len(corpus)
    assert_same(corpus, chunk=7)


def test_games_of_both_ways_in_one_partition_keep_their_order(
        corpus: list[list[Event]]) -> None:
    """Games the row builder builds (a correction, an irregularity, a score-only round)
    between games built by columns, in the same chunks and partitions: every game's rows in
    the order the games came."""
    real = [real_table(f"rt-{i}", seed=5 + i, at="2025-07-07T19:00:00Z").events
            for i in range(3)]
    assert columnar_games(real) == 0
    same_partition = [g for g in corpus if g[0].game.startswith("t-amsterdam-")][:6]
    mixed = [same_partition[0], real[0], same_partition[1], same_partition[2], real[1],
             real[2], *same_partition[3:]]
    plays = tables(mixed, True, len(mixed))[("plays", "ruleset=amsterdam/year=2025")]
    assert {g[:3] for g in plays.column("game").to_pylist()} == {"rt-", "t-a"}
    assert_same(mixed, chunk=4)
    assert_same(mixed, chunk=len(mixed))


@pytest.mark.parametrize("ruleset", ["amsterdam", "rotterdam", "amsterdam-kbn",
                                     "klaverjas-online-501"])
def test_faults_and_claims_are_the_same_both_ways(ruleset: str) -> None:
    faults = Faults(revoke_rate=0.05, false_roem_rate=0.1, no_hands_rate=0.2,
                    unclaimed_roem_rate=0.2, partial_roem_rate=0.2)
    games = [to_events(simulate_game(f"c-{ruleset}-{i}", ruleset, seed=i, faults=faults,
                                     at=datetime(2026, 1 + i, 3, 20, 0, tzinfo=UTC)))
             for i in range(6)]
    games += [to_events(simulate_game(f"c-{ruleset}-claims-{i}", ruleset, seed=50 + i,
                                      faults=Faults(claim_rate=0.3)))
              for i in range(3)]
    games.append(games[0][:137])  # the first game again, cut in the middle of a trick
    games[-1] = [e.model_copy(update={"game": "c-cut"}) for e in games[-1]]
    assert columnar_games(games) >= 6
    assert_same(games)


def test_the_other_games_keep_the_row_builder() -> None:
    games = [to_events(simulate_game(f"o-{rs}-{i}", rs, seed=i))
             for rs in ("klaberjass-2p", "kloepper") for i in range(2)]
    games += [to_events(simulate_game("o-kv", "amsterdam", seed=9))]
    assert columnar_games(games) == 1
    assert_same(games, chunk=2)


def test_a_play_the_rules_refused_carries_its_rule() -> None:
    events = to_events(simulate_game("v-1", "amsterdam", seed=4,
                                     faults=Faults(revoke_rate=0.2)))
    fold, _ = fold_events(events)
    assert fold is not None
    v = game_verdicts(GameContext("v-1", fold, events, [], {}, {}, {}, {}))
    assert isinstance(v, Verdicts) and v.rules and set(v.rules.values()) <= {
        "must_follow_suit", "must_trump", "must_overtrump", "must_not_undertrump"}
    plays = tables([events], True)
    rules = {r for (t, _), tab in plays.items() if t == "plays"
             for r in tab.column("rule").to_pylist() if r is not None}
    assert rules == set(v.rules.values())


@pytest.mark.parametrize("cut", ["started", "dealt", "bid", "first_play", "first_roem"])
def test_a_game_cut_early_is_the_same_both_ways(cut: str) -> None:
    """A game in a chunk alone and beside a whole one, cut before its first play, at it, or
    at its first roem claim: no plays, one, or a trick without its claim."""
    whole = to_events(simulate_game("e-whole", "amsterdam", seed=11,
                                    at=datetime(2026, 2, 2, 20, 0, tzinfo=UTC)))
    types = [e.type for e in whole]
    end = {"started": 1, "dealt": types.index("dealt") + 1, "bid": types.index("bid") + 1,
           "first_play": types.index("play") + 1, "first_roem": types.index("roem") + 1}[cut]
    short = [e.model_copy(update={"game": "e-short"}) for e in whole[:end]]
    assert columnar_games([short]) == 1
    assert_same([short], chunk=1)
    assert_same([short, whole], chunk=2)
    assert_same([whole, short], chunk=2)


def test_claims_of_the_rest_and_notes_are_the_same_both_ways() -> None:
    """Rounds ended by a claim of the rest, and notes between any two cards (between a trick's
    last card and its roem claim too), with a seat and with or without a round."""
    faults = Faults(claim_rate=0.5, revoke_rate=0.05, false_roem_rate=0.1, no_hands_rate=0.2)
    games = [to_events(simulate_game(f"k-{rs}-{i}", rs, seed=100 + i, faults=faults,
                                     at=datetime(2026, 3, 3, tzinfo=UTC)))
             for rs in ("amsterdam", "rotterdam") for i in range(4)]
    assert sum(any(e.type == "claim" for e in g) for g in games) >= 6
    for i in range(4):
        d = simulate_game(f"n-{i}", "amsterdam", seed=200 + i, at=datetime(2026, 3, 3, tzinfo=UTC),
                          faults=Faults(claim_rate=0.2, false_roem_rate=0.1))
        out: list[dict[str, object]] = []
        plays = 0
        for e in d:
            out.append(e)
            if e["type"] == "play":
                plays += 1
                if plays % (4 + i) == 0:
                    out.append({"game": e["game"], "seq": 0, "type": "note", "text": "a note",
                                "seat": plays % 4, **({"round": 1} if i % 2 else {})})
        games.append(to_events([{**e, "seq": k} for k, e in enumerate(out)]))
    assert columnar_games(games) == len(games)
    assert_same(games, chunk=3)


@pytest.mark.parametrize("type_", [pa.int8(), pa.int16(), pa.int32(), pa.int64(),
                                   pa.timestamp("us", tz="UTC"), pa.bool_()])
@pytest.mark.parametrize("n", [0, 1, 9, 1000])
def test_an_array_from_numpy_is_the_one_arrow_converts(type_: pa.DataType, n: int) -> None:
    """:func:`~jaslog.export.columnar.arrow` makes its arrays from numpy's buffers: they
    hold what ``pa.array`` makes of the same values and mask (none, some, every value NULL;
    a strided view; a narrower numpy type)."""
    import numpy as np

    from jaslog.export.columnar import arrow

    rng = np.random.default_rng(n)
    numbers = rng.integers(-120, 120, n)
    values: np.ndarray = numbers > 0 if pa.types.is_boolean(type_) else numbers
    some = rng.random(n) < 0.3
    narrow = pa.types.is_integer(type_)  # (Arrow makes a timestamp of int64 alone)
    for null in (None, some, np.zeros(n, bool), np.ones(n, bool)):
        for v, m in ((values, null), (values[::2], None if null is None else null[::2]),
                     (values.astype(np.int16) if narrow else values, null)):
            got = arrow(v, type_, m)
            got.validate(full=True)
            want = pa.array(v, type_, mask=m if m is not None and m.any() else None)
            assert got.type == want.type and got.null_count == want.null_count
            assert got.to_pylist() == want.to_pylist()


def test_a_value_beyond_its_column_is_refused_unless_null() -> None:
    """A value a narrow column cannot hold raises Arrow's error (the export's
    ``ValueBeyondColumn``), as Arrow's conversion does; where it is NULL it is not looked at."""
    import numpy as np

    from jaslog.export.columnar import arrow

    for bad in (300, -300):
        with pytest.raises(pa.ArrowInvalid, match="not in range"):
            arrow(np.array([1, bad]), pa.int8())
    assert arrow(np.array([1, 300]), pa.int8(), np.array([False, True])).to_pylist() == [1, None]
    assert arrow(np.array([2**40]), pa.int64()).to_pylist() == [2**40]
