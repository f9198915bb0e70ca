"""What every route shares: the service, the caller's token, and errors as JSON."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any

import anyio
from fastapi import Depends, Query, Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict
from starlette.requests import ClientDisconnect

from jaslog.errors import JaslogError
from jaslog.events import GAME_ID_PATTERN, PLAYER_ID_PATTERN
from jaslog.events.limits import json_problem
from jaslog.service.auth import Principal, TokenRefused
from jaslog.service.core import Service

bearer = HTTPBearer(auto_error=False, bearerFormat="jl_<id>_<secret>",
                    description="A jaslog token (`POST /api/tokens` with an admin token; the "
                                "first admin token is printed by `jaslog serve` on the server).")


#: What the layers below say in the command line's words (they serve ``jaslog`` commands
#: too), and the HTTP API's words for it.
CLI_WORDS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\(see `jaslog games`\)"), "(see GET /api/games)"),
    (re.compile(r"`jaslog rules options -r ([A-Za-z0-9._-]+)`"),
     r"GET /api/rules/options?ruleset=\1"),
    (re.compile(r"\(see `jaslog rules options`\)"), "(see GET /api/rules/options)"),
    (re.compile(r"or the seq expected\)"), "or the batch an expected_seq)"),
    # a JSON field named with its command-line option: "leave out 'trump' (--trump)"
    (re.compile(r"'([a-z_]+)' \(--[a-z-]+\)"), r"'\1'"),
]


def api_words(text: str) -> str:
    """``text`` with every command-line reference of :data:`CLI_WORDS` in the API's words.

    >>> api_words("no game 'g1' in the store (see `jaslog games`)")
    "no game 'g1' in the store (see GET /api/games)"
    """
    for pattern, words in CLI_WORDS:
        text = pattern.sub(words, text)
    return text


#: What each pattern of the service's request models stands for: a client is told this, not
#: the regular expression (see :func:`pattern_sentence`).
PATTERN_NAMES: dict[str, str] = {GAME_ID_PATTERN: "a game id", PLAYER_ID_PATTERN: "a player id"}


def named(pattern: str, name: str) -> str:
    """``pattern``, noted in :data:`PATTERN_NAMES` as ``name`` (\"a tournament id\")."""
    PATTERN_NAMES[pattern] = name
    return pattern


_RANGES = {"A-Za-z": "letters", "a-zA-Z": "letters", "a-z": "lowercase letters",
           "A-Z": "capital letters", "0-9": "digits"}


def pattern_rule(pattern: str) -> str | None:
    """What a pattern of the form ``^[class]{m,n}$`` allows, in words; None for another form.

    >>> pattern_rule(r"^[A-Za-z0-9._:-]{1,128}$")
    '1-128 letters, digits and . _ : -'
    >>> pattern_rule(r"^[0-9a-f]{8}$")
    '8 hex digits (0-9, a-f)'
    """
    m = re.fullmatch(r"\^\[([^\]\\]+)\]\{(\d+)(?:,(\d+))?\}\$", pattern)
    if m is None:
        return None
    cls, lo, hi = m.groups()
    count = lo if hi is None else f"{lo}-{hi}"
    if cls in ("0-9a-f", "a-f0-9"):
        return f"{count} hex digits (0-9, a-f)"
    kinds = []
    for rng, word in _RANGES.items():
        if rng in cls:
            kinds.append(word)
            cls = cls.replace(rng, "")
    if re.search(r".-.", cls.rstrip("-")):
        return None  # another range: say nothing rather than something wrong
    marks = [c for c in cls if c != "-"] + (["-"] if "-" in cls else [])
    parts = kinds + ([" ".join(marks)] if marks else [])
    said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{count} {said}"


def pattern_sentence(value: Any, pattern: str) -> str:
    """Why ``value`` does not match ``pattern``, without the pattern:
    ``'bad id!' is not a game id: 1-128 letters, digits and . _ : -``."""
    shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:76] + "...'"
    name, rule = PATTERN_NAMES.get(pattern), pattern_rule(pattern)
    if name and rule:
        return f"{shown} is not {name}: {rule}"
    if rule:
        return f"{shown} is not allowed here: {rule}"
    return f"{shown} is not {name}" if name else f"{shown} is not in the form this field takes"


