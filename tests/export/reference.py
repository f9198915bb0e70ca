"""The statistics computed independently in Python, by folding the same games.

Nothing here reads the export or runs SQL: each game is folded (``jaslog.play.fold.fold``) and
read through its audit report (``jaslog.play.audit.game_report``: the projection ``check --json``
prints), the events themselves, and the rules' own functions (roem_parts, score_round).

A round recorded by its score alone (rule book 9.1, decision 11) holds only what its sheet
says; each statistic counts it when the sheet records what the statistic needs
(:func:`score_only_counts`), and :func:`left_out` counts those it does not.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from jaslog.cards import KING, QUEEN, SUIT_LETTERS, card, parse_card
from jaslog.events import Event
from jaslog.games.klaverjas.rules import RoemRules, ScoreRules, roem_parts, score_round
from jaslog.play.audit import game_report
from jaslog.play.fold import fold

SUIT_NAME = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
POSITION = {1: "1 forehand", 2: "2 second", 3: "3 third", 4: "4 dealer"}
JUDGED = ("made", "nat", "pit")
COMPLETE = ("made", "nat", "pit", "revoke")


@dataclass
class Rnd:
    """One round as the reference sees it."""

    game: str
    ruleset: str
    year: int | None
    method: str
    number: int
    dealer: int
    chooser: int | None
    trump: str | None
    result: str
    points: list[int] | None
    roem: list[int] | None
    table: list[int] | None
    final: list[int]
    tricks: list[dict[str, Any]]
    how: str | None
    first_leader: int | None
    kinds: list[str] = field(default_factory=list)
    without_roem: str | None = None
    seats: list[str] = field(default_factory=list)
    plays_known: int = 0
    recorded: str = "played"

    @property
    def pteam(self) -> int:
        assert self.chooser is not None
        return self.chooser & 1

    @property
    def made(self) -> bool:
        return self.result in ("made", "pit")

    def dim(self, by: str) -> Any:
        return {
            "ruleset": self.ruleset, "trump_method": self.method, "trump_how": self.how,
            "position": POSITION[(self.chooser - self.dealer - 1) % 4 + 1]
            if self.chooser is not None else None,
            "trump": SUIT_NAME.get(self.trump or ""), "kind": "klaverjas", "year": self.year,
            "all": "all",
        }[by]


def _how(method: str, bids: list[tuple[int, str]], sel: Any) -> str | None:
    """How trumps were fixed, from the bid events (the machine's ``forced`` for random)."""
    if not bids or bids[-1][1] == "pass":
        return "turned"
    last = bids[-1][1]
    if method == "free":
        return "forced" if sum(1 for _, c in bids if c == "pass") >= 4 else "chosen"
    if method == "random":
        if sel.forced:
            return "forced"
        return "accepted" if last == "accept" or (sel.proposed is not None
                                                  and SUIT_LETTERS.index(last) == sel.proposed
                                                  and sel.allowed == 1 << sel.proposed) else "named"
    return "chosen"


@dataclass
class Game:
    gid: str
    ruleset: str
    year: int | None
    seats: list[str]
    report: dict[str, Any]
    rounds: list[Rnd]
    first_at: str | None = None
    last_at: str | None = None


def read_games(games: Sequence[list[Event]]) -> list[Game]:
    out = []
    for events in games:
        f = fold(events)
        rep = game_report(events[0].game, f)
        opts = f.options
        rr, sr = RoemRules.from_options(opts), ScoreRules.from_options(opts)
        first_at = next((e.at for e in events if e.at), None)
        year = int(first_at[:4]) if first_at else None
        # events by round: bids, dealt hands, plays
        per: dict[int, dict[str, Any]] = defaultdict(lambda: {"bids": [], "hands": None,
                                                              "plays": []})
        n = 0
        for e in events:
            if e.seq in f.retracted:  # as if never recorded
                continue
            if e.type == "round_score":
                n += 1
            elif e.type == "dealt":
                n += 1
                per[n]["hands"] = e.hands  # type: ignore[attr-defined]
            elif e.type == "bid":
                per[n]["bids"].append((e.seat, e.call))  # type: ignore[attr-defined]
            elif e.type == "play":
                per[n]["plays"].append((e.seat, e.card))  # type: ignore[attr-defined]
        rounds = []
        for i, r in enumerate(rep["rounds"]):
            sel = f.state.rounds[i].selection
            played = r["recorded"] == "played"
            x = Rnd(rep["game"], f.ruleset, year, opts["trump_selection"], r["round"],
                    r["dealer"], r["chooser"], r["trump"], r["result"], r["points"], r["roem"],
                    r["roem_on_table"], r["ruling"]["score"] if r["ruling"] else r["score"],
                    r["tricks"], _how(opts["trump_selection"], per[i + 1]["bids"], sel)
                    if played else None,
                    r["tricks"][0]["leader"] if r["tricks"] else None, seats=list(f.seats),
                    recorded=r["recorded"])
            trump = SUIT_LETTERS.index(r["trump"]) if r["trump"] else None
            for t in r["tricks"]:
                if len(t["cards"]) == 4 and trump is not None:
                    x.kinds += [k for k, p in roem_parts([parse_card(c) for c in t["cards"]],
                                                         trump, rr) if p > 0]
            plays = per[i + 1]["plays"]
            if opts["roem.stuk_in_hand"] and trump is not None and len(plays) == 32:
                held = per[i + 1]["hands"] or [[c for s, c in plays if s == seat]
                                               for seat in range(4)]
                stuk = {card(KING, trump), card(QUEEN, trump)}
                x.kinds += ["stuk_in_hand" for h in held if stuk <= {parse_card(c) for c in h}]
            if x.result in JUDGED and played:
                assert r["points"] is not None
                won = [sum(1 for t in r["tricks"] if t["winner"] is not None
                           and t["winner"] & 1 == team) for team in (0, 1)]
                x.without_roem = score_round(sr, r["points"], [0, 0], won, x.pteam)[1]
            if per[i + 1]["hands"] is not None or len(plays) == 32:
                x.plays_known = len(plays)
            rounds.append(x)
        times = [e.at.replace("Z", "+00:00") for e in events if e.at]
        out.append(Game(rep["game"], f.ruleset, year, list(f.seats), rep, rounds,
                        times[0] if times else None, times[-1] if times else None))
    return out


#: The results each question counts (a round played card by card, or a score-only round
#: whose sheet shows it); the questions not named here count no score-only round.
RESULTS = {"declarer_success": JUDGED, "nat_pit_rates": COMPLETE, "round_averages": COMPLETE,
           "player_roles": JUDGED}


def score_only_counts(name: str, by: str, r: Rnd) -> bool:
    """Whether question ``name``, grouped ``by``, counts score-only round ``r``: when its
    sheet records what the question (and the grouping) needs."""
    if name in ("overview", "violations"):  # what was recorded of it, whatever it is
        return True
    if name not in RESULTS or r.result not in RESULTS[name]:
        return False
    chooser = r.chooser is not None
    if name == "round_averages":
        return chooser
    if name == "player_roles":
        return {"role": chooser, "side": chooser, "lead": False}.get(by, True)
    return {"trump_how": False, "position": chooser, "trump": r.trump is not None}.get(by, True)


def left_out(name: str, games: list[Game], by: str) -> int:
    """The score-only rounds question ``name``, grouped ``by``, leaves out."""
    return sum(1 for g in games for r in g.rounds
               if r.recorded == "score_only" and not score_only_counts(name, by, r))


def _rounds(games: list[Game], results: tuple[str, ...], name: str = "",
            by: str = "") -> list[Rnd]:
    """The rounds with one of ``results`` that question ``name`` grouped ``by`` counts."""
    return [r for g in games for r in g.rounds if r.result in results
            and (r.recorded == "played" or score_only_counts(name, by, r))]


def _group(items: list[Any], key: Callable[[Any], Any]) -> dict[Any, list[Any]]:
    out: dict[Any, list[Any]] = defaultdict(list)
    for x in items:
        out[key(x)].append(x)
    return out


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs)


