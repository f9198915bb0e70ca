"""Tokens and roles: who may see and do what.

A token is ``jl_<id>_<secret>``; only a SHA-256 of the secret is stored. Roles:

========  =====================================================================
admin     everything, and the management of tokens and tournaments
referee   sees everything; appends rulings and notes to any game. With a tournament
          (``--tournament``): its director, for its games only (and sees its seed)
scorer    one table (``--table``) of the club's games, of one event (``--event``) or
          of one tournament (``--tournament``): creates and records those games and
          sees them whole; sees other games as the public does
player    one player id (``--player``): in the games where that player sits, sees
          what that seat may see; other games as the public does
seat      one seat of one online game (``POST /api/games`` with ``online``): appends
          that seat's own actions when the rules let it act, and sees what the seat may
          see; other games as the public does
public    finished rounds only
========  =====================================================================

Tables are numbered anew by every tournament and every club evening, so a scorer token is
for a table *of* something (:meth:`Principal.covers`): of a tournament (the games it
draws), of an event (the games whose ``meta.event`` names it), or, with neither, of the
club's own games (those of no tournament and no event). The scope must match the game's
exactly: a club token's table 1 is not an event's table 1.

Every token but an admin's expires (by default :data:`DEFAULT_LIFETIME` after it was made;
an admin's only when asked), and a token a tournament issues also ends with the tournament.
An expired token is refused with ``token_expired``. A token's scope and expiry are a row of
its own (``service_token_terms``), written with it: nothing is ever updated.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, bindparam, func, insert, select

from jaslog.errors import JaslogError
from jaslog.events import PLAYER_ID_PATTERN
from jaslog.play.views import FULL, PUBLIC, Sight
from jaslog.service import db
from jaslog.store.clock import Clock, parse_stamp, stamp, system_clock

ROLES = ("admin", "referee", "scorer", "player", "seat", "public")
TABLE_PATTERN = r"^[A-Za-z0-9._:-]{1,64}$"
TOURNAMENT_PATTERN = r"^[A-Za-z0-9._:-]{1,64}$"
_TOKEN = re.compile(r"^jl_([0-9a-f]{8})_([A-Za-z0-9_-]{16,128})$")
#: How long a token other than an admin's lives when no expiry is given.
DEFAULT_LIFETIME = timedelta(days=30)


class TokenError(JaslogError, ValueError):
    """A token that cannot be made as asked (a scorer without a table...).

    When the fault is a missing or bad ``field`` (``table``, ``player``), ``message`` holds
    ``{field}`` where each front end names it in its own words: ``str()`` as the command line
    does (``--table 3``), :meth:`api_message` as the HTTP API does (the JSON field).
    """

    code = "bad_token"

    def __init__(self, message: str, field: str | None = None, example: str = "") -> None:
        self.template, self.field, self.example = message, field, example
        super().__init__(self._say(f"--{field} {example}"))

    def _say(self, name: str) -> str:
        return self.template.replace("{field}", name) if self.field else self.template

    def api_message(self) -> str:
        """The message in the HTTP API's words."""
        return self._say(f'the JSON field "{self.field}", such as "{self.example}"')


class TokenRefused(JaslogError):
    """A token that does not authenticate: ``bad_token`` (unknown, revoked) or
    ``token_expired``. ``guess``: the token is not one that was ever given out (no such
    id, or not its secret); a revoked or expired token was real once."""

    def __init__(self, code: str, message: str, guess: bool = False) -> None:
        super().__init__(message)
        self.code, self.message, self.guess = code, message, guess


