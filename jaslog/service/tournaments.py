"""Tournaments in the style of seed 003 (rule book section 9, decision 7).

Players are drawn into tables of four; at each table the two teams play one game (by
default the ``klaverjas-online-501`` rules to 1001 points, 30 seconds per move). The
winning team of every table goes on; before each round the winners are shuffled into new
teams (no two partners of the last round stay partners) and new tables. 16 players play
three rounds, 8 players two; the final's winners take the grand prize, its losers second
place. The time limit is recorded from the events' ``at`` times and every move over it is
reported.

The tournament and its games are rows of the service's own insert-only tables; the games
themselves are ordinary games in the store, at their table (``meta.table``), so the table's
scorer token records them.
"""

from __future__ import annotations

import json
import random
import re
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from jaslog.engine.options import OptionError
from jaslog.errors import JaslogError
from jaslog.events import PLAYER_ID_PATTERN
from jaslog.games import game_of, get_game, resolve
from jaslog.service import db
from jaslog.service.auth import Principal, now
from jaslog.service.core import Service
from jaslog.service.timing import move_times
from jaslog.store import ConflictError, NoSuchGame
from jaslog.views import FULL, report, visible_events

DEFAULT_RULESET = "klaverjas-online-501"
DEFAULT_OPTIONS: dict[str, Any] = {"game_end": {"type": "target", "points": 1001}}
DEFAULT_MOVE_LIMIT = 30
#: a tournament's game ids: ``{tournament}-r{round}-t{table}``
GAME_ID = re.compile(r"^(.+)-r[0-9]+-t[0-9]+$")


