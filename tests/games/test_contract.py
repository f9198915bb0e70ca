"""The game contract: one test class, run for every game of :data:`jaslog.games.GAMES`.

A game is one :class:`jaslog.engine.game.Game` descriptor and the package behind it; every
layer reads the descriptor and never branches on a game's name. :class:`TestGameContract`
checks, for each game and each of its presets, on games its own simulator plays (with
revokes, deals recorded without hands and false claims injected, by both bots):

1. the descriptor: names, seats and scoring agree with the fold, the presets, the result
   sets and the adapters each layer loads (``export``, ``render``, ``record``);
2. simulated games parse, fold without an integrity error, finish, and audit with the
   report's keys, one entry per deal and results the game declares;
3. what a seat and the public see: every sight of a game cut in a live round (and of a round
   ended with cards unplayed: by a ruling, a claim, a concession) runs, and two deals that
   differ only in cards a sight may not see (or a retracted play that named another card)
   give it byte-identical output through every route that shows a game: frames, state,
   events and report (the API's and the viewer's), the what-if on them (``o=``), the
   shared log (JSON Lines and the notation, with the record's certificate) and ``replay
   --seat`` (while the referee's differ);
4. the export's rows in every table, the games row agreeing with the audit;
5. the terminal table for every viewer, a seat never shown another's unplayed hand;
6. the recorder: the words a scorer types reproduce the simulated events in a real SQLite
   store;
7. the rules oracle: each of the game's ops answers a question taken from a simulated deal
   (and agrees with the fold where it can), another game's op is refused.

What differs per game and cannot be read from the descriptor is in tables each game
declares in its own folder (``<package>.contract``, see :data:`CONTRACT_TABLES`): the round results
that are not judged won, lost or tied, what a scorer types for each event, one oracle
question per op, the fields the recorder cannot type. A game added to the registry runs
here at once and fails, saying what is missing, until it declares them; the sections of
layers it declares no adapter for (``Game.adapters``) are skipped, saying so.
"""

from __future__ import annotations

import copy
import importlib
import io
import json
import os
import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from jaslog.cards import CARD_INDEX, CARD_TEXT
from jaslog.cli import app as cli_app
from jaslog.engine.fold import FoldError, GameFold, play_code
from jaslog.engine.game import ADAPTERS, Game, NoAdapter, NotSupported
from jaslog.events import Event, canonical_json, event_from_dict
from jaslog.export.plays import columns_for
from jaslog.export.rows import Partition, Rows, build_game
from jaslog.export.schema import GAME_TABLES
from jaslog.games import GAMES, PRESETS, game_of, get_game
from jaslog.notation import write_game
from jaslog.play.audit import REPORT_KEYS, game_report
from jaslog.play.fold import fold, start_fold
from jaslog.play.oracle import GAME_OPS, OPS, SOLVE, QueryError, answer
from jaslog.play.render import card_markup, hand_markup, render_table
from jaslog.play.share import shared_log
from jaslog.play.sim import BOT_NAMES, Faults, simulate_game
from jaslog.play.views import (
    PUBLIC,
    Sight,
    Timeline,
    frames,
    report,
    seen_of,
    state_at,
    timeline,
    visible_events,
)
from jaslog.play.whatif import what_if_view
from jaslog.record import Recorder, open_recorder, run
from jaslog.store import open_store
from jaslog.store.codec import link
from jaslog.store.compact import time_code, time_text
from jaslog.store.projection import facts_of
from jaslog.store.types import certificate

GAME_LIST = list(GAMES.values())
#: the faults every simulated game of the contract carries
FAULTS = Faults(revoke_rate=0.03, no_hands_rate=0.25, false_roem_rate=0.2)
SEEDS = (1, 2)
#: an event's fields that name cards anyone at the table sees (played, turned up, declared)
PUBLIC_CARDS = ("card", "cards", "turn_up", "bottom")
#: the events that say who holds which cards (and what the stock holds)
DEAL_EVENTS = ("dealt", "second_deal")
#: the pairs of hidden cards tried per cut game (a fixed sample, when there are more)
MOST_PAIRS = 100
#: the cut every sight's every route is tried on in ``make test`` (the others: ``make soak``)
SAMPLE_CUT = "live, half played"

Dict = dict[str, Any]


# ================================================================== per-game tables

#: The tables each game declares in its own folder (``<package>.contract``, helpers in
#: :mod:`jaslog.engine.contract`): the results a closed round may have that are judged
#: neither won, lost nor tied (``NOT_JUDGED``), what a scorer types for each event
#: (``WORDS``), one oracle question per op (``ORACLE``) and the fields the recorder cannot
#: reproduce from typed words (``UNTYPED``).
CONTRACT_TABLES = ("NOT_JUDGED", "WORDS", "ORACLE", "UNTYPED")


def table_of(game: Game, what: str) -> Any:
    """The game's rows of table ``what`` (one of :data:`CONTRACT_TABLES`), from its ``contract``
    module, or a failure that says what is missing."""
    try:
        rows = importlib.import_module(f"{game.package}.contract")
    except ModuleNotFoundError:
        pytest.fail(f"{game.name} has no {game.package}.contract declaring its rows of the "
                    f"contract test's tables ({', '.join(CONTRACT_TABLES)})", pytrace=False)
    if not hasattr(rows, what):
        pytest.fail(f"{game.package}.contract does not declare {what}", pytrace=False)
    return getattr(rows, what)


def needs(game: Game, layer: str) -> None:
    """Skip a section of the contract for a layer the game declares no adapter for."""
    if not game.supports(layer):
        pytest.skip(f"{game.name} has no {layer}")


# ================================================================== simulated games


@dataclass(frozen=True)
class Sim:
    """One simulated game: its settings and its events as the simulator wrote them."""

    ruleset: str
    bot: str
    seed: int
    events: tuple[Dict, ...]

    @property
    def dicts(self) -> list[Dict]:
        return copy.deepcopy(list(self.events))


@cache
def corpus(name: str) -> tuple[Sim, ...]:
    """Every preset of the game, both bots, two seeds, faults injected."""
    out = []
    for ruleset in GAMES[name].presets:
        for bot in BOT_NAMES:
            for seed in SEEDS:
                gid = f"{ruleset}-{bot}-{seed}"
                out.append(Sim(ruleset, bot, seed, tuple(simulate_game(
                    gid, ruleset, seed=seed, bot=bot, faults=FAULTS))))
    return tuple(out)


def parsed(events: list[Dict] | tuple[Dict, ...]) -> list[Event]:
    return [event_from_dict(e) for e in events]


