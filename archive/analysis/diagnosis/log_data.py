"""What every detector reads, loaded once per log: its columns, facts and header."""
from __future__ import annotations

from dataclasses import dataclass, field

import duckdb
import numpy as np

from ...kernel.clock import LogClock, log_clock
from ...kernel.errors import WlaError
from ...store.catalog import log_facts
from ...store.file import Archive

FIELDS = ["job", "submit", "wait", "run", "procs", "cpu", "mem", "req_procs", "req_time", "req_mem",
          "status", "user_id", "group_id", "app_id", "queue_id", "partition_id", "prev_job", "think"]


@dataclass
class LogData:
    """A log's jobs as numpy columns in file order (`line_no` and FIELDS, -1
    as written), its row of facts (machine_size, unix_start_time, tz, ...) and
    its header lines' text: detectors are plain functions of this, so a test
    builds one from a few hand-made jobs without an archive."""

    name: str
    jobs: dict[str, np.ndarray]
    facts: dict
    header: list[str]
    kept: dict = field(default_factory=dict, repr=False, compare=False)  # what several detectors compute alike

    @property
    def clock(self) -> LogClock:
        return log_clock(self.facts.get("unix_start_time"), self.facts.get("tz"))

    def __len__(self) -> int:
        return len(self.jobs["job"])


# What a log's reading starts with: the columns the detectors read on every
# log (the sentinels' excepted, which read a column only when its range
# allows a sentinel: Columns.extremes). Written out, not formatted, so the
# simulator's warnings need no sqlglot; tests/archive/analysis/diagnosis/
# test_log_data.py holds the query to FIRST.
FIRST = ["line_no", "job", "submit", "wait", "run", "procs", "cpu", "req_procs", "user_id", "app_id", "queue_id"]
JOBS = ("SELECT line_no, job, submit, wait, run, procs, cpu, req_procs, user_id, app_id, queue_id "
        "FROM jobs WHERE log_id = ?")


class Columns(dict):
    """A stored log's columns: those of FIRST, and any other field of FIELDS
    read when first asked for, in the same (file) order. Reading every field
    of every log cost the diagnosis more than most detectors."""

    def __init__(self, archive: Archive, log_id: int, columns: dict[str, np.ndarray]):
        super().__init__(columns)
        self._con, self._log_id = archive.con, log_id

    def __missing__(self, field: str) -> np.ndarray:
        if field not in FIELDS:
            raise KeyError(field)
        from sqlglot import exp

        from ...kernel.statements import text

        query = exp.select("line_no", exp.column(field)).from_("jobs").where("log_id = ?")
        try:
            read = self._con.execute(text(query), [self._log_id]).fetchnumpy()
        except duckdb.ConnectionException as e:
            raise WlaError(f"field {field} of the log was asked for after its archive was closed") from e
        line_no, values = np.asarray(read["line_no"]), np.asarray(read[field])
        if not np.array_equal(line_no, self["line_no"]):  # another order than the first read: put it back
            values = values[np.argsort(line_no, kind="stable")]
        self[field] = values
        return values

    def extremes(self, fields: list[str]) -> dict[str, tuple[float, float]]:
        """Each field's least and largest value (NaN when the log is empty),
        from the column when read, else from one aggregate query."""
        out = {f: _extremes(self[f]) for f in fields if dict.__contains__(self, f)}
        unread = [f for f in fields if f not in out]
        if unread:
            from sqlglot import exp

            from ...kernel.statements import text

            query = exp.select(*(exp.func(fn, exp.column(f)) for f in unread for fn in ("min", "max"))
                               ).from_("jobs").where("log_id = ?")
            row = self._con.execute(text(query), [self._log_id]).fetchone()
            for k, f in enumerate(unread):
                lo, hi = row[2 * k], row[2 * k + 1]
                out[f] = (float("nan") if lo is None else float(lo), float("nan") if hi is None else float(hi))
        return out


def extremes(log: LogData, fields: list[str]) -> dict[str, tuple[float, float]]:
    """Each field's least and largest value, read as cheaply as the log allows."""
    if isinstance(log.jobs, Columns):
        return log.jobs.extremes(fields)
    return {f: _extremes(log.jobs[f]) for f in fields}


def _extremes(values: np.ndarray) -> tuple[float, float]:
    if len(values) == 0:
        return float("nan"), float("nan")
    return float(np.min(values)), float(np.max(values))


def load(archive: Archive, name: str) -> LogData:
    """The log's data in three queries, and a query for each other column asked for."""
    log_id = archive.log_id(name)
    jobs = archive.con.execute(JOBS, [log_id]).fetchnumpy()
    header = [row[0] for row in archive.con.execute(
        "SELECT text FROM header_lines WHERE log_id = ? ORDER BY seq", [log_id]).fetchall()]
    columns = {k: np.asarray(v) for k, v in jobs.items()}
    line_no = columns["line_no"]
    if len(line_no) > 1 and not (np.diff(line_no) > 0).all():  # stored out of file order: put it back
        order = np.argsort(line_no, kind="stable")
        columns = {k: v[order] for k, v in columns.items()}
    return LogData(name, Columns(archive, log_id, columns), log_facts(archive, name), header)


def of_frame(name: str, jobs, facts: dict, header: list[str]) -> LogData:
    """A log already read as a DataFrame (`analysis.jobs.log_jobs`: line_no
    and the fields, file order), for a caller that holds it: no second read."""
    return LogData(name, {c: jobs[c].to_numpy() for c in ("line_no", *FIELDS)}, facts, list(header))


def from_columns(name: str, columns: dict, facts: dict | None = None, header: list[str] | None = None) -> LogData:
    """A log made in memory: missing fields are -1, line numbers count from 1."""
    n = len(next(iter(columns.values())))
    jobs = {"line_no": np.arange(1, n + 1)}
    for f in FIELDS:
        default = np.arange(1, n + 1) if f == "job" else np.full(n, -1)
        jobs[f] = np.asarray(columns.get(f, default), dtype=np.float64 if f in _FLOAT else np.int64)
    return LogData(name, jobs, {"name": name, "machine_size": None, "unix_start_time": None, "tz": None,
                                **(facts or {})}, list(header or []))


_FLOAT = {"submit", "wait", "run", "cpu", "mem", "req_time", "req_mem", "think"}
