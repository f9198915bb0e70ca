"""Proving the record: ``verify`` (the hash chains, the signatures, a certificate, a dumped
log against a club's published key) and ``key`` (the store's signing key: show, rotate, sign
what was stored before it had one).

Exit codes as the store's commands: 0 intact, 1 something was changed behind jaslog's back,
2 bad input.

Heavy imports sit in the command functions (the import convention of :mod:`jaslog.cli.common`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import orjson
import typer
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn
from sqlalchemy import func, inspect, select

from jaslog.cli.common import console, err_console, fail, write_json_line
from jaslog.cli.store_cmds import DB, JSON, opened
from jaslog.logs import read_lines, skip_bom
from jaslog.play.fairdeal import check_deals
from jaslog.store import certificate
from jaslog.store import engine as eng
from jaslog.store.rows import last_pos
from jaslog.store.schema import VERIFIED_HEADS
from jaslog.store.signing import V2, PublicKey, parse_anchor

#: The most checking processes ``verify --workers`` starts.
MAX_VERIFY_WORKERS = 64
#: Below this many events to read, ``verify`` checks in its own process: starting workers
#: costs more than they save.
AUTO_WORKERS_EVENTS = 200_000


def auto_workers(store: Any, full: bool) -> int:
    """How many processes a whole-store ``verify`` deserves (0: this one): on 2+ CPUs, one
    per CPU (at most 8) when the events to read (all of them for a full run; those stored
    since the oldest verified head otherwise) are more than :data:`AUTO_WORKERS_EVENTS`."""
    cpus = os.cpu_count() or 1
    if cpus < 2 or not store.workers_ok():
        return 0
    with eng.read_tx(store.engine) as conn:
        top = last_pos(conn)
        since = 0
        if not full and inspect(conn).has_table("verified_heads"):
            since = int(conn.execute(select(func.coalesce(func.min(VERIFIED_HEADS.c.pos), 0)))
                        .scalar_one())
    return min(cpus, 8) if top - since > AUTO_WORKERS_EVENTS else 0


def _public_keys(texts: list[str]) -> list[Any]:
    """The keys of ``--key`` (each a key as `jaslog key` prints it, or a file holding one)."""
    out = []
    for t in texts:
        try:
            out.append(PublicKey.parse(t))
        except ValueError as e:
            fail(f"--key: {e}")
    return out


def _log_report(log: Path, sig_file: Path | None, keys: list[Any]) -> Any:
    """``verify --log``: a dumped log and its signatures checked against ``keys``."""
    from jaslog.store.verify_chain import Trust
    from jaslog.store.verify_log import Signed, verify_log

    sig_file = sig_file or Path(str(log) + ".sig")
    events = []
    try:
        with open(log, "rb") as f:
            for ln in read_lines(skip_bom(f), str(log)):
                if ln.event is None:
                    fail(f"{log}:{ln.number}: {ln.error}")
                events.append(ln.event)
        lines = sig_file.read_bytes().splitlines()
    except OSError as e:
        fail(f"{e.filename}: {e.strerror or e} (the signatures are written by `jaslog dump "
             "GAME --signatures FILE`; name them with --signatures)")
    sigs = []
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            d = orjson.loads(raw)
            v2 = d.get("version") == 2
            sigs.append(Signed(str(d["game"]), int(d["seq"]), str(d["hash"]), str(d["key"]),
                               (V2 if v2 else "") + str(d["signature"]),
                               int(d["pos"]) if v2 else None,
                               int(d["event_pos"]) if v2 else None))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            fail(f"{sig_file}:{n}: not a signature as `jaslog dump --signatures` writes it")
    return verify_log(events, sigs, Trust.given(keys))


def verify(
    game: str | None = typer.Argument(None, help="one game (default: the whole store)"),
    cert: str | None = typer.Option(None, "--certificate", "-c",
                                    help="the certificate written on the score sheet"),
    key: list[str] = typer.Option([], "--key", "-k",
                                  help="a club's published public key (as `jaslog key` prints "
                                       "it, or a file holding it): the signatures must be its "
                                       "(repeatable); default: the store's own keys"),
    log: Path | None = typer.Option(None, "--log", dir_okay=False,
                                    help="check a dumped log (`jaslog dump`) instead of the "
                                         "store, against --key"),
    sig_file: Path | None = typer.Option(None, "--signatures", dir_okay=False,
                                         help="the log's signatures (default: LOG.sig)"),
    full: bool = typer.Option(True, "--full/--incremental",
                              help="--full (the default): recheck every event of every game; "
                                   "--incremental: each game from the head the last clean run "
                                   "verified and found signed, fast on a large store, but an "
                                   "event before that head edited with the stored hashes left "
                                   "alone shows only in a full run"),
    workers: int | None = typer.Option(None, "--workers", min=0, max=MAX_VERIFY_WORKERS,
                                       help="checking processes, at most "
                                            f"{MAX_VERIFY_WORKERS} (default: for more than "
                                            f"{AUTO_WORKERS_EVENTS:,} events to read on 2+ CPUs, "
                                            "one per CPU, at most 8; else 0: in this process)"),
    anchor: str | None = typer.Option(None, "--anchor",
                                      help="the store's newest signature as an earlier run "
                                           "printed it (POS:CERTIFICATE), kept outside the "
                                           "store: it must still be there (a store cut back at "
                                           "its end fails)"),
    deals: bool = typer.Option(False, "--deals",
                               help="also recompute every deal the server revealed (online "
                                    "games: rule book 9.3, decision 21): each commit must be "
                                    "the SHA-256 of its seed and the hands dealt the ones the "
                                    "deck gives, else deal_not_fair"),
    as_json: bool = JSON,
    db: str | None = DB,
) -> None:
    """Recheck the hash chains, the signatures and the tables kept beside them: exit 0 intact,
    1 when something was changed behind jaslog's back. With --deals, also the server's
    deals: exit 1 when one does not check out."""
    if deals and log is not None:
        fail("--deals checks the store's games: for a dumped log, `jaslog check LOG` "
             "checks its deals")
    if cert is not None and game is None:
        fail("--certificate needs a GAME")
    if cert is not None and (re.search(r"[^0-9a-fA-F\s-]", cert)
                             or len(re.sub(r"[^0-9a-fA-F]", "", cert)) < 8):
        fail(f"--certificate {cert!r} is not a certificate: hex digits as `show` prints them "
             "(3f2a-9c41-0b7e-d815; at least the first 8)")  # bad input: 2, not a change (1)
    keys = _public_keys(key)
    if anchor is not None:
        try:
            parse_anchor(anchor)
        except ValueError as e:
            fail(f"--anchor: {e}")
    if log is not None:
        if game is not None or cert is not None or anchor is not None:
            fail("--log checks the games of a log: leave out GAME, --certificate and --anchor")
        if not keys:
            fail("--log needs the key the games were signed with: --key (as the club "
                 "publishes it, `jaslog key` on its store)")
        rep = _log_report(log, sig_file, keys)
    elif sig_file is not None:
        fail("--signatures goes with --log")
    elif anchor is not None and game is not None:
        fail("--anchor checks the whole store: leave out GAME")
    elif game is None:
        from jaslog.store.verify import verify_store

        with opened(db, create=False) as store:
            progress = Progress(TextColumn("verifying"), BarColumn(), TextColumn("{task.completed} events"),
                                console=err_console, transient=True,
                                disable=as_json or not err_console.is_terminal)
            n = auto_workers(store, full) if workers is None else workers
            with progress:
                task = progress.add_task("verify", total=None)
                rep = verify_store(store, keys=keys or None, full=full, workers=n,
                                   progress=lambda n: progress.update(task, completed=n),
                                   anchor=anchor)
    else:
        with opened(db, create=False) as store:
            progress = Progress(TextColumn("verifying"), BarColumn(), TextColumn("{task.completed} events"),
                                console=err_console, transient=True,
                                disable=as_json or game is not None or not err_console.is_terminal)
            with progress:
                task = progress.add_task("verify", total=None)
                rep = store.verify(game, certificate=cert, keys=keys or None,
                                   progress=lambda n: progress.update(task, completed=n))
    if as_json:
        write_json_line(rep.to_json())
    else:
        for p in rep.problems:
            console.print(f"[red]✗[/] {escape(str(p))}", soft_wrap=True, highlight=False)
        if rep.ok:
            console.print(f"[green]✓[/] {rep.games} game{'s' * (rep.games != 1)}, {rep.events} "
                          "events: every chain is intact", highlight=False)
        else:
            n = len(rep.problems)
            console.print(f"[red]{n} problem{'s' * (n != 1)}[/] in {rep.games} "
                          f"game{'s' * (rep.games != 1)}, {rep.events} events", highlight=False)
        c = rep.checked
        if c is not None and c.head_games:
            console.print(f"  ({c.head_games} game{'s' * (c.head_games != 1)} checked from the "
                          f"head the last clean run verified: {c.head_events} event"
                          f"{'s' * (c.head_events != 1)} after it rechecked, {c.skipped} before "
                          f"it not read again; {c.full_games} game{'s' * (c.full_games != 1)} "
                          "in full; a run without --incremental rechecks every event)",
                          highlight=False)
        if rep.signatures and rep.ok:
            whose = {"given": "the key given" if len(keys) == 1 else "the keys given",
                     "directory": "this store's key" if len(rep.keys) == 1
                     else "this store's keys"}.get(rep.trust or "", "the store's own record")
            console.print(f"[green]✓[/] {rep.signatures} signature{'s' * (rep.signatures != 1)} "
                          f"by key {', '.join(sorted(rep.keys))} ({whose})", highlight=False)
            if rep.trust == "store":
                console.print("  (no key directory here: the signatures were checked against "
                              "the keys the store records; check them against the club's "
                              "published key with --key)", highlight=False)
            if rep.anchor is not None:
                console.print(f"  anchor {rep.anchor} (the store's newest signature: keep it "
                              "outside the store, and `verify --anchor` shows a store cut back "
                              "at its end)", highlight=False)
        c = rep.certified
        if c is not None:
            since = (f"; {c['appended_since']} event{'s' * (c['appended_since'] != 1)} appended "
                     "since, which it does not cover" if c["appended_since"] else " (the head)")
            console.print(f"[green]✓[/] the certificate holds: it certifies seq {c['seq']}{since}",
                          highlight=False)
        if game is not None and game in rep.heads:
            console.print(f"certificate [bold]{certificate(rep.heads[game])}[/]  "
                          f"(head {rep.heads[game]})", highlight=False)
    fair = True
    if deals:
        fair = _check_store_deals(db, game, as_json)
    raise typer.Exit(0 if rep.ok and fair else 1)


def _check_store_deals(db: str | None, game: str | None, as_json: bool) -> bool:
    """Recompute every revealed deal of the store's games (or of ``game``); print what was
    found; whether every deal checks out."""
    checked = pending = 0
    problems: list[dict[str, Any]] = []
    with opened(db, create=False) as store:
        ids = [game] if game is not None else [g.game for g in store.games()]
        for gid in ids:
            events = store.events(gid)
            if not any(e.type == "deal_committed" for e in events):
                continue
            found = check_deals(gid, (e.model_dump() for e in events))
            checked += len(found.checked)
            pending += len(found.pending)
            problems += [{"game": gid, "round": p.round, "seq": p.seq, "code": p.code,
                          "message": p.message} for p in found.problems]
    if as_json:
        write_json_line({"deals": {"checked": checked, "pending": pending,
                                   "problems": problems}})
    else:
        for p in problems:
            said = escape(f"game {p['game']} seq {p['seq']}: {p['message']} [{p['code']}]")
            console.print(f"[red]✗[/] {said}", soft_wrap=True,
                          highlight=False)
        mark = "[green]✓[/]" if not problems else "[red]✗[/]"
        console.print(f"{mark} {checked} deal{'s' * (checked != 1)} by the server checked"
                      + (f", {len(problems)} not fair" if problems else ", every one fair")
                      + (f" ({pending} not revealed yet)" if pending else ""), highlight=False)
    return not problems


key_app = typer.Typer(help="The store's signing key: show it (to publish), rotate it, sign the "
                      "games stored before the store had one.", invoke_without_command=True,
                      no_args_is_help=False)


def _writable(db: str | None) -> Any:
    """The store, opened to write (a store of an older schema gets the tables of signatures),
    refused when there is none yet."""
    with opened(db, create=False):
        pass
    return opened(db)


def _key_json(k: Any, current: bool) -> dict[str, Any]:
    return {**k.to_json(), "current": current}


@key_app.callback()
def key(ctx: typer.Context, as_json: bool = JSON, db: str | None = DB) -> None:
    """The public half of the store's signing key (made now when the store has none yet):
    publish it, and anyone can check the store or a dumped game with `jaslog verify --key`.
    Earlier keys are listed after it: their signatures stay valid."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = db
        return
    with _writable(db) as store:
        cur = store.signing_key()
        keys = store.public_keys()
        where = store.keys.path
    if as_json:
        write_json_line({"key": _key_json(cur, True), "directory": str(where) if where else None,
                         "keys": [_key_json(k, k.id == cur.id) for k in keys]})
        return
    print(cur.text)
    console.print(f"key {cur.id} (ed25519), created {_when(cur.created_at)}; its private half "
                  f"is in {where or 'memory'}", highlight=False, markup=False, soft_wrap=True)
    older = [k for k in keys if k.id != cur.id]
    if older:
        console.print("earlier keys (their signatures stay valid):", highlight=False)
        for k in older:
            console.print(f"  {k.text}  key {k.id}, created {_when(k.created_at)}"
                          + (f", retired {_when(k.retired_at)}" if k.retired_at else ""),
                          highlight=False, markup=False, soft_wrap=True)


