"""The jaslog service: HTTP API for live recording, per-seat views, tournaments, replays.

``jaslog serve`` runs :func:`create_app` under uvicorn. The layers it uses: the store for
every read and write of games, :mod:`jaslog.play.views` for what each token may see, the audit
and the oracle for answers; its own tables hold tokens and tournaments.
"""

from jaslog.service.app import create_app
from jaslog.service.core import Service

__all__ = ["Service", "create_app"]
