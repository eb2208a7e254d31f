"""Runs: the run manifest (``results/run.json``), the per-run columnar store
(``results/runs/<run id>.parquet``) and the comparison of two runs (``satdoku compare``).

duckdb and pyarrow are imported inside the functions that use them.
"""
