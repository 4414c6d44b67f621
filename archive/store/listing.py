"""The archive's list of logs, as `wla ls` shows it: read from the kept
figures (log_figures) with DuckDB alone, so that listing starts as fast as
DuckDB does (no pandas, numpy or sqlglot); catalog.py gives it as a
DataFrame."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .file import Archive

# What a log is (log_kinds, schema/views.sql), then its figures.
KIND_COLUMNS = ["kind", "original", "version", "converted_from"]
LS_COLUMNS = [
    "name", *KIND_COLUMNS, "first_submit_date", "last_submit_date", "months",
    "machine_size", "users", "jobs", "utilization",
]
# Each original, followed by its versions by version name, then the logs
# resampled from it, each followed by its own versions. A row is listed under
# `grp`: a version under the log it was built from, any other log under itself.
LS_QUERY = ("WITH s AS (SELECT *, CASE WHEN kind = 'version' THEN original ELSE name END AS grp "
            "FROM log_summary) "
            "SELECT s.name, s.kind, s.original, s.version, s.converted_from, s.first_submit_date, "
            "s.last_submit_date, s.months, s.machine_size, s.users, s.jobs, s.utilization "
            "FROM s LEFT JOIN log_summary AS g ON g.name = s.grp "
            "ORDER BY coalesce(g.original, s.grp), s.grp <> coalesce(g.original, s.grp), s.grp, "
            "s.version NULLS FIRST")


@dataclass(frozen=True)
class Listing:
    """Rows of the catalog, as DuckDB returns them (dates as dates, unknown
    values as None)."""

    columns: list[str]
    rows: list[tuple[Any, ...]]

    def to_dict(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row)) for row in self.rows]


def listing(archive: Archive) -> Listing:
    """One row per log, each original followed by its versions."""
    return Listing(LS_COLUMNS, archive.rows(LS_QUERY))
