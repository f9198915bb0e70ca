"""The column-wise row building (``jaslog.export.columns``) against a row-by-row reference.

``events`` and ``plays`` are built in bulk, a column at a time (a trick's seats at once, a
round's constants and the values that depend on the card once per round). Here every row
of both tables is rebuilt the plain way, one event and one card at a time from the folded
game, and the exported Parquet must hold exactly those rows, for all three games, with
faults, rounds recorded without hands, an unfinished game, a log that breaks the rules, and
games recorded as a real table records them (a score-only round, a retracted card, an
irregularity, a round ruled twice). The chunk size must not change a single value either.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from jaslog.cards import CARD_TEXT, RANK_TEXT, SUIT_LETTERS, card_points
from jaslog.engine.facts import event_rounds
from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import Event, canonical_json, event_from_dict
from jaslog.export import TABLES, export_games, load_manifest
from jaslog.games.kloepper.rules import known_sides, points
from jaslog.play.fold import start_fold
from jaslog.play.sim import Faults, simulate_game
from tests.export.real_table import real_table

OTHERS = [("klaberjass-2p", None), ("klaberjass-2p", {"tie_mode": "carry_over"}), ("kloepper", None)]


@pytest.fixture(scope="module")
def games(corpus: list[list[Event]]) -> list[list[Event]]:
    out = list(corpus)
    for i in range(6):
        ruleset, options = OTHERS[i % 3]
        faults = Faults(revoke_rate=0.03, false_roem_rate=0.1, no_hands_rate=0.3 * (i % 2))
        evs = simulate_game(f"o{i}", ruleset, options, seed=300 + i, faults=faults,
                            at=None if i == 5 else "2026-03-01T18:00:00Z")
        if i == 4:
            evs = evs[: len(evs) // 2]  # stopped mid-game
        out.append([event_from_dict(e) for e in evs])
    bad = simulate_game("o-bad", "kloepper", seed=9, at="2026-03-02T18:00:00Z")
    plays = [k for k, e in enumerate(bad) if e["type"] == "play"]
    bad[plays[30]] = {**bad[plays[30]], "card": bad[plays[0]]["card"]}  # a card played twice
    out.append([event_from_dict(e) for e in bad])
    for i, ruleset in enumerate(("amsterdam", "klaberjass-2p", "kloepper")):
        out.append(real_table(f"o-real-{i}", ruleset, seed=60 + i,
                              fields=None if i != 1 else ()).events)
    return out


def tables(out: Path) -> dict[str, pa.Table]:
    loaded = load_manifest(out)
    assert loaded is not None
    snap, man = loaded
    return {t: pa.concat_tables([pq.read_table(snap / f["path"]) for f in sorted(
        man["files"], key=lambda f: f["path"]) if f["table"] == t]) for t in TABLES
            if any(f["table"] == t for f in man["files"])}


def folded(events: list[Event]) -> GameFold | None:
    try:
        f = start_fold(events[0])
    except FoldError:
        return None
    for e in events[1:]:
        try:
            f.apply(e)
        except FoldError:
            break
    return f


def time_of(e: Event) -> datetime | None:
    return None if e.at is None else datetime.fromisoformat(e.at.upper().replace("Z", "+00:00"))


def reference_plays(events: list[Event]) -> list[dict[str, Any]]:
    """Every card played, one at a time, as the export wrote it before it went column-wise."""
    f = folded(events)
    if f is None or f.game not in ("klaverjas", "klaberjass", "kloepper"):
        return []
    g, seats, rows = f.state, f.seats, []
    for r in g.rounds:
        trump = getattr(r, "trump", None) if f.game != "kloepper" else None
        if f.game == "klaverjas":
            side = r.chooser
            playing = [None if side is None else (s & 1) == (side & 1) for s in range(4)]
            declarer = [None if side is None else s == side for s in range(4)]
            rule_of = {v.seq: v.rule if v.card is not None else None for v in g.violations}
            known = r.hands_known
        elif f.game == "klaberjass":
            playing = declarer = [None if r.maker is None else s == r.maker for s in range(2)]
            rule_of = {v.seq: v.rule for v in g.violations if v.card is not None}
            known = r.hands_known or r.over
        else:
            sd = r.sides()
            if sd is not None:
                playing = [sd.on_queens(s) for s in range(4)]
            else:
                so_far = [(t.seat_of(i), c) for t in r.tricks for i, c in enumerate(t.cards)]
                call = (r.call.seat, r.call.call) if r.call is not None else None
                playing = [None if k is None else k == "queens"
                           for k in known_sides(None, None, so_far, call, r.plays > 0)]
            declarer = [None if r.call is None else r.call.seat == s for s in range(4)]
            rule_of = {v.seq: v.rule for v in g.violations if v.card is not None}
            known = r.hands_known
        for t in r.tricks:
            done = t.complete
            win = (t.win_index(trump) if f.game == "klaberjass" else t.win) if done else None
            for i, c in enumerate(t.cards):
                seat, seq = (t.leader + i) % len(seats), t.seqs[i]
                rule = rule_of.get(seq)
                rows.append({
                    "game": events[0].game,
                    "round": r.number, "trick": t.number, "position": i, "seq": seq,
                    "seat": seat, "player": seats[seat],
                    "team": seat & 1 if f.game == "klaverjas" else seat, "card": CARD_TEXT[c],
                    "suit": SUIT_LETTERS[c >> 3], "rank": RANK_TEXT[c & 7],
                    "trump": SUIT_LETTERS[trump] if trump is not None else None,
                    "is_trump": (bool(g.trumps.mask >> c & 1) if f.game == "kloepper"
                                 else (c >> 3 == trump) if trump is not None else None),
                    "legal": (rule is None) if known else None, "rule": rule,
                    "won_trick": (i == win) if done else None,
                    "card_points": (points(c) if f.game == "kloepper" else
                                    card_points(c, trump) if trump is not None else None),
                    "trick_points": t.points if done else None,
                    "playing_team": playing[seat], "declarer": declarer[seat],
                    "played_at": time_of(events[seq]),
                    "loss": None,  # filled only by an export with par
                })
    return rows


def reference_events(events: list[Event]) -> list[dict[str, Any]]:
    """Every event, one at a time: its round as the fold's report counts them (a deal or a
    score-only round opens one; a retracted opener's round is gone once retracted), then on
    past where the fold stopped, and what the fold says a correction retracted."""
    f = folded(events)
    counted = event_rounds(f) if f is not None else []
    retracted = f.retracted if f is not None else {}
    rows, rnd = [], 0
    for e in events:
        if e.seq < len(counted):
            rnd = counted[e.seq]
        elif e.type in ("dealt", "round_score"):
            rnd += 1
        own = getattr(e, "round", None) if e.type in ("ruling", "note") else None
        by = retracted.get(e.seq)
        rows.append({
            "game": e.game, "seq": e.seq, "type": e.type, "event_time": time_of(e),
            "round": own if own is not None else (rnd or None),
            **{k: getattr(e, k, None) for k in ("seat", "card", "call", "id")},
            "points": e.points if e.type == "roem" else None,  # type: ignore[attr-defined]
            "retracted": by is not None, "retracted_by": by.seq if by is not None else None,
            "payload": canonical_json(e).decode(),
        })
    return rows


@pytest.fixture(scope="module")
def exported(games: list[list[Event]], tmp_path_factory: pytest.TempPathFactory) -> dict[str, pa.Table]:
    out = tmp_path_factory.mktemp("speed") / "ds"
    export_games(games, out, chunk_games=5)
    return tables(out)


def by_key(rows: list[dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    return {(r["game"], r["seq"]): r for r in rows}


def test_plays_equal_the_row_by_row_reference(games: list[list[Event]],
                                              exported: dict[str, pa.Table]) -> None:
    want = by_key([row for g in games for row in reference_plays(g)])
    got = by_key(exported["plays"].to_pylist())
    kind = {g[0].game: f.game for g in games if (f := folded(g)) is not None}
    assert {kind[game] for game, _ in want} == {"klaverjas", "klaberjass", "kloepper"}
    assert any(r["legal"] is None for r in want.values())
    assert any(r["legal"] is False for r in want.values())
    assert any(r["won_trick"] is None for r in want.values())  # an unfinished trick
    assert got.keys() == want.keys()
    for key, row in want.items():
        assert got[key] == row, key


def test_events_equal_the_log(games: list[list[Event]], exported: dict[str, pa.Table]) -> None:
    want = by_key([row for g in games for row in reference_events(g)])
    got = by_key(exported["events"].to_pylist())
    assert len(got) == len(want) == sum(len(g) for g in games)
    for key, row in want.items():
        assert got[key] == row, key


def test_chunk_size_changes_no_value(games: list[list[Event]], tmp_path: Path,
                                     exported: dict[str, pa.Table]) -> None:
    export_games(games, tmp_path / "one", chunk_games=1)
    export_games(games, tmp_path / "all", chunk_games=len(games))
    one, whole = tables(tmp_path / "one"), tables(tmp_path / "all")
    assert one.keys() == whole.keys() == exported.keys()
    for t in whole:
        assert one[t].equals(whole[t]) and exported[t].equals(whole[t]), t
