"""The ``jaslog/1`` event log: models, JSON Lines reading and writing, upcasters.

One event per line, UTF-8 JSON. Every event has ``game``, ``seq`` (0-based, contiguous
within its game) and ``type``, and may have ``at`` (RFC 3339) and ``id`` (a UUID that makes
retries idempotent). The models here are the format: ``schemas/`` is generated from them.

>>> e = parse_event(b'{"game":"g1","seq":4,"type":"play","seat":2,"card":"10H"}')
>>> e.type, e.seat, e.card
('play', 2, '10H')
>>> canonical_json(e)
b'{"game":"g1","seq":4,"type":"play","seat":2,"card":"10H"}'
>>> parse_event(b'{"game":"g1","seq":4,"type":"play","seat":2,"card":"TH"}')
Traceback (most recent call last):
...
jaslog.events.EventError: field 'card': 'TH' is not a card (canonical text: 10H, JC, AS)
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Annotated, Any, Literal, Union

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
)

from jaslog.errors import JaslogError
from jaslog.events.limits import MAX_LINE, NOT_IDS, event_problem, json_error, not_an_id
from jaslog.notation import TextView, ViewLine, is_notation

FORMAT = "jaslog/1"
VERSION = 1

CARD_PATTERN = r"^(7|8|9|10|J|Q|K|A)[CDHS]$"
TURNED_PATTERN = r"^(2|3|4|5|6|7|8|9|10|J|Q|K|A)[CDHS]$"
GAME_ID_PATTERN = r"^[A-Za-z0-9._:-]{1,128}$"
PLAYER_ID_PATTERN = r"^[A-Za-z0-9._:@-]{1,64}$"
UUID_PATTERN = r"^[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}$"
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")

# ``at``: an RFC 3339 time that is a real date and time, checked by pydantic-core's regex engine
# (no Python call per event): years 0001-9999, the days of each month, 29 February in leap
# years only, hours 00-23, offsets under 24 hours. It accepts exactly what RFC3339 matches and
# ``datetime.fromisoformat`` reads (tests/test_at_pattern.py checks this case by case).
_YEAR = r"(?:[0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})"
_DATE = (r"(?:" + _YEAR + r"-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
         r"|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))"
         r"|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
         r"-02-29)")
_TIME = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?"
_ZONE = r"(?:[Zz]|[+-](?:(?:[01][0-9]|2[0-2]):[0-9]{2}|23:[0-5][0-9]))"
AT_PATTERN = "^" + _DATE + "[Tt ]" + _TIME + _ZONE + "$"



def time_problem(v: str) -> str:
    """Why ``v`` is not a valid ``at`` (for the error message)."""
    if not RFC3339.match(v):
        return f"{v!r} is not an RFC 3339 time (e.g. 2026-11-30T20:15:00Z)"
    return f"{v!r} is not a real date and time"

GameId = Annotated[str, StringConstraints(pattern=GAME_ID_PATTERN)]
PlayerId = Annotated[str, StringConstraints(pattern=PLAYER_ID_PATTERN)]
CardText = Annotated[str, StringConstraints(pattern=CARD_PATTERN)]
Seat = Annotated[int, Field(ge=0, le=3)]
#: Bounds of the numbers an event may carry: far beyond any real game (a round's score is at
#: most a few hundred points; games last tens of rounds), small enough that no total
#: overflows the store's or the export's integer columns.
MOST_POINTS = 10_000
MOST_ROUNDS = 9_999
#: The rulesets a log may name: every game's presets (``jaslog.games.PRESETS``; a test
#: keeps the two lists equal).
RULESETS = ("amsterdam", "amsterdam-kbn", "rotterdam", "klaverjas-online-501", "klaberjass-2p",
            "kloepper")
Ruleset = Literal[RULESETS]  # type: ignore[valid-type]


class EventError(JaslogError, ValueError):
    """An event that is not valid ``jaslog/1``: the message says which field and why."""

    code = "bad_event"


class Event(BaseModel):
    """The envelope every event shares."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    game: GameId = Field(description="Game id: 1-128 letters, digits or ._:-")
    seq: int = Field(ge=0, description="Position in the game's log, from 0, no gaps")
    type: str
    at: str | None = Field(default=None, description="When it happened (RFC 3339)",
                           pattern=AT_PATTERN)
    id: str | None = Field(default=None, description="Event UUID for idempotent retries",
                           pattern=UUID_PATTERN)
    recorded_at: str | None = Field(
        default=None, pattern=AT_PATTERN,
        description="When a live recorder or the service stored it, by its own clock (RFC "
                    "3339); set by the store, never by a client")


