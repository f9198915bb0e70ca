"""A shared log (``jaslog dump GAME --seat N`` / ``--public``): for every game of the registry
and every sight, a valid log that folds, that shows no card the sight did not see at the
table (as the viewer's frames show it), and that scores the finished rounds as the record."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.events import Event, canonical_json, event_from_dict
from jaslog.games import GAMES
from jaslog.play.audit import game_report
from jaslog.play.fold import fold
from jaslog.play.share import NOT_SHOWN, NotShareable, shared_log
from jaslog.play.sim import Faults, simulate_game
from jaslog.play.views import Sight, frames, timeline
from jaslog.store import open_store
from tests.cli import jaslog
from tests.games.test_real_table import real_table_log

RULESETS = {name: next(iter(g.presets)) for name, g in GAMES.items()}
CARD = re.compile(r"^(7|8|9|10|J|Q|K|A)[CDHS]$")


@cache
def simulated(name: str, seed: int, faults: Faults = Faults()) -> tuple[Event, ...]:
    return tuple(event_from_dict(d) for d in
                 simulate_game(f"sh{seed}", RULESETS[name], seed=seed, faults=faults))


def _add(out: list[Event], d: dict[str, Any]) -> None:
    out.append(event_from_dict({"game": out[0].game, "seq": len(out), **d}))


def _copy(out: list[Event], e: Event) -> None:
    out.append(e.model_copy(update={"seq": len(out)}))


def deals(evs: list[Event] | tuple[Event, ...]) -> list[int]:
    return [i for i, e in enumerate(evs) if e.type == "dealt"]


def played_round(name: str, seed: int = 3) -> tuple[list[Event], int, int]:
    """A simulated game and where its second played-out round starts and ends (the index of
    its deal and of the next deal)."""
    sim = list(simulated(name, seed))
    rep = game_report("g", fold(sim))
    starts = deals(sim)
    for k, r in enumerate(rep["rounds"][:-1]):
        if k and r["result"] not in ("annulled", "unfinished") and r["ruling"] is None:
            return sim, starts[k], starts[k + 1]
    raise AssertionError("no played round")


def typo_live(name: str) -> tuple[list[Event], int, str]:
    """A game cut in the middle of a round, in which the scorer recorded a seat's card
    before the one it played and retracted it: that card is still in its hand. Returns the
    log, the seat and the card of the typo."""
    sim, start, end = played_round(name)
    plays = [i for i in range(start, end) if sim[i].type == "play"]
    at = plays[len(plays) // 3]
    e: Any = sim[at]
    later = next(sim[i] for i in plays if i > at and getattr(sim[i], "seat", None) == e.seat)
    typo: str = later.card  # type: ignore[attr-defined]
    out: list[Event] = []
    for x in sim[:at]:
        _copy(out, x)
    _add(out, {"type": "play", "seat": e.seat, "card": typo})
    _add(out, {"type": "correction", "retracts": [len(out) - 1], "reason": f"typo: {typo}"})
    _add(out, {"type": "note", "text": f"seat {e.seat} still holds {typo}"})
    _add(out, {"type": "irregularity", "kind": "exposed_card", "seat": e.seat, "cards": [e.card],
               "text": f"dropped {e.card}"})
    _copy(out, e)
    return out, e.seat, typo


def ruled_unplayed(name: str) -> list[Event]:
    """A game whose round was ruled with cards unplayed (its hands stay secret), then the
    next round dealt and partly played."""
    sim, start, end = played_round(name)
    plays = [i for i in range(start, end) if sim[i].type == "play"]
    nxt = [i for i in deals(sim) if i >= end]
    out: list[Event] = []
    for x in sim[:plays[3]]:
        _copy(out, x)
    number = len(fold(out).state.rounds)
    scores = 2 if GAMES[name].scoring == "teams" else GAMES[name].players
    _add(out, {"type": "ruling", "round": number, "score": [0] * scores,
               "reason": "abandoned: a card fell"})
    for x in sim[end:nxt[1] if len(nxt) > 1 else len(sim)][:9]:
        _copy(out, x)
    return out


def finished_rounds(name: str) -> list[Event]:
    """A game with revokes and rounds without hands, cut before its fifth deal (no round
    is being played)."""
    sim = simulated(name, 5, Faults(revoke_rate=0.05, no_hands_rate=0.4))
    return list(sim[:deals(sim)[4]])


def sequence_live(name: str) -> list[Event] | None:
    """A game cut just after a declaration that others know by its length only (Klaberjass:
    a sequence before the first trick is over), when the game has one."""
    sim = simulated(name, 3)
    for i, e in enumerate(sim):
        if e.type == "sequence":
            return list(sim[:i + 1])
    return None


CASES = ("finished_rounds", "real_table", "typo_live", "ruled_unplayed", "sequence_live")


def case_log(name: str, case: str) -> list[Event] | None:
    if case == "finished_rounds":
        return finished_rounds(name)
    if case == "real_table":
        return real_table_log(name)
    if case == "typo_live":
        return typo_live(name)[0]
    if case == "ruled_unplayed":
        return ruled_unplayed(name)
    return sequence_live(name)


def sights(name: str) -> list[Sight]:
    return [*(Sight(seat=s) for s in range(GAMES[name].players)), Sight(public=True)]


def share(events: list[Event], sight: Sight, **kw: Any) -> list[Event]:
    return shared_log(events, seat=sight.seat, public=sight.public, **kw)


def cards_in(obj: Any, skip: tuple[str, ...] = ()) -> set[str]:
    """Every card named in ``obj`` (an event, a frame), but in the fields ``skip``."""
    if isinstance(obj, str):
        return {obj} if CARD.match(obj) else set()
    if isinstance(obj, dict):
        return set().union(*(cards_in(v, skip) for k, v in obj.items() if k not in skip))
    if isinstance(obj, list):
        return set().union(*(cards_in(v, skip) for v in obj))
    return set()


def seen_by_round(events: list[Event], sight: Sight) -> dict[int, set[str]]:
    """The cards the sight saw of each round, by the viewer's frames (not their text)."""
    out: dict[int, set[str]] = {}
    for fr in frames(timeline(events), sight):
        out.setdefault(fr["round"], set()).update(cards_in(fr, skip=("text",)))
    return out


