"""The store's commands: new, record, append, import, games, show, dump (``upgrade`` and
``players``: :mod:`jaslog.cli.store_upkeep`; ``verify`` and ``key``: :mod:`jaslog.cli.verify_cmds`).

Thin: each opens the store (``--db`` or ``$JASLOG_DB``, else the user data folder), calls
:mod:`jaslog.store` and formats the result. Exit codes: 0 fine, 1 problems found (verify),
2 bad input or a refused batch, 3 a concurrency conflict (expected seq is not the next).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import typer
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

from jaslog.cli.common import check_readable, console, err_console, fail, write_json_line
from jaslog.cli.tables import print_fitted
from jaslog.errors import JaslogError
from jaslog.events import GAME_ID_PATTERN, PLAYER_ID_PATTERN, id_problem
from jaslog.logs import skip_bom
from jaslog.store import (
    ConflictError,
    GameInfo,
    RejectedError,
    Store,
    StoreError,
    open_store,
)

DB = typer.Option(None, "--db", envvar="JASLOG_DB", show_envvar=True,
                  help="the store: a path (SQLite) or a URL (sqlite:///..., postgresql://...); "
                       "default: jaslog.sqlite in the user data folder")
JSON = typer.Option(False, "--json", help="JSON output, for scripts")


#: What a command does with an error before ``jaslog: ...`` and the exit: (error, message, exit code).
OnError = Callable[[Exception, str, int], None]


@contextmanager
def opened(db: str | None, create: bool = True, on_error: OnError | None = None,
           upgrade: bool = True) -> Iterator[Store]:
    """The store, with every store or database error turned into ``jaslog: ...`` (exit 2, 3
    for a conflict); ``on_error`` sees each first (``append --json-out`` prints it as JSON).

    A missing store is created for commands that write, and refused (``create=False``) by
    commands that only read. ``upgrade`` false: a store of an older schema is neither
    upgraded nor refused (``jaslog upgrade`` upgrades it)."""
    from sqlalchemy.exc import SQLAlchemyError

    from jaslog.store.engine import DatabaseError, database_error

    store: Store | None = None
    try:
        store = open_store(db, create, upgrade=upgrade)
        yield store
    except (StoreError, DatabaseError, SQLAlchemyError) as e:
        code = 3 if isinstance(e, ConflictError) else 2
        if isinstance(e, SQLAlchemyError) and (mapped := database_error(e)) is not None:
            e = mapped  # the database's own trouble (full, read-only, busy), in a sentence
        if isinstance(e, RejectedError):
            message = with_code(str(e), e.code)
        elif isinstance(e, (StoreError, DatabaseError)):
            message = str(e)
        else:
            orig = getattr(e, "orig", None)
            message = f"database error: {(str(orig) if orig else str(e)).strip().splitlines()[0]}"
        if on_error is not None:
            on_error(e, message, code)
        fail(message, code)
    finally:
        if store is not None:
            store.close()


def with_code(message: str, code: str | None) -> str:
    """A refusal's sentence with its code, as every refusal is said: before the closing
    ``; nothing was written``, unless the sentence names it already (a rule's refusal does).

    >>> with_code("game g seq 3: at ... is ahead of the store's clock; nothing was written",
    ...           "at_in_future")
    "game g seq 3: at ... is ahead of the store's clock [at_in_future]; nothing was written"
    >>> with_code("game g seq 3: no round has been dealt yet [no_deal]; nothing was written",
    ...           "no_deal")
    'game g seq 3: no round has been dealt yet [no_deal]; nothing was written'
    """
    if not code or code == "rejected" or f"[{code}]" in message:
        return message
    head, end, rest = message.rpartition("; nothing was written")
    return f"{head} [{code}]{end}" if end and not rest else f"{message} [{code}]"


def error_json(game: str, e: Exception, message: str, exit_code: int) -> dict[str, Any]:
    """An error as the JSON object ``append --json-out`` prints: ``ok`` false, the game, and
    ``error``: ``code`` (the rule code of a refusal, ``conflict``, ...), ``message`` (the
    sentence on stderr), ``exit``, and what is known: ``expected``/``actual`` seq of a
    conflict, the ``seq``, ``seat`` and ``card`` of a refused event."""
    from jaslog.store import NoSuchGame
    from jaslog.store.engine import DatabaseError

    err: dict[str, Any] = {"code": "store_error", "message": message, "exit": exit_code}
    if isinstance(e, BadBatch):
        err["code"] = e.code
    elif isinstance(e, ConflictError):
        err.update(code="conflict", expected=e.expected, actual=e.actual)
    elif isinstance(e, RejectedError):
        fe = e.fold_error
        err.update(code=e.code or "rejected", seq=e.seq)
        if fe is not None:
            err.update(seat=fe.seat, card=fe.card)
    elif isinstance(e, NoSuchGame):
        err["code"] = "no_such_game"
    elif isinstance(e, DatabaseError):
        err["code"] = e.code
    elif not isinstance(e, StoreError):
        err["code"] = "database_error"
    return {"ok": False, "game": game, "error": err}


def _parse_options(ruleset: str, option: list[str]) -> dict[str, Any]:
    from jaslog.engine.options import OptionError
    from jaslog.games import parse_option_text

    out: dict[str, Any] = {}
    for text in option:
        try:
            k, v = parse_option_text(ruleset, text)
        except OptionError as e:
            fail(str(e))
        out[k] = v
    return out


def seat_ids(seats: str) -> list[str]:
    """The player ids of ``--seats`` (comma-separated, clockwise from seat 0), or ``fail``
    naming the seat that is empty or not a player id."""
    players = [p.strip() for p in seats.split(",")]
    empty = [str(i) for i, p in enumerate(players) if not p]
    if empty:
        which = f"seats {', '.join(empty[:-1])} and {empty[-1]} are" if len(empty) > 1 \
            else f"seat {empty[0]} is"
        fail(f"--seats {seats!r}: {which} empty (seats count from 0); give every seat a player "
             "id, clockwise (e.g. ann,bob,cor,dirk)")
    for i, p in enumerate(players):
        if not re.fullmatch(PLAYER_ID_PATTERN, p):
            fail(f"--seats: seat {i}: {id_problem(p, game=False)}")
    return players


#: What a table is called (the service's ``TABLE_PATTERN``, which a scorer token's table
#: matches): a game's ``meta.table`` that is not one could never be written by a scorer.
TABLE_PATTERN = r"[A-Za-z0-9._:-]{1,64}"

#: What a ``--meta`` key may be.
META_KEY = r"[A-Za-z_][A-Za-z0-9_.-]{0,63}"


def meta_pairs(pairs: list[str]) -> dict[str, str]:
    """The ``game_started.meta`` of ``--meta KEY=VALUE`` (repeatable; the values are text),
    or ``fail`` naming the pair that is malformed.

    >>> meta_pairs(["table=3", "event=club night"])
    {'table': '3', 'event': 'club night'}
    """
    out: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        key, value = key.strip(), value.strip()
        if not eq:
            fail(f"--meta {pair!r}: write KEY=VALUE (e.g. --meta table=3)")
        if not re.fullmatch(META_KEY, key):
            fail(f"--meta {pair!r}: the key {key!r} is not a name (letters, digits and _.-, "
                 "starting with a letter; e.g. table, event, place)")
        if not value:
            fail(f"--meta {pair!r}: {key} has no value (e.g. --meta {key}=3)")
        if key in out:
            fail(f"--meta {key} is given twice ({out[key]!r} and {value!r})")
        if key == "tournament":
            fail("--meta tournament: a game joins a tournament only when the tournament draws "
                 "it (the service's tournament rounds); leave it out")
        if key == "table" and not re.fullmatch(TABLE_PATTERN, value):
            fail(f"--meta table={value!r}: a table is 1 to 64 letters, digits and ._:- (as a "
                 "scorer token's table is), e.g. --meta table=3")
        if len(value) > 2000:
            fail(f"--meta {key}: the value is {len(value)} characters; at most 2000")
        out[key] = value
    return out


def new(
    ruleset: str = typer.Option("amsterdam", "--ruleset", "-r", help="a preset (jaslog rules presets)"),
    seats: str = typer.Option(..., "--seats", help="4 player ids, clockwise: ann,bob,cor,dirk"),
    dealer: int = typer.Option(0, "--dealer", min=0, max=3, help="seat of the first dealer"),
    option: list[str] = typer.Option([], "--option", "-o", help="KEY=VALUE override, repeatable"),
    meta: list[str] = typer.Option([], "--meta", "-m",
                                   help="KEY=VALUE about the game (table, event, place...), "
                                        "repeatable; a scorer token writes to the games of its "
                                        "table"),
    game: str | None = typer.Option(None, "--id", help="the game id (default: date + random)"),
    db: str | None = DB,
) -> None:
    """Start a game in the store and print its id."""
    from jaslog.games import PRESETS

    if ruleset not in PRESETS:
        fail(f"unknown ruleset {ruleset!r}; the presets are {', '.join(PRESETS)}")
    players = seat_ids(seats)
    if game is not None and not re.fullmatch(GAME_ID_PATTERN, game):
        fail(f"--id: {id_problem(game)}")
    opts = _parse_options(ruleset, option)
    about = meta_pairs(meta)
    with opened(db) as store:
        try:
            gid = store.new_game(ruleset, players, dealer=dealer, options=opts or None, game=game,
                                 meta=about or None)
        except ConflictError:
            fail(f"game {game} already exists in the store")
    print(gid)


def record(
    game: str = typer.Argument(..., help="the game id (see `jaslog new`, `jaslog games`)"),
    db: str | None = DB,
) -> None:
    """Record a game at the table: type each bid, card and claim as it happens."""
    from rich.prompt import Prompt

    from jaslog.record import open_recorder, run

    def ask(prompt: str) -> str:
        if sys.stdin.isatty():
            try:
                return Prompt.ask(escape(prompt.rstrip("> ").rstrip()), console=console)
            except (EOFError, KeyboardInterrupt):
                console.print()  # what follows starts on a line of its own, not after the prompt
                raise
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        console.print(prompt + line.rstrip("\n"), highlight=False, markup=False)
        return line

    def show(x: Any) -> None:
        if isinstance(x, str):
            console.print(x, highlight=False, markup=False)
        else:
            console.print(x)

    with opened(db, create=False) as store:  # a game to record is in a store that exists
        rec = open_recorder(store, game)
        console.print(f"recording game [bold]{game}[/] ({rec.fold.ruleset}); 'help' for what "
                      "to type, 'quit' to stop", highlight=False)
        if sys.stdin.isatty():
            console.print(rec.help_text(), highlight=False, markup=False)
        n = run(rec, ask, show)
        head = store.head(game)
    print_with_certificate(f"{n} event{'s' * (n != 1)} recorded; game {game} is at seq "
                           f"{head.seq}", head.certificate)


_JSON_KINDS = {str: "a JSON string", int: "a JSON number", float: "a JSON number",
               bool: "a JSON boolean", type(None): "JSON null", list: "a JSON array"}
_AN_EVENT = 'an event is a JSON object ({"type": "note", "text": "..."})'


class BadBatch(JaslogError, ValueError):
    """What ``append`` was given is not a batch of events; ``code`` names why."""

    code = "bad_event"

    def __init__(self, message: str, code: str) -> None:
        self.code = code
        super().__init__(message)


def _not_an_event(what: str, value: Any, hint: str) -> BadBatch:
    text = orjson.dumps(value).decode()
    shown = f"{text}, " if len(text) <= 40 and not isinstance(value, list | None) else ""
    return BadBatch(f"{what} is {shown}{_JSON_KINDS.get(type(value), 'a JSON value')}, not an "
                    f"event: {_AN_EVENT}{hint}", "not_an_event")


def read_batch(text: str, lines: bytes | None) -> list[Any]:
    """The events ``append`` was given: ``text`` is one event (a JSON object) or an array of
    them; ``lines`` (for ``-``) JSON Lines, one event per line. Raises :class:`BadBatch`."""
    items: list[Any] = []
    if lines is None:
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as e:
            raise BadBatch(f"--json: not valid JSON: {e}", "bad_json") from None
        if isinstance(value, list):
            for i, item in enumerate(value, 1):
                if not isinstance(item, dict):
                    raise _not_an_event(f"--json: item {i} of the array", item, "")
            items = value
        elif isinstance(value, dict):
            items = [value]
        else:
            raise _not_an_event("--json", value, "; --json takes one or an array of them")
        if not items:
            raise BadBatch("--json is an empty array: nothing to append (an empty batch is "
                           "refused: it is almost always a mistake)", "empty_batch")
        return items
    for i, line in enumerate((x for x in lines.splitlines() if x.strip()), 1):
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            raise BadBatch(f"event {i} (stdin): not valid JSON: {e}", "bad_json") from None
        if not isinstance(value, dict):
            raise _not_an_event(f"event {i} (stdin)", value, "; stdin holds one a line")
        items.append(value)
    if not items:
        raise BadBatch("stdin held no events: nothing to append (an empty batch is refused: "
                       "it is almost always a mistake)", "empty_batch")
    return items


def append(
    game: str = typer.Argument(..., help="the game id"),
    event: str = typer.Option(..., "--json", help="the event as JSON, or an array of events "
                              "(one batch); '-': JSON Lines on stdin, one event a line (one "
                              "batch); game and seq may be left out"),
    expect: int | None = typer.Option(None, "--expect", min=0,
                                      help="the seq the first event must get (else conflict); "
                                           "default: the end of the game"),
    as_json: bool = typer.Option(False, "--json-out", help="answer as one JSON line (errors "
                                 "too: {ok: false, error: {code, message, ...}})"),
    db: str | None = DB,
) -> None:
    """Append events to a stored game (for scripts): exit 3 on a conflict."""
    def report(e: Exception, message: str, code: int) -> None:
        if as_json:
            write_json_line(error_json(game, e, message, code))

    try:
        items = read_batch(event, skip_bom(sys.stdin.buffer).read() if event == "-" else None)
    except BadBatch as e:
        report(e, str(e), 2)
        fail(str(e))
    with opened(db, on_error=report) as store:
        # without --expect the events go at the end of the game as it stands when they are
        # written; a batch sent again (same event ids) is recognised there and stores nothing
        res = (store.append(game, items, at_end=True) if expect is None
               else store.append(game, items, expected_seq=expect))
    out = {"ok": True, "game": game, "appended": res.appended, "already_stored": res.already_stored,
           "next_seq": res.head.next_seq, "head": res.head.hash,
           "certificate": res.head.certificate}
    if as_json:
        write_json_line(out)
    else:
        extra = f" ({res.already_stored} already stored)" if res.already_stored else ""
        print_with_certificate(f"appended {res.appended} event{'s' * (res.appended != 1)}"
                               f"{extra} to {game}; next seq {res.head.next_seq}",
                               res.head.certificate)


def print_with_certificate(summary: str, cert: str) -> None:
    """``summary; certificate CERT`` on one line when it fits the terminal, else the
    certificate on a line of its own with its label (never split inside the summary's last
    words or between the word and the certificate)."""
    from rich.cells import cell_len

    tail = f"certificate [bold]{cert}[/]"
    if cell_len(f"{summary}; certificate {cert}") <= console.width:
        console.print(f"{escape(summary)}; {tail}", highlight=False, soft_wrap=True)
    else:
        console.print(escape(summary), highlight=False, soft_wrap=True)
        console.print(tail, highlight=False, soft_wrap=True)


#: The most validating processes ``import --workers`` starts (each holds its games' folds).
MAX_IMPORT_WORKERS = 64


def import_(
    files: list[Path] = typer.Argument(..., help="jaslog/1 JSON Lines files ('-' for stdin)"),
    as_json: bool = JSON,
    batch: int = typer.Option(500, "--batch", min=1, help="games per transaction"),
    workers: int | None = typer.Option(None, "--workers", min=0, max=MAX_IMPORT_WORKERS,
                                       help="validating processes, at most "
                                            f"{MAX_IMPORT_WORKERS} (default: for files over 16 MB "
                                            "on 2+ CPUs, one per CPU but one, at least 2, at most "
                                            "8; else 0: in this process)"),
    db: str | None = DB,
) -> None:
    """Import logs: whole games per transaction, already-present games skipped.

    Exit 0 when every game was imported or already present, 2 when some were rejected.
    """
    check_readable(files)
    total = sum(p.stat().st_size for p in files if str(p) != "-" and p.is_file()) or None
    with opened(db) as store:
        progress = Progress(TextColumn("importing"), BarColumn(), TransferSpeedColumn(),
                            TimeRemainingColumn(), console=err_console, transient=True,
                            disable=as_json or not err_console.is_terminal)
        with progress:
            task = progress.add_task("import", total=total)
            summary = store.import_files(files, batch_games=batch, workers=workers,
                                         progress=lambda n: progress.update(task, completed=n))
    if as_json:
        write_json_line(summary.to_json())
    else:
        console.print(f"imported {summary.games} game{'s' * (summary.games != 1)} "
                      f"({summary.events} events) from {summary.lines} lines", highlight=False)
        if summary.extended:
            console.print(f"extended {len(summary.extended)} stored game(s): "
                          + ", ".join(summary.extended[:20]), highlight=False)
        if summary.already_present:
            n = len(summary.already_present)
            console.print(f"skipped {n} game{'s' * (n != 1)} already present: "
                          + ", ".join(summary.already_present[:20])
                          + (" ..." if n > 20 else ""), highlight=False)
        for r in summary.rejected:
            who = f"game {r.game}" if r.game else "line"
            console.print(f"[red]rejected[/] {escape(who)}: {escape(r.reason)}", soft_wrap=True,
                          highlight=False)
    if summary.rejected:
        if not as_json:
            err_console.print(f"[bold red]jaslog:[/] {len(summary.rejected)} game(s) or line(s) "
                              "rejected; nothing of them was stored", highlight=False)
        raise typer.Exit(2)


def games(
    player: str | None = typer.Option(None, "--player", "-p", help="a player id or display name"),
    ruleset: str | None = typer.Option(None, "--ruleset", "-r"),
    since: str | None = typer.Option(None, "--since", "--from",
                                     help="started at or after: a date (2026-01-31) or RFC 3339 time"),
    until: str | None = typer.Option(None, "--to",
                                     help="started at or before: a time, or a date (the whole day)"),
    status: str | None = typer.Option(None, "--status", help="live or finished"),
    table: str | None = typer.Option(None, "--table", help="the game's meta.table"),
    event: str | None = typer.Option(None, "--event", help="part of the game's meta.event, any case"),
    tournament: str | None = typer.Option(None, "--tournament", help="the game's meta.tournament"),
    winner: str | None = typer.Option(None, "--winner",
                                      help="a winning player's id or display name, or draw"),
    newest: bool = typer.Option(False, "--newest", help="newest first"),
    limit: int | None = typer.Option(None, "--limit", min=1),
    cursor: str | None = typer.Option(None, "--cursor",
                                      help="go on after the page that printed this cursor"),
    as_json: bool = JSON,
    db: str | None = DB,
) -> None:
    """List stored games in the order they were stored (first stored first, or --newest).

    With --limit, a page: when more games follow, the cursor to go on with (--cursor) is
    printed on stderr. --player, --ruleset, --from/--to, --status, --winner, --table and
    --tournament use the store's indexes; --event (part of the game's meta.event) is looked up
    game by game."""
    from jaslog.store.queries import cursor_pos, page_cursor

    if status not in (None, "live", "finished"):
        fail(f"--status {status}: live or finished")
    order = "newest" if newest else "oldest"
    after = None
    if cursor is not None:
        after = cursor_pos(cursor, order)
        if after is None:
            fail(f"--cursor {cursor}: not a cursor printed by jaslog games listing {order} "
                 "first")
    looked_up = event is not None
    rows: list[GameInfo] = []
    more = False
    with opened(db, create=False) as store:
        names = store.players()
        while True:
            want = 500 if limit is None or looked_up else limit + 1 - len(rows)
            page = store.game_page(player=player, ruleset=ruleset, since=since, until=until,
                                   after=after, newest=newest, limit=want, status=status,
                                   winner=winner, table=table, tournament=tournament)
            for pos, info in page:
                if limit is not None and len(rows) == limit:
                    more = True
                    break
                after = pos
                if looked_up and not _listed(store, info, event=event):
                    continue
                rows.append(info)
            if more or len(page) < want:
                break
    if more and after is not None:
        err_console.print(f"more: --cursor {page_cursor(order, after)}", highlight=False,
                          markup=False)
    if as_json:
        for g in rows:
            write_json_line(g.to_json())
        return
    if not rows:
        console.print("no games", highlight=False)
        return
    cells = [{"game": g.game, "ruleset": g.ruleset,
              "started": g.created_at[:19].replace("T", " "),
              "players": ", ".join(names.get(p, p) for p in g.seats),
              "events": str(g.events), "certificate": g.certificate} for g in rows]
    # Whole cells only (the id is what a reader copies into the next command): on a narrow
    # terminal the columns that do not fit are left out, the least needed first.
    print_fitted(cells, ("game", "ruleset", "events", "started", "players", "certificate"),
                 right=("events",))


def _listed(store: Any, info: GameInfo, *, event: str | None) -> bool:
    """Whether a game passes the filter ``jaslog games`` looks up game by game: its
    ``meta.event`` (a game that cannot be read passes no filter)."""
    from jaslog.store.codec import UnreadableEvent

    try:
        meta = getattr(store.events(info.game, upto=0)[0], "meta", None) or {}
    except UnreadableEvent:
        return False
    return event is None or event.lower() in str(meta.get("event", "")).lower()


def show(
    game: str = typer.Argument(..., help="the game id"),
    as_json: bool = JSON,
    db: str | None = DB,
) -> None:
    """A stored game: header, score, violations, the score sheet (every round, every ruling,
    running totals), what was retracted, the table now, and its certificate."""
    from jaslog.cli.check import standing
    from jaslog.engine.fold import FoldError
    from jaslog.play.audit import game_report
    from jaslog.play.render import record_lines, render_table

    with opened(db, create=False) as store:
        head = store.head(game)
        names = store.players()
        info = store.info(game)
        try:
            fold, error = store.fold(game), None
        except FoldError as e:
            fold, error = None, e
        signed = store.signature(game)
    rep = game_report(game, fold, error)
    if as_json:
        write_json_line({**rep, "events": head.next_seq, "head": head.hash,
                         "certificate": head.certificate,
                         "created_at": info.created_at, "signature": signed})
        return
    console.print(f"[bold]{escape(game)}[/] ({rep['ruleset']}), started {info.created_at}",
                  highlight=False)
    if fold is not None:
        console.print("seats: " + ", ".join(f"{i}: {names.get(p, p)}" + (f" ({p})" if p in names else "")
                                           for i, p in enumerate(fold.seats)), highlight=False,
                      markup=False)
    # teams in Klaverjas, players in Klaberjass and Kloepper (as `check` says it)
    state = standing(fold, rep) if fold is not None else \
        f"invalid, {'–'.join(str(t) for t in rep['totals'])}"
    console.print(f"{head.next_seq} events, {len(rep['rounds'])} rounds; {state}; "
                  f"{len(rep['violations'])} violation(s)", highlight=False, markup=False)
    for v in rep["violations"]:
        console.print(f"  seq {v['seq']} round {v['round']}: [yellow]{v['rule']}[/]: "
                      f"{escape(v['message'])}", soft_wrap=True, highlight=False)
    if rep["error"]:
        console.print(f"[red]✗ {escape(str(error))}[/]", soft_wrap=True, highlight=False)
    if fold is not None:
        for line in record_lines(fold, rep):
            console.print(line, soft_wrap=True, highlight=False)
        console.print(render_table(fold))
    console.print(f"certificate [bold]{head.certificate}[/]  (head {head.hash})", highlight=False)
    if signed is not None:
        console.print(signed_line(signed, head.seq), highlight=False)


def signed_line(signed: dict[str, Any], head_seq: int) -> str:
    """Which signature vouches for a game's record, and how much of it."""
    since = head_seq - signed["seq"]
    what = "the head" if not since else \
        f"{since} event{'s' * (since != 1)} since, of the round being played"
    return f"signed at seq {signed['seq']} ({what}) by key {signed['key']}"