def folded(events: list[Dict] | tuple[Dict, ...]) -> GameFold:
    return fold(parsed(events))


@cache
def audited(name: str) -> tuple[tuple[Sim, GameFold, Dict], ...]:
    """Each simulated game with its fold and its audit."""
    out = []
    for sim in corpus(name):
        f = folded(sim.events)
        out.append((sim, f, game_report(f.game_id, f)))
    return tuple(out)


def deal_starts(events: list[Dict] | tuple[Dict, ...]) -> list[int]:
    return [i for i, e in enumerate(events) if e["type"] == "dealt"]


def text_of(renderable: Any) -> str:
    console = Console(record=True, width=100, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


# ================================================================== cut games and hidden cards


@dataclass
class Cut:
    """A simulated game cut while round ``round`` (dealt at ``start``) holds secrets."""

    what: str
    events: list[Dict]
    start: int
    round: int

    @property
    def end(self) -> int:
        """Where the round's events end in the cut."""
        return round_end(self.events, self.start)


def pack_of(name: str) -> set[str]:
    """The cards of the game's pack: every card its simulated games dealt or played."""
    cards: set[str] = set()
    for sim in corpus(name):
        for e in sim.events:
            for h in e.get("hands") or []:
                cards.update(h)
            cards.update(e.get("stock") or [])
            if e["type"] == "play":
                cards.add(e["card"])
    return cards


def round_end(events: list[Dict] | tuple[Dict, ...], start: int) -> int:
    return next((i for i in range(start + 1, len(events)) if events[i]["type"] == "dealt"),
                len(events))


@cache
def cuts(name: str) -> tuple[Cut, ...]:
    """The game cut in a live round (just dealt, before its first card, half played), the
    same round ended there by a ruling, a claim or a concession (cards unplayed), and a
    round that ended with cards unplayed without one when the simulated games have such a
    round (a Klaberjass deal annulled in the bidding).

    The live round is round 2 or 3 of a game of the corpus, with hands recorded: the one
    with the most events before its first card (bids, calls, knocks, declarations).
    """
    best: tuple[int, Sim, int] | None = None
    for candidate in corpus(name):
        sim_events = candidate.events
        for start in deal_starts(sim_events)[1:3]:
            plays = [i for i in range(start, round_end(sim_events, start))
                     if sim_events[i]["type"] == "play"]
            if sim_events[start].get("hands") is not None and len(plays) >= 8 and (
                    best is None or plays[0] - start > best[0]):
                best = (plays[0] - start, candidate, start)
    assert best is not None, f"no simulated {name} deal 2 or 3 with hands and eight cards played"
    _, sim, start = best
    evs = sim.dicts
    k = deal_starts(evs).index(start) + 1
    plays = [i for i in range(start, round_end(evs, start)) if evs[i]["type"] == "play"]
    mid = plays[len(plays) // 2]
    out = [Cut("live, just dealt", evs[:start + 1], start, k)]
    if plays[0] > start + 1:
        out.append(Cut("live, before its first card", evs[:plays[0]], start, k))
    out.append(Cut("live, half played", evs[:mid], start, k))
    totals = len(folded(evs[:mid]).state.totals())
    ruling = {"game": evs[0]["game"], "seq": mid, "type": "ruling", "round": k,
              "score": [0] * totals, "reason": "abandoned with cards unplayed"}
    out.append(Cut("ended by a ruling with cards unplayed", [*evs[:mid], ruling], start, k))
    # a claim (or a concession) ends the play before the last card: its unplayed cards stay
    # as secret as a ruled round's
    f = folded(evs[:mid])
    _, turn = f.state.expected()
    for what, gives in (("claimed", "rest_to_claimer"), ("conceded", "rest_to_opponents")):
        claim = {"game": evs[0]["game"], "seq": mid, "type": "claim", "seat": turn,
                 "gives": gives}
        out.append(Cut(f"{what} with cards unplayed", [*evs[:mid], claim], start, k))
    for sim2, f, _ in audited(name):
        found = [(k2, s2) for k2, s2 in enumerate(deal_starts(sim2.events), 1)
                 if f.state.rounds[k2 - 1].closed and not f.state.rounds[k2 - 1].over
                 and sim2.events[s2].get("hands") is not None]
        if found:
            k2, s2 = found[0]
            evs2 = sim2.dicts
            out.append(Cut("ended with cards unplayed", evs2[:round_end(evs2, s2)], s2, k2))
            break
    return tuple(out)


@cache
def typo_variants(name: str) -> list[tuple[int, list[Event]]]:
    """The half-played live cut of the game with a retracted play inserted before the next
    card: the seat due, then a correction retracting it, then the card it played. One
    variant per other card that seat still holds and plays later in the round (the holder,
    and the events)."""
    cut = next(c for c in cuts(name) if c.what == "live, half played")
    sim = next(s for s in corpus(name) if list(s.events[:len(cut.events)]) == cut.events)
    evs = sim.dicts
    mid = len(cut.events)
    nxt = evs[mid]
    assert nxt["type"] == "play", nxt
    seat = nxt["seat"]
    later = [e["card"] for e in evs[mid + 1:round_end(evs, cut.start)]
             if e["type"] == "play" and e["seat"] == seat]
    out = []
    for typo in later[:2]:
        gid = evs[0]["game"]
        extra = [{"game": gid, "seq": mid, "type": "play", "seat": seat, "card": typo},
                 {"game": gid, "seq": mid + 1, "type": "correction", "retracts": [mid],
                  "reason": f"typo: {typo}"},
                 {**nxt, "seq": mid + 2}]
        out.append((seat, parsed([*evs[:mid], *extra])))
    return out


def round_cards(cut: Cut) -> tuple[dict[str, int | str], set[str]]:
    """Who holds each card dealt in the cut's round (a seat, or ``stock``), and the cards
    anyone at the table has seen (played, turned up, declared)."""
    owner: dict[str, int | str] = {}
    public: set[str] = set()
    for e in cut.events[cut.start:cut.end]:
        if e["type"] in DEAL_EVENTS:
            for c in e.get("stock") or []:
                owner.setdefault(c, "stock")
            for seat, hand in enumerate(e.get("hands") or []):
                for c in hand:
                    owner[c] = seat
        for key in PUBLIC_CARDS:
            v = e.get(key)
            if isinstance(v, str):
                public.add(v)
            elif isinstance(v, list):
                public.update(v)
    return owner, public


def swap_cards(e: Dict, a: str, b: str) -> Dict:
    """A deal event with cards ``a`` and ``b`` trading places (in the hands and the stock)."""
    swap = {a: b, b: a}
    out = dict(e)
    if e.get("hands") is not None:
        out["hands"] = [[swap.get(c, c) for c in h] for h in e["hands"]]
    if e.get("stock") is not None:
        out["stock"] = [swap.get(c, c) for c in e["stock"]]
    return out


def secrets(f: GameFold) -> tuple[int, list[bool], list[bool], list[list[int] | None]]:
    """The rounds dealt, which are closed and which over (what the views judge by), and the
    score sheet: what counts of each closed round. The sheet is public, so a swap that
    changes it (a claimed round scored with a revoke's penalty) is told apart by the sheet,
    as at the table, and is not one of the swaps a sight must not tell apart."""
    rounds = f.state.rounds
    return (len(rounds), [r.closed for r in rounds], [r.over for r in rounds],
            [list(o.final) if r.closed else None
             for r, o in zip(rounds, f.state.outcomes(), strict=True)])


@dataclass
class Swap:
    """The cut game with two cards of its round's deal trading places (still a valid record)."""

    a: str
    b: str
    owners: tuple[int | str, int | str]
    events: list[Event]
    fold: GameFold
    #: the swap changes what the referee sees beyond the hands (whose turn, sides, verdicts)
    derived: bool

    @property
    def tl(self) -> Timeline:
        return timeline(self.events)

    def __str__(self) -> str:
        return f"{self.a} (held by {self.owners[0]}) and {self.b} (held by {self.owners[1]})"


def _beyond_hands(game: Game, f: GameFold) -> str:
    v = game.seat_view(f, None)
    return json.dumps({k: x for k, x in v.items() if k not in ("hands", "dealt", "legal", "stock")},
                      sort_keys=True)


@cache
def swaps(name: str, n: int) -> tuple[Timeline, tuple[Swap, ...]]:
    """The timeline of cut ``n`` of the game, and every swap of two cards nobody at the
    table has seen, held by different seats (or one in the stock, or never dealt), that
    leaves a record the fold takes, with the same rounds live, closed and over."""
    game = GAMES[name]
    cut = cuts(name)[n]
    events = parsed(cut.events)
    tl = timeline(events)
    assert tl.error is None and tl.fold is not None, (cut.what, tl.error)
    shape = secrets(tl.fold)
    deals = [i for i in range(cut.start, cut.end) if cut.events[i]["type"] in DEAL_EVENTS]
    owner, public = round_cards(cut)
    hidden = sorted(pack_of(name) - public, key=CARD_INDEX.__getitem__)
    base = _beyond_hands(game, tl.fold)
    pairs = [(a, b) for i, a in enumerate(hidden) for b in hidden[i + 1:]
             if owner.get(a, "unseen") != owner.get(b, "unseen")
             and {owner.get(a, "unseen"), owner.get(b, "unseen")} != {"stock", "unseen"}]
    random.Random(f"{name}/{n}").shuffle(pairs)
    out = []
    for a, b in pairs[:MOST_PAIRS]:
        evs = list(events)
        for d in deals:
            evs[d] = event_from_dict(swap_cards(cut.events[d], a, b))
        try:
            f = fold(evs)
        except FoldError:
            continue  # not a deal the record could hold at this point
        if secrets(f) == shape:
            owners = (owner.get(a, "unseen"), owner.get(b, "unseen"))
            out.append(Swap(a, b, owners, evs, f, _beyond_hands(game, f) != base))
    return tl, tuple(out)


def swaps_hidden_from(name: str, n: int, seat: int | None, most: int) -> list[Swap]:
    """Up to ``most`` swaps of cards ``seat`` (None: the public) does not hold: those that
    change what the referee sees beyond the hands first, then others, in a fixed order."""
    _, found = swaps(name, n)
    mine = [s for s in found if seat is None or seat not in s.owners]
    rng = random.Random(f"{name}/{n}/{seat}")
    rng.shuffle(mine)
    mine.sort(key=lambda s: not s.derived)
    return mine[:most]


#: the what-if asked of every sight (``?o=`` and ``--option``): a revoke refused outright, and
#: a revoke not punished (what either gives must never tell whose hand held what)
WHAT_IFS = (("revoke=reject",), ("revoke=ignore",))


def record_certificate(events: list[Event]) -> str:
    """A certificate of the record as the store gives one: its head hash, shortened."""
    h = bytes(32)
    for e in events:
        h = link(h, canonical_json(e))
    return certificate(h.hex())


def seen(tl: Timeline, sight: Sight, *, replayed: bool = False) -> dict[str, str]:
    """Everything ``sight`` is given of the game through every route that shows it: the
    views (:mod:`jaslog.play.views`: the API's state, events and audit, the viewer's frames),
    the what-if on them (``o=``), the shared log (``dump --seat/--public``, JSON Lines and
    the notation) and, with ``replayed``, ``replay --seat`` (slow: a sample only)."""
    out = {
        "frames": json.dumps(frames(tl, sight), sort_keys=True),
        "state_at": json.dumps(state_at(tl, None, sight), sort_keys=True),
        "visible_events": json.dumps(visible_events(tl, sight), sort_keys=True),
        "report": json.dumps(report(tl, sight), sort_keys=True),
    }
    for options in WHAT_IFS:
        wtl, comparison = what_if_view(tl, sight, None, options)
        out[f"what-if {' '.join(options)}"] = json.dumps(
            [comparison, frames(wtl, sight), report(wtl, sight)], sort_keys=True)
    if not sight.full:  # the referee shares the record itself
        log = shared_log(tl.events, seat=sight.seat, public=sight.public,
                         certificate=record_certificate(tl.events))
        out["shared log"] = b"".join(canonical_json(e) + b"\n" for e in log).decode()
        out["shared log as text"] = write_game(log)
    if replayed and sight.seat is not None:
        # one path for every replay (its messages name it): this process's own
        path = Path(tempfile.gettempdir()) / f"jaslog-contract-{os.getpid()}.jsonl"
        path.write_bytes(b"".join(canonical_json(e) + b"\n" for e in tl.events))
        try:
            for extra in ([], ["-o", "revoke=reject"]):
                r = CliRunner().invoke(cli_app, ["replay", str(path), "--seat", str(sight.seat),
                                                 *extra])
                # the what-if rules may refuse a revoke of a round played out (exit 2)
                assert r.exit_code == 0 or (extra and r.exit_code == 2), r.output
                out[" ".join(["replay --seat", *extra])] = f"exit {r.exit_code}\n{r.output}"
        finally:
            path.unlink()
    return out


def _cards(obj: Any) -> set[str]:
    """Every card an event names (in its card fields, hands and stock)."""
    if isinstance(obj, dict):
        return set().union(*(_cards(v) for k, v in obj.items()
                             if k in ("card", "cards", "hands", "stock", "turn_up", "bottom")
                             or isinstance(v, list)))
    if isinstance(obj, list):
        return set().union(*(_cards(v) if not isinstance(v, str) else
                             ({v} if v in CARD_INDEX else set()) for v in obj))
    return {obj} if isinstance(obj, str) and obj in CARD_INDEX else set()


def _played(f: GameFold, seat: int, card: int, at: str | None, *, ints: bool) -> Any:
    """What ``f`` says to the play of ``card`` by ``seat`` at its next seq, given as ints
    (``apply_play``) or as an event: the error's text and parts, or the game's audit."""
    try:
        if ints:
            f.apply_play(seat, card, at)
        else:
            f.apply(event_from_dict({"game": f.game_id, "seq": f.next_seq, "type": "play",
                                     "at": at, "seat": seat, "card": CARD_TEXT[card]}))
    except FoldError as err:
        return (str(err), err.code, err.seat, err.card, err.seq)
    return game_report(f.game_id, f)


def first_difference(a: str, b: str) -> str:
    i = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"...{a[max(0, i - 150):i + 100]}... vs ...{b[max(0, i - 150):i + 100]}..."


def sights(game: Game) -> list[Sight]:
    return [*(Sight(seat=s) for s in range(game.players)), Sight(public=True)]


# ================================================================== the contract

IDS = [g.name for g in GAME_LIST]


class GameContract:
    """What every game of the registry must do, as every layer relies on it (parametrized
    over a game: :class:`TestGameContract` over the registry's, a game registered at run
    time by its own test module)."""

    # ------------------------------------------------------------ 1. the descriptor

    def test_descriptor_names_the_game_its_package_and_its_presets(self, game: Game) -> None:
        assert GAMES[game.name] is game and get_game(game.name) is game
        assert game.package.split(".")[-1] == game.name
        assert importlib.import_module(game.package).GAME is game
        view = importlib.import_module(f"{game.package}.view")
        assert game.seat_view is view.seat_view and game.redact_event is view.redact_event
        assert game.title and game.round_word
        assert bool(game.score_example) == bool(game.oracle_ops)
        assert game.presets, f"{game.name} has no preset"
        for preset, values in game.presets.items():
            assert values["game"] == game.name, preset
            assert PRESETS[preset] is values and game_of(preset) == game.name
            assert set(values) <= set(game.options), (preset, set(values) - set(game.options))
            opts = game.resolve(preset, None)
            assert opts["game"] == game.name and set(opts) == set(game.options), preset
            if game.score_example:
                example = game.score_example.format(ruleset=preset)
                assert '"op": "score"' in example and f'"{preset}"' in example

    def test_descriptor_agrees_with_the_fold(self, game: Game) -> None:
        assert game.fold.game == game.name and game.fold.players == game.players
        assert game.scoring in ("teams", "players")
        want = 2 if game.scoring == "teams" else game.players
        seats = [f"p{i}" for i in range(game.players)]
        for preset in game.presets:
            start = {"game": "d", "seq": 0, "type": "game_started", "ruleset": preset,
                     "seats": seats, "dealer": 0}
            f = start_fold(event_from_dict(start))
            assert type(f) is game.fold and f.game == game.name
            assert len(f.state.totals()) == want, (preset, f.state.totals())
            assert f.state.expected() == ("deal", 0)
            for wrong in [n for n in (2, 4) if n != game.players]:  # the tables the format knows
                with pytest.raises(FoldError) as e:
                    start_fold(event_from_dict(start | {"seats": [f"p{i}" for i in range(wrong)]}))
                assert e.value.code == "bad_seats"

    def test_descriptor_results_and_oracle_ops(self, game: Game) -> None:
        assert game.won and game.lost, "a game has results its playing side won and lost"
        assert not game.won & game.lost and not game.won & game.tied and not game.lost & game.tied
        not_judged = table_of(game, "NOT_JUDGED")
        assert not not_judged & (game.won | game.lost | game.tied)
        assert "unfinished" not in game.won | game.lost | game.tied | not_judged
        assert len(set(game.oracle_ops)) == len(game.oracle_ops)
        assert GAME_OPS.get(game.name, ()) == game.oracle_ops

    def test_descriptor_adapters_load_for_every_layer(self, game: Game) -> None:
        wanted = {"export": "build", "render": "render", "record": "RECORDER", "solver": "deals"}
        assert set(wanted) == set(ADAPTERS), "a layer was added: say what it needs of a game"
        assert game.adapters <= set(ADAPTERS) and {"export", "render"} <= game.adapters
        for layer in ADAPTERS:
            if not game.supports(layer):
                with pytest.raises(NotSupported, match=f"^{game.name} has no {layer} ") as e:
                    game.adapter(layer)
                assert e.value.code == "not_supported"
                continue
            mod = game.adapter(layer)
            assert mod.__name__ == f"{game.package}.{layer}"
            assert callable(getattr(mod, wanted[layer], None)), (layer, wanted[layer])
        with pytest.raises(NoAdapter):
            game.adapter("service")
        if game.supports("record"):
            rec = game.adapter("record").RECORDER
            assert issubclass(rec, Recorder) and rec.game_name == game.name
            assert rec.round_word == game.round_word
            assert rec.score_count == (2 if game.scoring == "teams" else game.players)

    # ------------------------------------------------------------ 2. simulated games

    def test_simulated_games_parse_fold_finish_and_audit(self, game: Game) -> None:
        results: set[str] = set()
        violations = 0
        allowed = game.won | game.lost | game.tied | table_of(game, "NOT_JUDGED")
        teams = 2 if game.scoring == "teams" else game.players
        assert {(s.bot, s.ruleset) for s, _, _ in audited(game.name)} == {
            (b, p) for b in BOT_NAMES for p in game.presets}
        for sim, f, rep in audited(game.name):
            where = f"{sim.ruleset}/{sim.bot}/seed {sim.seed}"
            evs = parsed(sim.events)
            assert [e.model_dump(exclude_none=True) for e in evs] == list(sim.events), where
            assert type(f) is game.fold and f.state.finished, where
            assert tuple(rep) == REPORT_KEYS, where
            assert rep["error"] is None and rep["finished"] and rep["winner"] is not None, where
            assert rep["ok"] == (not rep["violations"]), where
            assert [r["round"] for r in rep["rounds"]] == list(
                range(1, len(deal_starts(sim.events)) + 1)), where
            for r in rep["rounds"]:
                assert r["result"] in allowed, (where, r["round"], r["result"])
                if game.roem_of is not None:
                    scored, held = game.roem_of(r)
                    assert isinstance(scored, int) and scored >= 0, (where, r["round"])
                    assert held is None or (isinstance(held, int) and held >= 0)
            results.update(r["result"] for r in rep["rounds"])
            assert len(rep["totals"]) == teams and all(isinstance(t, int) for t in rep["totals"])
            assert rep["totals"] == f.state.totals()
            violations += len(rep["violations"])
        assert results & game.won and results & game.lost, results
        assert violations, "the faults injected gave no violation"

    def test_the_round_facts_the_store_keeps_say_what_the_report_says(self, game: Game) -> None:
        """The facts of each closed round (:func:`jaslog.store.projection.facts_of`): the
        report's result and final score, its roem (``Game.outcome_roem`` against
        ``roem_of``), and each rule broken in the round."""
        for sim, f, rep in audited(game.name):
            where = f"{sim.ruleset}/{sim.bot}/seed {sim.seed}"
            facts = {x.round: x for x in facts_of(f)}
            closed = [r for r in f.state.rounds if r.closed]
            assert sorted(facts) == [r.number for r in closed], where
            for r in rep["rounds"]:
                x = facts.get(r["round"])
                if x is None:
                    continue
                assert (x.result, x.final) == (r["result"], r["final"]), (where, r["round"])
                if game.roem_of is None:
                    assert game.outcome_roem is None and x.roem is None
                else:
                    assert x.roem is not None and sum(x.roem) == game.roem_of(r)[0], where
                broken = [[v["seq"], v["rule"], v.get("card")] for v in rep["violations"]
                          if v.get("round") == r["round"]]
                assert sorted([s, rule] for s, rule, _ in x.verdicts or []) == \
                    sorted([s, rule] for s, rule, _ in broken), (where, r["round"])

    def test_the_audit_scores_each_round_once_and_agrees_with_the_state(self, game: Game) -> None:
        """The audit works the rounds' outcomes out once and hands them to the game's report
        and the game's winner rule (``winner_of`` the totals): at every deal of a game, and
        at its end, what it says is what the state says when asked anew."""
        sim = audited(game.name)[0][0]
        for end in [*deal_starts(sim.events)[1:], len(sim.events)]:
            f = folded(sim.events[:end])
            state = f.state
            rep = game_report(f.game_id, f)
            assert state.winner_of(state.totals()) == state.winner == rep["winner"], end
            assert state.winner_of(None) == state.winner and rep["totals"] == state.totals()
            outcomes = state.outcomes()
            assert game.report(f, outcomes) == game.report(f, state.outcomes())
            assert [r["score"] for r in game.report(f, outcomes)] == [o.score for o in outcomes]

    def test_a_play_given_as_ints_folds_as_its_event_does(self, game: Game) -> None:
        """``apply_play`` (a play's seat and card as ints, at the next seq: what a reader of
        a log's bytes or a store's columns has) gives the state, the violations, the log,
        the next seq and the last time that ``apply`` of the play event gives (its
        canonical line, or its code as a store's columns give it, kept in the log in its
        place, read once the log is asked for); and every seat's every card at a trick's
        lead and in mid-trick, refused or not, alike."""
        for sim, f, rep in audited(game.name):
            where = f"{sim.ruleset}/{sim.bot}/seed {sim.seed}"
            evs = parsed(sim.events)
            g, h = start_fold(evs[0]), start_fold(evs[0])
            for e in evs[1:]:
                if e.type == "play":
                    seat, card = e.__dict__["seat"], CARD_INDEX[e.__dict__["card"]]
                    g.apply_play(seat, card, e.at)
                    h.apply_play(seat, card, e.at, canonical_json(e))  # (its line kept)
                else:
                    g.apply(e)
                    h.apply(e)
            assert any(isinstance(x, bytes) for x in h.entries), where  # (not read yet)
            for x in (g, h):
                assert game_report(x.game_id, x) == rep, where
                assert [e.model_dump() for e in x.log] == [e.model_dump() for e in f.log], where
                assert (x.next_seq, x.last_at) == (f.next_seq, f.last_at), where
            assert not any(isinstance(x, bytes) for x in h.entries), where
            # as a store's columns give it: its code (seat, card, time code), kept in its
            # place until the log is read; four events in five timed, some in milliseconds
            timed = parsed([{**e, "at": time_text(1767641455 + 7 * i if i % 3 else
                                                  1767641455123 + 7000 * i)}
                            if i % 5 else e for i, e in enumerate(sim.events)])
            ref = fold(timed)
            c = start_fold(timed[0])
            for e in timed[1:]:
                if e.type == "play":
                    seat, card = e.__dict__["seat"], CARD_INDEX[e.__dict__["card"]]
                    at = None if e.at is None else time_code(e.at)
                    c.apply_play(seat, card, e.at, play_code(seat, card, at))
                else:
                    c.apply(e)
            assert any(type(x) is int and x >= 128 for x in c.entries), where
            assert game_report(c.game_id, c) == game_report(ref.game_id, ref), where
            assert [e.model_dump() for e in c.log] == [e.model_dump() for e in ref.log], where
            assert not any(type(y) is int for y in c.entries), where
            assert (c.next_seq, c.last_at) == (ref.next_seq, ref.last_at), where
        sim = audited(game.name)[0][0]
        plays = [i for i, e in enumerate(sim.events) if e["type"] == "play"]
        tried = refused = 0
        for cut in (plays[0], plays[1], plays[-1]):
            head = folded(sim.events[:cut])
            at = sim.events[cut].get("at")
            for seat in range(game.players):
                for card in range(32):
                    a, b = copy.deepcopy(head), copy.deepcopy(head)
                    said = [_played(a, seat, card, at, ints=True),
                            _played(b, seat, card, at, ints=False)]
                    assert said[0] == said[1], (cut, seat, card)
                    assert (a.next_seq, a.last_at, len(a.log)) == (b.next_seq, b.last_at,
                                                                   len(b.log))
                    tried += 1
                    refused += isinstance(said[0], tuple)
        assert refused and tried - refused, (tried, refused)

    def test_a_game_without_faults_is_clean_and_the_simulator_is_deterministic(self, game: Game) -> None:
        for preset in game.presets:
            evs = simulate_game("clean", preset, seed=3, faults=Faults(), bot="heuristic")
            assert evs == simulate_game("clean", preset, seed=3, faults=Faults(), bot="heuristic")
            rep = game_report("clean", folded(evs))
            assert rep["ok"] and rep["finished"], (preset, rep["violations"][:3])

    # ------------------------------------------------------------ 3. what each sight sees

    def test_every_sight_of_a_cut_game(self, game: Game) -> None:
        for n, cut in enumerate(cuts(game.name)):
            tl, _ = swaps(game.name, n)
            assert tl.fold is not None
            f = tl.fold
            live = cut.what.startswith("live")
            assert (tl.live_round == cut.round) is live and cut.round in tl.secret_rounds, cut.what
            full = game.seat_view(f, None)
            json.dumps(full)
            assert all(h is not None for h in full["hands"]), cut.what
            for s in range(game.players):  # the round is secret: a seat sees its own hand only
                v = game.seat_view(f, s)
                json.dumps(v)
                assert v.get("viewer", s) == s
                assert [h is None for h in v["hands"]] == [o != s for o in range(game.players)], (
                    cut.what, s, v["hands"])
            # the public sees no seat's secrets: no hand, no legal card, no verdict on a hand
            v = game.seat_view(f, PUBLIC, secret=True)
            json.dumps(v)
            assert all(h is None for h in v["hands"]), (cut.what, v["hands"])
            assert all(h is None for h in v.get("dealt") or []), (cut.what, v["dealt"])
            assert v["legal"] is None and v["violations"] == [], (cut.what, v)
            for sight in [*sights(game), Sight()]:
                rep = report(tl, sight)
                assert tuple(rep) == REPORT_KEYS, (cut.what, sight)
                shown = visible_events(tl, sight)
                if sight.public:
                    assert shown[-1]["seq"] == tl.horizon() and len(frames(tl, sight)) == len(shown)
                    state_at(tl, None, sight)
                    assert all(r["round"] != tl.live_round for r in rep["rounds"]), cut.what
                else:
                    assert len(frames(tl, sight)) == len(cut.events) == len(shown), (cut.what, sight)
                    assert state_at(tl, None, sight)["seq"] == cut.events[-1]["seq"]
                if not sight.full:
                    # the sight's shared log folds, with the record's totals of what it shows
                    log = shared_log(tl.events, seat=sight.seat, public=sight.public)
                    shared = fold(log)
                    assert shared.state.totals() == folded(
                        [e.model_dump(exclude_none=True) for e in tl.events[:len(
                            tl.events) if not sight.public else tl.horizon() + 1]]
                    ).state.totals(), (cut.what, sight)
                    # its what-if is of what it may see, and never stumbles on hidden cards
                    _, comparison = what_if_view(tl, sight, None, ("revoke=ignore",))
                    assert comparison["refused"] is None, (cut.what, sight, comparison["refused"])
                entry = [r for r in rep["rounds"] if r["round"] == cut.round]
                if sight.full:
                    assert entry and "hidden" not in entry[0], cut.what
                elif entry and live:
                    assert entry[0]["result"] == "unfinished", (cut.what, sight)

    def test_redact_event_gives_the_referee_the_log_and_a_sight_a_part_of_it(
            self, game: Game) -> None:
        """The game's one rule for events: the referee gets each event as logged; a seat or
        the public gets it with fields left out or blanked (``"redacted": true`` when a card
        or a text goes), never a card the event does not name, and the same again when
        asked twice; :func:`visible_events` gives what it gives."""
        for n, cut in enumerate(cuts(game.name)):
            tl, _ = swaps(game.name, n)
            for sight in [*sights(game), Sight()]:
                shown = visible_events(tl, sight)
                for i, d in enumerate(shown):
                    logged = tl.events[i].model_dump(exclude_none=True)
                    again = game.redact_event(dict(logged), sight, seen_of(tl, sight, i))
                    assert d == again, (cut.what, sight, i)
                    if sight.full:
                        assert d == logged, (cut.what, i)
                        continue
                    assert set(d) - {"redacted", "length"} <= set(logged), (cut.what, sight, d)
                    assert _cards(d) <= _cards(logged), (cut.what, sight, d)
                    if _cards(d) != _cards(logged) or set(logged) - set(d):
                        assert d.get("redacted") is True, (cut.what, sight, d)

    def test_seat_view_refuses_a_seat_not_at_the_table(self, game: Game) -> None:
        tl, _ = swaps(game.name, 0)
        assert tl.fold is not None
        for seat in (-1, game.players):
            with pytest.raises(ValueError):
                game.seat_view(tl.fold, seat)

    def test_a_sight_cannot_tell_deals_apart_that_differ_in_cards_it_may_not_see(
            self, game: Game) -> None:
        """Two deals that differ only in cards ``sight`` has not seen (traded between other
        seats' hands, or with the stock) give it byte-identical frames, state, events and
        report; the referee's differ, and so do those of a seat whose own hand changed (the
        comparison can fail). Here the round in play, half played (``SAMPLE_CUT``); the
        other cuts are ``make soak``'s, below."""
        self.no_sight_tells_apart(game, lambda what: what == SAMPLE_CUT)

    @pytest.mark.soak
    def test_a_sight_cannot_tell_deals_apart_in_every_other_cut(self, game: Game) -> None:
        """The same, for each cut of the game but ``SAMPLE_CUT``: the round just dealt,
        before its first card, and ended with cards unplayed."""
        self.no_sight_tells_apart(game, lambda what: what != SAMPLE_CUT)

    def no_sight_tells_apart(self, game: Game, tried: Callable[[str], bool]) -> None:
        """Every sight, through every route, of the cuts whose ``what`` is ``tried``."""
        checked = 0
        for n, cut in enumerate(cuts(game.name)):
            if not tried(cut.what):
                continue
            tl, found = swaps(game.name, n)
            assert found, f"{cut.what}: no two hidden cards could trade places"
            for sight in sights(game):
                mine = seen(tl, sight, replayed=True)
                for k, sw in enumerate(swaps_hidden_from(game.name, n, sight.seat, 3)):
                    theirs = seen(sw.tl, sight, replayed=not k)
                    if k:
                        mine = {key: v for key, v in mine.items()
                                if not key.startswith("replay")}
                    for key in mine:
                        assert mine[key] == theirs[key], (
                            f"{cut.what}: {sight} tells apart the deals where {sw} trade places, "
                            f"in {key}: " + first_difference(mine[key], theirs[key]))
                    checked += 1
            for sw in found[:3]:  # (the one route each that tells them apart, as seen() has it)
                assert json.dumps(visible_events(tl, Sight()), sort_keys=True) != json.dumps(
                    visible_events(sw.tl, Sight()), sort_keys=True)
                holder = next(o for o in sw.owners if isinstance(o, int))
                assert json.dumps(frames(tl, Sight(seat=holder)), sort_keys=True) != json.dumps(
                    frames(sw.tl, Sight(seat=holder)), sort_keys=True)
        assert checked

    def test_a_sight_cannot_tell_which_card_a_retracted_play_named(self, game: Game) -> None:
        """The scorer recorded a seat's card before the one it played and retracted it: that
        card is still in its holder's hand. Two records that differ only in which of its
        unplayed cards the retracted play named are told apart by the holder and the referee
        only, through every route (the views, the what-if, the shared log, ``replay --seat``)."""
        variants = typo_variants(game.name)
        assert len(variants) >= 2, f"{game.name}: no seat with two cards still to play"
        holder, (a, b) = variants[0][0], (timeline(v[1]) for v in variants[:2])
        assert a.error is None and b.error is None and a.fold is not None
        assert a.live_round is not None and a.fold.retracted
        for sight in sights(game):
            if sight.seat == holder:  # the holder knows its card: compared below
                continue
            mine, theirs = seen(a, sight, replayed=True), seen(b, sight, replayed=True)
            for key in mine:
                assert mine[key] == theirs[key], (
                    f"{sight} tells which card seat {holder}'s retracted play named, in {key}: "
                    + first_difference(mine[key], theirs[key]))
        # (the one route each that tells them apart, as seen() has it)
        assert json.dumps(frames(a, Sight(seat=holder)), sort_keys=True) != json.dumps(
            frames(b, Sight(seat=holder)), sort_keys=True)
        assert json.dumps(visible_events(a, Sight()), sort_keys=True) != json.dumps(
            visible_events(b, Sight()), sort_keys=True)

    def test_seat_view_cannot_tell_deals_apart_that_differ_in_cards_the_seat_may_not_see(
            self, game: Game) -> None:
        """The game's one visibility rule, ``seat_view``, over every such swap of every cut,
        for every seat and for the public (who sees no hand: every swap is hidden from it)."""
        for n, cut in enumerate(cuts(game.name)):
            tl, found = swaps(game.name, n)
            assert tl.fold is not None
            for s in [*range(game.players), PUBLIC]:
                mine = json.dumps(game.seat_view(tl.fold, s, secret=True), sort_keys=True)
                for sw in found:
                    if s in sw.owners:
                        continue
                    theirs = json.dumps(game.seat_view(sw.fold, s, secret=True), sort_keys=True)
                    assert mine == theirs, (
                        f"{cut.what}: seat_view({s}) tells apart the deals where {sw} trade "
                        "places: " + first_difference(mine, theirs))
        # some swaps change more than the hands (a verdict, whose turn): they are tried first
        assert any(sw.derived for n in range(len(cuts(game.name))) for sw in swaps(game.name, n)[1])

    # ------------------------------------------------------------ 4. export rows

    def test_export_rows_fill_every_table_and_agree_with_the_audit(self, game: Game) -> None:
        filled = dict.fromkeys(GAME_TABLES, 0)
        for sim, _, rep in audited(game.name):
            buffers: dict[Partition, Rows] = {}

            def rows_for(part: Partition, buffers: dict[Partition, Rows] = buffers) -> Rows:
                return buffers.setdefault(part, {t: columns_for(t) for t in GAME_TABLES})

            evs = parsed(sim.events)
            # every row by the row builder (the column-at-a-time tables give the same
            # values: tests/export/test_columnar.py)
            gid, last = build_game(evs, rows_for, columnar=False)
            assert (gid, last) == (evs[0].game, evs[-1].seq)
            assert list(buffers) == [(sim.ruleset, None)]
            tables = {t: c.to_table() for t, c in buffers[(sim.ruleset, None)].items()}
            counts = {t: tab.num_rows for t, tab in tables.items()}
            for t, k in counts.items():
                filled[t] += k
            where = f"{sim.ruleset}/{sim.bot}/seed {sim.seed}"
            assert counts["events"] == len(evs), where
            assert counts["games"] == 1 and counts["players"] == game.players, where
            assert counts["plays"] == sum(1 for e in evs if e.type == "play"), where
            assert counts["rounds"] == len(rep["rounds"]), where
            assert counts["tricks"] == sum(len(r["tricks"]) for r in rep["rounds"]), where
            assert counts["violations"] == len(rep["violations"]), where
            row = tables["games"].to_pylist()[0]
            assert row["kind"] == game.name and row["game"] == gid, where
            assert row["totals"] == rep["totals"], (where, row["totals"], rep["totals"])
            assert row["rounds"] == len(rep["rounds"]) and row["finished"] == rep["finished"]
            assert row["violations"] == len(rep["violations"]) and row["ok"] == rep["ok"]
            assert row["error"] is None, where
            assert all(set(tab.column("game").to_pylist()) <= {gid} for tab in tables.values())
        empty = [t for t, k in filled.items() if not k]
        assert not empty, f"{game.name} fills no rows of {empty}"

    # ------------------------------------------------------------ 5. the terminal table

    def test_render_draws_the_table_for_every_viewer(self, game: Game) -> None:
        for _, f, _ in audited(game.name)[:2]:
            for viewer in [None, *range(game.players)]:
                assert text_of(render_table(f, viewer)).strip()
        for n, cut in enumerate(cuts(game.name)):
            tl, _ = swaps(game.name, n)
            assert tl.fold is not None
            for viewer in [None, *range(game.players)]:
                text = text_of(render_table(tl.fold, viewer))
                assert text.startswith(f"{game.round_word} {cut.round} "), (cut.what, text[:40])

    def test_render_never_shows_a_seat_another_hand_in_play(self, game: Game) -> None:
        for n, cut in enumerate(cuts(game.name)):
            tl, _ = swaps(game.name, n)
            assert tl.fold is not None
            full = game.seat_view(tl.fold, None)
            _, public = round_cards(cut)
            referee = text_of(render_table(tl.fold, None))
            for s in range(game.players):
                text = text_of(render_table(tl.fold, s))
                for o in range(game.players):
                    hand = full["hands"][o] or []
                    if o == s or not hand:
                        continue
                    drawn = hand_markup(sum(1 << CARD_INDEX[c] for c in hand)).plain
                    assert drawn in referee, (cut.what, o, drawn)  # how the table draws a hand
                    assert drawn not in text, f"{cut.what}: seat {s} is shown seat {o}'s hand {drawn}"
                    for c in hand:  # nor one of its unseen cards as a card
                        assert c in public or card_markup(CARD_INDEX[c]).plain not in text, (
                            f"{cut.what}: seat {s} is shown {c} of seat {o}")

    def test_render_cannot_tell_deals_apart_that_differ_in_cards_the_seat_may_not_see(
            self, game: Game) -> None:
        for n, cut in enumerate(cuts(game.name)):
            tl, _ = swaps(game.name, n)
            assert tl.fold is not None
            for s in range(game.players):
                text = text_of(render_table(tl.fold, s))
                for sw in swaps_hidden_from(game.name, n, s, 3):
                    other = text_of(render_table(sw.fold, s))
                    assert text == other, (f"{cut.what}: seat {s}'s table tells apart the deals "
                                           f"where {sw} trade places: " + first_difference(text, other))

    # ------------------------------------------------------------ 6. the recorder

    def test_recorder_types_the_first_rounds_of_a_simulated_game(
            self, game: Game, tmp_path: Path) -> None:
        needs(game, "record")
        sim = recorder_sample(game.name)
        record_and_compare(game, sim, deal_starts(sim.events)[2], tmp_path)

    @pytest.mark.soak
    def test_recorder_types_a_whole_simulated_game(self, game: Game, tmp_path: Path) -> None:
        needs(game, "record")
        sim = recorder_sample(game.name)
        record_and_compare(game, sim, len(sim.events), tmp_path)

    # ------------------------------------------------------------ 7. the rules oracle

    def test_oracle_answers_each_op_from_a_simulated_deal(self, game: Game) -> None:
        if not game.oracle_ops:
            pytest.skip(f"{game.name} has no rules-oracle ops")
        builders = table_of(game, "ORACLE")
        missing = set(game.oracle_ops) - set(builders)
        assert not missing, f"ORACLE has no question for {game.name}'s ops {sorted(missing)}"
        asked = 0
        judged = game.won | game.lost | game.tied
        for sim, _, rep in audited(game.name):
            bad = {v["round"] for v in rep["violations"]}
            for rnd in rep["rounds"]:
                if rnd["result"] not in judged or rnd["round"] in bad or rnd["ruling"]:
                    continue
                for op in game.oracle_ops:
                    q, agrees = builders[op](rnd, game.players)
                    got = answer({"op": op, "ruleset": sim.ruleset, **q})
                    assert agrees(got), (sim.ruleset, op, q, got, rnd)
                    asked += 1
                break
        assert asked >= len(game.oracle_ops) * len(game.presets)
        preset = next(iter(game.presets))
        others = [op for op in OPS if op not in (*game.oracle_ops, SOLVE)]  # solve: every game
        for op in others:
            with pytest.raises(QueryError, match=f"not a question for {game.name}"):
                answer({"op": op, "ruleset": preset})
        with pytest.raises(QueryError, match="unknown op"):
            answer({"op": "no-such-op", "ruleset": preset})

    def test_solver_adapter_reads_every_round(self, game: Game) -> None:
        """The solver adapter gives each round its deal (hands known) or why it has no par;
        a deal's plays are its round's, and a round played out ends at the game's score."""
        from jaslog.analysis import Deal, NoPar
        from jaslog.analysis.rounds import analyze_deal

        needs(game, "solver")
        solved = 0
        for _, f, rep in audited(game.name):
            deals = game.adapter("solver").deals(f)
            assert [d.round for d in deals] == [r["round"] for r in rep["rounds"]]
            assert all(isinstance(d, Deal | NoPar) for d in deals)
            for d in deals:
                if isinstance(d, Deal) and d.result in game.won | game.lost | game.tied \
                        and not d.note and not solved:
                    a = analyze_deal(d, best_cards=False, results=False)
                    assert a.end == d.difference and len(a.pars) == len(d.plays) + 1
                    solved += 1
        assert solved


# ================================================================== recorder helpers


@cache
def recorder_sample(name: str) -> Sim:
    """The simulated game whose first two rounds have the most kinds of event, a deal
    recorded without hands and a violation (the recorder asks before recording one)."""
    def score(sim: Sim) -> tuple[int, int, int]:
        first = sim.events[:deal_starts(sim.events)[2]]
        unseen = any(e["type"] == "dealt" and e.get("hands") is None for e in first)
        rep = game_report(first[0]["game"], folded(first))
        return (len({e["type"] for e in first}), unseen, bool(rep["violations"]))

    return max(corpus(name), key=score)


def typed(game: Game, events: list[Dict]) -> list[str]:
    """The lines a scorer types at the recorder for ``events`` (after game_started)."""
    words = table_of(game, "WORDS")
    f = start_fold(event_from_dict(events[0]))
    lines: list[str] = []
    for e in events[1:]:
        if e["type"] not in words:
            pytest.fail(f"WORDS has no words for {game.name}'s event {e['type']!r}", pytrace=False)
        lines += words[e["type"]](f, e)
        f.apply(event_from_dict(e))
    return lines


def record_and_compare(game: Game, sim: Sim, end: int, tmp_path: Path) -> None:
    """Type ``sim``'s events up to ``end`` into the game's recorder on a real SQLite store;
    the store then holds the same events (the recorder adds ``at`` and ``id``)."""
    events = sim.dicts[:end]
    lines = iter(typed(game, events))
    shown: list[Any] = []
    confirmed = 0

    def ask(prompt: str) -> str:
        nonlocal confirmed
        if prompt.startswith("record it anyway?"):
            confirmed += 1
            return "y"
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    with open_store(str(tmp_path / "record.sqlite")) as store:
        gid = events[0]["game"]
        store.append(gid, [events[0]])
        rec = open_recorder(store, gid)
        assert type(rec) is game.adapter("record").RECORDER
        appended = run(rec, ask, shown.append)
        refused = [x for x in shown if isinstance(x, str) and x.startswith("✗")]
        assert not refused, refused[:5]
        stored = [e.model_dump(exclude_none=True) for e in store.events(gid)]
    assert appended == len(events) - 1
    assert all("at" in e and "id" in e and "recorded_at" in e for e in stored[1:])
    drop = {"at", "id", "recorded_at"} | table_of(game, "UNTYPED")
    assert [{k: v for k, v in e.items() if k not in drop} for e in stored] == \
        [{k: v for k, v in e.items() if k not in drop} for e in events]
    # the recorder asked before each event that broke a rule (and only then)
    violations = game_report(gid, folded(events))["violations"]
    assert 0 < confirmed <= len(violations) if violations else confirmed == 0


@pytest.mark.parametrize("game", GAME_LIST, ids=IDS)
class TestGameContract(GameContract):
    """The contract, for every game of the registry."""