def shown_by_round(log: list[Event]) -> dict[int, set[str]]:
    """The cards each round's events of a log show (not in free text)."""
    tl = timeline(log)
    out: dict[int, set[str]] = {}
    for i, e in enumerate(log[1:], 1):
        out.setdefault(tl.round_of[i], set()).update(
            cards_in(e.model_dump(exclude_none=True), skip=("text", "reason", "game")))
    return out


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", list(GAMES))
def test_every_sight_shares_a_log_that_folds_and_shows_only_what_it_saw(name: str,
                                                                          case: str) -> None:
    events = case_log(name, case)
    if events is None:
        pytest.skip(f"{name} has no declaration known by its length only")
    for sight in sights(name):
        log = share(events, sight)
        f = fold(log)  # a valid log: it folds without error
        assert [e.seq for e in log] == list(range(len(log)))
        shared = log[0].meta["shared"]  # type: ignore[attr-defined]
        assert shared == ({"seat": sight.seat} if sight.seat is not None else {"public": True}) \
            | {"from_events": len(events), "left_out": shared["left_out"]}
        seen, shown = seen_by_round(events, sight), shown_by_round(log)
        for number, cards in shown.items():
            leaked = cards - seen.get(number, set())
            assert not leaked, (sight, number, sorted(leaked))
        # what the sight may see whole is the record's own: the rounds score as recorded
        tl = timeline(events)
        full = game_report("g", fold(events))["rounds"]
        mine = game_report("g", f)["rounds"]
        hidden = tl.hidden_rounds(sight)
        assert len(mine) == (len(full) if not sight.public else
                             len(full) - (tl.live_round is not None))
        for a, b in zip(full, mine, strict=False):
            if a["round"] not in hidden:
                assert (b["score"], b["final"]) == (a["score"], a["final"]), (sight, a["round"])