class ApiError(JaslogError):
    """An error answer: HTTP status, a stable ``code`` and a sentence, plus any details.

    The sentence (and any text detail) is put in the API's words (:func:`api_words`): the
    store, the rules and the oracle also serve the command line and may name its commands."""

    def __init__(self, status: int, code: str, message: str, *,
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        message = api_words(message)
        extra = {k: api_words(v) if isinstance(v, str) else v for k, v in extra.items()}
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra
        #: headers of the answer besides the body (``Retry-After`` of a 429)
        self.headers = dict(headers or {})

    def body(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.extra}


class ErrorOut(BaseModel):
    """Every refusal: a stable code for programs and a sentence for people."""

    model_config = ConfigDict(extra="allow")
    code: str
    message: str


def responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error answers a route may give; a route that reads a body
    (400: not JSON) may also get one too large (413).

    >>> sorted(responses(400, 422))
    [400, 413, 422]
    """
    if 400 in codes and 413 not in codes:
        codes = (*codes, 413)
    what = {400: "The body is not JSON in UTF-8",
            413: "The body is larger than the service reads (body_too_large)",
            401: "No token, or an unknown, revoked or expired (token_expired) token",
            429: "Too many failed authentications from this address, or (the oracle) too many "
                 "solves from this token: wait Retry-After seconds",
            403: "The token's role may not do this", 404: "No such game or tournament",
            409: "Conflict: the game moved on (expected vs actual seq), or it exists",
            422: "Refused: a bad request, or a rule refusal (rule code and sentence)",
            501: "No per-seat view for this game yet"}
    return {c: {"model": ErrorOut, "description": what[c]} for c in codes}


AUTH = responses(401, 403)


def json_safe(value: Any, where: str) -> Any:
    """``value`` if it can be written into a ``jaslog/1`` log, else ValueError saying where
    (the limits of every event: :func:`jaslog.events.limits.json_problem`)."""
    problem = json_problem(value, where)
    if problem is not None:
        raise ValueError(problem)
    return value


def service(request: Request) -> Service:
    svc: Service = request.app.state.service
    return svc


async def the_service(request: Request) -> Service:
    """:func:`service`, as a dependency answered on the event loop (no worker thread)."""
    return service(request)


class FailedLogins:
    """Failed authentications per client address: after :attr:`limit` within :attr:`window`
    seconds, the address is answered 429 (with ``Retry-After``) before any token it sends is
    looked at, until the oldest of them is :attr:`window` seconds old. What counts is a
    guess: a token of the wrong shape, of an unknown id or with the wrong secret (not a
    revoked or expired token, which was real: a forgotten tablet polling with one does not
    lock the club out). At most :attr:`addresses` addresses are remembered (the longest
    quiet forgotten first). ``app.state.failed_logins`` replaces the default (20 a minute;
    ``jaslog serve --auth-failures``).

    >>> t = [0.0]
    >>> f = FailedLogins(limit=2, window=60, clock=lambda: t[0])
    >>> f.failed("10.0.0.9"); f.failed("10.0.0.9"); f.wait("10.0.0.9"), f.wait("10.0.0.8")
    (60, 0)
    >>> t[0] = 59.5; f.wait("10.0.0.9")
    1
    """

    def __init__(self, limit: int = 20, window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic, addresses: int = 10_000) -> None:
        self.limit, self.window, self.clock, self.addresses = limit, window, clock, addresses
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def wait(self, address: str) -> int:
        """Seconds ``address`` must wait before it may try again (0: it may)."""
        with self._lock:
            times = self._seen.get(address)
            if times is None:
                return 0
            now = self.clock()
            while times and times[0] <= now - self.window:
                times.popleft()
            if not times:
                del self._seen[address]
                return 0
            if len(times) < self.limit:
                return 0
            return max(1, int(-(-(times[0] + self.window - now) // 1)))

    def failed(self, address: str) -> None:
        """Count a failed authentication of ``address``."""
        with self._lock:
            times = self._seen.pop(address, None) or deque(maxlen=self.limit)
            times.append(self.clock())
            self._seen[address] = times
            while len(self._seen) > self.addresses:
                self._seen.popitem(last=False)


_FAILED_LOCK = threading.Lock()


def failed_logins(request: Request) -> FailedLogins:
    """The app's count of failed authentications (``app.state.failed_logins``, made on first
    use with the defaults)."""
    st = request.app.state
    with _FAILED_LOCK:
        f: FailedLogins | None = getattr(st, "failed_logins", None)
        if f is None:
            f = st.failed_logins = FailedLogins()
    return f


def client_address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


def _check(request: Request, token: str | None) -> Principal:
    svc = service(request)
    guard, address = failed_logins(request), client_address(request)
    wait = guard.wait(address)
    if wait:
        raise ApiError(429, "too_many_failures", f"too many failed authentications from this "
                       f"address ({guard.limit} within {guard.window:g} s): try again in "
                       f"{wait} s", headers={"Retry-After": str(wait)}, retry_after=wait)
    if not token:
        raise ApiError(401, "no_token", "no token: send the header 'Authorization: Bearer <token>'")
    if not svc.tokens.well_formed(token):
        guard.failed(address)
        raise ApiError(401, "bad_token", "this is not a jaslog token: a token reads "
                       "jl_<8 hex digits>_<secret>; was it cut short when copied?")
    try:
        who = svc.tokens.authenticate(token)
    except TokenRefused as e:
        if e.guess:
            guard.failed(address)
        raise ApiError(401, e.code, e.message) from None
    if who.tournament is not None:
        from jaslog.service.tournaments import Tournaments

        if Tournaments(svc).over(who.tournament):
            raise ApiError(401, "token_expired", f"the token was issued for tournament "
                           f"{who.tournament}, which is over: its tokens ended with it")
    return who


def _from_memory(request: Request, token: str | None) -> Principal | None:
    """The holder of ``token`` when the service has it in memory (checked in this revocation
    generation, not expired, no tournament to ask about) and the address is not locked out:
    no database read, no worker thread. None: check it with :func:`_check`."""
    if not token:
        return None
    who = service(request).tokens.remembered(token)
    if who is None or who.tournament is not None:
        return None
    if failed_logins(request).wait(client_address(request)):
        return None
    return who


async def checked_principal(request: Request, token: str | None) -> Principal:
    """The holder of ``token``: from memory on the event loop when the service has it
    (:meth:`jaslog.service.auth.Tokens.remembered`), else checked against the database in a
    worker thread (:func:`_check`)."""
    who = _from_memory(request, token)
    if who is not None:
        return who
    return await anyio.to_thread.run_sync(_check, request, token)


async def principal(request: Request,
                    creds: HTTPAuthorizationCredentials | None = Depends(bearer)) -> Principal:
    """The caller, from ``Authorization: Bearer <token>`` (the one the request gate already
    checked, when it did: a token is checked once a request)."""
    gated = request.scope.get(PRINCIPAL)
    if isinstance(gated, Principal):
        return gated
    return await checked_principal(request, creds.credentials if creds is not None else None)


async def stream_principal(
    request: Request,
    creds: HTTPAuthorizationCredentials | None = Depends(bearer),
    access_token: str | None = Query(None, max_length=200,
                                     description="the token, for clients that cannot send "
                                                 "headers (a browser's EventSource)"),
) -> Principal:
    """The caller of a stream: the header, or ``?access_token=``."""
    token = creds.credentials if creds is not None else access_token
    return await checked_principal(request, token)


def require(who: Principal, *roles: str, what: str) -> None:
    if who.role not in roles:
        raise ApiError(403, "forbidden", f"a {who.role} token may not {what} "
                       f"(allowed: {', '.join(roles)})", role=who.role)


class Roles:
    """The roles that may call a route at all, declared on it as a dependency:
    ``dependencies=[Depends(Roles("admin", "scorer", what="create games"))]``. The request
    gate (:class:`jaslog.service.app.RequestGate`) checks it before a byte of the body is
    read, so a token that may not call the route never makes the service read or parse a
    body; as a dependency it is checked again, as :func:`require` would. What a role may
    do within a route (its own table, its own tournament) the route checks itself.

    >>> from jaslog.service.auth import Principal
    >>> r = Roles("admin", "scorer", what="create games")
    >>> r.refusal(Principal("p", "public")).body()["message"]
    'a public token may not create games (allowed: admin, scorer)'
    >>> r.refusal(Principal("s", "scorer", "1")) is None
    True
    """

    def __init__(self, *roles: str, what: str) -> None:
        self.roles, self.what = roles, what

    def refusal(self, who: Principal) -> ApiError | None:
        """The 403 of ``who`` (None: its role may call the route)."""
        try:
            require(who, *self.roles, what=self.what)
        except ApiError as e:
            return e
        return None

    async def __call__(self, who: Principal = Depends(principal)) -> None:
        refused = self.refusal(who)
        if refused is not None:
            raise refused


class LoopLimiter:
    """An :class:`anyio.CapacityLimiter` of ``tokens`` for each event loop that asks for one
    (a limiter belongs to the loop it was made in)."""

    def __init__(self, tokens: int) -> None:
        self.tokens = tokens
        self._made: tuple[asyncio.AbstractEventLoop, anyio.CapacityLimiter] | None = None
        self._lock = threading.Lock()

    def get(self) -> anyio.CapacityLimiter:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._made is None or self._made[0] is not loop:
                self._made = (loop, anyio.CapacityLimiter(self.tokens))
            return self._made[1]


#: A body from this size up is parsed in a worker thread, not on the event loop (a batch of
#: a whole game is under 100 KB; the parse of a few KB takes microseconds).
LARGE_BODY = 64 << 10
#: How many large bodies are parsed at once (the others wait their turn: a few MiB of
#: small JSON objects parse into hundreds of MB).
LARGE_PARSES = LoopLimiter(2)


#: The largest request body the service reads (4 MiB). The largest real batch, a whole game
#: sent at once, is under 100 KB even pretty-printed; the largest a batch may be, 5000 deals
#: (the longest events of a game), about 1.3 MB; the longest event a log may hold is 1 MiB
#: (:data:`jaslog.events.limits.MAX_LINE`). A larger body is 413 ``body_too_large``, read no
#: further.
MAX_BODY = 4 << 20
#: The methods whose requests carry a body.
BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: The key of a request's scope under which the request gate leaves the token's holder.
PRINCIPAL = "jaslog.principal"
#: A route's own, smaller, body limit, in its OpenAPI operation (``openapi_extra``): a
#: route that every token may call and whose bodies are small (an oracle query) reads no
#: more than that, so no token makes the service parse megabytes of JSON it never needs.
MAX_BODY_KEY = "x-max-body"
#: The body limit of the routes whose bodies are a few fields (an oracle query: under 2 KB).
SMALL_BODY = 64 << 10


def small_body() -> dict[str, Any]:
    """The ``openapi_extra`` of a route whose body is small (:data:`SMALL_BODY`)."""
    return {MAX_BODY_KEY: SMALL_BODY}


def too_large(size: int | None, limit: int = MAX_BODY) -> JSONResponse:
    """The 413 of a body of ``size`` bytes (None: found larger as it streamed in) where the
    route reads at most ``limit``."""
    said = f"is {size} bytes" if size is not None else "is larger than that"
    what = ("(4 MiB) a request: send the events of a game in batches (a batch holds at most "
            "5000 events)") if limit == MAX_BODY else "at this route"
    return JSONResponse({"code": "body_too_large", "message": (
        f"the request body {said}; the service reads at most {limit} bytes {what}"),
        "limit": limit}, status_code=413)


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes | None:
    """The request's body, read up to ``limit`` bytes (None: it is larger, read no
    further)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def route_refusal(route: APIRoute, who: Principal) -> ApiError | None:
    """The 403 of the roles ``route`` declares (:class:`Roles`) for ``who`` (None: its
    role may call it)."""
    for dep in route.dependant.dependencies:
        if isinstance(dep.call, Roles):
            refused = dep.call.refusal(who)
            if refused is not None:
                return refused
    return None