def _mean_known(xs: Sequence[float | None]) -> float | None:
    """The mean of the values known (as SQL's avg: NULL when none is)."""
    known = [x for x in xs if x is not None]
    return sum(known) / len(known) if known else None


def declarer_success(games: list[Game], by: str) -> dict[Any, dict[str, Any]]:
    return {k: {"rounds": len(rs), "made": sum(r.made for r in rs),
                "nat": sum(r.result == "nat" for r in rs), "pit": sum(r.result == "pit" for r in rs),
                "made_rate": _mean([r.made for r in rs])}
            for k, rs in _group(_rounds(games, JUDGED, "declarer_success", by),
                                lambda r: r.dim(by)).items()}


def _defenders_pit(r: Rnd) -> bool | None:
    """The defenders took every trick (None: a score sheet does not say who took them)."""
    if r.recorded != "played":
        return None
    return sum(1 for t in r.tricks if t["winner"] is not None and t["winner"] & 1 != r.pteam) == 8


def nat_pit_rates(games: list[Game], by: str) -> dict[Any, dict[str, Any]]:
    return {k: {"rounds": len(rs), "nat_rate": _mean([r.result == "nat" for r in rs]),
                "pit_rate": _mean([r.result == "pit" for r in rs]),
                "defenders_pit_rate": _mean_known([_defenders_pit(r) for r in rs]),
                "revoke_rate": _mean([r.result == "revoke" for r in rs])}
            for k, rs in _group(_rounds(games, COMPLETE, "nat_pit_rates", by),
                                lambda r: r.dim(by)).items()}