@pytest.mark.parametrize("name", list(GAMES))
def test_a_retracted_card_still_in_hand_is_left_out_with_its_correction(name: str) -> None:
    events, seat, typo = typo_live(name)
    tl = timeline(events)
    assert tl.live_round is not None
    for sight in sights(name):
        log = share(events, sight)
        live = deals(log)[-1]  # the round being played, for a seat
        text = b"".join(canonical_json(e) for e in log[live:]).decode()
        types = [e.type for e in log[live:]]
        if sight.public:  # the round being played is not shown at all
            assert len(fold(log).state.rounds) == tl.live_round - 1
        elif sight.seat == seat:  # its own card: the typo and the correction stay
            assert "correction" in types and f'"card":"{typo}"' in text
            assert NOT_SHOWN in text and f"typo: {typo}" not in text
            assert log[0].meta["shared"]["left_out"] == 1  # type: ignore[attr-defined]
        else:
            assert "correction" not in types and f'"card":"{typo}"' not in text
            assert log[0].meta["shared"]["left_out"] == 3  # type: ignore[attr-defined]
        if not sight.public:  # the card shown at the table stays, not the scorer's text
            irr = next(e for e in log if e.type == "irregularity")
            assert irr.cards and irr.text is None  # type: ignore[attr-defined]
            assert "note" not in types[-3:]
            dealt = [e.hands is not None for e in log if e.type == "dealt"]  # type: ignore[attr-defined]
            assert dealt == [n not in tl.secret_rounds for n in range(1, len(dealt) + 1)]
            assert not dealt[-1]


@pytest.mark.parametrize("name", list(GAMES))
def test_a_seat_shares_a_finished_game_as_recorded(name: str) -> None:
    events = list(simulated(name, 4))
    assert fold(events).state.finished
    for seat in range(GAMES[name].players):
        log = shared_log(events, seat=seat)
        assert log[0].meta == {"shared": {"seat": seat, "from_events": len(events),  # type: ignore[attr-defined]
                                          "left_out": 0}}
        # the same events, but the meta, the Klaberjass stock nobody saw, and the hands of
        # a deal annulled in the bidding (never played: they stay secret)
        secret = timeline(events).secret_rounds
        assert all(GAMES[name].players == 2 for _ in secret)
        number = 0
        for a, b in zip(events[1:], log[1:], strict=True):
            number += a.type == "dealt"
            drop = {"stock", "hands"} if number in secret else {"stock"}
            assert b.model_dump(exclude_none=True) == a.model_dump(exclude_none=True,
                                                                   exclude=drop)


@pytest.mark.parametrize("seed", [5, 6])
@pytest.mark.parametrize("name", list(GAMES))
def test_the_public_log_of_a_finished_game_scores_its_rounds_as_recorded(name: str,
                                                                         seed: int) -> None:
    events = list(simulated(name, seed, Faults(revoke_rate=0.03)))
    rec = game_report("g", fold(events))
    pub = game_report("g", fold(shared_log(events, public=True)))
    assert rec["finished"] and pub["finished"]
    keys = ("round", "result", "score", "final", "totals")
    assert [{k: r[k] for k in keys} for r in pub["rounds"]] == \
        [{k: r[k] for k in keys} for r in rec["rounds"]]
    assert (pub["totals"], pub["winner"]) == (rec["totals"], rec["winner"])


