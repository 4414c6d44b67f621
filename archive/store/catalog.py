"""The catalog: what logs the archive holds, and the facts a user may set."""
from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb
import numpy as np

from ..kernel.errors import UsageError
from ..kernel.names import for_shell
from ..kernel.ranges import MAX_PROCESSORS, whole
from ..swf.instants import inside, job_problem, out_of_range, outside
from .file import Archive
from .listing import LS_QUERY

if TYPE_CHECKING:
    import pandas as pd


def catalog(archive: Archive) -> pd.DataFrame:
    """One row per log, like the Parallel Workloads Archive's own table: each
    original, followed by its versions (by version name), so that a reader
    sees which rows hold the same jobs again. `wla ls` reads the same rows
    without pandas (listing.py)."""
    return archive.df(LS_QUERY)


def log_info(archive: Archive, name: str) -> dict:
    """Everything the archive knows of one log: file, header, figures."""
    log_id = archive.log_id(name)
    row = archive.df("SELECT * FROM logs WHERE log_id = ?", [log_id]).iloc[0].to_dict()
    summary = archive.df("SELECT * FROM log_summary WHERE log_id = ?", [log_id]).iloc[0].to_dict()
    header = archive.df(
        "SELECT line_no, text, label, value FROM header_lines WHERE log_id = ? ORDER BY seq",
        [log_id],
    )
    return {"log": row, "summary": summary, "header": header}


def log_facts(archive: Archive, name: str) -> dict:
    """The log's row of the logs table, unknown values as None."""
    cursor = archive.con.execute("SELECT * EXCLUDE (ingested_at) FROM logs WHERE log_id = ?",
                                 [archive.log_id(name)])
    row = cursor.fetchall()[0]  # plain Python values, None for NULL: no pandas for a quick command
    return dict(zip((d[0] for d in cursor.description), row))


def machine_size(facts: dict, given: int | None = None, how: str = "give capacity") -> int:
    """The processors to analyse a log on: `given` when given, else the
    log's machine size; a log without one says `how` to give it."""
    if given is not None:  # 0 is refused by the range checks, never taken as "not given"
        return int(given)
    size = facts.get("machine_size")
    if size is None:
        raise UsageError(f"{facts['name']} has no machine size: {how}, "
                         f"or set it with `wla set {for_shell(facts['name'])} max-procs N`")
    return int(size)


# Facts a user may set on a log: name on the command line -> logs column.
SETTABLE = {
    "max-procs": "machine_size",
    "unix-start-time": "unix_start_time",
    "time-zone-string": "tz",
}


def set_fact(archive: Archive, name: str, fact: str, value: str) -> str:
    """Set a fact the header lacks or states wrongly, e.g. the machine size of
    a log whose header was lost. The header lines themselves stay as written."""
    from sqlglot import exp  # a writing command's: not loaded by the readers of log_facts

    from ..kernel.statements import run

    archive.require_writable()
    log_id = archive.log_id(name)
    column = SETTABLE.get(fact)
    if column is None:
        raise UsageError(f"cannot set {fact!r}; settable: {', '.join(SETTABLE)}")
    if column == "tz":
        from .ingest import valid_tz  # not at import: ingest loads numba's SWF reader

        tz = valid_tz(archive.con, value)
        if tz is None:
            raise UsageError(f"unknown time zone {value!r} (use a tz database name such as US/Pacific)")
        with archive.transaction() as con:
            con.execute("UPDATE logs SET tz = ? WHERE log_id = ?", [tz, log_id])
        return f"{name}: time zone set to {tz}"
    try:
        number = int(value)
    except ValueError:
        raise UsageError(f"{fact} takes a whole number, not {value!r}") from None
    if not -(2**63) <= number < 2**63:
        raise UsageError(f"{fact} {value} is outside the 64-bit range")
    with archive.transaction() as con:
        if column == "machine_size":
            whole("max-procs", number, 1, MAX_PROCESSORS)  # what simulate and capacity take
            con.execute("UPDATE logs SET machine_size = ?, machine_size_source = 'set' "
                        "WHERE log_id = ?", [number, log_id])
        else:
            _check_start(con, log_id, number)
            run(con, exp.update("logs", {column: exp.Placeholder()},
                                where=exp.column("log_id").eq(exp.Placeholder())), [number, log_id])
    return f"{name}: {fact} set to {number}"


def _check_start(con: duckdb.DuckDBPyConnection, log_id: int, start: int) -> None:
    """A UnixStartTime that keeps the start itself and every time of every
    job of the log inside the calendar range (instants.py), as ingest
    requires of a header's."""
    if not inside(start):
        raise UsageError(f"unix-start-time {start}: {out_of_range('the start', start)}")
    jobs = con.execute("SELECT line_no, job, submit, wait, run FROM jobs WHERE log_id = ? "
                       "ORDER BY line_no", [log_id]).fetchnumpy()
    bad = np.flatnonzero(outside(jobs["submit"], jobs["wait"], jobs["run"], start))
    if len(bad):
        i = int(bad[0])
        problem = job_problem(float(jobs["submit"][i]), float(jobs["wait"][i]), float(jobs["run"][i]), start)
        more = f" (and {len(bad) - 1:,} more jobs)" if len(bad) > 1 else ""
        raise UsageError(
            f"unix-start-time {start} would put job {int(jobs['job'][i])} (line {int(jobs['line_no'][i])})"
            f"{more} outside the calendar range: its {problem}")
