"""The key (``games.pos``) an append writes a game's events under: read once and kept by the
store, and forgotten when the transaction that made the game is not committed, so a game
made again later gets its events under its own new key (a real SQLite file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaslog.play.sim import simulate_game
from jaslog.store import open_store


class Boom(Exception):
    pass


def test_a_game_made_in_a_group_rolled_back_is_keyed_anew(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'keys.sqlite'}"
    n, m = simulate_game("n", "amsterdam", seed=1), simulate_game("m", "amsterdam", seed=2)
    with open_store(url) as s:
        with pytest.raises(Boom), s.group() as g:
            g.append("n", n[:2])  # game n made, its key read and kept...
            raise Boom  # ...and the transaction rolled back
        s.append("m", m[:2])  # m takes the key n had
        s.append("n", n[:3])  # n made again: under a key of its own
        s.append("n", n[3:5], expected_seq=3)
        assert [(e.game, e.seq) for e in s.events("m")] == [("m", 0), ("m", 1)]
        assert [(e.game, e.seq, e.type) for e in s.events("n")] == \
            [("n", e["seq"], e["type"]) for e in n[:5]]
    with open_store(url) as again:  # and so it reads from a store that keeps nothing yet
        assert [(e.game, e.seq) for e in again.events("m")] == [("m", 0), ("m", 1)]
        assert again.head("n").next_seq == 5


def test_appends_to_many_games_in_one_group_each_keep_their_own_key(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'many.sqlite'}"
    games = {f"g{i}": simulate_game(f"g{i}", "amsterdam", seed=i) for i in range(6)}
    with open_store(url) as s:
        with s.group() as g:
            for gid, evs in games.items():
                g.append(gid, evs[:2])
        with s.group() as g:
            for gid, evs in reversed(games.items()):
                g.append(gid, evs[2:4], expected_seq=2)
    with open_store(url) as s:
        for gid, evs in games.items():
            assert [(e.game, e.seq, e.type) for e in s.events(gid)] == \
                [(gid, e["seq"], e["type"]) for e in evs[:4]]
