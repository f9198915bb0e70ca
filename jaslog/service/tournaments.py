"""Tournaments in the style of seed 003 (rule book section 9, decision 7).

Players are drawn into tables of four; at each table the two teams play one game (by
default the ``klaverjas-online-501`` rules to 1001 points, 30 seconds per move). The
winning team of every table goes on; before each round the winners are shuffled into new
teams (no two partners of the last round stay partners) and new tables. 16 players play
three rounds, 8 players two; the final's winners take the grand prize, its losers second
place. Every move over the time limit is reported from the events' ``at`` times; the
service's move clock (:mod:`jaslog.service.move_clock`) records a ``timeout`` when the seat
due has not acted in time and, with ``on_timeout: autoplay``, plays for it (rule book 9.1,
decision 15).

A player may withdraw (:meth:`Tournaments.withdraw`) and cannot re-enter: their game in
play ends with a ruling on the round in play (the round to the other side, as a forfeit)
and is won by the other team; the next round leaves them out, and when a winner is missing
the best player of the last round's losing teams takes the place
(:func:`~jaslog.service.tournament_draw.lucky_losers`).

The tournament and its games are rows of the service's own insert-only tables; the games
themselves are ordinary games in the store, at their table (``meta.table``) of the tournament
(``meta.tournament``). A tournament issues its own tokens (:meth:`Tournaments.issue_token`):
a scorer token for each table, which records that table's games of this tournament only,
and referee tokens for its directors; they all end with the tournament (:meth:`over`). Its
seed, which says every draw to come, is shown to its directors and the admins only until it
is over. The HTTP API and ``jaslog tournament`` both call this module.

A tournament created ``online`` draws each round's games as online games
(:meth:`jaslog.service.online.OnlineTables.create`, the path of ``POST /api/games`` with
``online: true``): the service deals and times them, and its director hands out each seat's
link (:meth:`Tournaments.seat_links`) instead of a scorer token a table.
"""

from __future__ import annotations

import json
import random
import re
import secrets
import uuid
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from jaslog.engine.options import OptionError
from jaslog.events import PLAYER_ID_PATTERN
from jaslog.events.limits import NOT_IDS, not_an_id
from jaslog.games import game_of, get_game, resolve
from jaslog.play.sim import BOT_NAMES
from jaslog.play.views import FULL, report, visible_events
from jaslog.service import db
from jaslog.service.auth import Principal, TokenError, TokenInfo, now
from jaslog.service.bots import BotPlayError, play_stored_game
from jaslog.service.core import Service
from jaslog.service.move_clock import ID_SPACE, ON_TIMEOUT, MoveClock, recorded_timeouts
from jaslog.service.online import online_of
from jaslog.service.online_bots import play_online_game
from jaslog.service.timing import move_times
from jaslog.service.tournament_draw import (
    TournamentError,
    draw_tables,
    forfeit_score,
    lucky_losers,
    rounds_for,
)
from jaslog.store import ConflictError, NoSuchGame
from jaslog.store.clock import Clock, stamp

DEFAULT_RULESET = "klaverjas-online-501"
DEFAULT_OPTIONS: dict[str, Any] = {"game_end": {"type": "target", "points": 1001}}
DEFAULT_MOVE_LIMIT = 30
#: The longest move clock of an online tournament's games (seconds), as of any online game.
MOST_ONLINE_CLOCK = 600
#: a tournament's game ids: ``{tournament}-r{round}-t{table}``
GAME_ID = re.compile(r"^(.+)-r[0-9]+-t[0-9]+$")


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
    #: what follows a timeout: ``record`` (the fact only) or ``autoplay``
    on_timeout: str = "record"
    #: played online: the service deals every game and the seats play them from their links
    online: bool = False


