"""Games recorded as a real table records them (rule book 9.1): a round written on the score
sheet alone, a card recorded by mistake then retracted and recorded again, an irregularity,
and a round ruled twice (the second ruling after the game ended).

Each is a simulated game rewritten: the events keep their order, and the seqs (and what a
correction retracts) are numbered at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jaslog.cards import SUIT_LETTERS
from jaslog.events import Event, event_from_dict
from jaslog.play.fold import fold, start_fold
from jaslog.play.sim import simulate_game


@dataclass
class RealTable:
    """A rewritten game and what was put into it (seqs as finally numbered)."""

    events: list[Event]
    score_only: int                      # the round written by its score alone
    typo: int                            # seq of the play a correction retracted
    correction: int                      # seq of that correction
    again: int                           # seq of the same seat's play recorded after it
    irregularity: int                    # seq of the irregularity
    irregular_round: int                 # the round in play when it was recorded
    rulings: list[int] = field(default_factory=list)   # seqs of the two rulings on round 1


def opener_indices(evs: list[dict[str, Any]]) -> list[int]:
    """Where each round begins: the deal that opened it (an annulled Klaberjass deal is
    dealt again within the same round)."""
    f = start_fold(event_from_dict(evs[0]))
    firsts: list[int] = []
    for i, e in enumerate(evs[1:], 1):
        f.apply(event_from_dict(e))
        if len(f.state.rounds) > len(firsts):
            firsts.append(i)
    return firsts


def sheet(ruleset: str, r: Any, o: Any, fields: tuple[str, ...] | None) -> dict[str, Any]:
    """What the score sheet says of a round: its score, and the ``fields`` named (None: all
    a sheet can say of it in this game)."""
    if ruleset == "kloepper":
        out = {"points": list(o.points), "result": o.result, "chooser": o.queens[0]}
    elif ruleset.startswith("klaberjass"):
        out = {"chooser": r.maker, "trump": SUIT_LETTERS[r.trump], "points": list(o.points),
               "roem": [o.sequences[s] + o.bella[s] for s in (0, 1)], "result": o.result}
    else:
        out = {"chooser": r.chooser, "trump": SUIT_LETTERS[r.trump], "points": list(o.points),
               "roem": list(o.roem), "result": o.result}
    return {"score": list(o.score),
            **{k: v for k, v in out.items() if fields is None or k in fields}}


def real_table(gid: str, ruleset: str = "amsterdam", seed: int = 5, *,
               fields: tuple[str, ...] | None = None,
               at: str | None = "2026-03-01T19:00:00Z") -> RealTable:
    """Game ``gid`` rewritten: the first round that ends plainly (made, or the game's
    like) written by its score (and the sheet's ``fields``, None: all), a typo and its
    correction in the next round with plays, an irregularity in that round, and two rulings
    on round 1 (one as the next round begins, confirming the score as played; one after the
    last event, turning it round: a ruling that changes the totals only once the game is over,
    so that the game's deals stay the ones it had)."""
    evs = simulate_game(gid, ruleset, seed=seed, at=at)
    f = fold([event_from_dict(e) for e in evs])
    starts = opener_indices(evs)
    outcomes = f.state.outcomes()
    plain = {"made", "nat", "pit", "bete", "queens", "others"}
    k = next(i for i in range(1, len(starts) - 1) if outcomes[i].result in plain)
    starts.append(len(evs))
    number = k + 1
    r, o = f.state.rounds[k], outcomes[k]
    score = {"game": gid, "seq": -1, "type": "round_score", "at": evs[starts[k]].get("at"),
             "round": number, **sheet(ruleset, r, o, fields)}
    first_ruling = {"game": gid, "seq": -1, "type": "ruling", "round": 1,
                    "score": list(outcomes[0].score), "reason": "the sheet checked: as played",
                    "at": evs[starts[k]].get("at")}
    out = [*evs[:starts[k]], score, first_ruling]
    # the next round: a typo (the card the same seat plays two tricks later), its correction,
    # then an irregularity just before the real card
    nxt = evs[starts[k + 1]:starts[k + 2]]
    plays = [i for i, e in enumerate(nxt) if e["type"] == "play"]
    p = plays[len(plays) // 4] if ruleset != "klaberjass-2p" else plays[4]
    seat = nxt[p]["seat"]
    later = next(nxt[i] for i in plays if i > p + 2 * len(f.seats) and nxt[i]["seat"] == seat)
    typo = {**nxt[p], "card": later["card"]}
    fix: dict[str, Any] = {"game": gid, "seq": -1, "type": "correction", "retracts": [],
           "reason": "the scorer wrote the wrong card", "at": nxt[p].get("at")}
    irregular = {"game": gid, "seq": -1, "type": "irregularity", "kind": "exposed_card",
                 "seat": (seat + 1) % len(f.seats), "cards": [later["card"]],
                 "text": "dropped face up", "at": nxt[p].get("at")}
    again = dict(nxt[p])
    out += [*nxt[:p], typo, fix, irregular, again, *nxt[p + 1:], *evs[starts[k + 2]:]]
    last_ruling = {"game": gid, "seq": -1, "type": "ruling", "round": 1,
                   "score": list(outcomes[0].score)[::-1], "reason": "scored the wrong way round",
                   "at": evs[-1].get("at")}
    out.append(last_ruling)
    for i, e in enumerate(out):
        e["seq"] = i
    fix["retracts"] = [typo["seq"]]
    events = [event_from_dict({k2: v for k2, v in e.items() if v is not None}) for e in out]
    seq = {id(e): i for i, e in enumerate(out)}
    return RealTable(events, number, seq[id(typo)], seq[id(fix)], seq[id(again)],
                     seq[id(irregular)], number + 1, [seq[id(first_ruling)], seq[id(last_ruling)]])
