"""The jaslog notation: a game as a few lines of text a person can read, type and paste, in
the spirit of chess's PGN and bridge's PBN (the specification: ``docs/notation.md``).

Tag pairs name the game (``[Game "club-7"]``, its rules, seats, dealer, time, event...); then
each round: its deal and hands, the bids on one line, each trick on one line, roem, notes,
corrections, rulings... The writer (:func:`write_game`) gives one canonical text; the reader
(:func:`read_games`) takes what people type (``T`` or ``10``, any case, suit symbols, extra
spaces, ``;`` comments) and locates every error by line and column. Text and ``jaslog/1``
convert both ways without loss, byte for byte.

This is a layer of syntax: event dicts in, text out, and back. It validates no event: each
event's words (its statement's word, keywords and arguments) come from the event registry
(``words`` on each model, :mod:`jaslog.events.registry`; a game's in its own folder), and
``jaslog.logs`` reads a notation file as a log (through :class:`TextView`), validating its
events as it validates JSON Lines.

>>> text = write_game([
...     {"game": "g1", "seq": 0, "type": "game_started", "ruleset": "kloepper",
...      "seats": ["abe", "bea", "cal", "dot"], "dealer": 0},
...     {"game": "g1", "seq": 1, "type": "dealt"},
...     {"game": "g1", "seq": 2, "type": "partner_call", "seat": 1, "call": "AS"},
...     {"game": "g1", "seq": 3, "type": "play", "seat": 1, "card": "10C"},
...     {"game": "g1", "seq": 4, "type": "play", "seat": 2, "card": "AC"}])
>>> print(text.split("\\n\\n")[1], end="")
Deal
Call 1 AS
1. 1: 10C AC
>>> [g] = read_games(text)
>>> g.events[-1], g.errors
({'game': 'g1', 'seq': 4, 'type': 'play', 'seat': 2, 'card': 'AC'}, [])
"""

from jaslog.notation.reader import NotationError, Record, TextGame, read_games
from jaslog.notation.view import TextView, ViewLine, event_json, is_notation
from jaslog.notation.writer import event_dict, write_game, write_games

__all__ = ["NotationError", "Record", "TextGame", "TextView", "ViewLine", "event_dict",
           "event_json", "is_notation", "read_games", "write_game", "write_games"]