class GameStarted(Event):
    """Seq 0 of every game: the rules and who sits where."""

    type: Literal["game_started"]
    ruleset: Ruleset = Field(description="A preset of the rule book, section 7")  # type: ignore[valid-type]
    options: dict[str, Any] | None = Field(default=None, description="Overrides of the preset")
    seats: list[PlayerId] = Field(min_length=2, max_length=4,
                                  description="Opaque player ids by seat, clockwise")
    dealer: Seat = Field(description="Seat of the first dealer")
    meta: dict[str, Any] | None = Field(default=None, description="Event name, table, place...")


class Dealt(Event):
    """Opens a round. ``hands`` absent: the scorer did not see them."""

    type: Literal["dealt"]
    hands: list[list[CardText]] | None = Field(default=None, description="Cards by seat")
    dealer: Seat | None = Field(default=None, description="If given, must match the rotation")
    turn_up: CardText | None = Field(
        default=None, description="Klaberjass only (required there): the card turned face up "
                                  "after the deal, which proposes trumps")
    stock: list[CardText] | None = Field(
        default=None, description="Klaberjass only, when known: the 19 cards of the stock, from "
                                  "the top card to the bottom card")


class TrumpTurned(Event):
    """Random trump: a card turned to propose (or fix) the trump suit."""

    type: Literal["trump_turned"]
    card: Annotated[str, StringConstraints(pattern=TURNED_PATTERN)]


class Bid(Event):
    """A call in the trump selection. Klaverjas: ``pass``, ``accept`` or a suit. Klaberjass:
    ``take``, ``pass``, ``schmeiss``, a suit (round 2), ``annul`` or ``play`` (the answer to
    a schmeiss)."""

    type: Literal["bid"]
    seat: Seat
    call: Literal["pass", "accept", "take", "schmeiss", "annul", "play", "C", "D", "H", "S"]


class SecondDeal(Event):
    """Klaberjass: after trumps are fixed, three more cards to each player, and the stock's
    bottom card turned face up. ``hands`` is given exactly when the deal's hands were."""

    type: Literal["second_deal"]
    hands: list[list[CardText]] | None = Field(default=None, description="3 cards by seat")
    bottom: CardText = Field(description="The stock's bottom card, turned face up")


class Dix(Event):
    """Klaberjass: ``seat`` exchanges the seven of trumps (the dix) for the turn-up card."""

    type: Literal["dix"]
    seat: Seat


class SequenceDeclared(Event):
    """Klaberjass: ``seat`` declares a sequence (3 or more cards of a suit in a row) that it
    holds, before the first card of trick 2."""

    type: Literal["sequence"]
    seat: Seat
    cards: list[CardText] = Field(min_length=3, max_length=8, description="The sequence's cards")


class Bella(Event):
    """Klaberjass: ``seat`` announces bella on playing the second of the king and queen of
    trumps."""

    type: Literal["bella"]
    seat: Seat


class PartnerCall(Event):
    """Kloepper: the player holding both black queens calls a non-trump ace (its holder is his
    secret partner) or goes alone, before the first lead."""

    type: Literal["partner_call"]
    seat: Seat
    call: Literal["AC", "AD", "AH", "AS", "alone"]


class Knock(Event):
    """Kloepper: ``seat`` (holding a black queen) knocks: his side undertakes every trick."""

    type: Literal["knock"]
    seat: Seat


class KnockBack(Event):
    """Kloepper: after a knock, ``seat`` (of the other side) knocks back: his side undertakes
    to win a trick."""

    type: Literal["knock_back"]
    seat: Seat


class Play(Event):
    type: Literal["play"]
    seat: Seat
    card: CardText


