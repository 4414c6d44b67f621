"""The canonical job selection: a log's jobs, narrowed by predicates in the
archive's notation; every command that reads "the jobs of a log" goes here."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..kernel.clock import LogClock
from ..swf.fields import FIELDS
from .catalog import log_facts
from .file import Archive

if TYPE_CHECKING:
    import numpy as np
    from sqlglot import exp

# A log's jobs as log_select writes them without predicates, the log's id
# bound: constant text, so that reading a whole log needs no sqlglot
# (tests/sim/test_sim_workload.py holds the two to the same rows).
LOG_JOBS = ("SELECT line_no, job, submit, wait, run, procs, cpu, mem, req_procs, req_time, req_mem, status, "
            "user_id, group_id, app_id, queue_id, partition_id, prev_job, think "
            "FROM jobs WHERE log_id = ? ORDER BY line_no")


def log_arrays(archive: Archive, name: str) -> dict[str, np.ndarray]:
    """A whole log's jobs, as log_select returns them, column by column."""
    return archive.arrays(LOG_JOBS, [archive.log_id(name)])


def selection(archive: Archive, name: str, where: str | None = None,
              exclude: str | None = None) -> exp.Expression:
    """The condition picking a log's jobs, narrowed by predicates in the
    archive's notation (built through sqlglot's tree, never pasted)."""
    from sqlglot import exp

    from .predicate import predicate_condition

    cond: exp.Expression = exp.column("log_id").eq(exp.Literal.number(archive.log_id(name)))
    if where is None and exclude is None:
        return cond
    info = log_facts(archive, name)
    clock = LogClock(info["unix_start_time"], info["tz"])
    if where is not None:
        cond = exp.and_(cond, predicate_condition(where, clock), copy=False)
    if exclude is not None:
        cond = exp.and_(cond, exp.not_(predicate_condition(exclude, clock)), copy=False)
    return cond


def log_select(archive: Archive, name: str, where: str | None = None,
               exclude: str | None = None) -> exp.Select:
    """The query that returns a log's jobs as written, in file order."""
    from sqlglot import exp

    return (exp.select("line_no", *(f.column for f in FIELDS)).from_("jobs")
            .where(selection(archive, name, where, exclude), copy=False).order_by("line_no"))


def log_query(archive: Archive, name: str, where: str | None = None, exclude: str | None = None) -> str:
    """log_select as DuckDB SQL."""
    from ..kernel.statements import text

    return text(log_select(archive, name, where, exclude))
