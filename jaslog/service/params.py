"""Every API route (under ``/api/``) refuses a query parameter it does not take (422 ``unknown_parameter``),
instead of ignoring it: ``?at=`` on a route without it would otherwise answer as if it had not
been asked. One dependency of the whole app (:func:`refuse_unknown_parameters`) checks the
query against the parameters the route declares, its dependencies' included (a stream's
``access_token``)."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.routing import APIRoute

from jaslog.service.deps import ApiError

#: the query parameters of each route, by the route (worked out once)
_DECLARED: dict[int, frozenset[str]] = {}


def declared(route: APIRoute) -> frozenset[str]:
    """The query parameters ``route`` takes, by the names a URL gives them."""
    known = _DECLARED.get(id(route))
    if known is None:
        names: set[str] = set()
        todo: list[Any] = [route.dependant]
        while todo:
            d = todo.pop()
            names.update(p.alias for p in d.query_params)
            todo.extend(d.dependencies)
        known = _DECLARED[id(route)] = frozenset(names)
    return known


#: what a route may say besides the general sentence (the listing pages with cursor)
HINTS = {"/api/games": " (pages go on with cursor, not offset)"}


async def refuse_unknown_parameters(request: Request) -> None:
    """422 ``unknown_parameter`` when the query names a parameter the route does not take."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute) or not request.query_params \
            or not route.path.startswith("/api/"):
        return  # the pages (/, /docs) leave their address to the browser
    known = declared(route)
    unknown = sorted(set(request.query_params.keys()) - known)
    if unknown:
        takes = f"it takes {', '.join(sorted(known))}" if known else "it takes none"
        method = request.method
        raise ApiError(422, "unknown_parameter", f"{method} {route.path} has no parameter "
                       f"{', '.join(unknown)}; {takes}{HINTS.get(route.path, '')}",
                       parameters=unknown)
