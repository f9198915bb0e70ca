"""``jaslog tournament``: tournaments on the local store (new, show, draw, withdraw, tokens,
and play: bots play a round's games).

The same tournaments as the service's (``/api/tournaments``): each command opens the store
(``--db`` or ``$JASLOG_DB``, else the user data folder) as the service does and calls
:class:`jaslog.service.tournaments.Tournaments`, the one implementation both use. The
command line acts as the tournament's director (what an admin token may do).

Exit codes: 0 done; 2 bad input, or no such store, tournament or player; 3 the tournament
refuses in the state it is in (the round is not over, the player already withdrew...).
A refusal says its code (``round_not_over``); with ``--json`` it is also a JSON line on
stdout: ``{"ok": false, "error": {"code", "message", "exit"}}``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import typer
from rich.markup import escape

from jaslog.cli.common import console, fail, write_json_line
from jaslog.cli.store_cmds import DB, JSON

tournament_app = typer.Typer(help="Tournaments (seed 003: winners re-paired each round): new, "
                                  "show, draw the next round, withdraw a player, tokens, "
                                  "play (bots play a round).",
                             no_args_is_help=True)

#: What the command line does with each HTTP status of a tournament refusal.
EXIT = {404: 2, 409: 3, 422: 2}
#: Who a withdrawal made here was made by.
BY = "jaslog tournament withdraw"


def _refuse(code: str, message: str, exit_code: int, as_json: bool) -> NoReturn:
    if as_json:
        write_json_line({"ok": False, "error": {"code": code, "message": message,
                                                "exit": exit_code}})
    fail(f"{message} ({code})", exit_code)


@contextmanager
def _tournaments(db: str | None, as_json: bool, create: bool = False) -> Iterator[Any]:
    """The store's tournaments (a missing store is created only for ``new``), every
    refusal turned into ``jaslog: message (code)`` and its exit code."""
    from sqlalchemy.exc import SQLAlchemyError

    from jaslog.service.core import Service
    from jaslog.service.tournaments import TournamentError, Tournaments
    from jaslog.store import StoreError, open_store

    svc: Service | None = None
    try:
        if not create:
            open_store(db, create=False).close()  # a read of a missing store: said, not made
        svc = Service(db, pool_size=1)
        yield Tournaments(svc)
    except TournamentError as e:
        _refuse(e.code, e.message, EXIT.get(e.status, 2), as_json)
    except StoreError as e:
        _refuse(getattr(e, "code", None) or "store_error", str(e), 2, as_json)
    except (SQLAlchemyError, OSError) as e:
        _refuse("database_error", f"cannot use the store {db or '(default)'}: "
                f"{str(e).strip().splitlines()[0]}", 2, as_json)
    finally:
        if svc is not None:
            svc.close()


def _team(players: list[str]) -> str:
    return " & ".join(players)


def _print_tables(tables: list[dict[str, Any]]) -> None:
    from jaslog.cli.tables import print_fitted

    cells = []
    for g in tables:
        w = g["winner"]
        if g["forfeit"]:
            result = f"won by {_team(g['winners'])} ({g['forfeit']} withdrew)"
        elif isinstance(w, int):
            result = f"won by {_team(g['winners'])}"
        elif w == "draw":
            result = "drawn"
        else:
            result = "playing" if g["rounds"] else "not started"
        cells.append({"table": str(g["table"]), "game": g["game"],
                      "team 1": _team(g["teams"][0]), "score": "-".join(map(str, g["totals"])),
                      "team 2": _team(g["teams"][1]), "result": result})
    print_fitted(cells, ("game", "team 1", "score", "team 2", "result", "table"),
                 right=("score",), wrap="result")


def _print_standing(st: dict[str, Any], rounds: list[dict[str, Any]] | None = None) -> None:
    """A tournament for people: its settings, each round's tables, withdrawals, timeouts."""
    console.print(f"[bold]{escape(st['name'])}[/] (tournament {st['id']}): "
                  f"{len(st['players'])} players, {st['rounds_planned']} rounds, "
                  f"{st['ruleset']}, {st['move_limit_s']} s per move "
                  f"(after a timeout: {st['on_timeout']}), {st['status'].replace('_', ' ')}")
    for r in st["rounds"] if rounds is None else rounds:
        console.print(f"round {r['round']}{' (over)' if r['over'] else ''}:")
        _print_tables(r["tables"])
    for w in st["withdrawn"]:
        why = f": {escape(w['reason'])}" if w["reason"] else ""
        console.print(f"{w['player']} withdrew in round {w['round']} at "
                      f"{w['withdrawn_at'][:19].replace('T', ' ')}{why}")
    limit = st["time_limit"]
    if limit["timeouts"] or limit["exceeded"]:
        console.print(f"time: {len(limit['timeouts'])} timeouts recorded, "
                      f"{len(limit['exceeded'])} moves over {limit['limit']} s")
    if st["champions"]:
        console.print(f"champions: {_team(st['champions'])}; second: {_team(st['runner_up'])}")


