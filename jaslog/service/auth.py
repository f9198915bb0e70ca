"""Tokens and roles: who may see and do what.

A token is ``jl_<id>_<secret>``; only a SHA-256 of the secret is stored. Roles:

========  =====================================================================
admin     everything, and the management of tokens and tournaments
referee   sees everything; appends rulings and notes to any game
scorer    one table (``--table``): creates and records that table's games and sees
          them whole; sees other games as the public does
player    one player id (``--player``): in the games where that player sits, sees
          what that seat may see; other games as the public does
public    finished rounds only
========  =====================================================================
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, bindparam, func, insert, select

from jaslog.errors import JaslogError
from jaslog.events import PLAYER_ID_PATTERN
from jaslog.service import db
from jaslog.views import FULL, PUBLIC, Sight

ROLES = ("admin", "referee", "scorer", "player", "public")
TABLE_PATTERN = r"^[A-Za-z0-9._:-]{1,64}$"
_TOKEN = re.compile(r"^jl_([0-9a-f]{8})_([A-Za-z0-9_-]{16,128})$")


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


def now() -> str:
    """The current time as RFC 3339 UTC with milliseconds."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Principal:
    """The holder of a valid token."""

    token_id: str
    role: str
    table: str | None = None
    player: str | None = None
    label: str = ""

    def sight(self, seats: list[str], table: str | None) -> Sight:
        """What this token may see of a game with these seats at this table."""
        if self.role in ("admin", "referee"):
            return FULL
        if self.role == "scorer" and table is not None and table == self.table:
            return FULL
        if self.role == "player" and self.player in seats:
            return Sight(seat=seats.index(self.player))
        return PUBLIC

    def to_json(self) -> dict[str, Any]:
        return {"token_id": self.token_id, "role": self.role, "table": self.table,
                "player": self.player, "label": self.label}


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

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "role": self.role, "table": self.table, "player": self.player,
                "label": self.label, "created_at": self.created_at, "revoked_at": self.revoked_at}


_CHECK = (select(db.tokens.c.secret_hash, db.tokens.c.role, db.tokens.c.table_id,
                 db.tokens.c.player, db.tokens.c.label, db.revocations.c.revoked_at)
          .select_from(db.tokens.outerjoin(db.revocations,
                                           db.revocations.c.token_id == db.tokens.c.id))
          .where(db.tokens.c.id == bindparam("tid")))

_LIVE = (select(db.tokens.c.id, db.revocations.c.revoked_at)
         .select_from(db.tokens.outerjoin(db.revocations,
                                          db.revocations.c.token_id == db.tokens.c.id))
         .where(db.tokens.c.id == bindparam("tid")))


class Tokens:
    """The token tables: create, list, revoke (an inserted revocation), check."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def create(self, role: str, *, table: str | None = None, player: str | None = None,
               label: str = "") -> tuple[str, TokenInfo]:
        """A new token: (the token text, shown once; its stored info)."""
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
        if len(label) > 200:
            raise TokenError("a label is at most 200 characters")
        tid = secrets.token_hex(4)
        secret = secrets.token_urlsafe(24)
        info = TokenInfo(tid, role, table, player, label, now(), None)
        with self.engine.begin() as c:
            c.execute(insert(db.tokens).values(
                id=tid, secret_hash=_hash(secret), role=role, table_id=table, player=player,
                label=label, created_at=info.created_at))
        return f"jl_{tid}_{secret}", info

    def list(self) -> list[TokenInfo]:
        t, r = db.tokens, db.revocations
        q = (select(t.c.id, t.c.role, t.c.table_id, t.c.player, t.c.label, t.c.created_at,
                    r.c.revoked_at)
             .select_from(t.outerjoin(r, r.c.token_id == t.c.id)).order_by(t.c.created_at, t.c.id))
        with self.engine.connect() as c:
            return [TokenInfo(*row) for row in c.execute(q)]

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
        return True

    def live(self, token_id: str) -> bool:
        """Whether the token ``token_id`` exists and has not been revoked (an open event
        stream asks this again while it runs: a revocation ends it)."""
        with self.engine.connect() as c:
            row = c.execute(_LIVE, {"tid": token_id}).first()
        return row is not None and row.revoked_at is None

    @staticmethod
    def well_formed(token: str) -> bool:
        """Whether ``token`` has a token's shape, ``jl_<8 hex>_<secret>`` (a typo, a token
        cut short when pasted, does not).

        >>> Tokens.well_formed("jl_0123abcd_" + "x" * 16), Tokens.well_formed("jl_0123")
        (True, False)
        """
        return _TOKEN.fullmatch(token) is not None

    def check(self, token: str) -> Principal | None:
        """The principal of a valid, unrevoked token, else None."""
        m = _TOKEN.fullmatch(token)
        if m is None:
            return None
        tid, secret = m.groups()
        with self.engine.connect() as c:
            row = c.execute(_CHECK, {"tid": tid}).first()
        if row is None or row.revoked_at is not None:
            return None
        if not hmac.compare_digest(row.secret_hash, _hash(secret)):
            return None
        return Principal(tid, row.role, row.table_id, row.player, row.label)