def _side(xs: list[int] | None, side: int) -> int | None:
    return xs[side] if xs is not None else None


def round_averages(games: list[Game], by: str) -> dict[Any, dict[str, Any]]:
    out = {}
    for k, rs in _group(_rounds(games, COMPLETE, "round_averages", by),
                        lambda r: r.dim(by)).items():
        out[k] = {
            "rounds": len(rs),
            "avg_points_playing": _mean_known([_side(r.points, r.pteam) for r in rs]),
            "avg_points_defending": _mean_known([_side(r.points, 1 - r.pteam) for r in rs]),
            "avg_roem": _mean_known([sum(r.roem) if r.roem else None for r in rs]),
            "avg_roem_playing": _mean_known([_side(r.roem, r.pteam) for r in rs]),
            "avg_roem_defending": _mean_known([_side(r.roem, 1 - r.pteam) for r in rs]),
            "avg_roem_on_table": _mean_known([sum(r.table) if r.table else None for r in rs]),
            "avg_score_playing": _mean([r.final[r.pteam] for r in rs]),
            "avg_score_defending": _mean([r.final[1 - r.pteam] for r in rs]),
        }
    return out


def roem_frequency(games: list[Game], by: str) -> dict[tuple[Any, str], dict[str, Any]]:
    out = {}
    for k, rs in _group(_rounds(games, COMPLETE, "roem_frequency", by),
                        lambda r: r.dim(by)).items():
        for kind in ("run3", "run4", "stuk", "four_of_a_kind", "four_jacks", "three_of_a_kind",
                     "stuk_in_hand"):
            occ = sum(r.kinds.count(kind) for r in rs)
            if occ == 0 and kind in ("three_of_a_kind", "stuk_in_hand"):
                continue
            with_ = sum(1 for r in rs if kind in r.kinds)
            out[(k, kind)] = {"occurrences": occ, "rounds": len(rs),
                              "per_100_rounds": occ * 100 / len(rs),
                              "share_of_rounds": with_ / len(rs)}
    return out


def roem_saves(games: list[Game], by: str) -> dict[Any, dict[str, Any]]:
    out = {}
    for k, rs in _group(_rounds(games, JUDGED, "roem_saves", by), lambda r: r.dim(by)).items():
        saved = [r.made and r.without_roem == "nat" for r in rs]
        sunk = [not r.made and r.without_roem in ("made", "pit") for r in rs]
        out[k] = {"rounds": len(rs), "saved_by_roem": sum(saved), "saved_rate": _mean(saved),
                  "sunk_by_roem": sum(sunk), "sunk_rate": _mean(sunk)}
    return out


