"""The lenient reader: notation text to event dicts, game by game, every error located.

A game is read into :class:`TextGame`: its events as dicts (each with the line and column it
was written at) and its errors (:class:`NotationError`: line, column, what was expected), in
the order they were met. A bad item stops its line only: reading goes on with the next line,
and with the next game (as python-chess collects ``Game.errors``). Nothing here validates an
event against the models: ``jaslog.events`` does (an event the models refuse is an error at
its item's line and column).

>>> [g] = read_games(['[Game "g1"]', '[Ruleset "amsterdam"]', '[Seats "a b c d"]',
...                   '[Dealer 3]', '', 'Deal', 'Bid 0: pass ♥', '1. 0: jh th 7x'])
>>> [(e["type"], e.get("card") or e.get("call")) for e in g.events][1:]
[('dealt', None), ('bid', 'pass'), ('bid', 'H'), ('play', 'JH'), ('play', '10H')]
>>> [str(e) for e in g.errors]
["<text>:8:13: expected a card (7-10, J, Q, K or A and a suit: 10H, JC, A♠), got '7x'"]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from jaslog.notation import syntax
from jaslog.notation.lexer import SPACE, ItemStop, Token, TokenCursor, shown, tag_line, tokens
from jaslog.notation.syntax import KEYWORDS, TAGS, norm
from jaslog.notation.times import TimeFormError, after

_TRICK = re.compile(r"(\d{1,4})(\.|\.\.\.|…)")
_CANONICAL_CARD = r"(?:[789]|10|[JQKA])[CDHS]"
_PLAIN_TRICK = re.compile(rf"\d{{1,3}}\.(\.\.)? ([0-9]): ({_CANONICAL_CARD}(?: {_CANONICAL_CARD})*)"
                          r"(?: +@(\+\d{1,3}(?: \+\d{1,3})*))?")


@dataclass(frozen=True, slots=True)
class NotationError:
    """Where a text cannot be read and what was expected there."""

    source: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}:{self.column}: {self.message}"


@dataclass(slots=True)
class Record:
    """One event (a dict of its fields) or one error, where it was written."""

    line: int
    column: int
    event: dict[str, Any] | None = None
    error: str | None = None
    seq: int | None = None
    ordered: bool = False  # the event's fields are in canonical order already


@dataclass
class TextGame:
    """One game as read: ``game`` is its id (None when the text names none), ``records`` its
    events and errors in the order they were met."""

    game: str | None
    source: str = "<text>"
    records: list[Record] = field(default_factory=list)

    @property
    def events(self) -> list[dict[str, Any]]:
        return [r.event for r in self.records if r.event is not None]

    @property
    def errors(self) -> list[NotationError]:
        return [NotationError(self.source, r.line, r.column, r.error)
                for r in self.records if r.error is not None]


class _GameReader(TokenCursor):
    """One game's lines, read one by one."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.game: str | None = None
        self.game_at = (0, 0)
        self.records: list[Record] = []
        self.tags: list[tuple[str, Any, int, int]] = []  # name, value, line, column
        self.body = False
        self.players = 4
        self.names: list[str] = []
        self.seq = 0
        self.prev_at: str | None = None
        self.prev_rec: str | None = None
        self.hands: dict[str, Any] | None = None   # the deal whose hand lines may follow
        self.hand_next = 0
        self.next_play: int | None = None
        self.next_bid: int | None = None
        self.no_game_told = False
        self.refs: dict[int, list[int]] = {}  # a correction's relative seqs (-1), by its dict
        # one line's state
        self.toks: list[Token] = []
        self.k = 0
        self.number = 0
        self.mode = ""
        self.pending: int | None = None
        self.leader_due = 0
        self.line_events: list[Record] = []

    # ------------------------------------------------------------------ records

    def error(self, line: int, column: int, message: str) -> None:
        self.records.append(Record(line, column, error=message, seq=self.seq))

    def has_game_tag(self) -> bool:
        return any(norm(t[0]) == "game" for t in self.tags)

    # ------------------------------------------------------------------ tags

    def tag_line(self, number: int, text: str) -> None:
        try:
            for name, value, col in tag_line(text):
                self.tags.append((name, value, number, col))
        except ItemStop as s:
            self.error(number, s.column, s.message)

    def start_body(self) -> None:
        """The tags are all read: name the game and make its ``game_started``."""
        self.body = True
        started: dict[str, Any] = {}
        meta: dict[str, Any] = {}
        has_meta = False
        seq_tag = None
        for name, value, line, col in self.tags:
            key = norm(name)
            if key == "game":
                if self.game is not None:
                    self.error(line, col, "a game has one [Game] tag (a new game starts with "
                                          "its own tags, after the moves of this one)")
                    continue
                if not isinstance(value, str):
                    self.error(line, col, f'expected the game id as text: [Game "club-7"], got '
                                          f"{value!r}")
                    continue
                self.game, self.game_at = value, (line, col)
            elif key == "seq":
                n = value if type(value) is int else (int(value) if isinstance(value, str) and
                                                      value.isdigit() else None)
                if n is None:
                    self.error(line, col, f"expected a seq (a whole number), got {value!r}")
                else:
                    seq_tag = n
            elif key == "meta":
                has_meta = True
                if isinstance(value, dict):
                    meta.update(value)
                else:
                    self.error(line, col, f"expected a JSON object: [Meta {{...}}], got "
                                          f"{value!r}")
            elif key in TAGS:
                started[key] = (value, line, col)
            else:
                has_meta = True
                meta[name.lower()] = value
        if self.game is None:
            line, col = (self.tags[0][2], self.tags[0][3]) if self.tags else (self.number, 1)
            if not self.records and line:  # else an error already says what is wrong
                self.error(line, col, 'expected a [Game "id"] tag before the moves')
            self.no_game_told = True
            return
        if started or has_meta:
            self.started(started, meta if has_meta else None, seq_tag or 0)
        elif seq_tag is not None:
            self.seq = seq_tag

    def started(self, tags: dict[str, tuple[Any, int, int]], meta: dict[str, Any] | None,
                seq: int) -> None:
        line, col = self.game_at
        e: dict[str, Any] = {"game": self.game, "seq": seq, "type": "game_started"}
        for key, field_ in (("at", "at"), ("id", "id"), ("recordedat", "recorded_at")):
            if key in tags:
                e[field_] = tags[key][0]
        if "ruleset" in tags:
            r = tags["ruleset"][0]
            e["ruleset"] = r.lower() if isinstance(r, str) else r
        if "options" in tags:
            e["options"] = tags["options"][0]
        if "seats" in tags:
            seats = tags["seats"][0]
            if isinstance(seats, str):
                seats = [s for s in re.split(r"[\s,]+", seats) if s]
            e["seats"] = seats
            if isinstance(seats, list) and seats and all(isinstance(s, str) for s in seats):
                self.players, self.names = len(seats), seats
        if "dealer" in tags:
            d, dline, dcol = tags["dealer"]
            if isinstance(d, str):
                try:
                    d = self.seat_word(d, dcol)
                except ItemStop as s:
                    self.error(dline, s.column, s.message)
            e["dealer"] = d
        if meta is not None:
            e["meta"] = meta
        self.records.append(Record(line, col, event=e, seq=seq))
        self.seq = seq + 1 if type(seq) is int else 0
        at, rec = e.get("at"), e.get("recorded_at")
        self.prev_at = at if isinstance(at, str) else None
        self.prev_rec = rec if isinstance(rec, str) else None

    # ------------------------------------------------------------------ body lines

    def body_line(self, number: int, text: str) -> None:
        self.number = number
        if not self.body:
            self.start_body()
        if self.game is None:
            if not self.no_game_told:
                self.error(number, 1, 'expected a [Game "id"] tag before the moves')
                self.no_game_told = True
            return
        m = _PLAIN_TRICK.fullmatch(text)
        if m is not None and self.plain_trick(m):
            return
        try:
            toks = tokens(text)
        except ItemStop as s:
            self.hands = None
            self.error(number, s.column, s.message)
            return
        if not toks:
            return
        if self.hands is not None and self.hand_line(toks):
            return
        self.hands = None
        self.toks, self.k, self.mode, self.pending, self.leader_due = toks, 0, "", None, 0
        self.line_events = []
        try:
            while self.k < len(self.toks) and self.toks[self.k][0] not in ("@", "@@", "#"):
                self.item()
            if self.leader_due:
                raise ItemStop(self.leader_due, "expected the leader's seat after the trick's "
                                             "number (e.g. 2. 3: AS)")
            self.blocks()
        except ItemStop as s:
            self.error(number, s.column, s.message)
        for r in self.line_events:
            e = r.event
            assert e is not None
            if isinstance(e.get("at"), str):
                self.prev_at = e["at"]
            if isinstance(e.get("recorded_at"), str):
                self.prev_rec = e["recorded_at"]

    def plain_trick(self, m: re.Match[str]) -> bool:
        """A trick's line in the canonical form (``1. 3: JH 8H QH 8C  @+9 +4 +4 +4``), read
        without tokens (nine lines in ten are tricks); False, having read nothing, when its
        times need the general reading (which then tells what is wrong)."""
        cards = m.group(3).split(" ")
        times = m.group(4)
        ats: list[str] = []
        if times is not None:
            tokens_ = times.split(" ")
            if len(tokens_) != len(cards):
                return False
            prev = self.prev_at
            try:
                for t in tokens_:
                    prev = after(prev, t)
                    ats.append(prev)
            except TimeFormError:
                return False
            self.prev_at = prev
        self.hands = None
        seat = int(m.group(2))
        col = m.start(3) + 1
        players, records, game, number = self.players, self.records, self.game, self.number
        for i, c in enumerate(cards):
            seq = self.seq
            if ats:
                e = {"game": game, "seq": seq, "type": "play", "at": ats[i], "seat": seat,
                     "card": c}
            else:
                e = {"game": game, "seq": seq, "type": "play", "seat": seat, "card": c}
            records.append(Record(number, col, e, None, seq, True))
            self.seq = seq + 1
            seat = (seat + 1) % players
            col += len(c) + 1
        self.next_play = seat
        return True

    def hand_line(self, toks: list[Token]) -> bool:
        """A deal's hand line (``0: 9C JC ...``, ``stock: ...``), if ``toks`` is one."""
        if len(toks) < 2 or toks[0][0] != "w" or toks[1][0] != ":":
            return False
        deal = self.hands
        assert deal is not None
        label = toks[0][1]
        stock = norm(label) == "stock" and deal["type"] == "dealt"
        if not stock:
            try:
                seat = self.seat_word(label, toks[0][2])
            except ItemStop:
                return False
            if seat != self.hand_next:
                return False
        cards: list[str] = []
        rest = toks[2:]
        try:
            for i, (kind, value, col) in enumerate(rest):
                if kind == "":  # the suit of a card written with a space, taken
                    continue
                c = syntax.card(value) if kind == "w" else None
                if c is None and kind == "w" and i + 1 < len(rest) and rest[i + 1][0] == "w" \
                        and syntax.suit(rest[i + 1][1]):
                    c = syntax.card(value + rest[i + 1][1])  # "10 H"
                    if c is not None:
                        rest[i + 1] = ("", "", 0)
                if c is None:
                    if kind == "w" and value == "-" and not cards:
                        continue
                    raise ItemStop(col, f"expected a card of the hand, got {shown(kind, value)}")
                cards.append(c)
        except ItemStop as s:
            self.error(self.number, s.column, s.message)
        if stock:
            deal["stock"] = cards
        else:
            deal.setdefault("hands", []).append(cards)
            self.hand_next += 1
        return True

    # ------------------------------------------------------------------ items




    def event(self, type_: str, col: int, **fields: Any) -> dict[str, Any]:
        e: dict[str, Any] = {"game": self.game, "seq": self.seq, "type": type_, **fields}
        r = Record(self.number, col, event=e, seq=self.seq)
        self.records.append(r)
        self.line_events.append(r)
        self.seq += 1
        return e

    def item(self) -> None:
        kind, value, col = self.take("an item")
        if kind == "j":
            if not self.line_events:
                raise ItemStop(col, "an annotation {...} follows the event it completes")
            e = self.line_events[-1].event
            assert e is not None
            e.update(value)
            if "seq" in value:
                s = value["seq"]
                self.line_events[-1].seq = s if type(s) is int else None
                if type(s) is int:
                    self.seq = s + 1
                    refs = self.refs.get(id(e))
                    if refs is not None and "retracts" not in value:  # -1 counts from its seq
                        e["retracts"] = [s + r if r < 0 else r for r in refs]
            return
        if kind != "w":
            raise ItemStop(col, f"expected a card, a call or a word such as Deal, Bid or Roem, "
                             f"got {shown(kind, value)}")
        nxt = self.peek()
        if nxt is not None and nxt[0] == ":":
            self.k += 1
            self.pending = self.seat_word(value, col)
            self.leader_due = 0
            return
        m = _TRICK.fullmatch(value)
        if m is not None:
            self.mode = "play"
            if m.group(2) == ".":
                self.leader_due = col
            return
        kw = KEYWORDS.get(norm(value))
        if kw is not None:
            self.statement(kw, col)
            return
        c = syntax.card(value)
        if c is None and nxt is not None and nxt[0] == "w" and syntax.suit(nxt[1]) \
                and syntax.card(value + nxt[1]) is not None:  # a card with a space: "10 H"
            self.k += 1
            c = syntax.card(value + nxt[1])
        if self.mode == "bid" or (self.mode == "" and c is None):
            bid = syntax.call(value)
            if bid is not None:
                self.seated("bid", col, call=bid)
                return
        if c is not None:
            self.mode = "play"
            if self.leader_due:
                raise ItemStop(self.leader_due, "expected the leader's seat after the trick's "
                                             "number (e.g. 2. 3: AS)")
            self.seated("play", col, card=c)
            return
        if self.mode == "bid":
            raise ItemStop(col, f"expected a call (pass, accept, take, schmeiss, annul, play, or a "
                             f"suit C D H S), got {value!r}")
        raise ItemStop(col, f"expected a card (7-10, J, Q, K or A and a suit: 10H, JC, A♠), got "
                         f"{value!r}")

    def seated(self, type_: str, col: int, **fields: Any) -> None:
        seat = self.pending
        if seat is None:
            seat = self.next_play if type_ == "play" else self.next_bid
            if seat is None:
                raise ItemStop(col, f"expected a seat before the first {type_} (e.g. "
                                 + ("1. 3: JH)" if type_ == "play" else "Bid 1: pass)"))
        self.pending = None
        nxt = (seat + 1) % self.players if self.players else None
        if type_ == "play":
            self.next_play = nxt
        else:
            self.next_bid = nxt
        self.event(type_, col, seat=seat, **fields)

    # ------------------------------------------------------------------ arguments







    # ------------------------------------------------------------------ statements

    def statement(self, kw: str, col: int) -> None:
        if kw == "bid":
            self.mode = "bid"
            return
        self.mode = ""
        if kw == "dealt":
            fields: dict[str, Any] = {}
            while True:
                if self.word_next("dealer"):
                    fields["dealer"] = self.seat()
                elif self.word_next("up", "turnup"):
                    fields["turn_up"] = self.card()
                else:
                    break
            self.hands, self.hand_next = self.event("dealt", col, **fields), 0
        elif kw == "second_deal":
            self.word_next("deal")
            if not self.word_next("bottom"):
                kind, value, c = self.take("bottom and the stock's bottom card")
                raise ItemStop(c, f"expected bottom and the stock's bottom card (Second deal "
                               f"bottom KD), got {shown(kind, value)}")
            self.hands, self.hand_next = self.event("second_deal", col, bottom=self.card()), 0
        elif kw == "trump_turned":
            self.event("trump_turned", col, card=self.card(syntax.turned_card, "the card turned "
                                                           "(2-10, J, Q, K or A and a suit)"))
        elif kw == "roem":
            seat = self.seat()
            self.event("roem", col, seat=seat, points=self.int_("the roem's points"))
        elif kw == "timeout":
            seat = self.seat()
            self.event("timeout", col, seat=seat, seconds=self.int_("the seconds waited"))
        elif kw in ("deal_committed", "deal_revealed"):
            rnd = self.int_("the round")
            key = "commit" if kw == "deal_committed" else "seed"
            self.event(kw, col, round=rnd, **{key: self.string(f"the {key} (64 hex digits)")})
        elif kw == "nonce":
            rnd = self.int_("the round")
            seat = self.seat()
            self.event("nonce", col, round=rnd, seat=seat, nonce=self.string("the nonce"))
        elif kw == "knock":
            kind = "knock_back" if self.word_next("back") else "knock"
            self.event(kind, col, seat=self.seat())
        elif kw in ("claim", "concede"):
            self.event("claim", col, seat=self.seat(),
                       gives="rest_to_claimer" if kw == "claim" else "rest_to_opponents")
        elif kw in ("bella", "dix", "knock_back"):
            self.event(kw, col, seat=self.seat())
        elif kw == "sequence":
            seat = self.seat()
            cards = self.cards()
            if not cards:
                t = self.peek()
                raise ItemStop(t[2] if t else self.end_col(),
                            "expected the sequence's cards (Sequence 0 JS QS KS)")
            self.event("sequence", col, seat=seat, cards=cards)
        elif kw == "partner_call":
            seat = self.seat()
            self.event("partner_call", col, seat=seat,
                       call=self.card(syntax.partner_call, "an ace (AC, AD, AH, AS) or alone"))
        elif kw == "note":
            fields = {}
            while True:
                if self.word_next("seat"):
                    fields["seat"] = self.seat()
                elif self.word_next("round"):
                    fields["round"] = self.int_("the round")
                else:
                    break
            self.event("note", col, text=self.string("the note"), **fields)
        elif kw == "ruling":
            self.word_next("round")
            rnd = self.int_("the round ruled on")
            self.word_next("score")
            score = self.ints("the score")
            self.event("ruling", col, round=rnd, score=score, reason=self.string("the reason"))
        elif kw == "correction":
            self.word_next("retracts")
            refs = self.ints("the events retracted (-1: the one before)")
            retracts = [self.seq + r if r < 0 else r for r in refs]
            e = self.event("correction", col, retracts=retracts, reason=self.string("the reason"))
            if min(refs) < 0:
                self.refs = {id(e): refs}
        elif kw == "irregularity":
            kind_ = self.card(syntax.irregularity_kind, "the kind of irregularity ("
                              + ", ".join(syntax.IRREGULARITY_KINDS) + ")")
            self.word_next("seat")
            fields = {"kind": kind_, "seat": self.seat()}
            cards = self.cards()
            if cards:
                fields["cards"] = cards
            t = self.peek()
            if t is not None and t[0] == "s":
                fields["text"] = self.string("the text")
            self.event("irregularity", col, **fields)
        elif kw == "round_score":
            self.score(col)
        elif kw == "event":
            kind, value, c = self.take("the event's fields as JSON")
            if kind != "j":
                raise ItemStop(c, "expected the event's fields as JSON: Event {\"type\": ...}")
            e = self.event(str(value.get("type")), col)
            e.update(value)
            if type(value.get("seq")) is int:
                self.line_events[-1].seq = value["seq"]
                self.seq = value["seq"] + 1

    def score(self, col: int) -> None:
        self.word_next("round")
        fields: dict[str, Any] = {"round": self.int_("the round")}
        self.word_next("score")
        fields["score"] = self.ints("the score")
        while True:
            if self.word_next("chooser"):
                fields["chooser"] = self.seat()
            elif self.word_next("trump"):
                fields["trump"] = self.card(syntax.suit, "a suit (C, D, H or S)")
            elif self.word_next("points"):
                fields["points"] = self.ints("the points")
            elif self.word_next("roem"):
                fields["roem"] = self.ints("the roem")
            elif self.word_next("result"):
                kind, value, c = self.take("the result (made, nat...)")
                if kind not in ("w", "s"):
                    raise ItemStop(c, f"expected the result (made, nat...), got {shown(kind, value)}")
                fields["result"] = value
            else:
                break
        self.event("round_score", col, **fields)

    # ------------------------------------------------------------------ times and ids

    def blocks(self) -> None:
        while self.k < len(self.toks):
            kind, _value, col = self.take("times")
            if kind not in ("@", "@@", "#"):
                raise ItemStop(col, "expected times (@), store times (@@) or ids (#) after the "
                                 "line's events")
            values = []
            while (t := self.peek()) is not None and t[0] in ("w", "s"):
                self.k += 1
                values.append(t)
            n = len(self.line_events)
            if len(values) != n:
                what = {"@": "time", "@@": "store time", "#": "id"}[kind]
                where = values[n][2] if len(values) > n else (values[-1][2] if values else col)
                raise ItemStop(where, f"expected {n} {what}{'s' * (n != 1)} (one for each event on "
                                   f"the line, - for none), got {len(values)}")
            if kind == "#":
                for r, (_k, v, _c) in zip(self.line_events, values, strict=True):
                    if v != "-":
                        r.event["id"] = v  # type: ignore[index]
                continue
            key = "at" if kind == "@" else "recorded_at"
            prev = self.prev_at if kind == "@" else self.prev_rec
            for r, (k, v, c) in zip(self.line_events, values, strict=True):
                if k == "w" and v == "-":
                    continue
                try:
                    t_ = v if k == "s" else after(prev, v)
                except TimeFormError as e:
                    raise ItemStop(c, str(e)) from None
                r.event[key] = t_  # type: ignore[index]
                prev = t_


