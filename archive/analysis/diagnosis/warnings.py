"""The one-line warnings simulate, resample, stats and validate print for a
log whose arrivals are start times or whose run times are not dedicated:
the two detectors run over the few columns they read (one query, no sort)
and the header, so a command pays milliseconds, not a diagnosis. A version
keeps its log's header and jobs, so it inherits the warning; a resampled log
has only its source's (its jobs keep their waits in the log, so the
processors they would hold together say nothing of its machine)."""
from __future__ import annotations

import numpy as np

from ...store.catalog import log_facts
from ...store.file import Archive
from . import non_dedicated, start_arrivals
from .finding import Finding
from .log_data import FIELDS, LogData

READ = ("job", "submit", "wait", "run", "procs", "cpu", "queue_id")
# READ's columns, in no order (the detectors it runs need none).
COLUMNS = "SELECT job, submit, wait, run, procs, cpu, queue_id FROM jobs WHERE log_id = ?"


def log_warnings(archive: Archive, name: str) -> list[str]:
    """One line per warning about the log (or version, or resampled log) `name`."""
    facts = log_facts(archive, name)
    source = facts.get("source_log_id")
    if facts.get("kind") == "resampled" and source is not None:
        # its waits are its source's, beside other users' jobs: no schedule
        # to judge, only what its jobs bring from the log
        [(parent,)] = archive.con.execute("SELECT name FROM logs WHERE log_id = ?", [source]).fetchall()
        return [f"{name}: resampled from {line}" for line in log_warnings(archive, parent)]
    return [f"{name}: {warning_line(f)}" for f in findings(_read(archive, facts))]


def findings(log: LogData) -> list[Finding]:
    """The findings a command warns about, with the detectors' default thresholds."""
    return start_arrivals.detect(log) + non_dedicated.detect(log)


def warning_line(finding: Finding) -> str:
    """The finding as one line: what, on what evidence, what it spoils."""
    evidence = " and ".join(finding.data["sources"])
    if finding.detector == "start_arrivals":
        return f"arrival times are start times ({evidence}): its arrivals, waits and slowdowns cannot be studied"
    jobs = f": {finding.data['jobs']:,} jobs" if "jobs" in finding.data else ""
    return f"run times on non-dedicated processors ({evidence}{jobs}): a simulation takes them as dedicated"


def _read(archive: Archive, facts: dict) -> LogData:
    log_id = facts["log_id"]
    cols = archive.con.execute(COLUMNS, [log_id]).fetchnumpy()
    jobs = {f: np.asarray(cols[f]) for f in READ}
    n = len(jobs["job"])
    jobs.update({f: np.full(n, -1) for f in FIELDS if f not in jobs})
    jobs["line_no"] = np.arange(1, n + 1)  # not read: no finding line of a warning names lines
    header = [row[0] for row in archive.con.execute(
        "SELECT text FROM header_lines WHERE log_id = ? ORDER BY seq", [log_id]).fetchall()]
    return LogData(facts["name"], jobs, facts, header)
