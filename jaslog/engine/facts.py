"""What every game's report says beside its own round report: how each round was recorded
(dealt with or without hands, or by its score alone), every ruling on it in order, the
irregularities, the timeouts, and the events a correction retracted (rule book 9.1).

These read the fold, not the game's rules, so they are the same for every game;
:func:`jaslog.play.audit.game_report` adds them to the game's report, the viewer and the
terminal show them. This module is on the compiled hot path (:data:`jaslog.native.HOT_PATH`:
``check`` sets them into every round of every game); run as pure Python it gives the same
answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from jaslog.engine.base import RestClaim, RoundLike, Ruling, Scored
from jaslog.engine.common import card_list
from jaslog.engine.fold import ROUND_OPENERS, GameFold, describe
from jaslog.events import Event, Irregularity, canonical_json


def ruling_columns(r: RoundLike) -> tuple[str | None, int | None, int, bool | None]:
    """A round's ``ruling_reason``, ``ruling_seq``, ``rulings`` and ``ruled_after_end``: the
    last ruling (the one that counts) and how many there were."""
    last = r.ruling
    if last is None:
        return None, None, 0, None
    return last.reason, last.seq, len(r.rulings), last.after_end


def claim_columns(r: RoundLike) -> tuple[int | None, str | None, bool | None]:
    """A round's ``claimed_by``, ``claim_gives`` and ``claim_guaranteed``: the claim of the
    rest that ended its play (rule book 9.1, decision 13), or NULLs."""
    c = getattr(r, "claim", None)
    if c is None:
        return None, None, None
    return c.seat, c.gives, c.guaranteed


def ruling_list(rulings: list[Ruling]) -> list[dict[str, Any]]:
    """Every ruling on a round, in order; all but the last are superseded.

    >>> ruling_list([Ruling([0, 162], "revoke", 40), Ruling([81, 81], "split", 52, True)])[0]
    {'score': [0, 162], 'reason': 'revoke', 'seq': 40, 'after_end': False, 'superseded': True}
    """
    last = len(rulings) - 1
    return [{"score": r.score, "reason": r.reason, "seq": r.seq, "after_end": r.after_end,
             "superseded": i < last} for i, r in enumerate(rulings)]


def irregularity_dict(e: Irregularity, number: int) -> dict[str, Any]:
    """An irregularity as reports write it (``round`` 0: before the first deal)."""
    return {"seq": e.seq, "round": number, "kind": e.kind, "seat": e.seat,
            "cards": list(e.cards) if e.cards is not None else None, "text": e.text}


def event_rounds(fold: GameFold) -> list[int]:
    """The round each event of the log was recorded in, by seq (0: before the first deal).
    An opener a later correction retracted still opened its round for the events recorded
    before that correction.

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> f = fold(event_from_dict(e) for e in simulate_game("v", seed=3)[:12])
    >>> event_rounds(f)[:3]
    [0, 1, 1]
    """
    out, number = [], 0
    for e in fold.log:
        if e.type == "correction":  # a retracted opener: what follows is the round before's
            number -= sum(fold.log[s].type in ROUND_OPENERS for s in getattr(e, "retracts", ()))
        if e.type in ROUND_OPENERS:
            number += 1
        out.append(number)
    return out


def retracted_list(fold: GameFold) -> list[dict[str, Any]]:
    """Every retracted event, in seq order: the event itself, in a few words, the round it
    was recorded in, the correction that retracted it and its reason."""
    if not fold.retracted:
        return []
    rounds = event_rounds(fold)
    return [{"seq": s, "round": rounds[s], "type": fold.log[s].type,
             "what": describe(fold.log[s]), "event": _plain(fold.log[s]),
             "by": c.seq, "reason": c.reason}
            for s, c in sorted(fold.retracted.items())]


def _plain(e: Event) -> dict[str, Any]:
    d: dict[str, Any] = orjson.loads(canonical_json(e))
    return d


def round_facts(fold: GameFold, outcomes: Sequence[Scored]) -> list[dict[str, Any]]:
    """What every round report holds whatever the game, by round: ``final`` (the score that
    counts), ``totals`` (running, after the round: the score sheet), ``recorded``
    (``played`` or ``score_only``), ``hands_recorded``, ``rulings`` (every one, in order, the
    last counting), ``irregularities`` and the ``claim`` of the rest that ended its play;
    ``outcomes`` are the rounds' (``fold.state.outcomes()``)."""
    return _put_facts(fold, [{} for _ in fold.state.rounds], outcomes)