def now() -> str:
    """The current time as RFC 3339 UTC with milliseconds."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


_SPAN = re.compile(r"^([0-9]{1,6})\s*(m|min|h|d|w)$")
_UNIT = {"m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def expiry(text: str, at: datetime) -> str:
    """When a token given ``--expires TEXT`` at ``at`` expires: a span (``90m``, ``8h``,
    ``30d``, ``2w``), a date (the end of that day, UTC) or an RFC 3339 time; ValueError for
    anything else.

    >>> t = parse_stamp("2026-12-01T20:00:00Z")
    >>> expiry("8h", t), expiry("2026-12-24", t)
    ('2026-12-02T04:00:00.000Z', '2026-12-25T00:00:00.000Z')
    """
    t = text.strip()
    m = _SPAN.fullmatch(t.lower())
    if m:
        return stamp(at + timedelta(seconds=int(m.group(1)) * _UNIT[m.group(2)]))
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", t):
        try:
            day = datetime.fromisoformat(t).replace(tzinfo=UTC)
        except ValueError:
            raise ValueError(f"{text!r} is not a date") from None
        return stamp(day + timedelta(days=1))
    try:
        return stamp(parse_stamp(t))
    except ValueError:
        raise ValueError(f"{text!r} is not a span (90m, 8h, 30d, 2w), a date (2026-12-24) or "
                         "a time (2026-12-24T18:00:00Z)") from None


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _text(v: Any) -> str | None:
    return None if v is None else str(v)


@dataclass(frozen=True, slots=True)
class Principal:
    """The holder of a valid token."""

    token_id: str
    role: str
    table: str | None = None
    player: str | None = None
    label: str = ""
    tournament: str | None = None
    event: str | None = None
    expires_at: str | None = None
    #: a seat token's game and seat
    game: str | None = None
    seat: int | None = None

    def covers(self, meta: Mapping[str, Any] | None) -> bool:
        """Whether this token records (a scorer) or rules on (a referee) a game whose
        ``game_started`` meta is ``meta``: a scorer's table, of its tournament, of its event
        or (with neither) of no tournament; a director's tournament.

        >>> cup = {"table": "1", "tournament": "cup"}
        >>> Principal("a", "scorer", "1").covers({"table": "1"}), Principal("a", "scorer", "1").covers(cup)
        (True, False)
        >>> Principal("a", "scorer", "1", tournament="cup").covers(cup)
        True
        >>> night = {"table": "1", "event": "club night"}
        >>> club, of_night = Principal("a", "scorer", "1"), Principal("a", "scorer", "1", event="club night")
        >>> club.covers(night), of_night.covers(night), of_night.covers({"table": "1"})
        (False, True, False)
        """
        meta = meta or {}
        tournament = _text(meta.get("tournament"))
        if self.role == "admin":
            return True
        if self.role == "referee":
            return self.tournament is None or tournament == self.tournament
        if self.role != "scorer" or _text(meta.get("table")) != self.table:
            return False
        if self.tournament is not None or tournament is not None:
            return tournament == self.tournament
        return _text(meta.get("event")) == self.event

    def scope_problem(self, game: str, meta: Mapping[str, Any] | None) -> str | None:
        """Why this scorer token, at the game's table, may not record ``game`` (None: it may)."""
        meta = meta or {}
        tournament, event = _text(meta.get("tournament")), _text(meta.get("event"))
        mine = f"this scorer token is for table {self.table} of {self.scope_words()}"
        if self.tournament is not None and tournament != self.tournament:
            theirs = f"tournament {tournament}'s" if tournament else "a club game"
            return f"game {game} is {theirs}, not one of tournament {self.tournament}; {mine}"
        if self.tournament is None and tournament is not None:
            return (f"game {game} is a game of tournament {tournament}; {mine}: a tournament's "
                    f"tables are scored with the tokens it issues (POST /api/tournaments/"
                    f"{tournament}/tokens)")
        if self.tournament is None and event != self.event:  # another event, or none
            return (f"game {game} is " + (f"of event {event!r}" if event else "of no event")
                    + f"; {mine}")
        return None

    def scope_words(self) -> str:
        """What this token's table belongs to, in words."""
        if self.tournament is not None:
            return f"tournament {self.tournament}"
        if self.event is not None:
            return f"event {self.event!r}"
        return "the club's games (of no tournament and no event)"

    def directs(self, tournament: str) -> bool:
        """Whether this token is the director of ``tournament`` (a referee token it issued)."""
        return self.role == "referee" and self.tournament == tournament

    def sight(self, seats: list[str], meta: Mapping[str, Any] | str | None,
              game: str | None = None) -> Sight:
        """What this token may see of a game with these seats and this ``game_started`` meta
        (or only its table); a seat token, of its own game (``game``), its seat's view."""
        if self.role == "seat":
            return Sight(seat=self.seat) if game is not None and game == self.game else PUBLIC
        if not isinstance(meta, Mapping):
            meta = {} if meta is None else {"table": meta}
        if self.role == "admin":
            return FULL
        if self.role in ("referee", "scorer") and self.covers(meta):
            return FULL
        if self.role == "referee":
            return PUBLIC
        if self.role == "player" and self.player in seats:
            return Sight(seat=seats.index(self.player))
        return PUBLIC

    def to_json(self) -> dict[str, Any]:
        return {"token_id": self.token_id, "role": self.role, "table": self.table,
                "player": self.player, "label": self.label, "tournament": self.tournament,
                "event": self.event, "expires_at": self.expires_at, "game": self.game,
                "seat": self.seat}


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """A stored token (never its secret)."""

    id: str
    role: str
    table: str | None
    player: str | None
    label: str
    created_at: str
    revoked_at: str | None
    tournament: str | None = None
    event: str | None = None
    expires_at: str | None = None

    def expired(self, at: datetime) -> bool:
        """Whether the token has expired at ``at`` (a tournament's end aside)."""
        return self.expires_at is not None and parse_stamp(self.expires_at) <= at

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "role": self.role, "table": self.table, "player": self.player,
                "label": self.label, "created_at": self.created_at, "revoked_at": self.revoked_at,
                "tournament": self.tournament, "event": self.event,
                "expires_at": self.expires_at}


