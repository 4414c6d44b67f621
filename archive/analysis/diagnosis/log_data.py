"""What every detector reads, loaded once per log: its columns, facts and header."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...kernel.clock import LogClock, log_clock
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


# The queries are written out, not formatted from FIELDS, so that no SQL is
# pasted together and the simulator's warnings need no sqlglot;
# tests/archive/analysis/diagnosis/test_log_data.py holds them to FIELDS.
JOBS = ("SELECT line_no, job, submit, wait, run, procs, cpu, mem, req_procs, req_time, req_mem, status, user_id, "
        "group_id, app_id, queue_id, partition_id, prev_job, think FROM jobs WHERE log_id = ?")


def load(archive: Archive, name: str) -> LogData:
    """The log's data in three queries."""
    log_id = archive.log_id(name)
    jobs = archive.con.execute(JOBS, [log_id]).fetchnumpy()
    header = [row[0] for row in archive.con.execute(
        "SELECT text FROM header_lines WHERE log_id = ? ORDER BY seq", [log_id]).fetchall()]
    columns = {k: np.asarray(v) for k, v in jobs.items()}
    line_no = columns["line_no"]
    if len(line_no) > 1 and not (np.diff(line_no) > 0).all():  # stored out of file order: put it back
        order = np.argsort(line_no, kind="stable")
        columns = {k: v[order] for k, v in columns.items()}
    return LogData(name, columns, log_facts(archive, name), header)


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
