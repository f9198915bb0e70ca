"""Statistics over an exported dataset: the questions (``.sql``), run by DuckDB
(:mod:`~jaslog.stats.analytics`)."""