def _options(ruleset: str | None, option: list[str]) -> dict[str, Any] | None:
    """The tournament's game options: its defaults (1001 points), ``-o`` on top."""
    from jaslog.engine.options import OptionError
    from jaslog.games import parse_option_text
    from jaslog.service.tournaments import DEFAULT_OPTIONS, DEFAULT_RULESET

    if not option:
        return None
    out = dict(DEFAULT_OPTIONS)
    for text in option:
        try:
            k, v = parse_option_text(ruleset or DEFAULT_RULESET, text)
        except OptionError as e:
            fail(str(e))
        out[k] = v
    return out


@tournament_app.command("new")
def new(
    name: str = typer.Option(..., "--name", help="the tournament's name, for people"),
    players: str = typer.Option(..., "--players", help="4, 8, 16... player ids, comma-separated"),
    tid: str | None = typer.Option(None, "--id", help="the tournament id (default: date + random)"),
    ruleset: str | None = typer.Option(None, "--ruleset", "-r",
                                       help="a klaverjas preset (default klaverjas-online-501)"),
    option: list[str] = typer.Option([], "--option", "-o",
                                     help="KEY=VALUE over the tournament's options (1001 "
                                          "points), repeatable"),
    move_limit: int | None = typer.Option(None, "--move-limit", min=1, max=3600,
                                          help="seconds per move (default 30)"),
    on_timeout: str = typer.Option("record", "--on-timeout",
                                   help="after a timeout: record (the fact) or autoplay (the "
                                        "service plays the lowest legal card or passes); "
                                        "online: autoplay"),
    seed: int | None = typer.Option(None, "--seed", min=0, max=2**31 - 1,
                                    help="for the draws (default: random)"),
    online: bool = typer.Option(False, "--online",
                                help="played from the seats: the service deals every game, "
                                     "each seat plays from its link (`tokens` prints them)"),
    clock: int | None = typer.Option(None, "--clock", min=1, max=600,
                                     help="online: seconds a move (default 30)"),
    db: str | None = DB,
    as_json: bool = JSON,
) -> None:
    """Create a tournament and draw its players into the tables of round 1 (--online: as
    online games, which the running service deals)."""
    import re

    from jaslog.events import PLAYER_ID_PATTERN

    if tid is not None and not re.fullmatch(r"[A-Za-z0-9._:-]{1,40}", tid):
        _refuse("bad_id", f"--id {tid!r}: a tournament id is 1-40 letters, digits and . _ : -",
                2, as_json)
    names = [p.strip() for p in players.split(",")]
    bad = next((p for p in names if not re.fullmatch(PLAYER_ID_PATTERN, p)), None)
    if bad is not None:
        _refuse("bad_players", f"--players: {bad!r} is not a player id (letters, digits, "
                "._:@-; ids are separated by commas)", 2, as_json)
    opts = _options(ruleset, option)
    with _tournaments(db, as_json, create=True) as ts:
        t = ts.create(name=name, players=names, ruleset=ruleset, options=opts,
                      move_limit=move_limit, seed=seed, tid=tid,
                      on_timeout=None if online and on_timeout == "record" else on_timeout,
                      online=online, clock=clock)
        st = ts.standing(t.id, None)
    if as_json:
        write_json_line(st)
        return
    _print_standing(st)