def is_tag_line(text: str) -> bool:
    """Does ``text`` (a line) hold tags (its first non-blank character is ``[``)?

    >>> is_tag_line('  [Game "g1"]'), is_tag_line("1. 0: JH")
    (True, False)
    """
    return text.lstrip(SPACE).startswith("[")


def read_games(lines: str | Iterable[bytes | str], source: str = "<text>") -> Iterator[TextGame]:
    """The games of a notation text (a text, or its lines), one at a time (each as soon as the
    next begins). Never raises for bad input: every problem is a record of its game.

    >>> [(g.game, len(g.events), [e.message for e in g.errors])
    ...  for g in read_games('[Game "a"]\\nNote "hi"\\n[Game "b"]\\nRoem 9\\n')]
    [('a', 1, []), ('b', 0, ["expected the roem's points, got the end of the line"])]
    """
    if isinstance(lines, str):
        lines = lines.split("\n")
    reader = _GameReader(source)
    for number, raw in enumerate(lines, 1):
        if isinstance(raw, bytes):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as u:
                reader.error(number, u.start + 1, f"not UTF-8: byte {u.start + 1} of the line is "
                                                  f"0x{raw[u.start]:02x} (save the file as UTF-8)")
                continue
        else:
            text = raw
        text = text.rstrip("\r\n")
        if is_tag_line(text):
            starts_game = reader.body or (reader.has_game_tag() and "game" in
                                          [norm(n) for n, _v, _c in _names(text)])
            if starts_game and (reader.records or reader.tags):
                yield _finish(reader)
                reader = _GameReader(source)
            reader.tag_line(number, text)
            continue
        if not text.strip(SPACE) or text.lstrip(SPACE).startswith(";"):
            continue
        reader.body_line(number, text)
    if reader.records or reader.tags:
        yield _finish(reader)


def _names(text: str) -> list[tuple[str, Any, int]]:
    try:
        return tag_line(text)
    except ItemStop:
        return []


def _finish(reader: _GameReader) -> TextGame:
    if not reader.body:
        reader.start_body()
    return TextGame(reader.game, reader.source, reader.records)
