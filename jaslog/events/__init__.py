"""The ``jaslog/1`` event log: the envelope, the shared events, their JSON, upcasters.

One event per line, UTF-8 JSON. Every event has ``game``, ``seq`` (0-based, contiguous
within its game) and ``type``, and may have ``at`` (RFC 3339) and ``id`` (a UUID that makes
retries idempotent). The models are the format: ``schemas/`` is generated from them. The
shared events are here; each game's own events are in its package
(``jaslog/games/<g>/events.py``) and join them through the registry
(:mod:`jaslog.events.registry`), from which the union of every event is built on first use.
Reading log files and pipes (JSON Lines or notation) is :mod:`jaslog.logs`, a layer above.

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

import re
from collections.abc import Callable, Iterable, Mapping
from typing import IO, Annotated, Any, ClassVar, Literal, Union

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    StringConstraints,
    TypeAdapter,
    ValidationError,
)
from pydantic_core import CoreSchema, core_schema

from jaslog.errors import JaslogError
from jaslog.events import registry
from jaslog.events.limits import MAX_LINE, NOT_IDS, event_problem, json_error, not_an_id
from jaslog.events.registry import Arg, Words

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


class RegisteredRuleset:
    """The check of ``game_started.ruleset``: one of the rulesets the games registered (their
    presets' names, :func:`jaslog.events.registry.rulesets`), as a ``Literal`` of them, built
    when the model is first used (``GameStarted`` defers its build until then) and again
    whenever a game registers."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.literal_schema(list(registry.rulesets()))


#: A seat's argument in an event's notation (:class:`~jaslog.events.registry.Words`).
SEAT_ARG = Arg("seat", "seat")


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

    model_config = ConfigDict(defer_build=True)  # the rulesets are the games' (registered)
    words: ClassVar[Words] = Words("", custom=True)  # its tags: [Game "g1"] [Ruleset ...]

    type: Literal["game_started"]
    ruleset: Annotated[str, RegisteredRuleset] = Field(
        description="A preset of the rule book, section 7")
    options: dict[str, Any] | None = Field(default=None, description="Overrides of the preset")
    seats: list[PlayerId] = Field(min_length=2, max_length=4,
                                  description="Opaque player ids by seat, clockwise")
    dealer: Seat = Field(description="Seat of the first dealer")
    meta: dict[str, Any] | None = Field(default=None, description="Event name, table, place...")


class Dealt(Event):
    """Opens a round. ``hands`` absent: the scorer did not see them."""

    words: ClassVar[Words] = Words("Deal", ("dealt",), hands=True, custom=True)

    type: Literal["dealt"]
    hands: list[list[CardText]] | None = Field(default=None, description="Cards by seat")
    dealer: Seat | None = Field(default=None, description="If given, must match the rotation")
    turn_up: CardText | None = Field(
        default=None, description="Klaberjass only (required there): the card turned face up "
                                  "after the deal, which proposes trumps")
    stock: list[CardText] | None = Field(
        default=None, description="Klaberjass only, when known: the 19 cards of the stock, from "
                                  "the top card to the bottom card")


class Bid(Event):
    """A call in the trump selection. Klaverjas: ``pass``, ``accept`` or a suit. Klaberjass:
    ``take``, ``pass``, ``schmeiss``, a suit (round 2), ``annul`` or ``play`` (the answer to
    a schmeiss)."""

    words: ClassVar[Words] = Words("Bid", ("bids",), custom=True)

    type: Literal["bid"]
    seat: Seat
    call: Literal["pass", "accept", "take", "schmeiss", "annul", "play", "C", "D", "H", "S"]


class Play(Event):
    words: ClassVar[Words] = Words("", custom=True)  # its cards, on a trick's line

    type: Literal["play"]
    seat: Seat
    card: CardText


class Roem(Event):
    """A roem claim for the trick just completed."""

    words: ClassVar[Words] = Words("Roem", args=(SEAT_ARG, Arg("points", "int", "the roem's points")),
                                   trick="closes")

    type: Literal["roem"]
    seat: Seat
    points: int = Field(ge=0, le=MOST_POINTS)


CLAIM_GIVES = ("rest_to_claimer", "rest_to_opponents")


class Claim(Event):
    """A player shows the hand and claims (``rest_to_claimer``) or concedes
    (``rest_to_opponents``) every trick still to play: the play of the round ends, and those
    tricks go to the side named with their card points and the last-trick bonus, and no roem
    (rule book 9.1, decision 13)."""

    words: ClassVar[Words] = Words("Claim", ("claims", "concede", "concedes"), custom=True)

    type: Literal["claim"]
    seat: Seat
    gives: Literal[CLAIM_GIVES]  # type: ignore[valid-type]


class Ruling(Event):
    """A referee's score for a round (1-based); totals use it instead of the played score."""

    words: ClassVar[Words] = Words("Ruling", custom=True)

    type: Literal["ruling"]
    round: int = Field(ge=1, le=MOST_ROUNDS)
    score: list[Annotated[int, Field(ge=0, le=MOST_POINTS)]] = Field(min_length=2, max_length=4)
    reason: str = Field(min_length=1, max_length=2000)


class Note(Event):
    """An annotation that changes nothing."""

    words: ClassVar[Words] = Words("Note", custom=True)

    type: Literal["note"]
    text: str = Field(min_length=1, max_length=10000)
    seat: Seat | None = None
    round: int | None = Field(default=None, ge=1, le=MOST_ROUNDS)


class Correction(Event):
    """A scorer's correction: ``retracts`` the most recent events, recorded by mistake. The
    fold goes on as if they were never recorded; they stay in the log and every report shows
    them as retracted, with the ``reason`` (rule book 9.1, decision 9)."""

    words: ClassVar[Words] = Words("Correction", ("fix",), custom=True)

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

    words: ClassVar[Words] = Words("Irregularity", custom=True)

    type: Literal["irregularity"]
    kind: Literal[IRREGULARITY_KINDS]  # type: ignore[valid-type]
    seat: Seat
    cards: list[CardText] | None = Field(default=None, max_length=8,
                                         description="The cards concerned (shown, led...)")
    text: str | None = Field(default=None, min_length=1, max_length=2000)


class RoundScore(Event):
    """A round recorded by its score alone, in place of its deal, bids and plays; the
    optional fields say what else is known (rule book 9.1, decision 11)."""

    words: ClassVar[Words] = Words("Score", ("roundscore",), custom=True)

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

    words: ClassVar[Words] = Words("Timeout", args=(SEAT_ARG, Arg("seconds", "int",
                                                                  "the seconds waited")))

    type: Literal["timeout"]
    seat: Seat
    seconds: int = Field(ge=0, le=86_400 * 365)


#: A deal's secret seed and its commit: 64 lowercase hex digits (32 bytes; a SHA-256).
HEX64_PATTERN = r"^[0-9a-f]{64}$"
#: A seat's nonce: 1 to 64 printable ASCII characters, no ``|`` (rule book 9.3, decision 20).
NONCE_PATTERN = r"^[ -{}~]{1,64}$"
#: A round's number, as the fair deal's events name it.
ROUND_ARG = Arg("round", "int", "the round's number")


class DealCommitted(Event):
    """The server's commit to the secret seed of a round's deal, before its cards are dealt:
    the SHA-256 of the seed (rule book 9.3, decision 20). It changes nothing in the fold."""

    words: ClassVar[Words] = Words("Commit", ("dealcommitted",), args=(ROUND_ARG,))

    type: Literal["deal_committed"]
    round: int = Field(ge=1, le=MOST_ROUNDS)
    commit: str = Field(pattern=HEX64_PATTERN, description="lowercase hex SHA-256 of the seed")


class Nonce(Event):
    """A seat's contribution to a round's deck, between the commit and the deal (rule book
    9.3, decision 20). It changes nothing in the fold."""

    words: ClassVar[Words] = Words("Nonce", args=(ROUND_ARG, SEAT_ARG))

    type: Literal["nonce"]
    round: int = Field(ge=1, le=MOST_ROUNDS)
    seat: Seat
    nonce: str = Field(pattern=NONCE_PATTERN, description="1-64 printable ASCII, no '|'")


class DealRevealed(Event):
    """The round's secret seed, revealed when the round ended: anyone can recompute the deck
    (rule book 9.3, decisions 20-21). It changes nothing in the fold."""

    words: ClassVar[Words] = Words("Reveal", ("dealrevealed",), args=(ROUND_ARG,))

    type: Literal["deal_revealed"]
    round: int = Field(ge=1, le=MOST_ROUNDS)
    seed: str = Field(pattern=HEX64_PATTERN, description="the seed's 32 bytes, 64 hex digits")


#: The shared events, in the order they are registered (each game's follow, game by game).
SHARED_EVENTS: tuple[type[Event], ...] = (
    GameStarted, Dealt, Bid, Play, Roem, Claim, Ruling, Note, Correction, Irregularity,
    RoundScore, Timeout, DealCommitted, Nonce, DealRevealed)
registry.register(*SHARED_EVENTS)

#: Every event model by its type: the shared events and every game's (the registry, read
#: live: complete whenever it is read).
EVENT_MODELS: Mapping[str, type[Event]] = registry.ModelsView()


def any_event() -> Any:
    """The union of every registered event, told apart by ``type`` (the registry's order)."""
    return Annotated[Union[tuple(registry.models().values())],  # noqa: UP007
                     Field(discriminator="type")]


def _build_validator(line: bytes | str) -> Event:
    """The first parse after the registry changed: build the union's validator (once), then
    parse with it. ``validate_event_json`` and ``parse_event`` call the module's
    ``_validate_json``, which is this function until the validator is built, then the
    validator's own ``validate_json``: no cost per event for the registry."""
    global _validate_json
    adapter: TypeAdapter[Any] = TypeAdapter(any_event())
    _validate_json = adapter.validator.validate_json  # type: ignore[assignment]
    return _validate_json(line)


_validate_json: Callable[[bytes | str], Event] = _build_validator


def _registry_changed() -> None:
    global _validate_json
    _validate_json = _build_validator
    if GameStarted.__pydantic_complete__:  # built with the rulesets then known
        GameStarted.model_rebuild(force=True)


registry.on_change(_registry_changed)


def __getattr__(name: str) -> Any:
    """``AnyEvent`` (the union), ``RULESETS`` and ``Ruleset`` (the ``Literal`` of them), built
    from the registry when asked for."""
    if name == "AnyEvent":
        return any_event()
    if name == "RULESETS":
        return registry.rulesets()
    if name == "Ruleset":
        return registry.literal_rulesets()
    raise AttributeError(f"module 'jaslog.events' has no attribute {name!r}")


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
    model = registry.models().get(t) if isinstance(t, str) else None  # (the dict itself)
    if model is None:
        if t is None:
            raise EventError("field 'type' is missing")
        raise EventError(f"unknown event type {t!r} (known: {', '.join(EVENT_MODELS)})")
    try:
        e: Event = model.model_validate(raw)
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
