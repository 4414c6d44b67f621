"""Each log's figures (jobs, first and last submit, users, processor-seconds,
first and last end), kept in `log_figures` when its jobs are stored.

A log's jobs never change once stored (a version is a log of its own), so
its figures are computed once, by the view `job_figures` (schema/figures.sql),
and the catalog reads one row per log instead of aggregating every job of
the archive at each `wla ls`.
"""
from __future__ import annotations

import duckdb

TABLE = "log_figures"


def keep_figures(con: duckdb.DuckDBPyConnection, log_id: int) -> None:
    """Compute and keep the figures of a log whose jobs were just stored
    (inside the caller's transaction)."""
    con.execute("DELETE FROM log_figures WHERE log_id = ?", [log_id])
    con.execute("INSERT INTO log_figures SELECT * FROM job_figures WHERE log_id = ?", [log_id])


def keep_all_figures(con: duckdb.DuckDBPyConnection) -> None:
    """The figures of every log, computed again (a migration)."""
    con.execute("DELETE FROM log_figures")
    con.execute("INSERT INTO log_figures SELECT * FROM job_figures")
