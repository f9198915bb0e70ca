"""Where each stored game stands, kept beside its events for the listings' filters.

``game_results`` holds a row (game, seq, finished, winner) whenever what a game's fold says
of it changes: when it ends, and when a later ruling changes who won (a correction never
reaches a finished game: rule book 9.1, decision 9); ``game_winners`` the winning players of
each such row. Nothing is updated: a game's row of the highest seq is where it stands now,
and a game without a row is still being played. Both are written in the transaction that
stores the events (an append, an import's batch), from the fold that checked them; a store
of an older schema gets them when it is upgraded (:func:`note_every_result`).

The listings (``GET /api/games``, ``jaslog games``) filter by ``status`` and ``winner``
through them in SQL (:func:`where_stands`), with an index each, instead of folding every
game.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from sqlalchemy import func, select
from sqlalchemy.engine import Connection
from sqlalchemy.sql import Select

from jaslog.engine.fold import FoldError, GameFold
from jaslog.games import get_game
from jaslog.play.fold import start_fold
from jaslog.store.queries import winning_players
from jaslog.store.schema import GAME_RESULTS, GAME_WINNERS, GAMES, PLAYERS


class Standing(NamedTuple):
    """Where a game stands: over or not, the winner as stored (a seat's or team's number as
    text, ``draw``, or None), and the players who won (sorted)."""

    finished: bool
    winner: str | None
    winners: tuple[str, ...]


#: A game being played: what a game without any ``game_results`` row stands at.
PLAYING = Standing(False, None, ())


def standing(fold: GameFold) -> Standing:
    """Where the folded game stands.

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> evs = [event_from_dict(e) for e in simulate_game("s", "klaberjass-2p", seed=3)]
    >>> standing(fold(evs[:40])), standing(fold(evs)).finished
    (Standing(finished=False, winner=None, winners=()), True)
    """
    state = fold.state
    if not state.finished:
        return PLAYING
    w = state.winner
    return Standing(True, None if w is None else str(w),
                    tuple(sorted(set(winning_players(get_game(fold.game).scoring,
                                                    list(fold.seats), w)))))


def stored_standing(conn: Connection, game: str) -> Standing:
    """Where ``game`` stands by its latest ``game_results`` row (:data:`PLAYING`: none)."""
    row = conn.execute(select(GAME_RESULTS.c.seq, GAME_RESULTS.c.finished, GAME_RESULTS.c.winner)
                       .where(GAME_RESULTS.c.game == game)
                       .order_by(GAME_RESULTS.c.seq.desc()).limit(1)).first()
    if row is None:
        return PLAYING
    winners = tuple(r.player for r in conn.execute(
        select(GAME_WINNERS.c.player).where(GAME_WINNERS.c.game == game,
                                            GAME_WINNERS.c.seq == row.seq)
        .order_by(GAME_WINNERS.c.player)))
    return Standing(bool(row.finished), row.winner, winners)


def note_results(conn: Connection, items: Iterable[tuple[str, int, Standing, bool]]) -> None:
    """Write where each game of ``items`` stands after seq ``seq``, in the caller's write
    transaction: ``(game, seq, standing, new)``, ``new`` for a game stored by this same
    transaction (which has no row yet). A row is written only when the standing differs
    from the game's last one."""
    results: list[dict[str, Any]] = []
    winners: list[dict[str, Any]] = []
    for game, seq, now, new in items:
        before = PLAYING if new else stored_standing(conn, game)
        if (now.finished, now.winner) == (before.finished, before.winner):
            continue
        results.append({"game": game, "seq": seq, "finished": now.finished,
                        "winner": now.winner})
        winners.extend({"game": game, "seq": seq, "player": p} for p in now.winners)
    if results:
        conn.execute(GAME_RESULTS.insert(), results)
    if winners:
        conn.execute(GAME_WINNERS.insert(), winners)


def note_every_result(conn: Connection, games: Iterable[tuple[str, list[Any]]]) -> int:
    """Write where each of ``games`` (``(id, events)``, as the store reads them) stands, for
    a store that had no ``game_results``; a game whose log no longer folds is left as being
    played. Returns how many games were found over."""
    items = []
    for gid, events in games:
        try:
            f = start_fold(events[0])
            for e in events[1:]:
                f.apply(e)
        except FoldError:
            continue
        now = standing(f)
        if now != PLAYING:
            items.append((gid, events[-1].seq, now, True))
    note_results(conn, items)
    return sum(1 for _, _, s, _ in items if s.finished)


def _latest(game: Any) -> Any:
    """The seq of ``game``'s latest ``game_results`` row (correlated to ``game``)."""
    r = GAME_RESULTS.alias("latest")
    return select(func.max(r.c.seq)).where(r.c.game == game).scalar_subquery()


def where_stands(q: Select[Any], *, status: str | None = None,
                 winner: str | None = None) -> Select[Any]:
    """The listing ``q`` (a select of ``games``) narrowed to the games that are ``live`` or
    ``finished`` (``status``) and that ``winner`` won (a player's id or display name, any
    case, or ``draw``), through ``game_results`` and ``game_winners`` and their indexes."""
    r = GAME_RESULTS
    if status is not None:
        over = select(r.c.game).where(r.c.finished.is_(True), r.c.seq == _latest(r.c.game))
        q = q.where(GAMES.c.id.in_(over) if status == "finished" else GAMES.c.id.not_in(over))
    if winner == "draw":
        q = q.where(GAMES.c.id.in_(select(r.c.game).where(
            r.c.winner == "draw", r.c.finished.is_(True), r.c.seq == _latest(r.c.game))))
    elif winner is not None:
        w = GAME_WINNERS
        named = select(PLAYERS.c.id).where(func.lower(PLAYERS.c.name) == winner.lower())
        q = q.where(GAMES.c.id.in_(select(w.c.game).where(
            (w.c.player == winner) | w.c.player.in_(named), w.c.seq == _latest(w.c.game))))
    return q