_T, _R, _X, _S = db.tokens, db.revocations, db.token_terms, db.seat_tokens
_JOINED = _T.outerjoin(_R, _R.c.token_id == _T.c.id).outerjoin(_X, _X.c.token_id == _T.c.id)

_CHECK = (select(_T.c.secret_hash, _T.c.role, _T.c.table_id, _T.c.player, _T.c.label,
                 _R.c.revoked_at, _X.c.tournament, _X.c.event, _X.c.expires_at,
                 _S.c.game, _S.c.seat)
          .select_from(_JOINED.outerjoin(_S, _S.c.token_id == _T.c.id))
          .where(_T.c.id == bindparam("tid")))

_LIVE = (select(_T.c.id, _R.c.revoked_at, _X.c.expires_at)
         .select_from(_JOINED).where(_T.c.id == bindparam("tid")))


#: How long (seconds) a token checked against the database is taken from memory before it
#: is checked there again: what a revocation written by another process on the same database
#: (``jaslog token revoke`` while the service runs) may take to hold. A revocation through
#: the service itself holds at once (:attr:`Tokens.generation`).
RECHECK_S = 2.0
#: How many checked tokens the service keeps in memory (the least recently used go first).
REMEMBERED = 10_000


@dataclass(frozen=True, slots=True)
class _Remembered:
    """A token checked against the database: its holder, when it expires, and the
    revocation generation and the moment it was checked in."""

    who: Principal
    expires: datetime | None
    generation: int
    checked: float