@tournament_app.command("show")
def show(
    tid: str = typer.Argument(..., help="the tournament id"),
    db: str | None = DB,
    as_json: bool = JSON,
) -> None:
    """A tournament: rounds, tables, scores, winners, withdrawals and timeouts."""
    with _tournaments(db, as_json) as ts:
        st = ts.standing(tid, None)
    if as_json:
        write_json_line(st)
        return
    _print_standing(st)


@tournament_app.command("draw")
def draw(
    tid: str = typer.Argument(..., help="the tournament id"),
    db: str | None = DB,
    as_json: bool = JSON,
) -> None:
    """Draw the next round: the winners of the last, in new teams (a winner who withdrew
    is left out; the best player of the losing teams takes the place)."""
    with _tournaments(db, as_json) as ts:
        st = ts.next_round(tid)
    if as_json:
        write_json_line(st)
        return
    _print_standing(st, st["rounds"][-1:])


@tournament_app.command("withdraw")
def withdraw(
    tid: str = typer.Argument(..., help="the tournament id"),
    player: str = typer.Argument(..., help="the player who leaves, for good"),
    reason: str = typer.Option("", "--reason", help="a few words for the record"),
    db: str | None = DB,
    as_json: bool = JSON,
) -> None:
    """Withdraw a player: they cannot re-enter; their game in play ends with a ruling on
    its round in play for the other team, and the next round is drawn without them."""
    if len(reason) > 200:
        _refuse("bad_reason", "--reason: at most 200 characters", 2, as_json)
    with _tournaments(db, as_json) as ts:
        w = ts.withdraw(tid, player, by=BY, reason=reason)
    if as_json:
        write_json_line(w)
        return
    said = f"{player} withdrew from tournament {tid} (round {w['round']})"
    r = w["ruling"]
    if r is not None:
        said += (f"; game {w['game']} ends: ruling {'-'.join(map(str, r['score']))} on its "
                 f"round {r['round']} (seq {r['seq']}), won by the other team")
    elif w["game"] is not None:
        said += f"; game {w['game']} ends (no round in play), won by the other team"
    console.print(said)


@tournament_app.command("play")
def play(
    tid: str = typer.Argument(..., help="the tournament id"),
    bots: bool = typer.Option(False, "--bots", help="bots play the games (for demos and tests)"),
    round_no: int | None = typer.Option(None, "--round", min=1,
                                        help="the round (default: the round in play)"),
    bot: str = typer.Option("heuristic", "--bot", help="random | heuristic"),
    seed: int | None = typer.Option(None, "--seed", min=0,
                                    help="for the bots' deals (default: the tournament's seed)"),
    db: str | None = DB,
    as_json: bool = JSON,
) -> None:
    """Bots play every game of a round that nothing is recorded in yet, through the same
    append a scorer's pad uses (every rule checked), one progress line a table. In an
    online tournament they play from the seats, each with a seat token, through the append
    a seat's page uses, and send their nonces: the server deals."""
    from jaslog.cli.common import err_console

    if not bots:
        _refuse("no_players", "say who plays: --bots (the bots play the round's games)", 2,
                as_json)

    def said(row: dict[str, Any]) -> None:
        if not row["played"]:
            line = f"table {row['table']} ({row['game']}): left as it is: {row['reason']}"
        else:
            w = row["winner"]
            won = (f"won by {_team(row['winners'])} (team {w + 1})" if isinstance(w, int)
                   else "drawn" if w == "draw" else "not over")
            line = (f"table {row['table']} ({row['game']}): {row['rounds']} deals, "
                    f"{'-'.join(map(str, row['totals']))}, {won}")
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)

    with _tournaments(db, as_json) as ts:
        done = ts.play_bots(tid, round_no, bot=bot, seed=seed, progress=said)
    if as_json:
        write_json_line(done)
        return
    st = done["standing"]
    _print_standing(st, [r for r in st["rounds"] if r["round"] == done["round"]])


