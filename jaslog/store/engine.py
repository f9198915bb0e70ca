"""Where the store lives: URL resolution and engines (SQLite pragmas, write transactions)."""

from __future__ import annotations

import os
from pathlib import Path

ENV = "JASLOG_DB"


def default_url() -> str:
    """``$JASLOG_DB``, else an SQLite file in the platform's user data folder."""
    env = os.environ.get(ENV)
    if env:
        return resolve_url(env)
    from platformdirs import user_data_dir

    return resolve_url(str(Path(user_data_dir("jaslog")) / "jaslog.sqlite"))


def resolve_url(url: str | None) -> str:
    """A path or URL as an SQLAlchemy URL (PostgreSQL through psycopg 3)."""
    if url is None:
        return default_url()
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if "://" in url:
        return url
    return "sqlite:///" + str(Path(url).expanduser().resolve())
