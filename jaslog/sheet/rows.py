"""The club's score sheet of a folded game: a row per round with the dealer, the playing side,
each side's score that counts, its roem, the running totals and the marks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaslog.engine.fold import GameFold
from jaslog.engine.game import Game
from jaslog.games import get_game

#: The keys of a row of the sheet, in order.
ROW_KEYS = ("round", "dealer", "chooser", "playing", "score", "final", "roem", "roem_held",
            "result", "recorded", "rulings", "marks", "totals")


def dash(xs: Sequence[int] | None) -> str:
    """A score as a sheet writes it: ``108–114`` (``?`` when unknown).

    >>> dash([108, 114]), dash(None)
    ('108–114', '?')
    """
    return "–".join(map(str, xs)) if xs is not None else "?"


def side_names(fold: GameFold) -> list[str]:
    """Who each side of the sheet is: the two partnerships (``ann & cor``) where the game
    scores by team, else each seat's player.

    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> side_names(fold([event_from_dict({"game": "g", "seq": 0, "type": "game_started",
    ...     "ruleset": "amsterdam", "seats": ["ann", "bob", "cor", "dirk"], "dealer": 0})]))
    ['ann & cor', 'bob & dirk']
    """
    if get_game(fold.game).scoring == "teams":
        return [" & ".join(fold.seats[t::2]) for t in (0, 1)]
    return list(fold.seats)


def held_roem(game: Game, entry: dict[str, Any], sides: int) -> list[int] | None:
    """The roem each side held in a played round (claimed or declared, before nat, bete or a
    revoke moves it), by the game's own reading of a round's roem (``Game.roem_of``) taken
    one side at a time: every per-side list of the entry but that side's is zeroed. None
    when the game has no roem or the round does not say.

    >>> from jaslog.games import get_game
    >>> held_roem(get_game("klaberjass"), {"sequences": [0, 20], "bella": [20, 0]}, 2)
    [20, 20]
    >>> held_roem(get_game("kloepper"), {"points": [30, 30, 30, 30]}, 4) is None
    True
    """
    if game.roem_of is None:
        return None
    out = []
    for side in range(sides):
        masked = {k: [x if i == side else 0 for i, x in enumerate(v)]
                  if isinstance(v, list) and len(v) == sides and all(type(x) is int for x in v)
                  else v for k, v in entry.items()}
        try:
            out.append(int(game.roem_of(masked)[0]))
        except (TypeError, KeyError):
            return None
    return out


def counted_roem(game: Game, held: list[int] | None, score: list[int],
                 result: str) -> list[int] | None:
    """The roem inside each side's score as played: its own where both sides scored (and in
    a tie, where only the side that scored keeps its own), all of it where one side took the
    whole round (nat, pit, bete, a revoke's penalty).

    >>> from jaslog.games import get_game
    >>> counted_roem(get_game("klaverjas"), [20, 0], [0, 182], "nat")
    [0, 20]
    >>> counted_roem(get_game("klaverjas"), [20, 40], [63, 159], "made")
    [20, 40]
    """
    if held is None:
        return None
    scored = [t for t, s in enumerate(score) if s]
    if result in game.tied or len(scored) != 1:
        return [h if score[t] else 0 for t, h in enumerate(held)]
    return [sum(held) if t == scored[0] else 0 for t in range(len(held))]


def _playing(game: Game, entry: dict[str, Any]) -> list[int]:
    """The sides whose contract the round was: the chooser's team or seat, or (without a
    chooser) the side the report names as ``queens``."""
    chooser = entry.get("chooser")
    if chooser is not None:
        return [chooser % 2] if game.scoring == "teams" else [chooser]
    return list(entry.get("queens") or [])


def _marks(row: dict[str, Any]) -> list[str]:
    out = []
    if row["recorded"] == "score_only":
        out.append("score only")
    if row["rulings"] and row["score"] != row["final"]:
        out.append(f"as played {dash(row['score'])}")
    for r in row["rulings"]:
        when = ", after the game ended" if r["after_end"] else ""
        if r["superseded"]:
            out.append(f"superseded ruling {dash(r['score'])} (seq {r['seq']}{when})")
        else:
            out.append(f"ruled {dash(r['score'])} (seq {r['seq']}{when}): {r['reason']}")
    return out


def _sheet_rows(fold: GameFold, report: dict[str, Any]) -> list[dict[str, Any]]:
    """The sheet's rows (:data:`ROW_KEYS`), one per round of ``report`` (the game's
    :func:`jaslog.play.audit.game_report`): ``score`` as played, ``final`` what counts, ``roem``
    the roem inside each side's played score and ``roem_held`` the roem each side held (None
    where unknown, or in a game without roem), ``playing`` the sides whose contract it was,
    ``totals`` running, ``marks`` in words."""
    game = get_game(fold.game)
    sides = len(report["totals"])
    rows = []
    for entry, r in zip(report["rounds"], fold.state.rounds, strict=True):
        so = r.score_only
        if so is not None:
            held = list(so.roem) if so.roem is not None and game.roem_of is not None else None
        else:
            held = held_roem(game, entry, sides)
        row = {
            "round": entry["round"],
            "dealer": entry.get("dealer"),
            "chooser": entry.get("chooser"),
            "playing": _playing(game, entry),
            "score": list(entry["score"]),
            "final": list(entry["final"]),
            "roem": counted_roem(game, held, entry["score"], entry["result"]),
            "roem_held": held,
            "result": entry["result"],
            "recorded": entry["recorded"],
            "rulings": [{k: x[k] for k in ("score", "reason", "seq", "after_end", "superseded")}
                        for x in entry["rulings"]],
            "marks": [],
            "totals": list(entry["totals"]),
        }
        row["marks"] = _marks(row)
        rows.append(row)
    return rows


def score_sheet(fold: GameFold, report: dict[str, Any]) -> dict[str, Any]:
    """The score sheet of a folded game: ``game``, ``ruleset``, ``scoring`` (``teams`` or
    ``players``), ``sides`` (who each is), ``rows`` (:func:`_sheet_rows`), and the report's
    ``totals``, ``finished`` and ``winner``.

    >>> from jaslog.play.audit import game_report
    >>> from jaslog.play.fold import fold
    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.events import event_from_dict
    >>> f = fold(event_from_dict(e) for e in simulate_game("v", seed=3))
    >>> s = score_sheet(f, game_report("v", f))
    >>> s["scoring"], len(s["rows"]), s["rows"][-1]["totals"] == s["totals"]
    ('teams', 16, True)
    """
    game = get_game(fold.game)
    return {"game": fold.game_id, "ruleset": fold.ruleset, "scoring": game.scoring,
            "sides": side_names(fold), "rows": _sheet_rows(fold, report),
            "totals": list(report["totals"]), "finished": report["finished"],
            "winner": report["winner"]}