@dataclass(frozen=True)
class Withdrawal:
    """A player who left a tournament: in which round, the game it decided (None when no
    game of theirs was in play), when, by whom and why."""

    player: str
    round: int
    game: str | None
    withdrawn_at: str
    by: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "round": self.round, "game": self.game,
                "withdrawn_at": self.withdrawn_at, "by": self.by, "reason": self.reason}


#: The tournaments known to be over, by service: an end is for good (games only grow).
_OVER: weakref.WeakKeyDictionary[Service, set[str]] = weakref.WeakKeyDictionary()


class Tournaments:
    """The tournaments of a service: what the HTTP API and ``jaslog tournament`` both call.

    ``clock`` stamps withdrawals and the service's own events (default: the service's
    clock, ``svc.clock``)."""

    def __init__(self, svc: Service, clock: Clock | None = None) -> None:
        self.svc = svc
        self.clock: Clock = clock or svc.clock

    # ------------------------------------------------------------------ reading

    def get(self, tid: str) -> Tournament:
        tc = db.tournament_clocks
        with self.svc.engine.connect() as c:
            row = c.execute(select(db.tournaments, tc.c.on_timeout)
                            .select_from(db.tournaments.outerjoin(
                                tc, tc.c.tournament == db.tournaments.c.id))
                            .where(db.tournaments.c.id == tid)).first()
            if row is None:
                raise TournamentError(404, "no_such_tournament", f"no tournament {tid!r}")
            cs = db.tournament_clock_settings
            last = c.execute(select(cs).where(cs.c.tournament == tid)
                             .order_by(cs.c.n.desc()).limit(1)).first()
            to = db.tournament_online
            online = c.execute(select(to.c.tournament).where(to.c.tournament == tid)).first()
        move_limit, on_timeout = (row.move_limit, row.on_timeout or "record") if last is None \
            else (last.move_limit, last.on_timeout)
        return Tournament(row.id, row.name, row.ruleset, json.loads(row.options),
                          json.loads(row.players), move_limit, row.seed, row.created_at,
                          on_timeout, online is not None)

    def set_clock(self, tid: str, *, move_limit: int | None = None,
                  on_timeout: str | None = None, by: str) -> Tournament:
        """Set the tournament's move clock from now on: seconds per move and what follows a
        timeout (what is not given stays). A change is a new row, never an update: the last
        holds. The games' ``meta`` keeps the limit they started with; the service's clock
        and the standing read the tournament's."""
        t = self.get(tid)
        if on_timeout is not None and on_timeout not in ON_TIMEOUT:
            raise TournamentError(422, "bad_on_timeout", f"on_timeout is "
                                  f"{' or '.join(ON_TIMEOUT)}, not {on_timeout!r}")
        if move_limit is not None and not 1 <= move_limit <= 3600:
            raise TournamentError(422, "bad_move_limit", "the time per move is a whole number "
                                  f"of seconds from 1 to 3600, not {move_limit}")
        if t.online and on_timeout == "record":
            raise TournamentError(422, "bad_on_timeout", "an online tournament's seats are "
                                  "played for when their time is up: on_timeout is autoplay")
        if t.online and move_limit is not None and move_limit > MOST_ONLINE_CLOCK:
            raise TournamentError(422, "bad_move_limit", "an online game's clock is a whole "
                                  f"number of seconds from 1 to {MOST_ONLINE_CLOCK}, not "
                                  f"{move_limit}")
        if self.over(tid):
            raise TournamentError(409, "tournament_over", f"tournament {tid} is over")
        cs = db.tournament_clock_settings
        for _attempt in range(5):  # another director's change at the same moment: the next n
            with self.svc.engine.connect() as c:
                n = len(c.execute(select(cs.c.n).where(cs.c.tournament == tid)).all()) + 1
            try:
                with self.svc.engine.begin() as c:
                    c.execute(insert(cs).values(
                        tournament=tid, n=n, set_at=stamp(self.clock()), by=by[:64],
                        move_limit=t.move_limit if move_limit is None else move_limit,
                        on_timeout=t.on_timeout if on_timeout is None else on_timeout))
            except IntegrityError:
                continue
            return self.get(tid)
        raise TournamentError(409, "clock_busy", f"the move clock of {tid} was being "  # pragma: no cover
                              "set by another request at the same moment; try again")

    def ids(self) -> list[str]:
        with self.svc.engine.connect() as c:
            return [r.id for r in c.execute(select(db.tournaments.c.id)
                                             .order_by(db.tournaments.c.created_at))]

    def owner_of(self, game: str) -> str | None:
        """The tournament whose game ids ``game`` is of (``{id}-r{round}-t{table}``, played or
        still to be drawn), or None: such an id is the tournament's, nobody else may take it."""
        m = GAME_ID.fullmatch(game)
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

    def over(self, tid: str) -> bool:
        """Whether tournament ``tid`` is over: its final (the one table of its last round) has
        a winner. What ends the tokens it issued, so it is cheap: only the final's game is
        looked at, and an end is remembered. An unknown tournament is not over."""
        known = _OVER.setdefault(self.svc, set())
        if tid in known:
            return True
        games = self.games(tid)
        if not games or len(games[max(games)]) != 1:
            return False
        final = next(iter(games[max(games)].values()))
        done = any(w.game == final for w in self.withdrawals(tid))  # won by forfeit
        if not done:
            try:
                _, tl = self.svc.timeline(final)
            except NoSuchGame:  # pragma: no cover - the store lost a game
                return False
            done = tl.fold is not None and isinstance(tl.fold.state.winner, int)
        if done:
            known.add(tid)
        return done

    def withdrawals(self, tid: str) -> list[Withdrawal]:
        """The players who left ``tid``, in the order they left."""
        tw = db.tournament_withdrawals
        with self.svc.engine.connect() as c:
            rows = c.execute(select(tw).where(tw.c.tournament == tid)
                             .order_by(tw.c.withdrawn_at, tw.c.player)).all()
        return [Withdrawal(r.player, r.round, r.game, r.withdrawn_at, r.by, r.reason)
                for r in rows]

    # ------------------------------------------------------------------ tokens

    def issue_token(self, tid: str, role: str, *, table: str | None = None, label: str = "",
                    expires_at: str | None = None) -> tuple[str, TokenInfo]:
        """A token of tournament ``tid``: a scorer's for one of its tables (1 to a quarter of
        its players) or a referee's (a director: rulings on its games, its seed, its draws).
        It ends with the tournament, or at ``expires_at`` if that comes first."""
        t = self.get(tid)
        if self.over(tid):
            raise TournamentError(409, "tournament_over", f"tournament {tid} is over: its "
                                  "tokens have ended")
        tables = len(t.players) // 4
        if role == "scorer":
            if table is None or not re.fullmatch(r"[0-9]{1,4}", table) \
                    or not 1 <= int(table) <= tables:
                raise TournamentError(422, "bad_table", f"tournament {tid} has tables 1 to "
                                      f"{tables}; name one (table)")
            table = str(int(table))
        elif role == "referee":
            if table is not None:
                raise TournamentError(422, "bad_table", "a director's token has no table")
        else:
            raise TournamentError(422, "bad_role", "a tournament issues scorer tokens (one per "
                                  f"table) and referee tokens (its directors), not {role} tokens")
        what = f"table {table}" if role == "scorer" else "director"
        try:
            return self.svc.tokens.create(role, table=table, tournament=tid,
                                          label=label or f"{what} of tournament {tid}",
                                          expires_at=expires_at)
        except TokenError as e:
            raise TournamentError(422, "bad_token_request", e.api_message()) from None

    def round_tables(self, tid: str, round_no: int | None = None,
                     tables: Iterable[int] | None = None) -> tuple[int, dict[int, str]]:
        """Round ``round_no`` (default: the round in play) and its games of ``tables``
        (default: every table), table -> game id; 404 or 422 when there are none such."""
        games = self.games(tid)
        rno = max(games) if round_no is None and games else round_no
        if rno is None or rno not in games:
            raise TournamentError(404, "no_such_round", f"tournament {tid} has no round {rno} "
                                  f"(drawn: {', '.join(map(str, sorted(games))) or 'none'})")
        wanted = sorted(games[rno]) if tables is None else sorted(set(tables))
        missing = [n for n in wanted if n not in games[rno]]
        if missing:
            raise TournamentError(422, "bad_table", f"round {rno} of {tid} has tables 1 to "
                                  f"{len(games[rno])}, not {missing[0]}")
        return rno, {n: games[rno][n] for n in wanted}

    def seat_links(self, tid: str, round_no: int | None = None,
                   tables: Iterable[int] | None = None,
                   expires_at: str | None = None) -> dict[str, Any]:
        """Every seat's link of the online games of a round (default: the round in play): per
        table its game, seats and teams, and per seat its player, a new seat token (shown
        this once; the seat's earlier tokens keep working) and its link
        ``/play/{game}#token=...`` (the token in the fragment, which no browser sends).
        Only an online tournament has them (409 ``not_online``)."""
        t = self.get(tid)
        if not t.online:
            raise TournamentError(409, "not_online", f"tournament {tid} is not played online: "
                                  "its tables are recorded by scorers (scorer tokens, table "
                                  "cards); seat links are an online tournament's")
        if self.over(tid):
            raise TournamentError(409, "tournament_over", f"tournament {tid} is over")
        rno, games = self.round_tables(tid, round_no, tables)
        out = []
        for n, gid in games.items():
            seats = list(self.svc.header(gid).seats)
            links = []
            for seat, player in enumerate(seats):
                try:
                    text, info = self.svc.tokens.create(
                        "seat", game=gid, seat=seat, expires_at=expires_at,
                        label=f"seat {seat} ({player}) of {gid}, tournament {tid}")
                except TokenError as e:
                    raise TournamentError(422, "bad_token_request", e.api_message()) from None
                links.append({"seat": seat, "player": player, "token": text,
                              "token_id": info.id, "expires_at": info.expires_at,
                              "link": f"/play/{gid}#token={text}"})
            out.append({"table": n, "game": gid, "seats": seats,
                        "teams": [seats[0::2], seats[1::2]], "seat_links": links})
        return {"tournament": tid, "name": t.name, "round": rno, "tables": out}

    # ------------------------------------------------------------------ creating

    def create(self, *, name: str, players: list[str], ruleset: str | None = None,
               options: dict[str, Any] | None = None, move_limit: int | None = None,
               seed: int | None = None, tid: str | None = None,
               on_timeout: str | None = None, online: bool = False,
               clock: int | None = None) -> Tournament:
        """A tournament, its round 1 drawn. ``online``: every game is an online game (the
        service deals it, the seats play it from their links, a seat out of time is played
        for: ``on_timeout`` is ``autoplay``); ``clock`` is its seconds a move, the same as
        ``move_limit``."""
        ruleset = ruleset or DEFAULT_RULESET
        options = DEFAULT_OPTIONS if options is None else options
        if clock is not None:
            if not online:
                raise TournamentError(422, "bad_clock", "clock is the move clock of an online "
                                      "tournament: make it online, or give move_limit")
            if move_limit is not None and move_limit != clock:
                raise TournamentError(422, "bad_clock", f"clock ({clock} s) and move_limit "
                                      f"({move_limit} s) are the same thing: give one")
            move_limit = clock
        if online:
            if on_timeout == "record":
                raise TournamentError(422, "bad_on_timeout", "an online tournament's seats are "
                                      "played for when their time is up: on_timeout is "
                                      "autoplay (or leave it out)")
            on_timeout = "autoplay"
            if move_limit is not None and not 1 <= move_limit <= MOST_ONLINE_CLOCK:
                raise TournamentError(422, "bad_move_limit", "an online game's clock is a whole "
                                      f"number of seconds from 1 to {MOST_ONLINE_CLOCK}, not "
                                      f"{move_limit}")
        on_timeout = on_timeout or "record"
        if on_timeout not in ON_TIMEOUT:
            raise TournamentError(422, "bad_on_timeout", f"on_timeout is {' or '.join(ON_TIMEOUT)}"
                                  f", not {on_timeout!r}")
        if move_limit is not None and move_limit < 1:
            raise TournamentError(422, "bad_move_limit", "the time per move is a whole number of "
                                  f"seconds, 1 or more, not {move_limit}")
        try:
            if get_game(game_of(ruleset)).scoring != "teams":  # two partnerships a table
                raise TournamentError(422, "bad_ruleset", "tournaments are played with a "
                                      f"klaverjas ruleset, not {ruleset!r}")
            resolve(ruleset, options)
        except OptionError as e:
            raise TournamentError(422, "bad_options", str(e)) from None
        if len(set(players)) != len(players):
            raise TournamentError(422, "bad_players", "a player is named twice")
        bad = [p for p in players if not re.fullmatch(PLAYER_ID_PATTERN, p)]
        if bad:
            raise TournamentError(422, "bad_players", f"{bad[0]!r} is not a player id "
                                  "(letters, digits, ._:@-)")
        if rounds_for(len(players)) is None:
            raise TournamentError(422, "bad_players", f"a tournament needs 4, 8, 16, 32... players "
                                  f"(tables of four, half go on each round), not {len(players)}")
        if tid in NOT_IDS:  # a path's step: /api/tournaments/.. is no tournament's
            raise TournamentError(422, "bad_id", not_an_id(tid, "tournament id"))
        tid = tid or f"t{now()[:10].replace('-', '')}-{secrets.token_hex(2)}"
        seed = secrets.randbelow(1 << 31) if seed is None else seed
        with self.svc.pool.get() as store:
            taken = [g for ids in store.game_id_batches(batch=10000) for g in ids
                     if (m := GAME_ID.fullmatch(g)) is not None and m.group(1) == tid]
        if taken:  # the tournament's games would clash with them (its rounds could not start)
            raise TournamentError(409, "tournament_exists", f"the store has games named as "
                                  f"tournament {tid}'s ({', '.join(taken[:3])}); choose another id")
        t = Tournament(tid, name, ruleset, options, list(players),
                       DEFAULT_MOVE_LIMIT if move_limit is None else move_limit, seed, now(),
                       on_timeout, online)
        try:
            with self.svc.engine.begin() as c:
                c.execute(insert(db.tournaments).values(
                    id=t.id, name=t.name, ruleset=t.ruleset, options=json.dumps(t.options),
                    players=json.dumps(t.players), move_limit=t.move_limit, seed=t.seed,
                    created_at=t.created_at))
                c.execute(insert(db.tournament_clocks).values(tournament=t.id,
                                                              on_timeout=t.on_timeout))
                if online:
                    c.execute(insert(db.tournament_online).values(tournament=t.id,
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
                    "move_limit_s": t.move_limit, "on_timeout": t.on_timeout}
            fields = {"game": gid, "ruleset": t.ruleset, "seats": seats,
                      "dealer": rng.randrange(4), "options": t.options or None, "meta": meta}
            try:
                if t.online:  # as POST /api/games makes an online game: its seat links come
                    # from seat_links, each time new (the tokens made here are not kept)
                    online_of(self.svc).create({k: v for k, v in fields.items()
                                                if v is not None}, t.move_limit, "tournament")
                else:
                    self.svc.new_game(fields)
            except ConflictError:
                raise TournamentError(409, "round_started",
                                      f"round {round_no} of {t.id} has already started") from None
            rows.append({"tournament": t.id, "round": round_no, "table_no": i, "game": gid})
        with self.svc.engine.begin() as c:
            c.execute(insert(db.tournament_games), rows)

    def next_round(self, tid: str) -> dict[str, Any]:
        """Start the next round with the winners of the last, in new teams. A winner who
        withdrew is left out; their place goes to a lucky loser
        (:func:`~jaslog.service.tournament_draw.lucky_losers`)."""
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
        out = {w.player for w in self.withdrawals(tid)}
        winners = [p for g in cur["tables"] for p in g["winners"] if p not in out]
        partners = {frozenset(g["winners"]) for g in cur["tables"]}
        places = 2 * len(cur["tables"]) - len(winners)
        if places:
            lucky = lucky_losers(cur["tables"], out, t.seed, cur["round"], places)
            if len(lucky) < places:
                raise TournamentError(409, "not_enough_players", f"round {cur['round'] + 1} "
                                      f"needs {2 * len(cur['tables'])} players; after the "
                                      f"withdrawals only {len(winners) + len(lucky)} can play")
            winners += lucky
            partners |= {frozenset(team) for g in cur["tables"] for team in g["teams"]
                         if set(team) & set(lucky)}
        self._start_round(t, cur["round"] + 1, winners, partners)
        return self.standing(tid, None)

    # ------------------------------------------------------------------ withdrawals

    def withdraw(self, tid: str, player: str, *, by: str, reason: str = "") -> dict[str, Any]:
        """``player`` leaves ``tid`` for good (rule book 9.1, decision 15). Their game in
        play, if any, is decided: the service records a ruling on its round in play (the
        round to the other side, :func:`forfeit_score`) and a note, and the standing counts
        it won by the other team. The answer says what was done."""
        t = self.get(tid)
        if player not in t.players:
            raise TournamentError(404, "no_such_player", f"{player!r} does not play in "
                                  f"tournament {tid}")
        done = next((w for w in self.withdrawals(tid) if w.player == player), None)
        if done is not None:
            raise self._withdrawn(tid, done)
        st = self.standing(tid, None)
        if st["status"] == "finished":
            raise TournamentError(409, "tournament_over", f"tournament {tid} is over")
        cur = st["rounds"][-1]
        table = next((g for g in cur["tables"] if player in g["seats"]), None)
        game = table["game"] if table is not None and not table["finished"] else None
        w = Withdrawal(player, cur["round"], game, stamp(self.clock()), by[:64], reason[:200])
        try:
            with self.svc.engine.begin() as c:
                c.execute(insert(db.tournament_withdrawals).values(
                    tournament=tid, player=w.player, round=w.round, game=w.game,
                    withdrawn_at=w.withdrawn_at, by=w.by, reason=w.reason))
        except IntegrityError:  # withdrawn a moment ago by another request
            again = next(x for x in self.withdrawals(tid) if x.player == player)
            raise self._withdrawn(tid, again) from None
        if game is not None and t.online:  # decided: the service deals and times it no more
            online_of(self.svc).stop(game, f"withdrawal of {player} from tournament {tid}")
        ruling = self._forfeit(tid, game, player) if game is not None else None
        return {"tournament": tid, **w.to_json(), "ruling": ruling}

    @staticmethod
    def _withdrawn(tid: str, w: Withdrawal) -> TournamentError:
        return TournamentError(409, "already_withdrawn", f"{w.player} withdrew from tournament "
                               f"{tid} at {w.withdrawn_at} (round {w.round}); a player who "
                               "leaves a tournament cannot re-enter")

    def _forfeit(self, tid: str, game: str, player: str) -> dict[str, Any] | None:
        """Append the ruling (when a round is in play) and the note that end ``game`` for
        ``player``'s withdrawal; the ruling as appended, or None."""
        for _attempt in range(20):  # the table may be recording at the same moment
            head, tl = self.svc.timeline(game)
            fold = tl.fold
            assert fold is not None
            seat = fold.seats.index(player)
            others = [p for i, p in enumerate(fold.seats) if i % 2 != seat % 2]
            rounds = fold.state.rounds
            at = stamp(self.clock())
            batch: list[dict[str, Any]] = []
            ruling: dict[str, Any] | None = None
            if rounds and not rounds[-1].closed:
                ruling = {"type": "ruling", "round": len(rounds),
                          "score": forfeit_score(fold, seat),
                          "reason": f"withdrawal of {player}"}
                batch.append({**ruling, "at": at, "id": _own_id(game, player, "ruling")})
            batch.append({"type": "note", "seat": seat, "at": at,
                          "id": _own_id(game, player, "note"),
                          "text": f"{player} withdrew from tournament {tid}: the game ends, won "
                                  f"by {' and '.join(others)} by forfeit"})
            try:
                self.svc.append(game, batch, head.next_seq)
            except ConflictError:
                continue
            return None if ruling is None else {**ruling, "game": game, "seq": head.next_seq}
        raise TournamentError(  # pragma: no cover - twenty appends in the same instant
            409, "game_busy", f"game {game} kept moving; the withdrawal of {player} is "
            "recorded, its ruling is not: try again")

    # ------------------------------------------------------------------ bots

    def play_bots(self, tid: str, round_no: int | None = None, *, bot: str = "heuristic",
                  seed: int | None = None,
                  progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
        """Let the bots play every game of round ``round_no`` (default: the round in play)
        that nothing was recorded in yet, table by table, through the service's append (the
        path a scorer's batch takes: every rule is checked). A game begun, over or decided
        by a withdrawal is left as it is. ``progress`` hears of each table when it is done.
        An online tournament's games are played from their seats instead
        (:func:`jaslog.service.online_bots.play_online_game`: seat tokens, nonces, the
        server's deals).
        The answer: the round, each table (``played`` or why not) and the standing."""
        if bot not in BOT_NAMES:
            raise TournamentError(422, "bad_bot", f"unknown bot {bot!r}; the bots are "
                                  f"{', '.join(BOT_NAMES)}")
        t = self.get(tid)
        games = self.games(tid)
        rno = max(games) if round_no is None else round_no
        if rno not in games:
            raise TournamentError(404, "no_such_round", f"tournament {tid} has no round {rno} "
                                  f"(drawn: {', '.join(map(str, sorted(games))) or 'none'})")
        decided = {w.game for w in self.withdrawals(tid) if w.game is not None}
        tables: list[dict[str, Any]] = []
        for tno, gid in sorted(games[rno].items()):
            row: dict[str, Any]
            if gid in decided:
                row = {"table": tno, "game": gid, "played": False,
                       "reason": "decided by a withdrawal"}
            else:
                try:
                    play = play_online_game if t.online else play_stored_game
                    done = play(self.svc, gid, bot=bot, seed=t.seed if seed is None else seed)
                except BotPlayError as e:
                    if e.code != "game_begun":
                        raise TournamentError(e.status, e.code, e.message) from None
                    row = {"table": tno, "game": gid, "played": False, "reason": e.message}
                else:
                    w = done["winner"]  # a team, 0 or 1: seats 0 and 2, or 1 and 3
                    row = {"table": tno, **done, "played": True,
                           "winners": done["seats"][w::2] if isinstance(w, int) else []}
            tables.append(row)
            if progress is not None:
                progress(row)
        return {"tournament": tid, "round": rno, "bot": bot, "tables": tables,
                "standing": self.standing(tid, None)}

    # ------------------------------------------------------------------ move clocks

    def check_clocks(self, tid: str, clock: MoveClock) -> list[dict[str, Any]]:
        """Run the move clock over the tournament's games in play: the events it appended."""
        t = self.get(tid)
        games = self.games(tid)
        if not games or t.online:  # an online game's clock runs in the online tables' sweep
            return []
        decided = {w.game for w in self.withdrawals(tid) if w.game is not None}
        out: list[dict[str, Any]] = []
        for gid in games[max(games)].values():
            if gid not in decided:
                out += clock.check(gid, t.move_limit, t.on_timeout)
        return out

    def sweep(self, clock: MoveClock, tids: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """:meth:`check_clocks` for every tournament (or those of ``tids``)."""
        out: list[dict[str, Any]] = []
        for tid in self.ids() if tids is None else tids:
            out += self.check_clocks(tid, clock)
        return out

    # ------------------------------------------------------------------ standings

    def standing(self, tid: str, who: Principal | None) -> dict[str, Any]:
        """The tournament as ``who`` may see it (None: everything)."""
        t = self.get(tid)
        total_rounds = rounds_for(len(t.players))
        rounds: list[dict[str, Any]] = []
        exceeded: list[dict[str, Any]] = []
        timeouts: list[dict[str, Any]] = []
        status = "playing"
        champions: list[str] | None = None
        runner_up: list[str] | None = None
        games = self.games(tid)
        gone = self.withdrawals(tid)
        forfeits = {w.game: w.player for w in gone if w.game is not None}
        for rno in sorted(games):
            tables: list[dict[str, Any]] = []
            for tno, gid in sorted(games[rno].items()):
                try:
                    _, tl = self.svc.timeline(gid)
                except NoSuchGame:  # pragma: no cover - the store lost a game
                    continue
                seats = list(tl.events[0].seats)  # type: ignore[attr-defined]
                sight = FULL if who is None else \
                    who.sight(seats, {"table": str(tno), "tournament": tid})
                rep = report(tl, sight)
                w = rep["winner"]
                forfeit = forfeits.get(gid)
                if forfeit is not None:  # won by the other team, whatever was played after
                    w = 1 - seats.index(forfeit) % 2
                tables.append({
                    "table": tno, "game": gid, "seats": seats,
                    "teams": [seats[0::2], seats[1::2]], "totals": rep["totals"],
                    "rounds": len(rep["rounds"]), "finished": rep["finished"] or bool(forfeit),
                    "winner": w, "winners": seats[w::2] if isinstance(w, int) else [],
                    "forfeit": forfeit,
                })
                evs = visible_events(tl, sight)
                timing = move_times(evs, t.move_limit)
                exceeded += [{"game": gid, "table": tno, "tournament_round": rno, **x,
                              "clock": timing["clock"]} for x in timing["exceeded"]]
                timeouts += [{"game": gid, "table": tno, "tournament_round": rno, **x}
                             for x in recorded_timeouts(gid, evs, seats)]
            rounds.append({"round": rno, "tables": tables,
                           "over": all(g["finished"] for g in tables)})
        if rounds and rounds[-1]["over"]:
            status = "round_over"
            last: list[dict[str, Any]] = rounds[-1]["tables"]
            if len(last) == 1 and isinstance(last[0]["winner"], int):
                status = "finished"
                champions = last[0]["winners"]
                runner_up = last[0]["teams"][1 - last[0]["winner"]]
        # the seed says every draw to come: its director's and the admins' until it is over
        seed = t.seed if who is None or who.role == "admin" or who.directs(tid) \
            or status == "finished" else None
        return {"id": t.id, "name": t.name, "ruleset": t.ruleset, "options": t.options,
                "players": t.players, "move_limit_s": t.move_limit, "on_timeout": t.on_timeout,
                "seed": seed, "created_at": t.created_at, "rounds_planned": total_rounds,
                "online": t.online,
                "status": status, "rounds": rounds, "champions": champions,
                "runner_up": runner_up, "withdrawn": [x.to_json() for x in gone],
                "time_limit": {"limit": t.move_limit, "on_timeout": t.on_timeout,
                               "exceeded": exceeded, "timeouts": timeouts}}


def _own_id(game: str, player: str, what: str) -> str:
    """The id of an event the service appends for a withdrawal (one per player and game)."""
    return str(uuid.uuid5(ID_SPACE, f"{game}:withdrawal:{player}:{what}"))
