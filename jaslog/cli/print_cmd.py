"""``jaslog print``: a whole game on paper (:mod:`jaslog.sheet.printout`), as HTML or as a PDF.

The PDF is the HTML printed by the system's Chromium in headless mode (Debian's
``chromium``, which the browser tests use too): it draws the page exactly as the browser's
own print does, with the same print style, and needs no Python package. Without it,
``--pdf`` fails with :class:`NoPdfEngine` (``no_pdf_engine``) and says what to install;
``--html`` works everywhere.

Heavy imports sit in the command functions (the import convention of :mod:`jaslog.cli.common`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from jaslog.cli.common import DB_OPTION, STORE_PREFIX, as_stored, check_readable, fail, is_stored
from jaslog.cli.store_cmds import opened
from jaslog.engine.view import Sight
from jaslog.errors import JaslogError
from jaslog.logs import lines_of_game
from jaslog.play.views import timeline

if TYPE_CHECKING:
    from jaslog.events import Event

#: The Chromium builds looked for on the PATH, in order (``JASLOG_CHROMIUM`` names one).
CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: How long a PDF may take to print.
PDF_SECONDS = 120


class NoPdfEngine(JaslogError, RuntimeError):
    """``--pdf`` without a Chromium to print with."""

    code = "no_pdf_engine"


class PdfFailed(JaslogError, RuntimeError):
    """Chromium ran but wrote no PDF."""

    code = "pdf_failed"


def pdf_engine() -> str:
    """The Chromium that prints PDFs: ``JASLOG_CHROMIUM`` when set, else the first of
    :data:`CHROMIUMS` on the PATH; :class:`NoPdfEngine` when there is none."""
    named = os.environ.get("JASLOG_CHROMIUM")
    if named:
        found = shutil.which(named)
        if found is None:
            raise NoPdfEngine(f"JASLOG_CHROMIUM names {named}, which is not a program here: "
                              "--pdf prints through Chromium (apt-get install chromium); "
                              "--html writes the page without it")
        return found
    for name in CHROMIUMS:
        found = shutil.which(name)
        if found:
            return found
    raise NoPdfEngine("--pdf prints through Chromium, and none is installed (looked for "
                      f"{', '.join(CHROMIUMS)}): apt-get install chromium, or set "
                      "JASLOG_CHROMIUM; --html writes the page without it")


def write_pdf(html: str, out: Path) -> None:
    """``html`` printed to the PDF ``out`` by headless Chromium (A4, no header or footer)."""
    engine = pdf_engine()
    with tempfile.TemporaryDirectory(prefix="jaslog-print-") as tmp:
        page = Path(tmp) / "game.html"
        page.write_text(html, encoding="utf-8")
        pdf = Path(tmp) / "game.pdf"
        args = [engine, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", f"--user-data-dir={Path(tmp) / 'profile'}",
                "--no-pdf-header-footer", "--print-to-pdf-no-header",
                f"--print-to-pdf={pdf}", page.as_uri()]
        try:
            run = subprocess.run(args, capture_output=True, timeout=PDF_SECONDS, check=False)
        except subprocess.TimeoutExpired:
            raise PdfFailed(f"Chromium ({engine}) took more than {PDF_SECONDS} s to print the "
                            "PDF; --html writes the page to print from a browser") from None
        except OSError as e:
            raise NoPdfEngine(f"Chromium ({engine}) could not be started: "
                              f"{e.strerror or e}") from None
        if not pdf.exists() or pdf.stat().st_size == 0:
            said = run.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["nothing"]
            raise PdfFailed(f"Chromium ({engine}) wrote no PDF (exit {run.returncode}; it "
                            f"said: {said[0]}); --html writes the page to print from a browser")
        try:
            shutil.copyfile(pdf, out)
        except OSError as e:
            fail(f"--pdf {out}: {e.strerror or e}")


def _events(source: str, db: str | None) -> list[Event]:
    """The events of the game ``source`` names: a stored game (a bare id, ``store:GAME``) or
    the first game of a log file."""
    if is_stored(as_stored(Path(source))):
        gid = source[len(STORE_PREFIX):] if is_stored(source) else source
        if not gid:
            fail("name one stored game: GAME or store:GAME (see `jaslog games`)")
        with opened(db, create=False) as store:
            return list(store.events(gid))

    check_readable([Path(source)])
    try:
        lines = list(lines_of_game(source, None))
    except OSError as e:
        fail(f"{source}: {e.strerror}")
    out: list[Event] = []
    for ln in lines:
        if ln.event is None:
            fail(f"{source}:{ln.number}: {ln.error}")
        out.append(ln.event)
    if not out:
        fail(f"{source}: no game found")
    return out


def print_game(
    game: str = typer.Argument(..., help="the game: its id in the store (or store:GAME), or a "
                                         "log file"),
    html: Path | None = typer.Option(None, "--html", dir_okay=False,
                                     help="write the page (HTML) to this file"),
    pdf: Path | None = typer.Option(None, "--pdf", dir_okay=False,
                                    help="write a PDF to this file (printed by Chromium)"),
    seat: int | None = typer.Option(None, "--seat", "-s", min=0, max=3,
                                    help="only what this seat may see"),
    public: bool = typer.Option(False, "--public",
                                help="only what the public may see (finished rounds)"),
    db: str | None = DB_OPTION,
) -> None:
    """Print a whole game: the score sheet, then every round on a page of its own (the deal,
    the tricks with their points and roem, rulings, claim, violations, irregularities), as
    HTML (--html FILE, or on stdout) or as a PDF (--pdf FILE, through Chromium). With --seat
    or --public, only what that seat or the public may see, as on the round page."""
    from jaslog.sheet.printout import game_print

    if seat is not None and public:
        fail("--seat and --public: choose one")
    events = _events(game, db)
    tl = timeline(events)
    if tl.fold is not None and seat is not None and seat >= len(tl.fold.seats):
        fail(f"--seat {seat}: game {tl.game} has seats 0 to {len(tl.fold.seats) - 1}")
    sight = Sight(seat=seat, public=public)
    meta = getattr(tl.events[0], "meta", None) if tl.events else None
    printed = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    page = game_print(tl, sight, printed=printed, meta=meta)
    if html is None and pdf is None:
        sys.stdout.write(page)
        sys.stdout.flush()
        return
    if html is not None:
        try:
            html.write_text(page, encoding="utf-8")
        except OSError as e:
            fail(f"--html {html}: {e.strerror or e}")
    if pdf is not None:
        write_pdf(page, pdf)


def register(app: typer.Typer) -> None:
    app.command("print")(print_game)
