"""The strict writer: a game's events in the one canonical text (``docs/notation.md``).

A game is its tag pairs (its ``game_started``), then its events in seq order, a line each,
but for the bids of a bidding (one line) and the plays of a trick (one line, with the roem
claimed on it and a bella announced in it: an event whose words allow it). An event's
statement follows its declared words (:class:`jaslog.events.registry.Words`). Each line ends
with its events' times (``@``), their store times (``@@``) and ids (``#``) when they have any;
a field the compact forms do not hold goes in a ``{...}`` annotation right after its event.
Reading the text back gives every event's canonical JSON again, byte for byte.

>>> print(write_game([
...     {"game": "g1", "seq": 0, "type": "game_started", "ruleset": "amsterdam",
...      "seats": ["ann", "bob", "cor", "dirk"], "dealer": 3},
...     {"game": "g1", "seq": 1, "type": "dealt"},
...     {"game": "g1", "seq": 2, "type": "bid", "seat": 0, "call": "pass"},
...     {"game": "g1", "seq": 3, "type": "bid", "seat": 1, "call": "H"},
...     {"game": "g1", "seq": 4, "type": "play", "seat": 0, "card": "JH"},
...     {"game": "g1", "seq": 5, "type": "play", "seat": 1, "card": "10H"}]), end="")
[Game "g1"]
[Ruleset "amsterdam"]
[Seats "ann bob cor dirk"]
[Dealer "3"]
<BLANKLINE>
Deal
Bid 0: pass H
1. 0: JH 10H
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard

import orjson

from jaslog.events.registry import Arg, Words
from jaslog.notation import syntax
from jaslog.notation.syntax import BARE, CLAIM_WORDS, TAGS, norm
from jaslog.notation.times import full, shortest

#: Where a line's times begin (the items are padded to this width), so that they line up.
TIMES_COLUMN = 30

_META_KEY = re.compile(r"[a-z][a-z0-9_]*")
_PLAYER = re.compile(r"[^\s,\"\]\[;]+")
_ENVELOPE = ("game", "seq", "at", "id", "recorded_at")
_TIMED = ("at", "recorded_at", "id")
_SEATED = frozenset(("type", "seat", "card", "call", *_ENVELOPE))
_SUB_WORDS = {"round", "score", "chooser", "trump", "points", "roem", "result", "seat"}


def event_dict(e: Any) -> dict[str, Any]:
    """An event as a dict of its fields, absent ones left out: a dict as it is, a model by its
    ``model_dump``, else its attributes (a store's fast play).

    >>> event_dict({"game": "g", "seq": 3, "type": "note", "text": "hi", "seat": None})
    {'game': 'g', 'seq': 3, 'type': 'note', 'text': 'hi'}
    """
    if isinstance(e, Mapping):
        return {k: v for k, v in e.items() if v is not None}
    dump = getattr(e, "model_dump", None)
    if dump is not None:
        return dump(exclude_none=True)  # type: ignore[no-any-return]
    return {k: v for k, v in vars(e).items() if v is not None and k != "payload"}


def write_games(events: Iterable[Any]) -> str:
    """The notation of every game among ``events`` (in the order each first appears), a blank
    line between games; each game's events in the order given.

    >>> print(write_games([{"game": "a", "seq": 0, "type": "note", "text": "one"},
    ...                    {"game": "b", "seq": 0, "type": "note", "text": "two"}]), end="")
    [Game "a"]
    <BLANKLINE>
    Note "one"
    <BLANKLINE>
    [Game "b"]
    <BLANKLINE>
    Note "two"
    """
    games: dict[Any, list[dict[str, Any]]] = {}
    for e in events:
        d = event_dict(e)
        games.setdefault(d.get("game"), []).append(d)
    return "\n".join(write_game(evs) for evs in games.values())


def write_game(events: Iterable[Any]) -> str:
    """The canonical notation of one game's events (dicts or models, in seq order).

    >>> write_game([{"game": "g", "seq": 0, "type": "knock", "seat": 2,
    ...              "at": "2026-12-03T19:44:36Z"}])
    '[Game "g"]\\n\\nKnock 2                         @2026-12-03T19:44:36Z\\n'
    """
    return _GameWriter([event_dict(e) for e in events]).text()


def _json(value: Any) -> str:
    """``value`` as JSON on one line: the line breaks JSON leaves as they are (U+0085, U+2028,
    U+2029) escaped too, for the editors that break lines there."""
    text = orjson.dumps(value).decode()
    if "\x85" in text or "\u2028" in text or "\u2029" in text:
        text = text.replace("\x85", "\\u0085").replace("\u2028", "\\u2028") \
            .replace("\u2029", "\\u2029")
    return text


class _Line:
    __slots__ = ("closed", "events", "extra", "full_first", "has", "kind", "next_seat", "parts")

    def __init__(self, kind: str) -> None:
        self.kind = kind              # "trick", "bid" or "one"
        self.parts: list[str] = []
        self.events: list[dict[str, Any]] = []
        self.extra: list[str] = []    # the lines that follow it (a deal's hands)
        self.closed = False           # a roem was claimed on it: no more plays
        self.next_seat: int | None = None
        self.full_first = False       # a deal: its time in full, the round's base time
        self.has: set[str] = set()    # which of at, recorded_at and id its events have


class _GameWriter:
    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events
        self.game = events[0].get("game") if events else None
        self.out: list[str] = []
        self.players = 4
        self.expect = 0
        self.prev_at: str | None = None
        self.prev_rec: str | None = None
        self.line: _Line | None = None
        self.trick = 0
        self.live = 0                 # plays of the trick under way that stay (not retracted)
        self.started = False          # the trick numbered ``trick`` has a line
        self.body = False
        self.retracted = {s for e in events if e.get("type") == "correction"
                          for s in e.get("retracts", ()) if isinstance(s, int)}

    # ------------------------------------------------------------------ the game

    def text(self) -> str:
        evs = self.events
        if not evs:
            return ""
        first = evs[0]
        if first.get("type") == "game_started":
            self.tags(first)
            rest = evs[1:]
        else:
            self.out.append(f"[Game {_json(first.get('game'))}]")
            self.seq_tag(first)
            self.expect -= 1  # the seq of the first event, not of a game_started before it
            rest = evs
        self.out.append("")
        for e in rest:
            self.event(e)
        self.flush()
        return "\n".join(self.out) + "\n"

    def seq_tag(self, e: dict[str, Any]) -> None:
        seq = e.get("seq")
        if seq != 0:
            self.out.append(f"[Seq {_json(str(seq))}]")
        self.expect = seq + 1 if isinstance(seq, int) else 0

    def tags(self, e: dict[str, Any]) -> None:
        out = self.out
        out.append(f"[Game {_json(e.get('game'))}]")
        out.append(f"[Ruleset {_json(e.get('ruleset'))}]")
        if "options" in e:
            out.append(f"[Options {_json(e['options'])}]")
        seats = e.get("seats")
        if isinstance(seats, list):
            if seats and all(isinstance(s, str) for s in seats):
                self.players = len(seats)
            plain = seats and all(isinstance(s, str) and _PLAYER.fullmatch(s) for s in seats)
            out.append(f"[Seats {_json(' '.join(seats)) if plain else _json(seats)}]")
        if "dealer" in e:
            d = e["dealer"]
            out.append(f"[Dealer {_json(str(d)) if isinstance(d, int) else _json(d)}]")
        for key, tag in (("at", "At"), ("recorded_at", "RecordedAt"), ("id", "Id")):
            if key in e:
                out.append(f"[{tag} {_json(e[key])}]")
        self.prev_at, self.prev_rec = e.get("at"), e.get("recorded_at")
        self.seq_tag(e)
        if "meta" in e:
            self.meta_tags(e["meta"])

    def meta_tags(self, meta: Any) -> None:
        if not isinstance(meta, dict) or not meta:
            self.out.append(f"[Meta {_json(meta)}]")
            return
        odd: dict[str, Any] = {}
        for k, v in meta.items():
            if _META_KEY.fullmatch(k) and norm(k) not in TAGS:
                if odd:
                    self.out.append(f"[Meta {_json(odd)}]")
                    odd = {}
                self.out.append(f"[{k[0].upper()}{k[1:]} {_json(v)}]")
            else:
                odd[k] = v
        if odd:
            self.out.append(f"[Meta {_json(odd)}]")

    # ------------------------------------------------------------------ lines

    def flush(self) -> None:
        ln = self.line
        if ln is None:
            return
        self.line = None
        text = " ".join(ln.parts)
        blocks = []
        if "at" in ln.has:
            blocks.append(self.times(ln, "at", "@"))
        if "recorded_at" in ln.has:
            blocks.append(self.times(ln, "recorded_at", "@@"))
        if "id" in ln.has:
            blocks.append("#" + " ".join(str(e.get("id", "-")) for e in ln.events))
        if blocks:
            text = text.ljust(TIMES_COLUMN) + "  " + "  ".join(blocks)
        self.out.append(text)
        self.out.extend(ln.extra)

    def times(self, ln: _Line, key: str, mark: str) -> str:
        prev = self.prev_at if key == "at" else self.prev_rec
        tokens = []
        for i, e in enumerate(ln.events):
            t = e.get(key)
            if t is None:
                tokens.append("-")
                continue
            tokens.append(full(t) if ln.full_first and i == 0 else shortest(prev, t))
            prev = t
        if key == "at":
            self.prev_at = prev
        else:
            self.prev_rec = prev
        return mark + " ".join(tokens)

    def open(self, kind: str) -> _Line:
        self.flush()
        self.line = _Line(kind)
        return self.line

    def add(self, ln: _Line, text: str, e: dict[str, Any], used: Iterable[str]) -> None:
        """Put event ``e`` on line ``ln`` as ``text``; the fields ``used`` are in the text, the
        others (and an unexpected seq) go in an annotation after it. (``used`` may be a
        frozenset that holds the envelope's fields too: then a plain event is seen at once.)"""
        if isinstance(used, frozenset) and e.keys() <= used:
            extra = {}
        else:
            extra = {k: v for k, v in e.items()
                     if k not in used and k not in _ENVELOPE and k != "type"}
        has = ln.has
        for k in _TIMED:
            if k in e:
                has.add(k)
        seq = e.get("seq")
        if seq != self.expect:
            extra = {"seq": seq, **extra}
        if e.get("game") != self.game:  # an event of another game among this one's
            extra = {"game": e.get("game"), **extra}
        if isinstance(seq, int):
            self.expect = seq + 1
        ln.parts.append(text + (" " + _json(extra) if extra else ""))
        ln.events.append(e)

    # ------------------------------------------------------------------ events

    def event(self, e: dict[str, Any]) -> None:
        t = e.get("type")
        if t == "play" and isinstance(e.get("seat"), int) and isinstance(e.get("card"), str):
            self.play(e)
        elif t == "bid" and isinstance(e.get("seat"), int) and isinstance(e.get("call"), str):
            ln = self.line if self.line is not None and self.line.kind == "bid" else None
            if ln is None:
                ln = self.open("bid")
                ln.parts.append("Bid")
            self.seated(ln, e, e["call"])
        elif not self.on_trick(e):
            self.statement(e)

    def on_trick(self, e: dict[str, Any]) -> bool:
        """Put ``e`` on the trick's line under way, if its words allow it (a roem, which
        closes the line; a bella, while the line is open) and its arguments can be written."""
        ln = self.line
        words = syntax.words_of(e.get("type"))
        if ln is None or ln.kind != "trick" or words is None or not words.trick \
                or (ln.closed and words.trick != "closes"):
            return False
        said = _said(e, words)
        if said is None:
            return False
        self.add(ln, " " + said[0], e, said[1])
        if words.trick == "closes":
            ln.closed = True
        return True

    def seated(self, ln: _Line, e: dict[str, Any], text: str) -> None:
        seat = e["seat"]
        if seat != ln.next_seat:
            ln.parts.append(f"{seat}:")
        ln.next_seat = (seat + 1) % self.players
        self.add(ln, text, e, _SEATED)

    def new_round(self) -> None:
        self.trick, self.live, self.started = 0, 0, False

    def play(self, e: dict[str, Any]) -> None:
        ln = self.line
        if ln is None or ln.kind != "trick" or ln.closed or self.live >= self.players:
            if self.live >= self.players or not self.started:
                self.trick += 1
                self.live, self.started = 0, True
                mark = f"{self.trick}."
            else:
                mark = f"{self.trick}..."
            ln = self.open("trick")
            ln.parts.append(mark)
        self.seated(ln, e, e["card"])
        if e.get("seq") not in self.retracted:
            self.live += 1

    def statement(self, e: dict[str, Any]) -> None:
        t = e.get("type")
        ints = _ints
        if t in ("dealt", "round_score"):
            self.flush()
            if self.body:
                self.out.append("")
            self.new_round()
        self.body = True
        ln = self.open("one")
        hands: Any = None
        words = syntax.words_of(t)
        said = _said(e, words) if words is not None and not words.custom else None
        if said is not None and words is not None:
            text, used = said
            hands = e.get("hands")
            if words.hands and _hands_ok(hands):
                used.append("hands")
                ln.extra = [f"  {i}: {' '.join(h)}".rstrip() for i, h in enumerate(hands)]
            self.add(ln, text, e, used)
        elif t == "dealt":
            text, used = "Deal", []
            if _seat_ok(e.get("dealer")):
                text += f" dealer {e['dealer']}"
                used.append("dealer")
            if _card_ok(e.get("turn_up")):
                text += f" up {e['turn_up']}"
                used.append("turn_up")
            hands = e.get("hands")
            if _hands_ok(hands):
                used.append("hands")
                ln.extra = [f"  {i}: {' '.join(h)}".rstrip() for i, h in enumerate(hands)]
            if _cards_ok(e.get("stock")):
                used.append("stock")
                ln.extra.append(f"  stock: {' '.join(e['stock'])}".rstrip())
            ln.full_first = True
            self.add(ln, text, e, used)
        elif t == "claim" and _seat_ok(e.get("seat")) and e.get("gives") in CLAIM_WORDS:
            self.add(ln, f"{CLAIM_WORDS[e['gives']]} {e['seat']}", e, ("seat", "gives"))
        elif t == "note" and isinstance(e.get("text"), str):
            text, used = "Note", ["text"]
            if _seat_ok(e.get("seat")):
                text += f" seat {e['seat']}"
                used.append("seat")
            if isinstance(e.get("round"), int):
                text += f" round {e['round']}"
                used.append("round")
            self.add(ln, f"{text} {_json(e['text'])}", e, used)
        elif t == "ruling" and isinstance(e.get("round"), int) and ints(e.get("score")) \
                and isinstance(e.get("reason"), str):
            self.add(ln, f"Ruling round {e['round']} score {_join(e['score'])} "
                         f"{_json(e['reason'])}", e, ("round", "score", "reason"))
        elif t == "correction" and ints(e.get("retracts")) and isinstance(e.get("reason"), str):
            seq = e.get("seq")
            refs = [f"-{seq - r}" if isinstance(seq, int) and 1 <= r < seq else str(r)
                    for r in e["retracts"]]
            self.add(ln, f"Correction {' '.join(refs)} {_json(e['reason'])}", e,
                     ("retracts", "reason"))
        elif t == "irregularity" and isinstance(e.get("kind"), str) \
                and _PLAYER.fullmatch(e["kind"]) and _seat_ok(e.get("seat")):
            text, used = f"Irregularity {e['kind']} {e['seat']}", ["kind", "seat"]
            if _cards_ok(e.get("cards")) and e["cards"]:
                text += " " + " ".join(e["cards"])
                used.append("cards")
            if isinstance(e.get("text"), str):
                text += " " + _json(e["text"])
                used.append("text")
            self.add(ln, text, e, used)
        elif t == "round_score" and isinstance(e.get("round"), int) and ints(e.get("score")):
            text, used = f"Score round {e['round']} {_join(e['score'])}", ["round", "score"]
            if _seat_ok(e.get("chooser")):
                text += f" chooser {e['chooser']}"
                used.append("chooser")
            if e.get("trump") in ("C", "D", "H", "S"):
                text += f" trump {e['trump']}"
                used.append("trump")
            for key in ("points", "roem"):
                if ints(e.get(key)):
                    text += f" {key} {_join(e[key])}"
                    used.append(key)
            r = e.get("result")
            if isinstance(r, str):
                bare = BARE.fullmatch(r) and r.lower() not in _SUB_WORDS
                text += f" result {r if bare else _json(r)}"
                used.append("result")
            self.add(ln, text, e, used)
        else:  # any other event: its fields as JSON
            fields = {k: v for k, v in e.items() if k not in _ENVELOPE}
            self.add(ln, f"Event {_json(fields)}", e, fields)
        self.flush()


def _said(e: dict[str, Any], words: Words) -> tuple[str, list[str]] | None:
    """An event's statement from its words, and the fields it holds; None when an argument
    cannot be written so (the event is then written as its JSON)."""
    parts = [words.word]
    used: list[str] = []
    for arg in words.args:
        v = e.get(arg.field)
        if not _arg_ok(arg, v):
            return None
        if arg.word:
            parts.append(arg.word)
        parts.append(" ".join(v) if arg.kind == "cards" else str(v))  # type: ignore[arg-type]
        used.append(arg.field)
    return " ".join(parts), used


_FULL_CARD = re.compile(r"(?:[2-9]|10|J|Q|K|A)[CDHS]")


def _arg_ok(arg: Arg, v: object) -> bool:
    """Can ``v`` be written as the argument ``arg`` (and read back as it is)?"""
    kind = arg.kind
    if kind == "seat":
        return _seat_ok(v)
    if kind == "int":
        return type(v) is int
    if kind == "card":
        return _card_ok(v)
    if kind == "full_card":
        return isinstance(v, str) and _FULL_CARD.fullmatch(v) is not None
    if kind == "cards":
        return _cards_ok(v) and len(v) >= max(arg.least, 1)
    return isinstance(v, str) and _PLAYER.fullmatch(v) is not None  # a choice


def _ints(v: object) -> bool:
    return isinstance(v, list) and bool(v) and all(type(x) is int for x in v)


def _join(v: list[int]) -> str:
    return " ".join(str(x) for x in v)


def _seat_ok(v: object) -> bool:
    return type(v) is int and v >= 0


_CARD = re.compile(r"(?:7|8|9|10|J|Q|K|A)[CDHS]")


def _card_ok(v: object) -> bool:
    return isinstance(v, str) and _CARD.fullmatch(v) is not None


def _cards_ok(v: object) -> TypeGuard[list[str]]:
    return isinstance(v, list) and all(_card_ok(c) for c in v)


def _hands_ok(v: object) -> bool:
    return isinstance(v, list) and bool(v) and all(_cards_ok(h) for h in v)
