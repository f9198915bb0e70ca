"""The commands on a real Dask cluster (``--cluster``)."""