class TournamentError(JaslogError, ValueError):
    """A tournament request that cannot be carried out; ``status`` is the HTTP answer."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass(frozen=True)
class Tournament:
    id: str
    name: str
    ruleset: str
    options: dict[str, Any]
    players: list[str]
    move_limit: int
    seed: int
    created_at: str


def _rounds_for(n: int) -> int | None:
    """How many rounds ``n`` players play (4 * 2**k players), or None."""
    k, m = 1, 4
    while m < n:
        m, k = m * 2, k + 1
    return k if m == n else None


def draw_tables(players: list[str], seed: int, round_no: int,
                partners: set[frozenset[str]]) -> list[list[str]]:
    """Shuffle ``players`` into tables of four (seats 0 and 2, 1 and 3 are partners) so that
    no pair in ``partners`` (last round's teams) is a team again. Deterministic for a seed.

    >>> t = draw_tables(["a", "b", "c", "d"], 1, 2, {frozenset("ab"), frozenset("cd")})
    >>> sorted(map(frozenset, (t[0][0::2], t[0][1::2]))) != sorted([frozenset("ab"), frozenset("cd")])
    True
    """
    rng = random.Random(f"{seed}:{round_no}")
    order = list(players)
    for _ in range(10000):
        rng.shuffle(order)
        tables = [order[i:i + 4] for i in range(0, len(order), 4)]
        teams = [frozenset(t[k::2]) for t in tables for k in (0, 1)]
        if not any(team in partners for team in teams):
            return tables
    raise TournamentError(409, "no_new_teams", "no draw of new teams was found")  # pragma: no cover


class Tournaments:
    def __init__(self, svc: Service) -> None:
        self.svc = svc

    # ------------------------------------------------------------------ reading

    def get(self, tid: str) -> Tournament:
        with self.svc.engine.connect() as c:
            row = c.execute(select(db.tournaments).where(db.tournaments.c.id == tid)).first()
        if row is None:
            raise TournamentError(404, "no_such_tournament", f"no tournament {tid!r}")
        return Tournament(row.id, row.name, row.ruleset, json.loads(row.options),
                          json.loads(row.players), row.move_limit, row.seed, row.created_at)

    def ids(self) -> list[str]:
        with self.svc.engine.connect() as c:
            return [r.id for r in c.execute(select(db.tournaments.c.id)
                                             .order_by(db.tournaments.c.created_at))]

    def owner_of(self, game: str) -> str | None:
        """The tournament whose game ids ``game`` is of (``{id}-r{round}-t{table}``, played or
        still to be drawn), or None: such an id is the tournament's, nobody else may take it."""
        m = GAME_ID.match(game)
        if m is None:
            return None
        with self.svc.engine.connect() as c:
            row = c.execute(select(db.tournaments.c.id)
                            .where(db.tournaments.c.id == m.group(1))).first()
        return None if row is None else str(row.id)

    def games(self, tid: str) -> dict[int, dict[int, str]]:
        """round -> table -> game id."""
        out: dict[int, dict[int, str]] = {}
        tg = db.tournament_games
        with self.svc.engine.connect() as c:
            for r in c.execute(select(tg).where(tg.c.tournament == tid)
                               .order_by(tg.c.round, tg.c.table_no)):
                out.setdefault(r.round, {})[r.table_no] = r.game
        return out

    # ------------------------------------------------------------------ creating

    def create(self, *, name: str, players: list[str], ruleset: str | None = None,
               options: dict[str, Any] | None = None, move_limit: int | None = None,
               seed: int | None = None, tid: str | None = None) -> Tournament:
        ruleset = ruleset or DEFAULT_RULESET
        options = DEFAULT_OPTIONS if options is None else options
        try:
            if get_game(game_of(ruleset)).scoring != "teams":  # two partnerships a table
                raise TournamentError(422, "bad_ruleset", "tournaments are played with a "
                                      f"klaverjas ruleset, not {ruleset!r}")
            resolve(ruleset, options)
        except OptionError as e:
            raise TournamentError(422, "bad_options", str(e)) from None
        if len(set(players)) != len(players):
            raise TournamentError(422, "bad_players", "a player is named twice")
        bad = [p for p in players if not re.match(PLAYER_ID_PATTERN, p)]
        if bad:
            raise TournamentError(422, "bad_players", f"{bad[0]!r} is not a player id "
                                  "(letters, digits, ._:@-)")
        if _rounds_for(len(players)) is None:
            raise TournamentError(422, "bad_players", f"a tournament needs 4, 8, 16, 32... players "
                                  f"(tables of four, half go on each round), not {len(players)}")
        tid = tid or f"t{now()[:10].replace('-', '')}-{secrets.token_hex(2)}"
        seed = secrets.randbelow(1 << 31) if seed is None else seed
        with self.svc.pool.get() as store:
            taken = [g for ids in store.game_id_batches(batch=10000) for g in ids
                     if (m := GAME_ID.match(g)) is not None and m.group(1) == tid]
        if taken:  # the tournament's games would clash with them (its rounds could not start)
            raise TournamentError(409, "tournament_exists", f"the store has games named as "
                                  f"tournament {tid}'s ({', '.join(taken[:3])}); choose another id")
        t = Tournament(tid, name, ruleset, options, list(players),
                       DEFAULT_MOVE_LIMIT if move_limit is None else move_limit, seed, now())
        try:
            with self.svc.engine.begin() as c:
                c.execute(insert(db.tournaments).values(
                    id=t.id, name=t.name, ruleset=t.ruleset, options=json.dumps(t.options),
                    players=json.dumps(t.players), move_limit=t.move_limit, seed=t.seed,
                    created_at=t.created_at))
        except IntegrityError:
            raise TournamentError(409, "tournament_exists", f"tournament {tid} exists") from None
        self._start_round(t, 1, t.players, set())
        return t

    def _start_round(self, t: Tournament, round_no: int, players: list[str],
                     partners: set[frozenset[str]]) -> None:
        tables = draw_tables(players, t.seed, round_no, partners)
        rng = random.Random(f"{t.seed}:{round_no}:dealers")
        rows = []
        for i, seats in enumerate(tables, 1):
            gid = f"{t.id}-r{round_no}-t{i}"
            meta = {"tournament": t.id, "event": t.name, "round": round_no, "table": str(i),
                    "move_limit_s": t.move_limit}
            try:
                self.svc.new_game({"game": gid, "ruleset": t.ruleset, "seats": seats,
                                   "dealer": rng.randrange(4), "options": t.options or None,
                                   "meta": meta})
            except ConflictError:
                raise TournamentError(409, "round_started",
                                      f"round {round_no} of {t.id} has already started") from None
            rows.append({"tournament": t.id, "round": round_no, "table_no": i, "game": gid})
        with self.svc.engine.begin() as c:
            c.execute(insert(db.tournament_games), rows)

    def next_round(self, tid: str) -> dict[str, Any]:
        """Start the next round with the winners of the last, in new teams."""
        t = self.get(tid)
        st = self.standing(tid, None)
        if st["status"] == "finished":
            raise TournamentError(409, "tournament_over", f"tournament {tid} is over")
        cur = st["rounds"][-1]
        open_ = [g["game"] for g in cur["tables"] if not g["finished"]]
        if open_:
            raise TournamentError(409, "round_not_over",
                                  f"round {cur['round']} is not over: {', '.join(open_)} still "
                                  "being played")
        drawn = [g["game"] for g in cur["tables"] if g["winner"] == "draw"]
        if drawn:
            raise TournamentError(409, "drawn_game", f"{', '.join(drawn)} ended in a draw; a "
                                  "tournament game needs a winner (play to a target score)")
        winners = [p for g in cur["tables"] for p in g["winners"]]
        partners = {frozenset(g["winners"]) for g in cur["tables"]}
        self._start_round(t, cur["round"] + 1, winners, partners)
        return self.standing(tid, None)

    # ------------------------------------------------------------------ standings

    def standing(self, tid: str, who: Principal | None) -> dict[str, Any]:
        """The tournament as ``who`` may see it (None: everything)."""
        t = self.get(tid)
        total_rounds = _rounds_for(len(t.players))
        rounds: list[dict[str, Any]] = []
        exceeded: list[dict[str, Any]] = []
        status = "playing"
        champions: list[str] | None = None
        runner_up: list[str] | None = None
        games = self.games(tid)
        for rno in sorted(games):
            tables: list[dict[str, Any]] = []
            for tno, gid in sorted(games[rno].items()):
                try:
                    _, tl = self.svc.timeline(gid)
                except NoSuchGame:  # pragma: no cover - the store lost a game
                    continue
                seats = list(tl.events[0].seats)  # type: ignore[attr-defined]
                sight = FULL if who is None else who.sight(seats, str(tno))
                rep = report(tl, sight)
                w = rep["winner"]
                tables.append({
                    "table": tno, "game": gid, "seats": seats,
                    "teams": [seats[0::2], seats[1::2]], "totals": rep["totals"],
                    "rounds": len(rep["rounds"]), "finished": rep["finished"], "winner": w,
                    "winners": seats[w::2] if isinstance(w, int) else [],
                })
                timing = move_times(visible_events(tl, sight), t.move_limit)
                exceeded += [{"game": gid, "table": tno, "tournament_round": rno, **x}
                             for x in timing["exceeded"]]
            rounds.append({"round": rno, "tables": tables,
                           "over": all(g["finished"] for g in tables)})
        if rounds and rounds[-1]["over"]:
            status = "round_over"
            last: list[dict[str, Any]] = rounds[-1]["tables"]
            if len(last) == 1 and isinstance(last[0]["winner"], int):
                status = "finished"
                champions = last[0]["winners"]
                runner_up = last[0]["teams"][1 - last[0]["winner"]]
        return {"id": t.id, "name": t.name, "ruleset": t.ruleset, "options": t.options,
                "players": t.players, "move_limit_s": t.move_limit, "seed": t.seed,
                "created_at": t.created_at, "rounds_planned": total_rounds, "status": status,
                "rounds": rounds, "champions": champions, "runner_up": runner_up,
                "time_limit": {"limit": t.move_limit, "exceeded": exceeded}}