@pytest.mark.parametrize("name", list(GAMES))
def test_a_shared_log_carries_the_certificate_only_when_it_is_the_whole_record(name: str) -> None:
    """A digest of a record that holds what the sight may not see (a live round's hands, a
    Klaberjass stock) would let a search over the unplayed cards find them: the log carries
    the record's certificate only when it is that record unchanged."""
    events = list(simulated(name, 4))
    whole = GAMES[name].players == 4  # no stock, no annulled deal
    for kw in ({"seat": 0}, {"public": True}):
        shared = shared_log(events, certificate="c0ffee", **kw)[0].meta["shared"]  # type: ignore[arg-type, attr-defined]
        assert ("from_certificate" in shared) is whole, (kw, shared)
        live = shared_log(events[:deals(events)[1] + 3], certificate="c0ffee", **kw)
        assert "from_certificate" not in live[0].meta["shared"], kw  # type: ignore[attr-defined]


def test_a_ruling_reason_waits_for_the_end_of_the_game_for_the_public() -> None:
    events = ruled_unplayed("klaverjas")
    pub = shared_log(events, public=True)
    ruling = next(e for e in pub if e.type == "ruling")
    assert ruling.reason == "its reason is shown when the game is over"  # type: ignore[attr-defined]
    seat = shared_log(events, seat=0)
    assert next(e for e in seat if e.type == "ruling").reason == "abandoned: a card fell"  # type: ignore[attr-defined]


def test_what_cannot_be_shared_is_said() -> None:
    events = list(simulated("klaverjas", 3))[:20]
    with pytest.raises(NotShareable, match="seat 4: a klaverjas game has seats 0 to 3"):
        shared_log(events, seat=4)
    with pytest.raises(NotShareable, match="not both"):
        shared_log(events, seat=1, public=True)
    last = next(e for e in reversed(events) if e.type == "play")
    broken = [*events, last.model_copy(update={"seq": 20})]  # a card played twice
    with pytest.raises(NotShareable, match=r"does not fold: game sh3 seq 20: .*\[") as err:
        shared_log(broken, public=True)
    assert err.value.code == "not_shareable"


# ---------------------------------------------------------------------- jaslog dump


@pytest.fixture
def store(tmp_path: Path) -> str:
    db = str(tmp_path / "share.sqlite")
    events, _, _ = typo_live("klaberjass")
    with open_store(db) as st:
        st.import_lines([canonical_json(e) for e in events])
    return db


def test_dump_seat_and_public_write_logs_that_check_folds(store: str, tmp_path: Path) -> None:
    head = orjson.loads(jaslog("show", "sh3", "--json", "--db", store).stdout)
    for args in (["--seat", "0"], ["--seat", "1"], ["--public"]):
        r = jaslog("dump", "sh3", *args, "--db", store)
        assert r.returncode == 0, r.stderr
        lines = [orjson.loads(x) for x in r.stdout.splitlines()]
        # the record holds what the sight may not see: no digest of it goes with the log
        assert "from_certificate" not in lines[0]["meta"]["shared"], args
        assert head["certificate"] not in r.stdout.decode() and head["head"] not in r.stdout.decode()
        assert [x["seq"] for x in lines] == list(range(len(lines)))
        path = tmp_path / "shared.jsonl"
        path.write_bytes(r.stdout)
        checked = jaslog("check", "--json", str(path))
        assert checked.returncode in (0, 1), checked.stdout
        assert orjson.loads(checked.stdout)["error"] is None
    text = jaslog("dump", "sh3", "--public", "--format", "text", "--db", store, text=True)
    assert text.returncode == 0 and '[Shared {"public":true' in text.stdout
    # the store was only read
    assert orjson.loads(jaslog("show", "sh3", "--json", "--db", store).stdout)["certificate"] \
        == head["certificate"]


def test_dump_refuses_a_seat_the_game_does_not_have(store: str) -> None:
    r = jaslog("dump", "sh3", "--seat", "2", "--db", store, text=True)
    assert r.returncode == 2
    assert "seat 2: a klaberjass game has seats 0 to 1" in r.stderr
    r = jaslog("dump", "sh3", "--seat", "1", "--public", "--db", store, text=True)
    assert r.returncode == 2 and "not both" in r.stderr