def _put_facts(fold: GameFold, rounds: list[dict[str, Any]],
               outcomes: Sequence[Scored]) -> list[dict[str, Any]]:
    """:func:`round_facts` set into ``rounds``, one dict a round (a key it holds already
    keeps its place, as ``dict.update`` keeps it)."""
    state = fold.state
    retracted = fold.retracted
    openers = fold.openers
    if retracted:
        openers = [e for e in openers if e.seq not in retracted]
    irregular: dict[int, list[dict[str, Any]]] = {}
    for number, e in fold.irregularities:
        irregular.setdefault(number, []).append(irregularity_dict(e, number))
    running = [0] * state.scores
    for rep, r, opener, o in zip(rounds, state.rounds, openers, outcomes, strict=True):
        final = o.final
        running = [a + b for a, b in zip(running, final, strict=True)]
        rep["final"] = list(final)
        rep["totals"] = running
        rep["recorded"] = "score_only" if r.score_only is not None else "played"
        rep["hands_recorded"] = opener.type == "dealt" and getattr(opener, "hands", None) is not None
        rep["rulings"] = ruling_list(r.rulings) if r.rulings else []
        rep["irregularities"] = irregular.get(r.number, []) if irregular else []
        c = r.claim
        rep["claim"] = claim_dict(c) if c is not None else None
    return rounds


def claim_dict(c: RestClaim | None) -> dict[str, Any] | None:
    """A claim of the rest for scripts: who claimed (``seat``) and what (``gives``), the
    first trick it gave and how many, their cards and card points (with the last-trick
    bonus), the seat credited (``taker``), and the solver's verdict (``guaranteed``: null
    for a concession, or when the hands were not known).

    >>> claim_dict(RestClaim(1, "rest_to_claimer", 30, 7, 2, 0b11, 21, 1, True))["cards"]
    ['7C', '8C']
    """
    if c is None:
        return None
    return {"seq": c.seq, "seat": c.seat, "gives": c.gives, "trick": c.trick,
            "tricks": c.tricks, "cards": card_list(c.cards), "points": c.points,
            "taker": c.taker, "guaranteed": c.guaranteed}


def add_round_facts(fold: GameFold, rounds: list[dict[str, Any]], outcomes: Sequence[Scored],
                    *, roem_keys: tuple[str, ...] = (),
                    unknown_keys: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The game's round reports with :func:`round_facts` added (``outcomes``: the rounds',
    as :func:`round_facts` takes them). A score-only round reports
    the sheet's points, its roem under the game's ``roem_keys``, and what the sheet did not
    say (the game's ``unknown_keys``) as unknown: null."""
    _put_facts(fold, rounds, outcomes)
    for rep, r in zip(rounds, fold.state.rounds, strict=True):
        ruling = rep["ruling"]
        if ruling is not None:
            ruling["after_end"] = r.ruling.after_end
        so = r.score_only
        if so is not None:
            rep["points"] = so.points
            rep.update(dict.fromkeys(roem_keys, so.roem))
            rep.update(dict.fromkeys(unknown_keys))
    return rounds


def irregularity_list(fold: GameFold) -> list[dict[str, Any]]:
    """Every irregularity, in seq order."""
    return [irregularity_dict(e, number) for number, e in fold.irregularities]


def timeout_list(fold: GameFold) -> list[dict[str, Any]]:
    """Every timeout, in seq order: seat, seconds waited, round, and the store's stamp."""
    return [{"seq": e.seq, "round": number, "seat": e.seat, "seconds": e.seconds,
             "recorded_at": e.recorded_at} for number, e in fold.timeouts]
