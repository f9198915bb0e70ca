"""The table's repairs: what a scorer records when the table did not go as the rules say.

``fix`` retracts the last events with a correction (rule book 9.1, decision 9), a card given
out of turn may be recorded as an irregularity (decision 10), a round is written on the sheet
by its score alone (``score``, decision 11), and a referee's ruling changes a completed round
(``ruling``, ``undo``). Nothing is ever removed: each is a new event.
"""

from __future__ import annotations

from typing import Any

from jaslog.cards import CARD_TEXT, SUIT_LETTERS, CardError, parse_card
from jaslog.events import IRREGULARITY_KINDS
from jaslog.record.base import (
    FIX_REASON,
    IRREGULARITY_WORDS,
    MOST_RETRACTED,
    Ask,
    InputError,
    RecorderBase,
    Show,
    suit_word,
    yes,
)


class TableRepairs(RecorderBase):
    """Corrections, irregularities, score-only rounds and rulings, for every game."""

    def correction_from(self, text: str) -> dict[str, Any]:
        """``fix [N] [REASON]``: a correction retracting the last N events (default 1) with
        the reason (default :data:`FIX_REASON`); refused here, with the rule code and
        nothing stored, when the rules would refuse it."""
        first, _, more = text.partition(" ")
        n = 1
        if first.isdigit():
            n, text = int(first), more.strip()
        if not 1 <= n <= MOST_RETRACTED:
            raise InputError(f"fix N retracts the last N events, N from 1 to {MOST_RETRACTED} "
                             "(fix: the last one)")
        seqs = self.fold.latest_actions(n)
        if not seqs:
            raise InputError("nothing to fix: no event since the game's start can be retracted "
                             "(the game's start and notes stay, a correction is final) "
                             "[retract_unknown_seq]")
        event = self.base("correction", retracts=sorted(seqs), reason=text or FIX_REASON)
        err = self.refusal(event)
        if err is not None and err.code == "retract_past_round":
            raise InputError(self.past_round_text(n, min(seqs)))
        if err is not None:
            raise InputError(f"refused: {err.message} [{err.code}]")
        if len(seqs) < n:
            raise InputError(f"fix {n}: only {len(seqs)} event{'s' * (len(seqs) != 1)} can be "
                             f"retracted ({', '.join(f'seq {s}' for s in sorted(seqs))}; the "
                             "game's start and notes stay, a correction is final) "
                             "[retract_unknown_seq]")
        return event

    def past_round_text(self, n: int, early: int) -> str:
        """Why ``fix n``, reaching back to seq ``early``, is refused: it reaches a completed
        round (one followed by a deal)."""
        w = self.round_word
        number, opener = self.round_of(early), self.opener_seq()
        return (f"refused: fix {n} reaches seq {early} ({self.said(self.fold.log[early])}), "
                f"in {w} {number}, which is "
                f"complete: {w} {number + 1} was dealt at seq {opener}. A correction reaches "
                f"back no further than the deal of the {w} in play; a completed {w} is changed "
                f"only by a referee's ruling ('ruling', or 'undo') [retract_past_round]")

    def confirm(self, item: dict[str, Any], ask: Ask, show: Show) -> bool:
        """Ask before recording what needs a yes: a correction shows what it retracts."""
        if item.get("type") != "correction":
            return True
        seqs = sorted(item["retracts"], reverse=True)
        if len(seqs) == 1:
            show(f"fix: retract {self.said_seq(seqs[0])} (reason: {item['reason']})")
            return yes(ask("retract it? [y/N]> "))
        show(f"fix: retract these {len(seqs)} events (reason: {item['reason']}):")
        for s in seqs:
            show(f"  {self.said_seq(s)}")
        return yes(ask(f"retract these {len(seqs)} events? [y/N]> "))

    def irregularity_from(self, text: str) -> dict[str, Any]:
        """``irregularity KIND SEAT [CARDS] [TEXT]``: the cards run up to the first word that
        is not a card; the rest is the text."""
        usage = ("write an irregularity as: irregularity KIND SEAT [CARDS] [TEXT] (e.g. "
                 f"irregularity exposed_card 2 qs); KIND: {', '.join(IRREGULARITY_KINDS)}")
        words = text.split()
        if len(words) < 2:
            raise InputError(usage)
        kind = IRREGULARITY_WORDS.get(words[0].lower().replace("-", "_"))
        if kind is None:
            raise InputError(f"{words[0]!r} is not a kind of irregularity: "
                             f"{', '.join(IRREGULARITY_KINDS)}")
        seat = self.seat_arg(words[1])
        cards: list[str] = []
        rest = words[2:]
        while rest and self.is_card(rest[0]):
            c = parse_card(rest.pop(0), lenient=True)
            if not self.pack >> c & 1:
                raise InputError(f"{CARD_TEXT[c]} is not in the {self.fold.game} pack")
            cards.append(CARD_TEXT[c])
        fields: dict[str, Any] = {"kind": kind, "seat": seat}
        if cards:
            fields["cards"] = cards
        if rest:
            fields["text"] = " ".join(rest)
        return self.base("irregularity", **fields)

    def trick_opens(self) -> bool:
        """Whether the next card leads a trick (none played yet, or the last trick complete)."""
        r = self.current_round()
        t = next((t for t in reversed(r.tricks if r is not None else []) if t.cards), None)
        return t is None or bool(t.complete)

    def out_of_turn(self, item: dict[str, Any], ask: Ask, show: Show) -> dict[str, Any] | None:
        """A card given for a seat that is not due (the rules refuse it, ``not_your_turn``):
        the refusal is shown and the recorder offers to record it as an irregularity
        (``lead_out_of_turn`` when it would lead a trick, else ``play_out_of_turn``; rule book
        9.1, decision 10). The irregularity to record, the item itself when no card is out
        of turn, or None when the scorer says no."""
        if item.get("type") != "play":
            return item
        err = self.refusal(item)
        if err is None or err.code != "not_your_turn":
            return item
        kind = "lead_out_of_turn" if self.trick_opens() else "play_out_of_turn"
        seat, card = item["seat"], item["card"]
        _, due = self.expected()
        show(f"✗ refused: {err.message} [not_your_turn]")
        if not yes(ask(f"record it as an irregularity, {kind} by {self.who(seat)} with {card} "
                       f"(the card goes back to the hand; {self.who(due)} plays)? [y/N]> ")):
            show("not recorded")
            return None
        return self.base("irregularity", kind=kind, seat=seat, cards=[card])

    def round_score_from(self, words: list[str]) -> dict[str, Any]:
        """``score S0 S1 [WORD VALUE...]``: the round due written on the sheet by its score
        alone (rule book 9.1, decision 11), with what else the sheet says (the game's
        :attr:`score_words`, a result word alone); refused here unless the round is due."""
        n, w = self.score_count, self.round_word
        usage = f"write a {w} by its score as: score {self.scores_help} [...] (e.g. score " \
            f"{self.score_example}); 'help' lists the words"
        if len(words) < n or not all(x.isdigit() for x in words[:n]):
            raise InputError(usage)
        fields: dict[str, Any] = {"score": [int(x) for x in words[:n]]}
        i = n
        while i < len(words):
            word = words[i]
            key = self.score_words.get(word)
            alone = key is None and word in self.score_results  # a result word without 'result'
            if alone:
                key = "result"
            elif key is None:
                raise InputError(f"{word!r} is not a part of a {w}'s score here: {usage}")
            if key in fields:
                what = {"chooser": "who chose"}.get(key, f"the {key}")
                raise InputError(f"{word!r}: {what} is given twice")
            args = words[i + 1:]
            if alone:
                fields[key], i = word, i + 1
            elif key == "chooser":
                if not args:
                    raise InputError(f"{word} takes a seat: {word} 1")
                fields[key], i = self.seat_arg(args[0]), i + 2
            elif key == "trump":
                try:
                    fields[key] = SUIT_LETTERS[suit_word(args[0] if args else "")]
                except CardError:
                    raise InputError(f"{word} takes a suit: {word} h (or harten)") from None
                i += 2
            elif key in ("points", "roem"):
                if len(args) < n or not all(x.isdigit() for x in args[:n]):
                    raise InputError(f"{word} takes {n} numbers, like the score: "
                                     f"{word} {' '.join(words[:n])}")
                fields[key], i = [int(x) for x in args[:n]], i + 1 + n
            else:
                if not args:
                    raise InputError(f"{word} takes a word: {', '.join(self.score_results)}")
                fields[key], i = args[0], i + 2
        event = self.base("round_score", round=len(self.fold.state.rounds) + 1, **fields)
        kind, seat = self.expected()
        if kind != "deal":
            code = self.refusal_code(event)
            raise InputError(f"a {w} is written by its score when it is due, before its deal: "
                             f"{self.due(kind, seat)}" + (f" [{code}]" if code else ""))
        return event

    def ruling_from(self, text: str) -> dict[str, Any]:
        """``R S0 S1 .. REASON``: the referee's score for round R (one score per team or player)."""
        n = self.score_count
        parts = text.split(None, n + 1)
        if len(parts) < n + 2 or not all(p.isdigit() for p in parts[:n + 1]):
            raise InputError(f"write a ruling as: ruling {self.round_word.upper()} "
                             f"{self.scores_help} REASON (e.g. ruling {self.ruling_example})")
        r, *scores = (int(p) for p in parts[:n + 1])
        return self.base("ruling", round=r, score=scores, reason=parts[n + 1])

    def ask_scores(self, ask: Ask, show: Show) -> list[str]:
        n = self.score_count
        who = self.score_owners or (", ".join(self.fold.seats[:-1]) + f" and {self.fold.seats[-1]}")
        example = " ".join(self.ruling_example.split()[1:n + 1])
        score = self.ask_in(ask, show, f"score for {who} (e.g. {example})> ",
                            f"{n} scores, for {who}").replace(",", " ").split()
        if len(score) != n:
            raise InputError(f"a ruling's score is {n} numbers")
        return score

    def ask_ruling(self, ask: Ask, show: Show) -> dict[str, Any]:
        rounds = len(self.fold.state.rounds)
        if not rounds:
            raise InputError(f"no {self.round_word} has been dealt: there is nothing to rule on")
        r = self.ask_in(ask, show, f"{self.round_word} to rule on [{rounds}]> ",
                        f"the number of the {self.round_word} (empty: {rounds})").strip() or str(rounds)
        score = self.ask_scores(ask, show)
        reason = self.ask_in(ask, show, "reason> ", "the reason for the ruling").strip()
        return self.ruling_from(f"{r} {' '.join(score)} {reason or 'ruling'}")

    def undo(self, ask: Ask, show: Show) -> dict[str, Any] | str:
        """``undo``: how to correct. 'fix' retracts the last events; a completed round (one
        a correction no longer reaches, or that the last card closed) is offered a ruling."""
        if self.next_seq <= 1:
            raise InputError("nothing to undo: only the game's start is recorded (and it stays)")
        latest = self.fold.latest_actions(1)
        if not latest:
            raise InputError("nothing to undo: only the game's start, notes and corrections are "
                             "recorded (and they stay); add a note to explain a mistake")
        show(f"Events stay in the log; 'fix' retracts the last one as if it was never recorded: "
             f"{self.said_seq(latest[0])} ('fix N' the last N, 'fix N REASON' says why).")
        done = self.completed_round()
        if done is None:
            return "nothing"
        number, next_deal = done
        w = self.round_word
        if next_deal:
            show(f"{w.capitalize()} {number} is complete ({w} {number + 1} was dealt at seq "
                 f"{next_deal}): a correction reaches back no further than that deal "
                 f"[retract_past_round], so only a referee's ruling changes {w} {number}: it "
                 f"replaces the {w}'s score.")
        else:
            show(f"{w.capitalize()} {number} is complete: 'fix' takes back its last events until "
                 f"{w} {number + 1} is dealt; a referee's ruling replaces its score.")
        if not yes(ask(f"record a ruling on {w} {number} now? [y/N]> ")):
            return "nothing"
        score = self.ask_scores(ask, show)
        reason = self.ask_in(ask, show, "reason> ", "the reason for the ruling").strip() or \
            "correction of a recording mistake"
        return self.ruling_from(f"{number} {' '.join(score)} {reason}")

    def completed_round(self) -> tuple[int, int] | None:
        """The last completed round and the seq of the deal that followed it (0: none yet),
        or None when no round is complete."""
        rounds = self.fold.state.rounds
        if rounds and rounds[-1].closed:
            return len(rounds), 0
        if len(rounds) >= 2:
            return len(rounds) - 1, self.opener_seq()
        return None