def points_per_trick(games: list[Game], by: str) -> dict[tuple[Any, int], dict[str, Any]]:
    tricks = []
    for g in games:
        for r in g.rounds:
            for n, t in enumerate(r.tricks, 1):
                if t["winner"] is not None:
                    dim = SUIT_NAME.get(r.trump or "") if by == "trump" else r.dim(by)
                    tricks.append((dim, n, t, (t["winner"] & 1) == r.pteam))
    out = {}
    for (k, n), ts in _group(tricks, lambda x: (x[0], x[1])).items():
        out[(k, n)] = {"tricks": len(ts), "avg_points": _mean([t["points"] for _, _, t, _ in ts]),
                       "avg_roem": _mean([t["roem_on_table"] for _, _, t, _ in ts]),
                       "roem_rate": _mean([t["roem_on_table"] > 0 for _, _, t, _ in ts]),
                       "playing_side_rate": _mean([w for _, _, _, w in ts])}
    return out


def player_roles(games: list[Game], by: str) -> dict[tuple[str, Any], dict[str, Any]]:
    rows = []
    for g in games:
        for r in _rounds([g], JUDGED, "player_roles", by):
            for seat, player in enumerate(g.seats):
                if by == "all":
                    role = "all"
                elif by == "lead":
                    role = "led trick 1" if r.first_leader == seat else "followed"
                else:
                    playing = seat & 1 == r.pteam
                    role = {"role": "declarer" if seat == r.chooser else
                            ("partner" if playing else "defender"),
                            "side": "playing" if playing else "defending"}[by]
                rows.append((player, role, g.gid, r.made, r.final[seat & 1]))
    out = {}
    for k, xs in _group(rows, lambda x: (x[0], x[1])).items():
        out[k] = {"games": len({x[2] for x in xs}), "rounds": len(xs),
                  "made_rate": _mean([x[3] for x in xs]), "avg_score": _mean([x[4] for x in xs])}
    return out


def revokes(games: list[Game], by: str) -> dict[tuple[Any, str], dict[str, Any]]:
    plays: dict[Any, int] = defaultdict(int)
    found: dict[tuple[Any, str], list[tuple[str, int]]] = defaultdict(list)
    for g in games:
        known_rounds = set()
        for r in g.rounds:
            key = r.year if by == "year" else (g.ruleset if by == "ruleset" else "all")
            plays[key] += r.plays_known
            if r.plays_known:
                known_rounds.add(r.number)
        for v in g.report["violations"]:
            if v["card"] is not None and v["round"] in known_rounds:
                key = g.year if by == "year" else (g.ruleset if by == "ruleset" else "all")
                found[(key, v["rule"])].append((g.gid, v["round"]))
    return {k: {"revokes": len(xs), "rounds": len(set(xs)), "plays": plays[k[0]],
                "per_1000_plays": len(xs) * 1000 / plays[k[0]]} for k, xs in found.items()}


def violations(games: list[Game], by: str) -> dict[tuple[Any, str, str], dict[str, Any]]:
    found: dict[tuple[Any, str, str], list[str]] = defaultdict(list)
    for g in games:
        key = g.year if by == "year" else (g.ruleset if by == "ruleset" else "all")
        for v in g.report["violations"]:
            cat = "claim" if v["rule"] == "claim_not_guaranteed" else "play" \
                if v["card"] is not None else ("roem" if v["rule"].startswith("roem") else "bid")
            found[(key, cat, v["rule"])].append(g.gid)
        # irregularities break no rule of play: the question leaves them out
    return {k: {"violations": len(xs), "games": len(set(xs))} for k, xs in found.items()}


def overview(games: list[Game], by: str) -> dict[Any, dict[str, Any]]:
    out = {}
    for k, gs in _group(games, lambda g: {"ruleset": g.ruleset, "year": g.year,
                                          "kind": "klaverjas", "all": "all"}[by]).items():
        out[k] = {"games": len(gs), "finished": sum(g.report["finished"] for g in gs),
                  "rounds": sum(1 for g in gs for r in g.report["rounds"]
                                if r["result"] != "unfinished" or r["ruling"]),
                  "players": len({p for g in gs for p in g.seats}),
                  "violations": sum(len(g.report["violations"]) for g in gs),
                  "first_played": min((g.first_at[:10] for g in gs if g.first_at), default=None),
                  "last_played": max((g.last_at[:10] for g in gs if g.last_at), default=None)}
    return out