@tournament_app.command("tokens")
def tokens(
    tid: str = typer.Argument(..., help="the tournament id"),
    table: list[str] = typer.Option([], "--table", help="a table (repeatable; default: every "
                                    "table of the tournament)"),
    director: bool = typer.Option(False, "--director",
                                  help="a director's token instead: a referee of this "
                                       "tournament's games, who sees its seed and draws it"),
    expires: str | None = typer.Option(None, "--expires",
                                       help="an end before the tournament's: a span (8h), a "
                                            "date or a time"),
    round_no: int | None = typer.Option(None, "--round", min=1,
                                        help="online: the round whose seat links to print "
                                             "(default: the round in play)"),
    url: str = typer.Option("http://localhost:8000", "--url",
                            help="online: the service's address, for the seat links"),
    db: str | None = DB,
    as_json: bool = JSON,
) -> None:
    """Issue the tournament's tokens, each shown only now: a scorer's for every table (or
    --table N), which records that table's games of this tournament and no other game; or
    a director's (--director). They all end with the tournament. For an online tournament,
    every seat's link of a round instead (a new seat token in its fragment)."""
    from jaslog.service.auth import expiry

    if director and table:
        _refuse("bad_table", "--director: a director's token has no table", 2, as_json)
    with _tournaments(db, as_json) as ts:
        expires_at = None
        if expires is not None:
            try:
                expires_at = expiry(expires, ts.svc.clock())
            except ValueError as e:
                _refuse("bad_expires", f"--expires: {e}", 2, as_json)
        online = not director and ts.get(tid).online
        links: dict[str, Any] = {}
        made: list[tuple[str, Any]] = []
        if round_no is not None and not online:
            _refuse("not_online", f"--round: tournament {tid} is not played online; its "
                    "scorer tokens are for a table, whatever the round", 2, as_json)
        if online:
            nums = []
            for t in table:
                if not t.isdigit():
                    _refuse("bad_table", f"--table {t!r}: a table is a number", 2, as_json)
                nums.append(int(t))
            links = ts.seat_links(tid, round_no, nums or None, expires_at)
        elif director:
            made = [ts.issue_token(tid, "referee", expires_at=expires_at)]
        else:
            tables = table or [str(n) for n in range(1, len(ts.get(tid).players) // 4 + 1)]
            made = [ts.issue_token(tid, "scorer", table=t, expires_at=expires_at)
                    for t in tables]
    if online:
        _print_seat_links(links, url.rstrip("/"), as_json)
        return
    for text, info in made:
        if as_json:
            write_json_line({**info.to_json(), "token": text})
        else:
            who = "director" if info.role == "referee" else f"table {info.table}"
            console.print(f"{who} (token {info.id}): {text}", soft_wrap=True, highlight=False,
                          markup=False)
    if not as_json:
        console.print(f"keep them: they are shown only now, and end with tournament {tid}",
                      highlight=False)


def _print_seat_links(links: dict[str, Any], base: str, as_json: bool) -> None:
    """Each seat's link of an online tournament's round: a JSON line a table, or a line a
    seat."""
    for t in links["tables"]:
        seats = [{**s, "link": base + s["link"]} for s in t["seat_links"]]
        if as_json:
            write_json_line({"tournament": links["tournament"], "round": links["round"],
                             "table": t["table"], "game": t["game"], "seat_links": seats})
            continue
        console.print(f"table {t['table']} ({t['game']}), round {links['round']}:",
                      highlight=False, markup=False)
        for s in seats:
            console.print(f"  seat {s['seat']} ({s['player']}): {s['link']}", soft_wrap=True,
                          highlight=False, markup=False)
    if not as_json:
        console.print("keep them: they are shown only now (each seat's earlier links keep "
                      "working)", highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(tournament_app, name="tournament")
