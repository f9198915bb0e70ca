"""The analysis board: a recorded round at any position, any legal card tried there, and
what perfect play makes of it (rule book 9.2).

:func:`board_line` takes a round whose hands are known (the game's ``solver`` adapter's
:class:`~jaslog.analysis.model.Deal`), goes to a position of its record (after its first
``position`` plays), plays the ``moves`` given from there (each must be a legal card) and
answers the position reached: the hands, the trick, the par, the par after each legal card
(the best ones marked) and the principal line to the end, with the result it comes to.

>>> from jaslog.play.sim import simulate_game
>>> from jaslog.play.fold import fold
>>> from jaslog.events import event_from_dict
>>> from jaslog.games import get_game
>>> f = fold(event_from_dict(e) for e in simulate_game("b", seed=3)[:40])
>>> deal = get_game("klaverjas").adapter("solver").deals(f)[0]
>>> b = board_line(deal, position=24)
>>> b["par"] == b["legal"][0]["par"] or not b["legal"][0]["best"], len(b["line"])
(True, 8)
"""

from __future__ import annotations

from typing import Any

from jaslog.analysis.core import Budget, Solver
from jaslog.analysis.model import Deal, Position
from jaslog.cards import CARD_INDEX, card_text, cards_of
from jaslog.errors import JaslogError


class BoardError(JaslogError, ValueError):
    """A board position that cannot be reached: a start outside the round, a card that is not
    a card, or not a legal one there; ``code`` says which."""

    code = "bad_move"

    def __init__(self, message: str, code: str) -> None:
        self.code = code
        super().__init__(message)


def start_of(deal: Deal, seq: int) -> int:
    """The position of the record just after the event ``seq``: how many of the round's
    plays have a seq at most ``seq``."""
    return sum(1 for _, _, s in deal.plays if s <= seq)


def _card(text: object, i: int) -> int:
    c = CARD_INDEX.get(text) if isinstance(text, str) else None
    if c is None:
        raise BoardError(f"move {i + 1}: {text!r} is not a card (a card is like 10H, QS, 7C)",
                         "bad_card")
    return c


def line_from(solver: Solver, pos: Position, par: int) -> list[tuple[int, int]]:
    """The principal line from ``pos`` (its par ``par``): from each position the
    lowest-numbered card that keeps the par, as (seat, card), to the end of the round (as
    :func:`jaslog.analysis.rounds.principal_end` plays it)."""
    out = []
    while not pos.over:
        legal = solver.legal(pos)
        card = next((c for c in range(32) if legal >> c & 1 and solver.after(pos, c, par) == par),
                    -1)
        if card < 0:  # the search and its children disagree: a bug, never an answer
            raise AssertionError(f"no card keeps the par {par}")
        out.append((pos.to_move, card))
        pos = solver.step(pos, card)
    return out


def board_line(deal: Deal, *, position: int = 0, moves: list[str] | None = None,
               budget: Budget | None = None, compiled: bool | None = None) -> dict[str, Any]:
    """The board of ``deal`` after its first ``position`` recorded plays and then ``moves``
    (card texts, each legal where it is played; else :class:`BoardError`): see the module.
    ``budget``: the most the whole answer may search (past it,
    :class:`~jaslog.analysis.core.TooHard`)."""
    moves = list(moves or [])
    n = len(deal.plays)
    if not 0 <= position <= n:
        raise BoardError(f"round {deal.round} has positions 0 to {n} (its {n} plays recorded); "
                         f"not {position}", "no_such_position")
    solver = Solver(deal.rules, deal.side, deal.pending, compiled=compiled, budget=budget)
    pos = deal.start
    trick_no = 1
    for _, card, _ in deal.plays[:position]:
        pos = solver.step(pos, card)
        if not pos.trick:
            trick_no += 1
    played: list[dict[str, Any]] = []
    for i, text in enumerate(moves):
        card = _card(text, i)
        if pos.over:
            raise BoardError(f"move {i + 1} ({text}): every card of round {deal.round} is "
                             "played", "round_over")
        legal = solver.legal(pos)
        if not legal >> card & 1:
            seat = pos.to_move
            which = " ".join(card_text(c) for c in cards_of(legal))
            held = "holds" if pos.hands[seat] >> card & 1 else "does not hold"
            raise BoardError(f"move {i + 1}: {text} is not a legal card for seat {seat} here (it "
                             f"{held} it; its legal cards: {which})", "illegal_card")
        played.append({"seat": pos.to_move, "card": text})
        pos = solver.step(pos, card)
        if not pos.trick:
            trick_no += 1
    follows = all(deal.plays[position + i][1] == CARD_INDEX[m]
                  for i, m in enumerate(moves) if position + i < n) and position + len(moves) <= n
    at = position + len(moves)
    recorded = card_text(deal.plays[at][1]) if follows and at < n else None
    out: dict[str, Any] = {
        "round": deal.round, "position": position, "moves": played,
        "sides": list(deal.sides), "side": list(deal.side), "note": deal.note or None,
        "to_move": None if pos.over else pos.to_move, "leader": pos.leader,
        "trick_no": trick_no if not pos.over else None,
        "trick": [{"seat": (pos.leader + i) % len(pos.hands), "card": card_text(c)}
                  for i, c in enumerate(pos.trick)],
        "hands": [[card_text(c) for c in cards_of(h)] for h in pos.hands],
        "points": list(pos.points), "roem": list(pos.roem), "over": pos.over,
        "recorded": recorded, "follows_record": follows,
    }
    par = solver.par(pos)
    values = {} if pos.over else solver.values(pos, par)
    mover = None if pos.over else deal.side[pos.to_move]
    out["par"] = par
    out["legal"] = [{"card": card_text(c), "par": v, "best": v == par,
                     "loss": (par - v) if mover == 0 else (v - par)}
                    for c, v in values.items()]
    out["best"] = [x["card"] for x in out["legal"] if x["best"]]
    line = line_from(solver, pos, par)
    end = pos
    for _, c in line:
        end = solver.step(end, c)
    out["line"] = [{"seat": s, "card": card_text(c)} for s, c in line]
    out["par_result"] = deal.outcome(end)
    out["nodes"] = solver.nodes
    return out