class Roem(Event):
    """A roem claim for the trick just completed."""

    type: Literal["roem"]
    seat: Seat
    points: int = Field(ge=0, le=MOST_POINTS)


CLAIM_GIVES = ("rest_to_claimer", "rest_to_opponents")


class Claim(Event):
    """A player shows the hand and claims (``rest_to_claimer``) or concedes
    (``rest_to_opponents``) every trick still to play: the play of the round ends, and those
    tricks go to the side named with their card points and the last-trick bonus, and no roem
    (rule book 9.1, decision 13)."""

    type: Literal["claim"]
    seat: Seat
    gives: Literal[CLAIM_GIVES]  # type: ignore[valid-type]


class Ruling(Event):
    """A referee's score for a round (1-based); totals use it instead of the played score."""

    type: Literal["ruling"]
    round: int = Field(ge=1, le=MOST_ROUNDS)
    score: list[Annotated[int, Field(ge=0, le=MOST_POINTS)]] = Field(min_length=2, max_length=4)
    reason: str = Field(min_length=1, max_length=2000)


class Note(Event):
    """An annotation that changes nothing."""

    type: Literal["note"]
    text: str = Field(min_length=1, max_length=10000)
    seat: Seat | None = None
    round: int | None = Field(default=None, ge=1, le=MOST_ROUNDS)


class Correction(Event):
    """A scorer's correction: ``retracts`` the most recent events, recorded by mistake. The
    fold goes on as if they were never recorded; they stay in the log and every report shows
    them as retracted, with the ``reason`` (rule book 9.1, decision 9)."""

    type: Literal["correction"]
    retracts: list[Annotated[int, Field(ge=1)]] = Field(
        min_length=1, max_length=64, description="Seqs of the events retracted")
    reason: str = Field(min_length=1, max_length=2000)


IRREGULARITY_KINDS = ("lead_out_of_turn", "play_out_of_turn", "exposed_card", "misdeal",
                      "wrong_card_count", "other")


class Irregularity(Event):
    """A fact of the table the rules do not turn into play: a card led or played out of turn
    (taken back into its holder's hand), an exposed card, a misdeal... It changes nothing in
    the fold; reports list it (rule book 9.1, decision 10)."""

    type: Literal["irregularity"]
    kind: Literal[IRREGULARITY_KINDS]  # type: ignore[valid-type]
    seat: Seat
    cards: list[CardText] | None = Field(default=None, max_length=8,
                                         description="The cards concerned (shown, led...)")
    text: str | None = Field(default=None, min_length=1, max_length=2000)


class RoundScore(Event):
    """A round recorded by its score alone, in place of its deal, bids and plays; the
    optional fields say what else is known (rule book 9.1, decision 11)."""

    type: Literal["round_score"]
    round: int = Field(ge=1, le=MOST_ROUNDS)
    score: list[Annotated[int, Field(ge=0, le=MOST_POINTS)]] = Field(min_length=2, max_length=4)
    chooser: Seat | None = Field(default=None, description="The seat that chose trumps (Klaverjas,"
                                 " Klaberjass: the maker; Kloepper: the black-queen player)")
    trump: Literal["C", "D", "H", "S"] | None = None
    points: list[Annotated[int, Field(ge=0, le=MOST_POINTS)]] | None = Field(
        default=None, min_length=2, max_length=4, description="Card points per team or player")
    roem: list[Annotated[int, Field(ge=0, le=MOST_POINTS)]] | None = Field(
        default=None, min_length=2, max_length=4, description="Roem (or melds) per team or player")
    result: str | None = Field(default=None, min_length=1, max_length=32,
                               description="The game's word for how it went (made, nat, pit...)")


class Timeout(Event):
    """The seat due had not acted after ``seconds`` (by the service's own clock, in a
    tournament with a time limit; rule book 9.1, decision 15). It changes nothing in the fold."""

    type: Literal["timeout"]
    seat: Seat
    seconds: int = Field(ge=0, le=86_400 * 365)


#: A deal's secret seed and its commit: 64 lowercase hex digits (32 bytes; a SHA-256).
HEX64_PATTERN = r"^[0-9a-f]{64}$"
#: A seat's nonce: 1 to 64 printable ASCII characters, no ``|`` (rule book 9.3, decision 20).
NONCE_PATTERN = r"^[ -{}~]{1,64}$"


