"""What a played Klaverjas round's ``rounds`` row reads of the fold, as one list of plain
values: the export's row builder writes a round's row from it, and the store keeps it beside
each closed round's facts (``round_facts.detail``, :mod:`jaslog.store.projection`), so a
stored game's rows are written without folding it again.

Everything here reads the state the rules built (the round, its tricks and outcome, the
trump selection machine) or asks the rules (``roem_parts``, ``score_round``); no rule is
re-implemented.
"""

from __future__ import annotations

from typing import Any

from jaslog.engine.facts import claim_columns, ruling_columns
from jaslog.games.klaverjas.rules import roem_parts, score_round
from jaslog.games.klaverjas.rules.game import KlaverjasGame, Outcome, Round
from jaslog.games.klaverjas.rules.trump import TrumpSelection

JUDGED = ("made", "nat", "pit")

#: The values of :func:`round_detail`, in order (the export reads them by these places;
#: ``broken``: each rule broken in the round, ``[seq, trick, seat, card, rule, message]``).
DETAIL = ("dealer", "forehand", "trump", "chooser", "hands_known", "trump_how", "passes",
          "turned", "first_leader", "tricks_complete", "over", "points", "roem_on_table",
          "tricks", "roem_kinds", "points_without_roem", "revoke_team", "violations",
          "ruled", "ruling_reason", "ruling_seq", "rulings", "ruled_after_end", "claimed_by",
          "claim_gives", "claim_guaranteed", "won_by_seat", "plays_by_seat", "broken")


def trump_how(sel: TrumpSelection) -> str | None:
    """How the selection machine fixed trumps (see the ``rounds.trump_how`` column)."""
    if sel.trump is None:
        return None
    last = sel.bids[-1] if sel.bids else None
    if last is None or last[1] == "pass":
        return "turned"  # the machine fixed it when a card was turned
    if sel.forced and sel.method in ("free", "random"):
        return "forced"
    if sel.method == "random":
        return "accepted" if getattr(sel, "stage", "") == "accept" \
            and sel.trump == sel.proposed else "named"
    return "chosen"


def round_detail(g: KlaverjasGame, r: Round, o: Outcome) -> list[Any] | None:
    """A played round's values (:data:`DETAIL`) as the fold ``g`` holds them, its outcome
    ``o``; None for a round recorded by its score alone (its row reads the sheet).

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> g = fold(event_from_dict(e) for e in simulate_game("p", seed=3)).state
    >>> d = dict(zip(DETAIL, round_detail(g, g.rounds[0], g.outcomes()[0]), strict=True))
    >>> d["tricks_complete"], sum(d["won_by_seat"]), d["plays_by_seat"], d["over"]
    (8, 8, [8, 8, 8, 8], True)
    """
    if r.score_only is not None:
        return None
    trump, chooser = r.trump, r.chooser
    roem_rules = g.roem_rules
    kinds: list[str] = []
    complete = 0
    won = [0, 0, 0, 0]
    plays = [0, 0, 0, 0]
    for t in r.tricks:
        cards = t.cards
        if not cards:
            continue
        if t.complete:
            complete += 1
            won[t.winner] += 1
            if trump is not None and t.roem:  # (the parts add up to the trick's roem)
                kinds.extend(k for k, p in roem_parts(cards, trump, roem_rules) if p > 0)
        else:
            lead = t.leader
            for i in range(len(cards)):
                plays[(lead + i) & 3] += 1
    plays = [p + complete for p in plays]
    if roem_rules.stuk:
        kinds.extend(["stuk_in_hand"] * (sum(r.hand_roem) // roem_rules.stuk))
    pteam = chooser & 1 if chooser is not None else None
    without = None
    if o.result in JUDGED and pteam is not None:
        without = score_round(g.score_rules, o.points, [0, 0], o.tricks, pteam, None)[1]
    sel = r.selection
    return [
        r.dealer, r.forehand, trump, chooser, bool(r.hands_known), trump_how(sel),
        sum(1 for _, call in sel.bids if call == "pass"), list(sel.turned),
        r.tricks[0].leader if r.tricks else None, complete, r.over,
        list(o.points), list(o.roem_on_table), list(o.tricks), kinds, without, r.revoke_team,
        len(r.violations), list(o.ruled) if o.ruled is not None else None,
        *ruling_columns(r), *claim_columns(r), won, plays,
        [[v.seq, v.trick, v.seat, v.card, v.rule, v.message] for v in r.violations],
    ]


def round_details(state: KlaverjasGame, outcomes: list[Outcome]) -> list[list[Any] | None]:
    """:func:`round_detail` of every round of a folded game, in order (``outcomes``: the
    state's ``outcomes()``)."""
    return [round_detail(state, r, o) for r, o in zip(state.rounds, outcomes, strict=True)]