class OffLoopJson(Request):
    """A request whose JSON body, when large (:data:`LARGE_BODY`), is parsed in a worker
    thread, a few at a time (:data:`LARGE_PARSES`), so the event loop goes on answering."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            if len(body) < LARGE_BODY:
                self._json = json.loads(body)
            else:
                self._json = await anyio.to_thread.run_sync(partial(json.loads, body),
                                                            limiter=LARGE_PARSES.get())
        return self._json


class OffLoopRoute(APIRoute):
    """The routes of the routers that read a body. Before a byte of it is read, the roles
    the route declares (:class:`Roles`) are checked against the token the request gate let
    through (403); then the body is read up to the route's limit (:data:`MAX_BODY`, or its
    own :data:`MAX_BODY_KEY`; 413 past it, read no further), and its JSON parsed as
    :class:`OffLoopJson` parses it: a large one in a worker thread."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            who = request.scope.get(PRINCIPAL)
            if isinstance(who, Principal):
                refused = route_refusal(self, who)
                if refused is not None:
                    return JSONResponse(refused.body(), status_code=refused.status)
            inner = OffLoopJson(request.scope, request.receive)
            if request.method in BODY_METHODS:
                limit = int((self.openapi_extra or {}).get(MAX_BODY_KEY, MAX_BODY))
                length = request.headers.get("content-length", "")
                if length.isdigit() and int(length) > limit:
                    return too_large(int(length), limit)
                try:
                    body = await read_body(request, limit)
                except ClientDisconnect:
                    body = b""
                if body is None:
                    return too_large(None, limit)
                # kept where a reader of this request finds it (the error handlers too)
                request._body = inner._body = body
            return await handler(inner)

        return route


#: how often (seconds) an idle stream checks that its token has not been revoked; a stream
#: checks before it sends anything new in any case
REVOKE_CHECK_S = 5.0
#: what a stream sends when its token is revoked while it is open (and then it ends)
REVOKED: dict[str, str] = {"event": "revoked", "data": json.dumps(
    {"code": "bad_token", "message": "the token is unknown or has been revoked"},
    separators=(",", ":"))}


class RevocationWatch:
    """A stream's watch over its token: :meth:`revoked` says, before anything new is sent
    and every :data:`REVOKE_CHECK_S` seconds when idle, whether the token no longer holds."""

    def __init__(self, live: Callable[[str], bool], token_id: str) -> None:
        self.live, self.token_id, self.checked = live, token_id, time.monotonic()

    async def revoked(self, sending: bool) -> bool:
        if not sending and time.monotonic() - self.checked < REVOKE_CHECK_S:
            return False
        self.checked = time.monotonic()
        return not await anyio.to_thread.run_sync(self.live, self.token_id)
