"""The FastAPI application: routes, errors as JSON, the web viewer's files."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from jaslog import __version__
from jaslog.service import api_admin, api_games, api_stats, api_tournaments
from jaslog.service.core import Service
from jaslog.service.deps import ApiError, pattern_sentence
from jaslog.store.clock import Clock

STATIC = Path(__file__).resolve().parent / "static"
#: Swagger UI's script and style sheet, as the ``fastapi-offline`` package ships them: the
#: docs page loads nothing from another host (a club's network may have no internet).
DOCS_ASSETS = Path(str(files("fastapi_offline") / "static"))

DESCRIPTION = """\
Live recording, per-seat views, tournaments and replays of Klaverjas games.

Every request needs a token (`Authorization: Bearer jl_...`; `POST /api/tokens`). Errors
are JSON objects with a stable `code` and a `message` sentence: **401** no or a bad token,
**403** the role may not, **404** no such game, **409** a conflict (`expected` and `actual`
seq), **422** a refusal (the rule `code`, and `seq`, `seat`, `card` when the rules refused).
"""


def _loc(err: dict[str, Any]) -> str:
    return ".".join(str(x) for x in err.get("loc", ()) if x not in ("body", "query", "path"))


def _said(err: dict[str, Any]) -> str:
    """What a request validation error says; a pattern the input fails is put in words."""
    if err.get("type") == "string_pattern_mismatch":
        return pattern_sentence(err.get("input"), str((err.get("ctx") or {}).get("pattern", "")))
    return str(err.get("msg", "invalid"))


def create_app(url: str | None = None, *, service: Service | None = None,
               clock: Clock | None = None) -> FastAPI:
    """The service on the store at ``url`` (a path or database URL; None: the default store).

    ``clock`` (default: the system's) is the service's own clock, ``app.state.clock``: it
    stamps every event's ``recorded_at`` and times whatever the service times. With a
    ``service`` given, its clock is the app's (``clock`` may not differ from it).
    """
    if service is not None and clock is not None and clock is not service.clock:
        raise ValueError("create_app: the clock is the service's (Service(url, clock=...))")
    svc = service or Service(url, clock=clock)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        svc.close()

    app = FastAPI(title="jaslog", version=__version__, description=DESCRIPTION,
                  openapi_url="/openapi.json", docs_url=None, redoc_url=None,
                  lifespan=lifespan)
    app.state.service = svc
    app.state.clock = svc.clock
    app.add_middleware(GZipMiddleware, minimum_size=2000)

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, e: ApiError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if e.status == 401 else None
        return JSONResponse(e.body(), status_code=e.status, headers=headers)

    async def _not_utf8(request: Request) -> str | None:
        """Why the body is not UTF-8, or None (it is, or cannot be read again)."""
        try:
            (await request.body()).decode("utf-8")
        except UnicodeDecodeError as u:
            return (f"the request body is not UTF-8 (byte 0x{u.object[u.start]:02x} at "
                    f"{u.start}): send JSON in UTF-8")
        except (RuntimeError, ClientDisconnect):  # the body was streamed away: nothing more to say
            return None
        return None

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, e: RequestValidationError) -> JSONResponse:
        errs = e.errors()
        first = errs[0] if errs else {}
        where = _loc(first)
        if first.get("type") == "json_invalid" and (why := await _not_utf8(request)):
            return JSONResponse({"code": "bad_body", "message": why}, status_code=400)
        if first.get("type") == "json_invalid":
            why = (first.get("ctx") or {}).get("error", "invalid")
            msg = f"the body is not valid JSON: {why} (at character {where or 0})"
        elif where:
            text = _said(first).removeprefix("Value error, ")
            msg = text if text.startswith(where) else f"{where}: {text}"
        else:
            msg = f"the body: {first.get('msg', 'invalid')}"
        detail = [{"loc": [str(x) for x in er.get("loc", ())], "message": _said(er)}
                  for er in errs[:20]]
        return JSONResponse({"code": "bad_request", "message": msg, "errors": detail},
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, e: StarletteHTTPException) -> JSONResponse:
        code = {400: "bad_body", 404: "not_found", 405: "method_not_allowed"}.get(
            e.status_code, "http_error")
        msg = str(e.detail)
        if e.status_code == 400:
            msg = (await _not_utf8(request)
                   or f"the request body cannot be read as JSON: {msg.rstrip('.').lower()} "
                      "(is it nested too deeply?)")
        return JSONResponse({"code": code, "message": msg}, status_code=e.status_code,
                            headers=getattr(e, "headers", None))

    app.include_router(api_games.router)
    app.include_router(api_admin.router)
    app.include_router(api_tournaments.router)
    app.include_router(api_stats.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.mount("/docs-assets", StaticFiles(directory=DOCS_ASSETS), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs(request: Request) -> HTMLResponse:
        """Swagger UI, every file from this server (no CDN, no online validator)."""
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}/openapi.json", title="jaslog - API",
            swagger_js_url=f"{root}/docs-assets/swagger-ui-bundle.js",
            swagger_css_url=f"{root}/docs-assets/swagger-ui.css",
            swagger_favicon_url=f"{root}/static/favicon.svg", oauth2_redirect_url=None,
            swagger_ui_parameters={"validatorUrl": None})

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    return app