class Tokens:
    """The token tables: create, list, revoke (an inserted revocation), check. ``clock``
    (default: the system's) says when a token is made and whether it has expired.

    A token that passed is kept in memory, keyed by the SHA-256 of the whole token (never
    the token itself), so the next request with it reads no row (:meth:`remembered`). Every
    revocation through these tokens moves :attr:`generation` on, which forgets every token
    kept: the revoked one is refused at its next request. A revocation written by another
    process is seen when a kept token is checked again, :data:`RECHECK_S` after it was."""

    def __init__(self, engine: Engine, clock: Clock = system_clock) -> None:
        self.engine = engine
        self.clock = clock
        #: Moves on with every revocation through this object: a kept token of an older
        #: generation is checked against the database again.
        self.generation = 0
        self._kept: OrderedDict[str, _Remembered] = OrderedDict()
        self._kept_lock = threading.Lock()

    def create(self, role: str, *, table: str | None = None, player: str | None = None,
               label: str = "", tournament: str | None = None, event: str | None = None,
               expires_at: str | None = None, game: str | None = None,
               seat: int | None = None) -> tuple[str, TokenInfo]:
        """A new token: (the token text, shown once; its stored info).

        ``tournament``: a scorer's or (its director) a referee's; ``event``: a scorer's.
        ``expires_at`` (RFC 3339): default :data:`DEFAULT_LIFETIME` from now, but for an
        admin's token, which expires only when given one."""
        if role not in ROLES:
            raise TokenError(f"unknown role {role!r} (one of {', '.join(ROLES)})")
        if role == "scorer":
            if table is None or not re.fullmatch(TABLE_PATTERN, table):
                raise TokenError("a scorer token needs a table ({field}): letters, digits, ._:-",
                                 "table", "3")
        elif table is not None:
            raise TokenError(f"only a scorer token has a table, not a {role} token")
        if role == "player":
            if player is None or not re.fullmatch(PLAYER_ID_PATTERN, player):
                raise TokenError("a player token needs the player id ({field}) as it is "
                                 "written in the games' seats", "player", "ann")
        elif player is not None:
            raise TokenError(f"only a player token has a player, not a {role} token")
        if role == "seat":
            if game is None or seat is None or not 0 <= seat <= 3:
                raise TokenError("a seat token is made with its online game (POST /api/games "
                                 "with online: true), which names its game and seat")
        elif game is not None or seat is not None:
            raise TokenError(f"only a seat token has a game and a seat, not a {role} token")
        if len(label) > 200:
            raise TokenError("a label is at most 200 characters")
        if tournament is not None:
            if role not in ("scorer", "referee"):
                raise TokenError(f"only a scorer token (a table of the tournament) or a referee "
                                 f"token (its director) has a tournament, not a {role} token")
            if not re.fullmatch(TOURNAMENT_PATTERN, tournament):
                raise TokenError("{field} is not a tournament id: letters, digits, ._:-",
                                 "tournament", "cup")
        if event is not None:
            if role != "scorer":
                raise TokenError(f"only a scorer token has an event, not a {role} token")
            if tournament is not None:
                raise TokenError("a scorer token is for a table of a tournament or of an "
                                 "event, not both")
            if not 0 < len(event) <= 200 or not event.isprintable():
                raise TokenError("{field} is the event's name as the games' meta.event gives "
                                 "it: 1 to 200 printable characters", "event", "club night")
        at = self.clock()
        if expires_at is None and role != "admin":
            expires_at = stamp(at + DEFAULT_LIFETIME)
        elif expires_at is not None:
            try:
                expires_at = stamp(parse_stamp(expires_at))
            except ValueError:
                raise TokenError("{field} is not a time: RFC 3339, such as "
                                 "2026-12-24T18:00:00Z", "expires_at", "2026-12-24T18:00:00Z") \
                    from None
            if parse_stamp(expires_at) <= at:
                raise TokenError(f"the token would have expired already ({expires_at}; it is "
                                 f"{stamp(at)})")
        tid = secrets.token_hex(4)
        secret = secrets.token_urlsafe(24)
        info = TokenInfo(tid, role, table, player, label, stamp(at), None, tournament, event,
                         expires_at)
        with self.engine.begin() as c:
            c.execute(insert(db.tokens).values(
                id=tid, secret_hash=_hash(secret), role=role, table_id=table, player=player,
                label=label, created_at=info.created_at))
            if tournament is not None or event is not None or expires_at is not None:
                c.execute(insert(db.token_terms).values(token_id=tid, tournament=tournament,
                                                        event=event, expires_at=expires_at))
            if role == "seat":
                c.execute(insert(db.seat_tokens).values(token_id=tid, game=game, seat=seat))
        return f"jl_{tid}_{secret}", info

    def list(self) -> list[TokenInfo]:
        q = (select(_T.c.id, _T.c.role, _T.c.table_id, _T.c.player, _T.c.label, _T.c.created_at,
                    _R.c.revoked_at, _X.c.tournament, _X.c.event, _X.c.expires_at)
             .select_from(_JOINED).order_by(_T.c.created_at, _T.c.id))
        with self.engine.connect() as c:
            return [TokenInfo(*tuple(row)) for row in c.execute(q)]

    def count(self) -> int:
        with self.engine.connect() as c:
            return int(c.execute(select(func.count()).select_from(db.tokens)).scalar_one())

    def revoke(self, token_id: str, reason: str = "") -> bool:
        """Revoke a token (insert its revocation). False when there is no such live token."""
        with self.engine.begin() as c:
            exists = c.execute(select(db.tokens.c.id).where(db.tokens.c.id == token_id)).first()
            done = c.execute(select(db.revocations.c.token_id)
                             .where(db.revocations.c.token_id == token_id)).first()
            if exists is None or done is not None:
                return False
            c.execute(insert(db.revocations).values(token_id=token_id, revoked_at=now(),
                                                    reason=reason[:200]))
        self.forget()
        return True

    def forget(self) -> None:
        """Forget every token kept in memory (a revocation: each is checked again)."""
        with self._kept_lock:
            self.generation += 1
            self._kept.clear()

    def remembered(self, token: str) -> Principal | None:
        """The holder of ``token`` from memory, with no database read: a token that passed
        :meth:`authenticate` in this generation, less than :data:`RECHECK_S` ago, and has not
        expired since; else None (check it with :meth:`authenticate`)."""
        key = hashlib.sha256(token.encode()).hexdigest()
        with self._kept_lock:
            hit = self._kept.get(key)
            if hit is None:
                return None
            if hit.generation != self.generation or \
                    time.monotonic() - hit.checked >= RECHECK_S:
                del self._kept[key]
                return None
            self._kept.move_to_end(key)
        if hit.expires is not None and hit.expires <= self.clock():
            return None
        return hit.who

    def _keep(self, token: str, who: Principal, generation: int) -> None:
        expires = parse_stamp(who.expires_at) if who.expires_at is not None else None
        key = hashlib.sha256(token.encode()).hexdigest()
        with self._kept_lock:
            if generation != self.generation:  # revoked meanwhile: not kept
                return
            self._kept[key] = _Remembered(who, expires, generation, time.monotonic())
            self._kept.move_to_end(key)
            while len(self._kept) > REMEMBERED:
                self._kept.popitem(last=False)

    def live(self, token_id: str) -> bool:
        """Whether the token ``token_id`` exists, has not been revoked and has not expired (an
        open event stream asks this again while it runs: a revocation ends it)."""
        with self.engine.connect() as c:
            row = c.execute(_LIVE, {"tid": token_id}).first()
        return row is not None and row.revoked_at is None and \
            (row.expires_at is None or parse_stamp(row.expires_at) > self.clock())

    @staticmethod
    def well_formed(token: str) -> bool:
        """Whether ``token`` has a token's shape, ``jl_<8 hex>_<secret>`` (a typo, a token
        cut short when pasted, does not).

        >>> Tokens.well_formed("jl_0123abcd_" + "x" * 16), Tokens.well_formed("jl_0123")
        (True, False)
        """
        return _TOKEN.fullmatch(token) is not None

    def check(self, token: str) -> Principal | None:
        """The principal of a valid, unrevoked, unexpired token, else None."""
        try:
            return self.authenticate(token)
        except TokenRefused:
            return None

    def authenticate(self, token: str) -> Principal:
        """The principal of a valid token; :class:`TokenRefused` says why not (an unknown or
        revoked token is ``bad_token``; whether it expired is said only to whoever holds
        its secret)."""
        unknown = "the token is unknown or has been revoked"
        m = _TOKEN.fullmatch(token)
        if m is None:
            raise TokenRefused("bad_token", unknown, guess=True)
        tid, secret = m.groups()
        generation = self.generation  # read before the row: a revocation after it forgets
        with self.engine.connect() as c:
            row = c.execute(_CHECK, {"tid": tid}).first()
        if row is None or not hmac.compare_digest(row.secret_hash, _hash(secret)):
            raise TokenRefused("bad_token", unknown, guess=True)
        if row.revoked_at is not None:
            raise TokenRefused("bad_token", unknown)
        if row.expires_at is not None and parse_stamp(row.expires_at) <= self.clock():
            raise TokenRefused("token_expired", f"the token expired at {row.expires_at}: ask "
                               "for a new one")
        who = Principal(tid, row.role, row.table_id, row.player, row.label, row.tournament,
                        row.event, row.expires_at, row.game, row.seat)
        self._keep(token, who, generation)
        return who