def dump(
    game: str = typer.Argument(..., help="the game id"),
    fmt: str = typer.Option("jsonl", "--format", "-f",
                            help="jsonl: jaslog/1 (canonical JSON Lines); text: the notation "
                                 "(docs/notation.md)"),
    signatures: Path | None = typer.Option(None, "--signatures", dir_okay=False,
                                           help="also write the game's signatures to this "
                                                "file (JSON Lines), for `jaslog verify --log`"),
    seat: int | None = typer.Option(None, "--seat", "-s", min=0, max=3,
                                    help="only what this seat could see: a valid log to share"),
    public: bool = typer.Option(False, "--public",
                                help="only what the public could see (finished rounds)"),
    bare: bool = typer.Option(False, "--bare",
                              help="leave out each event's id and the store's clock "
                                   "(recorded_at): the game as a table tells it, to read or "
                                   "print"),
    db: str | None = DB,
) -> None:
    """Write a stored game back as jaslog/1 (canonical JSON Lines) or as text to stdout;
    with --seat or --public, the log that seat (or the public) could see, to share; with
    --bare, without the ids and store times a recorded game carries on every event."""
    if fmt not in ("jsonl", "text"):
        fail(f"--format {fmt!r}: jsonl or text")
    shared = seat is not None or public
    if shared and signatures is not None:
        fail("--signatures vouch for the whole record, not for a shared log (--seat, --public)")
    with opened(db, create=False) as store:
        events = store.events(game)
        signed = store.signatures(game) if signatures is not None else []
        cert = store.head(game).certificate if shared else None
    if shared:
        from jaslog.play.share import NotShareable, shared_log

        try:
            events = shared_log(events, seat=seat, public=public, certificate=cert)
        except NotShareable as e:
            fail(str(e))
    if bare and signatures is not None:
        fail("--signatures vouch for the events as stored; --bare leaves out their ids and times")
    if signatures is not None:
        try:
            signatures.write_bytes(b"".join(orjson.dumps(s) + b"\n" for s in signed))
        except OSError as e:
            fail(f"--signatures {signatures}: {e.strerror or e}")
    from jaslog.play.share import written_log

    sys.stdout.buffer.write(written_log(events, fmt, bare=bare))
    sys.stdout.flush()


def register(app: typer.Typer) -> None:
    # store_upkeep reads this module's options and `opened`: imported once this one is
    from jaslog.cli.store_upkeep import players_app, reindex, upgrade

    app.command()(new)
    app.command()(record)
    app.command()(append)
    app.command("import")(import_)
    app.command()(games)
    app.command()(show)
    app.command()(dump)
    app.command()(upgrade)
    app.command()(reindex)
    app.add_typer(players_app, name="players")
