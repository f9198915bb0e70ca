"""What the games routes take and answer (:mod:`jaslog.service.api_games`): the request
bodies and the answers' shapes, as the OpenAPI document shows them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic.json_schema import SkipJsonSchema

from jaslog.events import GameId, PlayerId
from jaslog.games import Ruleset
from jaslog.service.deps import (
    json_safe,
)


class GameIn(BaseModel):
    """A new game: its ``game_started`` fields (the id is generated when absent)."""

    model_config = ConfigDict(extra="forbid")
    game: GameId | None = None
    ruleset: Ruleset  # type: ignore[valid-type]
    seats: list[PlayerId] = Field(min_length=2, max_length=4)
    dealer: int = Field(0, ge=0, le=3)
    options: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    at: str | None = Field(None, max_length=40, description="RFC 3339; default: now")
    online: bool = Field(False, description="played from the seats: the service deals and "
                         "times every move, and answers with a token per seat")
    clock: int | None = Field(None, ge=1, le=600, description="online: seconds a move "
                              "(default 30)")
    #: never given: the store stamps it (a client that sends it is told so, by its code)
    recorded_at: SkipJsonSchema[Any] = None

    @field_validator("options", "meta")
    @classmethod
    def _loggable(cls, v: Any, info: ValidationInfo) -> Any:
        return json_safe(v, str(info.field_name))


class AppendIn(BaseModel):
    """Events to append. Each may leave out ``game`` and ``seq`` (they follow from the path
    and ``expected_seq``) and ``at`` (stamped on arrival)."""

    model_config = ConfigDict(extra="forbid")
    expected_seq: int | None = Field(None, ge=0, le=1_000_000_000,
                                     description="the seq the first event must get")
    events: list[dict[str, Any]] = Field(min_length=1, max_length=5000)

    @field_validator("events")
    @classmethod
    def _loggable(cls, v: Any) -> Any:
        return json_safe(v, "events")


class ViolationOut(BaseModel):
    seq: int
    round: int
    trick: int | None
    seat: int | None
    card: str | None
    rule: str
    message: str


class AppendOut(BaseModel):
    game: str
    appended: int
    already_stored: int
    next_seq: int
    head_hash: str
    certificate: str
    violations: list[ViolationOut] = Field(description="rule violations the new events brought")


#: what a page reads of a game's kind (never its name): ``Game.scoring`` and ``Game.players``
SCORING_FIELD = Field(None, description="teams (two partnerships, seats s and s+2, the team "
                      "of seat s is s % 2) or players (each seat for itself); None for a game "
                      "whose ruleset this jaslog does not know")
PLAYERS_FIELD = Field(None, description="how many seats the game has")


class GameOut(BaseModel):
    game: str
    ruleset: str
    scoring: Literal["teams", "players"] | None = SCORING_FIELD
    players: int | None = PLAYERS_FIELD
    seats: list[str]
    dealer: int
    table: str | None
    tournament: str | None
    created_at: str | None = None
    events: int
    last_at: str | None = None
    view: str = Field(description="full, seat or public: what this token sees of the game")
    seat: int | None = None


class SeatTokenOut(BaseModel):
    seat: int
    player: str
    token: str = Field(description="the seat's token (role seat): shown once")
    link: str = Field(description="the seat's page, the token in its fragment")


class OnlineGameOut(GameOut):
    clock: int | None = Field(None, description="online: seconds a move")
    seat_tokens: list[SeatTokenOut] | None = Field(
        None, description="online: a token and a link per seat, shown once")


class GameDetailOut(GameOut):
    rounds: int
    live_round: int | None
    totals: list[int]
    finished: bool
    winner: int | str | None
    violations: int
    meta: dict[str, Any] | None = None


class EventsOut(BaseModel):
    game: str
    view: str
    seat: int | None
    events: list[dict[str, Any]]


class HeadOut(BaseModel):
    game: str
    seq: int
    next_seq: int
    hash: str | None
    certificate: str | None
    note: str | None = None
    signature: dict[str, Any] | None = Field(
        None, description="the newest signature of the game's head by the store's key (its "
        "seq: the head, or the end of the last round before a round being played); check it "
        "with GET /api/keys and `jaslog verify --key`")


class TimingOut(BaseModel):
    game: str
    limit: float | None
    clock: Literal["recorded_at", "at"] = Field(
        description="the clock the moves were timed on: recorded_at (the store's own, for a "
                    "live game) or at (the table's, for an imported archive)")
    moves: int
    untimed: int
    longest: float
    exceeded: list[dict[str, Any]]


class ReplayOut(BaseModel):
    game: str
    kind: str | None = Field(description="klaverjas, klaberjass or kloepper")
    ruleset: str
    scoring: Literal["teams", "players"] | None = SCORING_FIELD
    players: int | None = PLAYERS_FIELD
    seats: list[str]
    view: str
    seat: int | None
    live_round: int | None
    frames: list[dict[str, Any]]
    report: dict[str, Any]
    timing: TimingOut
