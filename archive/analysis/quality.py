"""The quality report: what is inconsistent in each log, before any cleaning."""
from __future__ import annotations

import pandas as pd

from ..store.file import Archive

# Counts of the report, in the order of cleaning.md's list.
COUNTS = [
    "missing_submit", "missing_start", "missing_run",
    "zero_procs", "zero_run", "zero_cpu", "zero_mem",
    "negative_wait", "negative_run",
    "run_over_requested", "procs_over_requested", "mem_over_requested",
    "cpu_over_run",
]


def quality(archive: Archive, names: list[str] | None = None) -> pd.DataFrame:
    """One row per log: the inconsistency counts, utilization, users, period,
    the utilization exceptions (count, worst excess, ceiling) and the flurry
    candidates (user-weeks, large ones, dominant users)."""
    ids = [archive.log_id(n) for n in names] if names else None
    where = f"WHERE s.log_id IN ({', '.join(str(i) for i in ids)})" if ids else ""
    counts = ", ".join(f"q.{c}" for c in COUNTS)
    return archive.df(
        f"""
        SELECT
            s.name, s.jobs, {counts},
            s.utilization, s.users,
            s.first_submit_date, s.last_submit_date, s.months,
            s.machine_size, s.machine_size_source,
            e.exceptions,
            e.worst_excess,
            e.ceiling,
            e.peak_at,
            e.ceiling / s.machine_size AS ceiling_share,
            coalesce(f.flurry_weeks, 0) AS flurry_weeks,
            coalesce(f.large_flurry_weeks, 0) AS large_flurry_weeks,
            coalesce(f.dominant_users, 0) AS dominant_users
        FROM log_summary AS s
        JOIN quality_counts AS q USING (log_id)
        LEFT JOIN usage_exceptions AS e USING (log_id)
        LEFT JOIN flurry_counts AS f USING (log_id)
        {where}
        ORDER BY s.name
        """
    )
