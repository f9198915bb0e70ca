"""The ``plays`` table (a row per card, most of the export's rows), built trick by trick.

Per card only four small values go into Python lists: its seq, seat, position in the trick
and the card (0-31), plus its time. Everything else about a card is the same for its whole
trick, round or game, or is a lookup by card or by seat, so it is kept once per trick (one
tuple) and spread over the cards by Arrow when the chunk is written (:meth:`PlaysColumns.
to_table`): each trick's values taken for each of its cards, the card's text, suit and rank
taken by card, ``is_trump`` and ``card_points`` from the round's table by card, the player,
team, side and declarer from the round's tuples by seat. The values are exactly those a row
built card by card would hold (``tests/export/test_export_speed.py`` checks that). ``loss``
(filled only by an export with par) is kept, like a broken rule, for the cards that have one.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from jaslog.cards import CARD_TEXT
from jaslog.export.columns import ORDERS, POSITIONS, RANK_OF, SUIT_OF, Columns, EventsColumns
from jaslog.export.schema import COLUMNS, SCHEMAS, TS

_TYPES = {c.name: c.type for c in COLUMNS["plays"]}
_CARD = pa.array(CARD_TEXT, pa.string())
_SUIT = pa.array(SUIT_OF, pa.string())
_RANK = pa.array(RANK_OF, pa.string())
_NULL_BOOL = pa.scalar(None, pa.bool_())


class _Lookup:
    """Tuples of values (by card or by seat) laid end to end; each distinct one is stored
    once per chunk and found again by its offset."""

    __slots__ = ("flat", "offset")

    def __init__(self, parts: int) -> None:
        self.flat: list[list[Any]] = [[] for _ in range(parts)]
        self.offset: dict[tuple[Any, ...], int] = {}

    def __call__(self, *values: Sequence[Any]) -> int:
        key = tuple(tuple(v) for v in values)
        at = self.offset.get(key)
        if at is None:
            at = self.offset[key] = len(self.flat[0])
            for flat, v in zip(self.flat, key, strict=True):
                flat.extend(v)
        return at


class PlaysColumns(Columns):
    """The ``plays`` rows of a chunk: per card lists, per trick tuples, lookups."""

    __slots__ = ("by_card", "by_seat", "card", "losses", "position", "rules", "seat", "seq",
                 "time", "tricks")

    def __init__(self, table: str = "plays") -> None:
        super().__init__(table)
        self.seq: list[int] = []
        self.seat: list[int] = []
        self.position: list[int] = []
        self.card: list[int] = []
        self.time: list[str | None] = []
        # per trick: (cards, number, win, points, round, trump, known, by_card offset,
        #             by_seat offset)
        self.tricks: list[tuple[Any, ...]] = []
        self.rules: list[tuple[int, str]] = []        # (row, rule) of the plays that broke one
        self.losses: list[tuple[int, int]] = []       # (row, loss) of the plays analysed
        self.by_card = _Lookup(2)                     # is_trump, card_points
        self.by_seat = _Lookup(4)                     # player, team, playing_team, declarer

    def __len__(self) -> int:
        return len(self.lists[0])

    def add(self, row: tuple[Any, ...]) -> None:
        raise TypeError("plays are added a trick at a time (PlaysOut)")

    def fill_game(self, gid: str) -> None:
        game = self.lists[0]
        n = len(self.seq)
        if not len(self.seat) == len(self.position) == len(self.card) == len(self.time) == n:
            raise AssertionError("plays: per-card lists of unequal length")
        if n > len(game):
            game.extend([gid] * (n - len(game)))

    def to_table(self) -> pa.Table:
        n = len(self.seq)
        if not self.tricks:
            return super().to_table()
        per_trick = list(zip(*self.tricks, strict=True))
        offsets = pa.array([0, *accumulate(per_trick[0])], pa.int32())
        parent = pc.list_parent_indices(pa.ListArray.from_arrays(offsets, pa.nulls(n)))

        def spread(i: int, type_: pa.DataType) -> pa.Array:
            return pa.array(per_trick[i], type_).take(parent)

        seat = pa.array(self.seat, pa.int8())
        position = pa.array(self.position, pa.int8())
        card = pa.array(self.card, pa.int8())
        by_card = pc.add(spread(7, pa.int32()), card)
        by_seat = pc.add(spread(8, pa.int32()), seat)
        is_trump, card_points = (pa.array(f, t) for f, t in zip(
            self.by_card.flat, (pa.bool_(), _TYPES["card_points"]), strict=True))
        player, team, playing, declarer = (pa.array(f, _TYPES[c]) for f, c in zip(
            self.by_seat.flat, ("player", "team", "playing_team", "declarer"), strict=True))
        rules: list[str | None] = [None] * n
        for row, rule in self.rules:
            rules[row] = rule
        rule = pa.array(rules, pa.string())
        if self.losses:
            losses: list[int | None] = [None] * n
            for row, value in self.losses:
                losses[row] = value
            loss = pa.array(losses, _TYPES["loss"])
        else:
            loss = pa.nulls(n, _TYPES["loss"])
        cols: dict[str, Any] = {
            "game": pa.array(self.lists[0], pa.string()),
            "round": spread(4, _TYPES["round"]),
            "trick": spread(1, _TYPES["trick"]),
            "position": position,
            "seq": pa.array(self.seq, _TYPES["seq"]),
            "seat": seat,
            "player": player.take(by_seat),
            "team": team.take(by_seat),
            "card": _CARD.take(card),
            "suit": _SUIT.take(card),
            "rank": _RANK.take(card),
            "trump": spread(5, pa.string()),
            "is_trump": is_trump.take(by_card),
            "legal": pc.if_else(spread(6, pa.bool_()), pc.is_null(rule), _NULL_BOOL),
            "rule": rule,
            "won_trick": pc.equal(position, spread(2, pa.int8())),
            "card_points": card_points.take(by_card),
            "trick_points": spread(3, _TYPES["trick_points"]),
            "playing_team": playing.take(by_seat),
            "declarer": declarer.take(by_seat),
            "played_at": pa.array(self.time, pa.string()).cast(TS),
            "loss": loss,
        }
        return pa.Table.from_arrays([cols[c] for c in self.names], schema=SCHEMAS["plays"])


def columns_for(table: str) -> Columns:
    """An empty buffer for ``table``'s rows (``plays`` and ``events`` have buffers of their
    own)."""
    if table == "plays":
        return PlaysColumns(table)
    return EventsColumns(table) if table == "events" else Columns(table)


class PlaysOut:
    """A game's plays into :class:`PlaysColumns`: :meth:`round` when a round begins, then
    :meth:`trick` for each trick with a card.

    Per game: the player ids by seat, each seat's team, the times by seq, ``rule_of``
    (seq -> the rule the play broke, or None) and ``loss_of`` (seq -> what the play cost
    against par, for the plays analysed: :mod:`jaslog.export.par`).
    """

    __slots__ = ("at", "by_lead", "cols", "loss_of", "n", "round_key", "rule_of", "seats",
                 "start", "team_of")

    def __init__(self, plays: Columns, seats: Sequence[str], team_of: Sequence[int],
                 at: Sequence[str | None], rule_of: dict[int, str | None],
                 loss_of: dict[int, int] | None = None) -> None:
        assert isinstance(plays, PlaysColumns)
        self.cols = plays
        self.n = len(seats)
        self.by_lead = ORDERS[self.n]
        self.seats, self.team_of = tuple(seats), tuple(team_of)
        self.at, self.rule_of = at, rule_of
        self.loss_of = loss_of or {}
        self.start = len(plays.seq)
        self.round_key: tuple[Any, ...] = ()

    def round(self, number: int, trump: str | None, known: bool,
              is_trump: Sequence[bool | None], card_points: Sequence[int | None],
              playing: Sequence[bool | None], declarer: Sequence[bool | None]) -> None:
        """A round begins: its number and trump letter, ``known``: the hands are known (the
        legality of its plays is judged), ``is_trump`` and ``card_points`` by card, and by
        seat: on the playing side, the declarer."""
        c = self.cols
        self.round_key = (number, trump, known, c.by_card(is_trump, card_points),
                          c.by_seat(self.seats, self.team_of, playing, declarer))

    def trick(self, number: int, lead: int, cards: list[int], seqs: list[int], win: int | None,
              points: int | None) -> None:
        """A trick's plays: ``win`` the winning position and ``points`` its points (both None
        while it is incomplete)."""
        c = self.cols
        k = len(cards)
        rule_of = self.rule_of
        if rule_of:
            base = len(c.seq)
            for i, s in enumerate(seqs):
                rule = rule_of.get(s)
                if rule is not None:
                    c.rules.append((base + i, rule))
        loss_of = self.loss_of
        if loss_of:
            base = len(c.seq)
            for i, s in enumerate(seqs):
                loss = loss_of.get(s)
                if loss is not None:
                    c.losses.append((base + i, loss))
        c.seq.extend(seqs)
        c.card.extend(cards)
        at = self.at
        c.time.extend([at[s] for s in seqs])  # the fold checked seq == position in the log
        if k == self.n:
            c.seat.extend(self.by_lead[lead])
            c.position.extend(POSITIONS[k])
        else:
            c.seat.extend(self.by_lead[lead][:k])
            c.position.extend(POSITIONS[self.n][:k])
        c.tricks.append((k, number, win, points, *self.round_key))

    def per_seat(self, counts: list[list[int]], index: int) -> None:
        """Add the cards each seat played in this game to ``counts[seat][index]``."""
        seats = self.cols.seat[self.start:]
        for s, row in enumerate(counts):
            row[index] += seats.count(s)