#: What a token looks like in a line of text (a URL's ``access_token=...``, or the token).
_IN_TEXT = re.compile(r"(access_token=)[^&\s\"']*|jl_[0-9a-f]{8}_[A-Za-z0-9_-]+")


def redact_tokens(text: str) -> str:
    """``text`` with every token and ``access_token`` value blanked, for a log line.

    >>> redact_tokens('"GET /api/games/g/stream?access_token=jl_0123abcd_secret&since=3 HTTP/1.1"')
    '"GET /api/games/g/stream?access_token=***&since=3 HTTP/1.1"'
    """
    return _IN_TEXT.sub(lambda m: (m.group(1) or "") + "***", text)


class TokenLogFilter(logging.Filter):
    """Blanks tokens in the log lines that pass (the access log prints each request's query
    string, where a browser's event stream carries ``access_token``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except (TypeError, ValueError):  # a record that does not format: leave it
            return True
        if "jl_" in text or "access_token" in text:
            # each argument blanked where it stands: a formatter may read the arguments
            # themselves (uvicorn's access log unpacks its five), so they keep their shape
            if isinstance(record.args, tuple) and isinstance(record.msg, str):
                record.msg = redact_tokens(record.msg)
                record.args = tuple(redact_tokens(a) if isinstance(a, str) else a
                                    for a in record.args)
            if not isinstance(record.args, tuple) or redact_tokens(shown := record.getMessage()) != shown:
                record.msg, record.args = redact_tokens(text), ()  # left in the whole line
        return True


def guard_logs(*names: str) -> None:
    """Put a :class:`TokenLogFilter` on the loggers ``names`` (default: uvicorn's access and
    error logs), once each."""
    for name in names or ("uvicorn.access", "uvicorn.error", "uvicorn"):
        lg = logging.getLogger(name)
        if not any(isinstance(f, TokenLogFilter) for f in lg.filters):
            lg.addFilter(TokenLogFilter())