class DealCommitted(Event):
    """The server's commit to the secret seed of a round's deal, before its cards are dealt:
    the SHA-256 of the seed (rule book 9.3, decision 20). It changes nothing in the fold."""

    type: Literal["deal_committed"]
    round: int = Field(ge=1, le=MOST_ROUNDS)
    commit: str = Field(pattern=HEX64_PATTERN, description="lowercase hex SHA-256 of the seed")


class Nonce(Event):
    """A seat's contribution to a round's deck, between the commit and the deal (rule book
    9.3, decision 20). It changes nothing in the fold."""

    type: Literal["nonce"]
    round: int = Field(ge=1, le=MOST_ROUNDS)
    seat: Seat
    nonce: str = Field(pattern=NONCE_PATTERN, description="1-64 printable ASCII, no '|'")


class DealRevealed(Event):
    """The round's secret seed, revealed when the round ended: anyone can recompute the deck
    (rule book 9.3, decisions 20-21). It changes nothing in the fold."""

    type: Literal["deal_revealed"]
    round: int = Field(ge=1, le=MOST_ROUNDS)
    seed: str = Field(pattern=HEX64_PATTERN, description="the seed's 32 bytes, 64 hex digits")


EVENT_MODELS: dict[str, type[Event]] = {
    "game_started": GameStarted, "dealt": Dealt, "trump_turned": TrumpTurned, "bid": Bid,
    "play": Play, "roem": Roem, "claim": Claim, "ruling": Ruling, "note": Note,
    "second_deal": SecondDeal, "dix": Dix, "sequence": SequenceDeclared, "bella": Bella,
    "partner_call": PartnerCall, "knock": Knock, "knock_back": KnockBack,
    "correction": Correction, "irregularity": Irregularity, "round_score": RoundScore,
    "timeout": Timeout, "deal_committed": DealCommitted, "nonce": Nonce,
    "deal_revealed": DealRevealed,
}