def _when(at: str | None) -> str:
    return at[:19].replace("T", " ") + " UTC" if at else "?"


@key_app.command("rotate")
def key_rotate(ctx: typer.Context, as_json: bool = JSON, db: str | None = DB) -> None:
    """Make a new signing key and retire the old one: its private half is deleted, its public
    half stays with the store, so what it signed stays valid. Publish the new key."""
    with _writable(db or ctx.obj) as store:
        new, retired = store.rotate_key()
    if as_json:
        write_json_line({"key": _key_json(new, True),
                         "retired": [_key_json(k, False) for k in retired]})
        return
    print(new.text)
    console.print(f"key {new.id} signs from now on"
                  + (f"; retired {', '.join(k.id for k in retired)} (its signatures stay valid)"
                     if retired else ""), highlight=False)


@key_app.command("sign")
def key_sign(ctx: typer.Context, db: str | None = DB) -> None:
    """Sign the head of every game not signed at its head yet: the games of a store written
    before jaslog signed its games. Whoever runs it vouches for the store as it is now."""
    with _writable(db or ctx.obj) as store:
        n = store.sign_unsigned()
        k = store.signing_key()
    console.print(f"signed the head of {n} game{'s' * (n != 1)} with key {k.id}"
                  if n else "every game is signed at its head", highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(verify)
    app.add_typer(key_app, name="key")
