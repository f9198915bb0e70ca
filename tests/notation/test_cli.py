"""check, replay, import and export --from read a notation text as they read jaslog/1, by its
content, not its name; ``jaslog dump GAME --format text`` writes it. Real files, a real
SQLite store, jaslog run as its console script runs."""

from __future__ import annotations

from pathlib import Path

import orjson

from jaslog.events import canonical_json, parse_event
from jaslog.notation import write_game
from jaslog.store import open_store
from tests.cli import jaslog
from tests.notation.helpers import simulated

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "replays" / "amsterdam-revoke-ruling.jsonl"
GAME = "dehoop-2026-11-27-t2"


def texts(tmp_path: Path) -> tuple[Path, Path, str]:
    """The replay as text in a file named .jsonl, and as jaslog/1 in a file named .txt."""
    events = [parse_event(line) for line in REPLAY.read_bytes().splitlines()]
    text = write_game(events)
    as_text = tmp_path / "named-as-jsonl.jsonl"
    as_text.write_text(text)
    as_jsonl = tmp_path / "named-as-text.txt"
    as_jsonl.write_bytes(REPLAY.read_bytes())
    return as_text, as_jsonl, text


def test_check_reads_a_text_as_it_reads_jaslog(tmp_path: Path) -> None:
    as_text, as_jsonl, _ = texts(tmp_path)
    a = jaslog("check", "--json", str(as_text))
    b = jaslog("check", "--json", str(as_jsonl))
    assert a.returncode == b.returncode == 1 and a.stderr == b""  # 1: the game has violations
    assert orjson.loads(a.stdout) == orjson.loads(b.stdout)
    human = jaslog("check", str(as_text), text=True)
    assert f"{as_text}:33: game {GAME} seq 46 round 2 trick 3 seat 0 (ilse): must_follow_suit" \
        in human.stdout.replace("\n", " ")  # trick 3 of round 2 is line 33 of the text
    piped = jaslog("check", "--json", "-", input=as_text.read_bytes())
    assert orjson.loads(piped.stdout) == orjson.loads(a.stdout)


def test_replay_reads_a_text(tmp_path: Path) -> None:
    as_text, as_jsonl, _ = texts(tmp_path)
    a = jaslog("replay", str(as_text), "--round", "2", text=True)
    b = jaslog("replay", str(as_jsonl), "--round", "2", text=True)
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout
    assert "round 2  dealer lies (3)" in a.stdout


def test_import_then_dump_in_either_format(tmp_path: Path) -> None:
    as_text, _, text = texts(tmp_path)
    db = str(tmp_path / "store.sqlite")
    r = jaslog("import", "--db", db, str(as_text), text=True)
    assert r.returncode == 0, r.stderr
    assert "imported 1 game (578 events)" in r.stdout
    with open_store(db, create=False) as store:
        assert [canonical_json(e) for e in store.events(GAME)] == \
            [canonical_json(parse_event(line)) for line in REPLAY.read_bytes().splitlines()]
    assert jaslog("dump", "--db", db, GAME).stdout == REPLAY.read_bytes()
    assert jaslog("dump", "--db", db, GAME, "--format", "text").stdout == text.encode()
    bad = jaslog("dump", "--db", db, GAME, "--format", "pgn", text=True)
    assert bad.returncode == 2 and "--format 'pgn': jsonl or text" in bad.stderr


def test_import_rejects_a_game_at_the_line_and_column_of_its_error(tmp_path: Path) -> None:
    good = write_game(simulated("kloepper", 8))
    bad = write_game(simulated("kloepper", 9)).replace("1. ", "1. 0: QX ", 1)
    path = tmp_path / "two.txt"
    path.write_text(bad + "\n" + good)
    line = bad.splitlines().index(next(ln for ln in bad.splitlines() if "QX" in ln)) + 1
    db = str(tmp_path / "store.sqlite")
    r = jaslog("import", "--db", db, str(path), text=True)
    assert r.returncode == 2
    assert "imported 1 game" in r.stdout
    assert f"{path}:{line}: game kloepper-9 seq" in r.stdout
    assert "column 7: expected a card (7-10, J, Q, K or A and a suit: 10H, JC, A♠), got 'QX'" \
        in r.stdout.replace("\n", "")
    with open_store(db, create=False) as store:
        assert len(store.events("kloepper-8")) == len(simulated("kloepper", 8))


def test_check_goes_on_with_the_next_game(tmp_path: Path) -> None:
    good = write_game(simulated("klaberjass-2p", 2))
    bad = write_game(simulated("klaberjass-2p", 3)).replace("Deal up", "Deal upside", 1)
    path = tmp_path / "two.txt"
    path.write_text(bad + good)
    r = jaslog("check", str(path), text=True)
    out = r.stdout.replace("\n", " ")
    assert r.returncode == 2
    assert "✗ klaberjass-2p-3 (klaberjass-2p): invalid:" in out
    assert "two.txt:7: game klaberjass-2p-3 seq 2: column 6: expected a card" in out
    assert "✓ klaberjass-2p-2 (klaberjass-2p): finished" in out


def test_export_from_a_text(tmp_path: Path) -> None:
    as_text, as_jsonl, _ = texts(tmp_path)
    a = jaslog("export", "--from", str(as_text), str(tmp_path / "a"), text=True)
    b = jaslog("export", "--from", str(as_jsonl), str(tmp_path / "b"), text=True)
    assert a.returncode == b.returncode == 0, a.stderr
    assert "exported 1 new game" in a.stdout
    tables = sorted(p.name for p in (tmp_path / "a").rglob("*.parquet"))
    assert tables == sorted(p.name for p in (tmp_path / "b").rglob("*.parquet")) and tables
    assert a.stdout.split("→")[1].split("\n", 1)[1] == b.stdout.split("→")[1].split("\n", 1)[1]


def test_import_names_the_text_line_of_a_play_the_rules_refuse(tmp_path: Path) -> None:
    """A card the rules refuse (already played) is reported at its line in the text, as
    check reports it, not at its position among the converted events."""
    text = write_game(simulated("amsterdam", 4))
    lines = text.splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith("1. "))
    second = next(i for i, ln in enumerate(lines) if ln.startswith("2. "))
    card = lines[first].split(":", 1)[1].split()[0]  # trick 1's first card, played again
    head, cards = lines[second].split(":", 1)
    lines[second] = f"{head}: {card} " + " ".join(cards.split()[1:])
    path = tmp_path / "replayed.txt"
    path.write_text("\n".join(lines) + "\n")
    db = str(tmp_path / "store.sqlite")
    r = jaslog("import", "--db", db, str(path), text=True)
    checked = jaslog("check", str(path), text=True)
    assert r.returncode == 2 and checked.returncode == 2
    assert f"{path}:{second + 1}: game" in r.stdout.replace("\n", "")
    assert f"{path}:{second + 1}: game" in checked.stdout.replace("\n", "")
