"""The quality report: what is inconsistent in each log, before any cleaning."""
from __future__ import annotations

import pandas as pd
from sqlglot import exp

from ..kernel.statements import text
from ..store.file import Archive
from .batching import COLUMNS as BATCHING_COLUMNS
from .batching import batching_frame

# Counts of the report, in the order of docs/pages/definitions/cleaning.md's list.
COUNTS = [
    "missing_submit", "missing_start", "missing_run",
    "zero_procs", "zero_run", "zero_cpu", "zero_mem",
    "negative_wait", "negative_run",
    "run_over_requested", "procs_over_requested", "mem_over_requested",
    "cpu_over_run",
]

# The dependencies (fields 17 and 18): jobs with a preceding job, its share of
# the jobs, those pointing to no job of the log, the think time's distribution.
THINK = ["think_min", "think_q1", "think_median", "think_q3", "think_p90", "think_max"]
DEPENDENCIES = ["with_predecessor", "predecessor_share", "predecessor_missing", *THINK]

# What the experience paper's figures show (the view request_counts, and the
# batching measure of analysis/batching.py): processors against the request,
# zero requested times, the size-runtime correlation, jobs by status with
# failed short ones, and the inter-start gaps a batching scheduler leaves.
REQUESTS = ["procs_and_request", "procs_under_requested", "procs_as_requested", "procs_four_times",
            "zero_req_time", "size_run_correlation"]
STATUSES = ["completed", "failed", "cancelled", "other_status", "failed_within_5s"]
BATCHING = BATCHING_COLUMNS
FIGURE_COUNTS = [*REQUESTS, *STATUSES, *BATCHING]
# The batching ratio from which the report names a log's starts batched.
BATCHING_RATIO = 2.0


def quality(archive: Archive, names: list[str] | None = None, paper_counts: bool = True) -> pd.DataFrame:
    """One row per log: the inconsistency counts, utilization, users, period,
    the utilization exceptions (count, worst excess, ceiling), the flurry
    candidates (user-weeks, large ones, dominant users) and the dependencies
    (DEPENDENCIES: the jobs with a preceding job, the think times) and what the
    experience paper's figures show (FIGURE_COUNTS; without `paper_counts`,
    the report as it was before them, which the diagnosis benchmark times)."""
    ids = [archive.log_id(n) for n in names] if names else None
    query = exp.select(
        "s.log_id", "s.name", "s.jobs", *(exp.column(c, "q") for c in COUNTS),
        "s.utilization", "s.users", "s.first_submit_date", "s.last_submit_date", "s.months",
        "s.machine_size", "s.machine_size_source",
        "e.exceptions", "e.worst_excess", "e.ceiling", "e.peak_at",
        "e.ceiling / s.machine_size AS ceiling_share",
        "coalesce(f.flurry_weeks, 0) AS flurry_weeks",
        "coalesce(f.large_flurry_weeks, 0) AS large_flurry_weeks",
        "coalesce(f.dominant_users, 0) AS dominant_users",
        "d.with_predecessor", "d.with_predecessor / nullif(s.jobs, 0) AS predecessor_share", "d.predecessor_missing",
        *(exp.column(c, "d") for c in THINK),
    ).from_(_part("log_summary", ids).as_("s")).join(_part("quality_counts", ids).as_("q"), using=["log_id"])
    query = (query.join(_part("usage_exceptions", ids).as_("e"), using=["log_id"], join_type="left")
             .join(_part("flurry_counts", ids).as_("f"), using=["log_id"], join_type="left")
             .join(_part("dependency_counts", ids).as_("d"), using=["log_id"], join_type="left")
             .order_by("s.name"))
    if paper_counts:
        query = (query.select(*(exp.column(c, "r") for c in REQUESTS + STATUSES))
                 .join(_part("request_counts", ids).as_("r"), using=["log_id"], join_type="left"))
    frame = archive.df(text(query))
    if paper_counts:
        frame = frame.merge(batching_frame(archive, frame.log_id.tolist()), on="log_id", how="left")
    return frame.drop(columns="log_id")


def _part(view: str, ids: list[int] | None) -> exp.Subquery:
    """The view for the logs asked for: each one filtered on its own, because
    DuckDB does not carry a filter on one side of these joins to the others
    (a whole archive's usage profiles would be computed for one log)."""
    select = exp.select("*").from_(view)
    if ids:
        select = select.where(exp.column("log_id").isin(*ids))
    return select.subquery()
