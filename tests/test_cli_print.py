"""``jaslog print``: a whole game as HTML (every round, the sheet, the rulings) and as a PDF
through Chromium, a seat's and the public's print as their round pages show them, and the
plain refusal when there is no Chromium to print with."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from jaslog.cli.print_cmd import CHROMIUMS, pdf_engine
from jaslog.errors import JaslogError
from jaslog.play.sim import simulate_game
from tests.cli import jaslog

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "replays" / "amsterdam-revoke-ruling.jsonl"


def rounds_in(page: str) -> list[int]:
    return [int(n) for n in re.findall(r'<section class="print-round" id="round-(\d+)"', page)]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("print") / "club.sqlite")
    r = jaslog("import", "--db", db, str(SAMPLE), text=True)
    assert r.returncode == 0, r.stderr
    return db


def sample_game() -> tuple[str, int]:
    events = [json.loads(x) for x in SAMPLE.read_text().splitlines() if x.strip()]
    return events[0]["game"], max(e.get("round", 0) for e in events if e["type"] == "ruling")


def test_the_html_holds_the_sheet_and_every_round_with_its_rulings(stored, tmp_path):
    gid, ruled = sample_game()
    out = tmp_path / "game.html"
    r = jaslog("print", gid, "--db", stored, "--html", str(out), text=True)
    assert r.returncode == 0, r.stderr
    page = out.read_text()
    rep = jaslog("show", gid, "--json", "--db", stored, text=True)
    n = len(json.loads(rep.stdout)["rounds"])
    assert n >= 2 and rounds_in(page) == list(range(1, n + 1))
    assert page.count('<tr class="trick-row"') >= 8 * (n - 1)
    assert 'id="sheet"' in page and page.count("<tr data-round=") == n
    ruled_part = page.split(f'id="round-{ruled}"')[1].split('<section class="print-round"')[0]
    assert "<strong>ruled" in ruled_part and "must_follow_suit" in ruled_part
    assert "Referee view" in page
    # every round on a page of its own on paper
    assert "break-before: page" in page


def test_html_on_stdout_of_a_log_file(tmp_path):
    log = tmp_path / "g.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in simulate_game("pf", seed=3)[:100]))
    r = jaslog("print", str(log), text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("<!doctype html>") and rounds_in(r.stdout) == [1, 2, 3]


def test_a_seat_and_the_public_see_what_their_round_pages_show(tmp_path):
    log = tmp_path / "live.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in simulate_game("pl", seed=3)[:100]))
    full = jaslog("print", str(log), text=True).stdout
    seat = jaslog("print", str(log), "--seat", "1", text=True).stdout
    public = jaslog("print", str(log), "--public", text=True).stdout
    # the round in play: the referee sees every hand, a seat its own, the public not the round
    live = [part.split("<h3>Tricks</h3>")[0] for part in (full, seat)
            for part in [part.split('id="round-3"')[1]]]
    assert live[0].count("not shown to this view") == 0
    assert live[1].count("not shown to this view") == 3
    assert rounds_in(public) == [1, 2] and "Public view" in public
    assert "Seat view of" in seat


def test_the_pdf_is_a_pdf(stored, tmp_path):
    try:
        pdf_engine()
    except JaslogError:
        pytest.skip("no Chromium here: test_no_chromium_is_said_plainly covers it")
    gid, _ = sample_game()
    out = tmp_path / "game.pdf"
    r = jaslog("print", f"store:{gid}", "--db", stored, "--pdf", str(out), text=True)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:5] == b"%PDF-" and out.stat().st_size > 10_000


def test_no_chromium_is_said_plainly(stored, tmp_path):
    gid, _ = sample_game()
    out = tmp_path / "game.pdf"
    r = jaslog("print", gid, "--db", stored, "--pdf", str(out), text=True,
               env={"JASLOG_CHROMIUM": str(tmp_path / "no-chromium")})
    assert r.returncode == 2 and not out.exists()
    assert r.stderr.startswith("jaslog: JASLOG_CHROMIUM names") and "Traceback" not in r.stderr
    assert "apt-get install chromium" in r.stderr
    r = jaslog("print", gid, "--db", stored, "--pdf", str(out), text=True,
               env={"PATH": str(tmp_path), "JASLOG_CHROMIUM": None})
    assert r.returncode == 2 and not out.exists()
    assert all(name in r.stderr for name in CHROMIUMS), r.stderr


def test_refusals(stored):
    gid, _ = sample_game()
    r = jaslog("print", gid, "--db", stored, "--seat", "1", "--public", text=True)
    assert r.returncode == 2 and "choose one" in r.stderr
    r = jaslog("print", "no-such-game", "--db", stored, text=True)
    assert r.returncode == 2 and "no-such-game" in r.stderr and "Traceback" not in r.stderr


def test_a_record_that_stops_folding_says_where(tmp_path):
    events = simulate_game("pe", seed=3)[:12]
    events[6] = {**events[5], "seq": 6}  # the same seat plays again: not its turn
    log = tmp_path / "bad.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    r = jaslog("print", str(log), text=True)
    assert r.returncode == 0, r.stderr
    assert "The record stops here:" in r.stdout and "not_your_turn" in r.stdout
    assert rounds_in(r.stdout) == [1]