AnyEvent = Annotated[
    Union[GameStarted, Dealt, TrumpTurned, Bid, Play, Roem, Claim, Ruling, Note,  # noqa: UP007
          SecondDeal, Dix, SequenceDeclared, Bella, PartnerCall, Knock, KnockBack,
          Correction, Irregularity, RoundScore, Timeout, DealCommitted, Nonce, DealRevealed],
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(AnyEvent)
_validate_json: Callable[[bytes | str], Event] = _ADAPTER.validator.validate_json


def validate_event_json(line: bytes | str) -> Event:
    """The hot path of bulk reading: JSON (bytes or str) to an event within the limits
    (:mod:`jaslog.events.limits`), or ``ValueError`` with no explanation
    (:func:`parse_event` says what is wrong)."""
    e = _validate_json(line)
    if event_problem(e) is not None:
        raise ValueError("beyond the limits")
    return e


def _describe(err: ValidationError, raw: dict[str, Any]) -> str:
    e = err.errors(include_url=False)[0]
    loc = ".".join(str(x) for x in e["loc"] if x not in EVENT_MODELS)
    kind, value = e["type"], e.get("input")
    if kind == "extra_forbidden":
        return f"unknown field {loc!r} for a {raw.get('type')} event"
    if kind == "missing":
        return f"field {loc!r} is missing"
    if kind == "string_pattern_mismatch":
        pattern = e.get("ctx", {}).get("pattern", "")
        if pattern == CARD_PATTERN:
            return f"field {loc!r}: {value!r} is not a card (canonical text: 10H, JC, AS)"
        if pattern == TURNED_PATTERN:
            return f"field {loc!r}: {value!r} is not a card (2-10, J, Q, K, A then C D H S)"
        if pattern in (GAME_ID_PATTERN, PLAYER_ID_PATTERN):
            return f"field {loc!r}: {id_problem(value, pattern == GAME_ID_PATTERN)}"
        if pattern == UUID_PATTERN:
            return (f"field {loc!r}: {value!r} is not a UUID (32 hex digits, dashes optional: "
                    "7f1c2a9e-1b2c-4d5e-8f90-123456789abc)")
        if pattern == AT_PATTERN:
            return f"field {loc!r}: Value error, {time_problem(value)} (got {value!r})"
    msg = e["msg"]
    return f"field {loc!r}: {msg}" + (f" (got {value!r})" if not isinstance(value, dict) else "")


def id_problem(value: Any, game: bool = True) -> str:
    """Why ``value`` is not a game id (``game``) or a player id, in a sentence.

    >>> id_problem("x" * 200)
    "'xxxxxxxx...' is 200 characters long: a game id has at most 128"
    >>> id_problem("ánn", game=False)
    "'ánn' is not a valid player id: 'á' is not allowed (ASCII letters, digits and ._:@-)"
    >>> id_problem("")
    'an empty text is not a game id (1-128 ASCII letters, digits and ._:-)'
    """
    what, most, marks = ("game id", 128, "._:-") if game else ("player id", 64, "._:@-")
    if not isinstance(value, str):
        return f"{value!r} is not a {what}"
    if game and value in NOT_IDS:
        return not_an_id(value)
    if not value:
        return f"an empty text is not a {what} (1-{most} ASCII letters, digits and {marks})"
    bad = next((c for c in value if not (c.isascii() and (c.isalnum() or c in marks))), None)
    if bad is not None:
        shown = value if len(value) <= 40 else value[:37] + "..."
        return (f"{shown!r} is not a valid {what}: {bad!r} is not allowed (ASCII letters, "
                f"digits and {marks})")
    return f"{value[:8] + '...'!r} is {len(value)} characters long: a {what} has at most {most}"


def json_kind(value: Any) -> str:
    """What a decoded JSON value is, in JSON's words.

    >>> json_kind(None), json_kind([1]), json_kind("x"), json_kind(True), json_kind(2.5)
    ('null', 'an array', 'a string', 'true', 'a number')
    """
    if value is None or isinstance(value, bool):
        return "null" if value is None else str(value).lower()
    if isinstance(value, (int, float)):
        return "a number"
    kinds: dict[type, str] = {str: "a string", list: "an array", dict: "an object"}
    return kinds.get(type(value), type(value).__name__)


def event_from_dict(raw: Any) -> Event:
    """Validate a decoded JSON object as an event, or raise :class:`EventError`."""
    if not isinstance(raw, dict):
        raise EventError(f"an event is a JSON object, not {json_kind(raw)}")
    t = raw.get("type")
    if t not in EVENT_MODELS:
        if t is None:
            raise EventError("field 'type' is missing")
        raise EventError(f"unknown event type {t!r} (known: {', '.join(EVENT_MODELS)})")
    try:
        e: Event = EVENT_MODELS[t].model_validate(raw)
    except ValidationError as err:
        raise EventError(_describe(err, raw)) from None
    problem = event_problem(e)
    if problem is not None:
        raise EventError(problem)
    return e


def parse_event(line: bytes | str) -> Event:
    """One JSON line to an event, or :class:`EventError` saying what is wrong."""
    if len(line) > MAX_LINE:
        raise EventError(f"line is {len(line)} bytes long; the limit is {MAX_LINE}")
    try:
        e = _validate_json(line)
    except ValueError:
        pass  # the slow path below says precisely what is wrong
    else:
        problem = event_problem(e)
        if problem is not None:  # said from this parse: orjson reads a huge integer as a float
            raise EventError(problem)
        return e
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError as err:
        raise EventError(json_error(err, line)) from None
    return event_from_dict(raw)


def canonical_json(event: Event) -> bytes:
    """The canonical bytes of an event: fields in model order, absent fields left out."""
    return orjson.dumps(event.model_dump(exclude_none=True))


@dataclass(frozen=True, slots=True)
class Line:
    """What one line of a log held: an event, or the error that made it unreadable."""

    source: str
    number: int
    event: Event | None
    error: str | None = None
    game: str | None = None
    seq: int | None = None


def _peek_dict(d: Any) -> tuple[str | None, int | None]:
    """Best-effort game and seq of a decoded line that failed, for the error message."""
    if not isinstance(d, dict):
        return None, None
    g, s = d.get("game"), d.get("seq")
    return (g if isinstance(g, str) else None), \
        (s if isinstance(s, int) and not isinstance(s, bool) else None)


def canonical_game_end(raw: bytes) -> int:
    """Where the game id of a line in canonical form ends (the index of its closing quote; the
    id is ``raw[9:end]``), or -1 when that is not certain from the text: the line must start
    with ``{"game":"``, name ``"game"`` once, and the id must have no escape.

    >>> canonical_game_end(b'{"game":"g-1","seq":3}'), canonical_game_end(b'{"seq":3}')
    (12, -1)
    """
    if raw.startswith(b'{"game":"') and raw.count(b'"game"') == 1:
        end = raw.find(b'"', 9)
        if end > 9 and raw.find(b"\\", 9, end) < 0:
            return end
    return -1


def line_game(raw: bytes) -> str | None:
    """The game a line names, found cheaply (to group lines by game before parsing them): read
    off the text of a line in canonical form (it starts with ``{"game":"<id>"``, names
    ``"game"`` once and the id has no escape), else from the line's JSON, else, for a line
    that is not JSON (cut short, say), from its text (:func:`guess_game`), as
    :func:`read_line` attributes it. None when no game can be made out (its own parse says
    what is wrong with it).

    >>> line_game(b'{"game":"g-1","seq":3,"type":"play","seat":1,"card":"AS"}')
    'g-1'
    >>> line_game(b'{"seq": 3, "game": "g-2"}'), line_game(b'{"game": "g-3", "se'), line_game(b'x')
    ('g-2', 'g-3', None)
    """
    end = canonical_game_end(raw)
    if end > 0:
        return raw[9:end].decode("utf-8", "replace")
    if type(raw) is ViewLine:  # a line of a notation text knows its game
        return raw.game
    try:
        d = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return guess_game(raw)
    g = d.get("game") if isinstance(d, dict) else None
    return g if isinstance(g, str) else None


#: The UTF-8 byte order mark some Windows editors put at the start of a text file.
BOM = b"\xef\xbb\xbf"


def skip_bom(stream: IO[bytes]) -> IO[bytes]:
    """Step over a UTF-8 byte order mark at the start of ``stream`` (a log saved by a Windows
    editor starts with one; it is not part of the first line). Returns the stream, or, when
    its first non-blank character opens a tag (``[Game "g1"]``), the stream read as the
    notation (``jaslog.notation.TextView``: its events as JSON Lines, each line knowing the
    text's line and column), so that every reader of logs reads both by their content.

    >>> import io
    >>> skip_bom(io.BufferedReader(io.BytesIO(BOM + b'{"game":"g"}'))).read()
    b'{"game":"g"}'
    >>> skip_bom(io.BufferedReader(io.BytesIO(b'{"game":"g"}'))).read()
    b'{"game":"g"}'
    >>> next(skip_bom(io.BufferedReader(io.BytesIO(b'[Game "g"]\\n[Seq 3]\\nNote "hi"'))))
    b'{"game":"g","seq":3,"type":"note","text":"hi"}\\n'
    """
    peek = getattr(stream, "peek", None)
    if peek is not None:
        if peek(3)[:3] == BOM:
            stream.read(3)
        head = peek(SNIFF)
    elif stream.seekable():
        start = stream.tell()
        if stream.read(3) != BOM:
            stream.seek(start)
        start = stream.tell()
        head = stream.read(SNIFF)
        stream.seek(start)
    else:
        return stream
    return TextView(stream) if is_notation(head) else stream  # type: ignore[return-value]


#: How much of a stream's start :func:`skip_bom` looks at to tell notation from JSON Lines.
SNIFF = 8192


def read_lines(stream: Iterable[bytes], source: str) -> Iterator[Line]:
    """Every non-blank line of a JSON Lines stream (any iterable of lines), parsed; lines of
    notation (the first non-blank one opens a tag) are read as the notation. Never raises for
    bad input."""
    if not isinstance(stream, TextView):
        it = iter(stream)
        head = []
        for raw in it:
            head.append(raw)
            if raw.strip():
                break
        stream = itertools.chain(head, it)
        if head and is_notation(head[-1]):
            stream = TextView(stream)
    for number, raw in enumerate(stream, 1):
        if raw.strip():
            yield read_line(raw, source, number)


_GAME_IN_TEXT = re.compile(rb'"game"\s*:\s*"([A-Za-z0-9._:-]{1,128})"')


def guess_game(raw: bytes) -> str | None:
    """The game a line names, if its text shows one (without parsing it: the line may be
    broken).

    >>> guess_game(b'{"game": "club-7", "seq": 3, "type": "pl')
    'club-7'
    """
    m = _GAME_IN_TEXT.search(raw, 0, 8192)
    return m.group(1).decode() if m else None


def read_line(raw: bytes, source: str, number: int) -> Line:
    """Line ``number`` of ``source``, parsed: its event, or what is wrong with it, with the
    game (and seq) the line names when they can be made out, so that the error is the
    game's. Every reader of logs (check, replay, import, export) reads a bad line alike.

    >>> ln = read_line(b'{"game": "g1", "seq": 3, "type": "pl', "a.jsonl", 4)
    >>> ln.game, ln.error[:52]
    ('g1', 'the file ends in the middle of a line (truncated?): ')

    A line of a notation text read as JSON Lines (a ``jaslog.notation.ViewLine``) is the
    text's line ``number``, and its error names the column.
    """
    if type(raw) is ViewLine:
        return _text_line(raw, source)
    try:
        return Line(source, number, parse_event(raw))
    except EventError as e:
        error = str(e)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as u:
        error = (f"not UTF-8: byte {u.start + 1} of the line is 0x{raw[u.start]:02x} "
                 "(save the file as UTF-8)")
    if len(raw) > MAX_LINE:
        return Line(source, number, None, error, guess_game(raw))
    try:
        d = orjson.loads(raw)
    except orjson.JSONDecodeError:
        if not raw.endswith(b"\n"):  # only a file's last line can end without one
            error = f"the file ends in the middle of a line (truncated?): {error}"
        return Line(source, number, None, error, guess_game(raw))
    game, seq = _peek_dict(d)
    return Line(source, number, None, error, game, seq)


def _text_line(raw: ViewLine, source: str) -> Line:
    """A line of a notation text: its event, or what is wrong with it, at the text's line."""
    error = raw.error
    if error is None:
        try:
            return Line(source, raw.line, parse_event(bytes(raw)))
        except EventError as e:
            error = str(e)
    return Line(source, raw.line, None, f"column {raw.column}: {error}", raw.game, raw.seq)


def read_file(path: str | Path) -> Iterator[Line]:
    """The lines of a log file (``-`` is standard input)."""
    if str(path) == "-":
        import sys

        yield from read_lines(skip_bom(sys.stdin.buffer), "<stdin>")
        return
    with open(path, "rb") as f:
        yield from read_lines(skip_bom(f), str(path))


def write_events(events: Iterable[Event], stream: IO[bytes]) -> int:
    """Write events as canonical JSON Lines; returns how many."""
    n = 0
    for e in events:
        stream.write(canonical_json(e) + b"\n")
        n += 1
    return n


# ------------------------------------------------------------------ format versions

def _upcast_v0(raw: dict[str, Any]) -> dict[str, Any]:
    """v0 (the pre-release draft) wrote ``player`` for ``seat`` and ``T`` for ten."""
    out = dict(raw)
    if "player" in out:
        out["seat"] = out.pop("player")
    for key in ("card",):
        v = out.get(key)
        if isinstance(v, str) and v[:1] == "T":
            out[key] = "10" + v[1:]
    if isinstance(out.get("hands"), list):
        out["hands"] = [["10" + c[1:] if isinstance(c, str) and c[:1] == "T" else c for c in h]
                        for h in out["hands"]]
    return out


#: Functions that lift an event dict from format version N to N + 1.
UPCASTERS = {0: _upcast_v0}


def upcast(raw: dict[str, Any], version: int) -> dict[str, Any]:
    """An event dict written in format ``version``, lifted to the current version."""
    if version > VERSION:
        raise EventError(f"format version {version} is newer than this jaslog ({VERSION})")
    while version < VERSION:
        raw = UPCASTERS[version](raw)
        version += 1
    return raw
