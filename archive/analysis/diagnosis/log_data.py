"""What every detector reads, loaded once per log: its columns, facts and header."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

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

    @property
    def clock(self) -> LogClock:
        return log_clock(self.facts.get("unix_start_time"), self.facts.get("tz"))

    def __len__(self) -> int:
        return len(self.jobs["job"])


@cache
def jobs_query(columns: tuple[str, ...] = ("line_no", *FIELDS), ordered: bool = True) -> str:
    """One log's columns (its log_id bound as the one parameter), in file
    order or, when order does not matter, as stored (no sort)."""
    from sqlglot import exp

    query = exp.select(*columns).from_("jobs").where("log_id = ?")
    return (query.order_by("line_no") if ordered else query).sql("duckdb")


def load(archive: Archive, name: str) -> LogData:
    """The log's data in three queries."""
    log_id = archive.log_id(name)
    jobs = archive.con.execute(jobs_query(), [log_id]).fetchnumpy()
    header = [row[0] for row in archive.con.execute(
        "SELECT text FROM header_lines WHERE log_id = ? ORDER BY seq", [log_id]).fetchall()]
    return LogData(name, {k: np.asarray(v) for k, v in jobs.items()}, log_facts(archive, name), header)


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
