"""What-if: a game refolded under another preset of its game, or other options, side by side
with the game as recorded.

The log is never touched: :func:`what_if` folds the same events a second time from a
``game_started`` whose ruleset and options are the what-if ones (the game's own options are
replaced, not merged), and compares the two folds: every event whose verdict changes (legal
as recorded and a violation as if, or the reverse, or another rule), every round whose
result or score changes, the totals and the winner. Nothing here branches on a game's name:
the folds, the round reports (:func:`jaslog.play.audit.rounds_report`) and the options
(:func:`jaslog.games.resolve`) are every game's own.

When the what-if rules refuse an event outright (a bid the other trump selection does not
have, a deal after the game ended sooner), that event is the first refusal: the comparison
stops before it, and both sides are judged on the events before it.

>>> from jaslog.events import event_from_dict
>>> from jaslog.play.sim import Faults, simulate_game
>>> evs = [event_from_dict(e) for e in simulate_game("w1", "amsterdam", seed=2,
...                                                   faults=Faults(revoke_rate=0.1))]
>>> w = what_if(evs, "amsterdam", ["revoke=ignore"])
>>> w.options_differ, w.refused is None
([('revoke', 'penalty', 'ignore')], True)
>>> r = w.rounds[0]
>>> r["recorded"]["score"] != r["as_if"]["score"], w.verdicts == []
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from jaslog.engine.common import violation_dict
from jaslog.engine.fold import ROUND_OPENERS, FoldError, GameFold
from jaslog.engine.options import OptionError
from jaslog.errors import JaslogError
from jaslog.events import Event, GameStarted, event_from_dict
from jaslog.games import PRESETS, game_of, get_game, parse_option_text
from jaslog.play.audit import rounds_report
from jaslog.play.fold import start_fold
from jaslog.play.views import Sight, Timeline, claim_as_ruling, seen_of, timeline

#: What a round's entry compares, as recorded and as if.
ROUND_KEYS = ("result", "score", "final")


class WhatIfError(JaslogError, ValueError):
    """A what-if that cannot be asked: a preset that is not one of the game's, an unknown
    option or a value it does not take."""

    code = "bad_what_if"

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class WhatIf:
    """A game as recorded beside the same game as if played under other rules."""

    game: str
    #: the what-if game_started (the record's, with the what-if ruleset and options)
    started: GameStarted
    #: both folds, on the same events: up to the first refusal (or the record's own error)
    recorded: GameFold
    as_if: GameFold
    #: the first event the what-if rules refuse outright, and the round it is in
    refused: FoldError | None = None
    refused_round: int | None = None
    #: the record's own integrity error, where it stops folding (an invalid log)
    record_error: FoldError | None = None
    #: (option, as recorded, as if) for every resolved option that differs
    options_differ: list[tuple[str, Any, Any]] = field(default_factory=list)
    #: events whose verdict changes, and rounds whose result or score changes (dicts)
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)

    @property
    def compared_to(self) -> int:
        """The last seq both folds took."""
        return self.recorded.next_seq - 1

    def to_dict(self) -> dict[str, Any]:
        """The comparison for scripts (``check --as ... --json``, the API's ``what_if``)."""
        rec, alt = self.recorded, self.as_if
        refused = None
        if self.refused is not None:
            e = self.refused
            refused = {"seq": e.seq, "round": self.refused_round, "seat": e.seat, "card": e.card,
                       "code": e.code, "message": e.message}
        return {
            "game": self.game, "error": None,
            "ruleset": rec.ruleset, "options": rec.started.options,
            "as": {"ruleset": alt.ruleset, "options": alt.started.options},
            "options_differ": [{"option": k, "recorded": a, "as_if": b}
                               for k, a, b in self.options_differ],
            "compared_to": self.compared_to,
            "refused": refused,
            "record_error": str(self.record_error) if self.record_error is not None else None,
            "verdicts": self.verdicts,
            "rounds": self.rounds,
            "totals": {"recorded": rec.state.totals(), "as_if": alt.state.totals()},
            "finished": {"recorded": rec.state.finished, "as_if": alt.state.finished},
            "winner": {"recorded": rec.state.winner, "as_if": alt.state.winner},
        }


def what_if_started(started: Event, preset: str | None = None,
                    options: Iterable[str] = ()) -> GameStarted:
    """The record's ``game_started`` with the what-if rules: ``preset`` (default: the game's
    own), its options replaced by ``options`` (``KEY=VALUE`` texts, as ``-o`` takes them).

    >>> from jaslog.events import parse_event
    >>> s = parse_event('{"game":"g","seq":0,"type":"game_started","ruleset":"amsterdam",'
    ...                 '"options":{"revoke":"ignore"},"seats":["a","b","c","d"],"dealer":0}')
    >>> w = what_if_started(s, "rotterdam", ["tie_is_failure=false"])
    >>> w.ruleset, w.options
    ('rotterdam', {'tie_is_failure': False})
    >>> what_if_started(s, "kloepper")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    jaslog.play.whatif.WhatIfError: kloepper is a preset of kloepper: a klaverjas game is refolded ...
    """
    if not isinstance(started, GameStarted):
        raise WhatIfError("a game's first event is game_started", "no_game_started")
    game = get_game(game_of(started.ruleset))
    preset = preset or started.ruleset
    if preset not in PRESETS:
        raise WhatIfError(f"unknown preset {preset!r}; the presets of {game.name} are "
                          f"{', '.join(game.presets)}", "unknown_preset")
    if preset not in game.presets:
        raise WhatIfError(f"{preset} is a preset of {game_of(preset)}: a {game.name} game is "
                          f"refolded only under a preset of {game.name} "
                          f"({', '.join(game.presets)})", "other_game")
    parsed: dict[str, Any] = {}
    try:
        for text in options:
            key, value = parse_option_text(preset, text)
            parsed[key] = value
        game.resolve(preset, parsed)
    except OptionError as e:
        raise WhatIfError(str(e), "bad_options") from None
    return started.model_copy(update={"ruleset": preset, "options": parsed or None})


def what_if(events: Sequence[Event], preset: str | None = None,
            options: Iterable[str] = ()) -> WhatIf:
    """Fold ``events`` (one game, seq order, from its ``game_started``) as recorded and
    under ``preset`` (default: the game's own) with ``options`` (``KEY=VALUE`` texts, which
    replace the game's own options), and compare the two.

    >>> from jaslog.events import event_from_dict
    >>> from jaslog.play.sim import simulate_game
    >>> w = what_if([event_from_dict(e) for e in simulate_game("w5", seed=1)], "rotterdam")
    >>> w.compared_to, w.refused, w.as_if.ruleset, w.to_dict()["options_differ"]
    (573, None, 'rotterdam', [{'option': 'play', 'recorded': 'amsterdam', 'as_if': 'rotterdam'}])
    """
    if not events:
        raise WhatIfError("a game needs at least its game_started event", "empty_game")
    started = what_if_started(events[0], preset, options)
    try:
        rec = start_fold(events[0])
    except FoldError as e:
        raise WhatIfError(str(e), e.code) from None
    alt = start_fold(started)
    w = WhatIf(events[0].game, started, rec, alt)
    for i, ev in enumerate(events[1:], 1):
        try:
            rec.apply(ev)
        except FoldError as err:
            w.record_error = err
            break
        try:
            alt.apply(ev)
        except FoldError as err:
            w.refused, w.refused_round = err, rec.rounds_dealt()
            if ev.type in ROUND_OPENERS and not rec.rounds_dealt():
                w.refused_round = 1
            # judge the record on the same events as the what-if: those before the refusal
            w.recorded = rec = start_fold(events[0])
            for x in events[1:i]:
                rec.apply(x)
            break
    w.options_differ = [(k, rec.options.get(k), alt.options.get(k))
                        for k in sorted(set(rec.options) | set(alt.options))
                        if rec.options.get(k) != alt.options.get(k)]
    w.verdicts = _verdicts(rec, alt)
    w.rounds = _rounds(rec, alt)
    return w


def _verdicts(rec: GameFold, alt: GameFold) -> list[dict[str, Any]]:
    """Every event whose violations differ between the two folds, in seq order."""
    def by_seq(fold: GameFold) -> dict[int, list[dict[str, Any]]]:
        out: dict[int, list[dict[str, Any]]] = {}
        for v in sorted(fold.state.violations, key=lambda v: (v.seq, v.rule)):
            out.setdefault(v.seq, []).append(violation_dict(v))
        return out

    a, b = by_seq(rec), by_seq(alt)
    out = []
    for seq in sorted(set(a) | set(b)):
        va, vb = a.get(seq, []), b.get(seq, [])
        if [v["rule"] for v in va] == [v["rule"] for v in vb]:
            continue
        first = (va or vb)[0]
        e = rec.log[seq] if 0 <= seq < len(rec.log) else None
        out.append({"seq": seq, "round": first["round"], "trick": first["trick"],
                    "type": e.type if e is not None else None, "seat": first["seat"],
                    "card": first["card"],
                    "recorded": [{"rule": v["rule"], "message": v["message"]} for v in va],
                    "as_if": [{"rule": v["rule"], "message": v["message"]} for v in vb]})
    return out


def _rounds(rec: GameFold, alt: GameFold) -> list[dict[str, Any]]:
    """Every round whose result or score differs between the two folds."""
    out = []
    for a, b in zip(rounds_report(rec), rounds_report(alt), strict=False):
        ka, kb = ({k: r.get(k) for k in ROUND_KEYS} for r in (a, b))
        if ka != kb:
            out.append({"round": a["round"], "recorded": ka, "as_if": kb})
    return out


# ---------------------------------------------------------------------- as a sight sees it


def what_if_timeline(w: WhatIf, tl: Timeline) -> Timeline:
    """The what-if game as the views take it (:mod:`jaslog.play.views`: frames, state, report),
    up to its first refusal; a round secret in the record (``tl``) stays secret.

    >>> from jaslog.events import event_from_dict
    >>> from jaslog.play.sim import simulate_game
    >>> evs = [event_from_dict(e) for e in simulate_game("w2", seed=4)[:50]]
    >>> wtl = what_if_timeline(what_if(evs, "rotterdam"), timeline(evs))
    >>> wtl.fold.ruleset, wtl.live_round, len(wtl.events)
    ('rotterdam', 2, 50)
    """
    end = w.refused.seq if w.refused is not None and w.refused.seq is not None \
        else w.compared_to + 1
    events: list[Event] = [w.started, *w.recorded.log[1:end]]
    out = timeline(events)
    out.secret_rounds = out.secret_rounds | {n for n in tl.secret_rounds if n <= len(
        out.fold.state.rounds if out.fold is not None else [])}
    return out


def seen(w: WhatIf, tl: Timeline, sight: Sight) -> dict[str, Any]:
    """The comparison (:meth:`WhatIf.to_dict`) as ``sight`` may see it, ``tl`` the record's
    timeline: of a round the sight may not see whole, only a seat's own verdicts, and a
    refusal without what it was (its message may name a card in a hand). For the public, ``w``
    is the what-if of the events it may see (up to :meth:`Timeline.horizon`).

    >>> from jaslog.events import event_from_dict
    >>> from jaslog.play.sim import simulate_game
    >>> evs = [event_from_dict(e) for e in simulate_game("w3", seed=4)[:50]]
    >>> d = seen(what_if(evs, "rotterdam"), timeline(evs), Sight(seat=1))
    >>> d["as"], d["refused"]
    ({'ruleset': 'rotterdam', 'options': None}, None)
    """
    d = w.to_dict()
    if sight.full:
        return d
    hidden = tl.hidden_rounds(sight)
    d["verdicts"] = [v for v in d["verdicts"]
                     if v["round"] not in hidden or (sight.seat is not None
                                                     and v["seat"] == sight.seat)]
    r = d["refused"]
    if r is not None and r["round"] in hidden:
        d["refused"] = {"seq": r["seq"], "round": r["round"], "seat": None, "card": None,
                        "code": None, "message": f"the what-if rules refuse an event of round "
                        f"{r['round']}, which this view does not show whole"}
    if d["record_error"] is not None:
        d["record_error"] = "the record stops folding (GET the game's audit says why)"
    return d


def what_if_view(tl: Timeline, sight: Sight, preset: str | None = None,
                 options: Iterable[str] = ()) -> tuple[Timeline, dict[str, Any]]:
    """A game's what-if for a viewer (``?as=`` on the service's game endpoints): the timeline
    the views read under the what-if rules, and the comparison as ``sight`` may see it,
    both computed on what the sight may see (:func:`seen_events`). The public's what-if is
    of the events it may see (finished rounds only).

    >>> from jaslog.events import event_from_dict
    >>> from jaslog.play.sim import simulate_game
    >>> evs = [event_from_dict(e) for e in simulate_game("w4", seed=4)[:50]]
    >>> wtl, d = what_if_view(timeline(evs), Sight(public=True), "rotterdam")
    >>> len(wtl.events), d["compared_to"], d["as"]["ruleset"]
    (35, 34, 'rotterdam')
    """
    n = tl.horizon() + 1 if sight.public else tl.applied()
    w = what_if(seen_events(tl, sight, n), preset, options)
    return what_if_timeline(w, tl), seen(w, tl, sight)


def seen_events(tl: Timeline, sight: Sight, n: int) -> list[Event]:
    """The record's first ``n`` events as a what-if for ``sight`` folds them: computed on
    what the sight may see, so that whether the what-if rules refuse an event, and every
    verdict they give, never depends on a card it has not seen. A round secret to the sight
    is dealt without hands (and a Klaberjass deal without its stock), as the game's
    ``redact_event`` leaves them (a log holds every hand or none, so its own too): its plays
    are then judged only as far as a round recorded without hands is, and a claim there
    counts as the score it came to (:func:`jaslog.play.views.claim_as_ruling`). The other events
    are the record's (the views redact what they show of them).

    >>> from jaslog.events import event_from_dict
    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.views import timeline
    >>> evs = [event_from_dict(e) for e in simulate_game("w6", seed=4)[:50]]
    >>> [e.hands is None for e in seen_events(timeline(evs), Sight(seat=1), 50) if e.type == "dealt"]
    [False, True]
    """
    events = tl.events[:n]
    if sight.full or tl.fold is None:
        return list(events)
    redact = get_game(tl.fold.game).redact_event
    hidden = tl.hidden_rounds(sight)
    out = []
    for i, e in enumerate(events):
        if tl.round_of[i] in hidden and e.type == "claim":
            e = event_from_dict(claim_as_ruling(tl, i))
        elif tl.round_of[i] in hidden and e.type in ("dealt", "second_deal"):
            d = e.model_dump(exclude_none=True)
            shown = redact(d, sight, seen_of(tl, sight, i))
            drop = {k for k in ("hands", "stock") if k in d and (
                k not in shown or any(h is None for h in shown.get(k) or []))}
            if drop:
                e = event_from_dict({k: v for k, v in d.items() if k not in drop})
        out.append(e)
    return out


__all__ = ["ROUND_KEYS", "WhatIf", "WhatIfError", "seen", "what_if", "what_if_started",
           "what_if_timeline", "what_if_view"]
