"""Work spread over many processes or machines: the Dask cluster helpers
(:mod:`~jaslog.batch.cluster`)."""
