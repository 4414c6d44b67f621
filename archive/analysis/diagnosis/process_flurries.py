"""Process flurries: a user-week whose processes (the sum of its jobs'
sizes) or processor-seconds (size times run time) stand far above the
log's weekly average while its job count is no job flurry: a few very
large jobs, which counting jobs (`wla flurries`) does not see, yet which
weigh on a simulation's load as much as a job flurry does.

Weeks are those of `wla flurries` (archive/analysis/flurries.py): week k of
the submit clock, averages over every week from the first to the last with
a known submit time, empty ones included; a job's size is its allocated
processors, else its requested ones. Jobs of unknown users count in the
averages but are never a flurry.
"""
from __future__ import annotations

import numpy as np

from ...kernel.clock import WEEK, local_date
from ...kernel.processors import processors
from .finding import Finding
from .log_data import LogData

MEASURES = {"processes": "processes", "proc_seconds": "processor-seconds"}


def weekly_totals(log: LogData) -> dict:
    """Per (user, week) of known submit time and known user: jobs, processes
    and processor-seconds (each as arrays in key order), the log's weekly
    averages of the three, and the first week."""
    submit, run = log.jobs["submit"], log.jobs["run"]
    known = submit != -1
    size = processors(log.jobs["procs"], log.jobs["req_procs"])
    processes = np.where(np.isnan(size), 0.0, size)[known]
    seconds = np.where((run > 0) & ~np.isnan(size), run * size, 0.0)[known]  # as flurries.py counts them
    week = np.floor(submit[known] / WEEK).astype(np.int64)
    user = log.jobs["user_id"][known].astype(np.int64)
    if len(week) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return {"user": empty, "week": empty, "jobs": empty, "processes": empty.astype(float),
                "proc_seconds": empty.astype(float), "average": {}, "first_week": 0, "weeks": 0}
    first = int(week.min())
    weeks = int(week.max()) - first + 1
    average = {"jobs": len(week) / weeks, "processes": processes.sum() / weeks,
               "proc_seconds": seconds.sum() / weeks}
    mine = user >= 0
    key = user[mine] * weeks + (week[mine] - first)
    keys, index = _distinct(key, (int(user[mine].max()) + 1) * weeks if mine.any() else 0)
    u, w = np.divmod(keys, weeks)
    return {"user": u, "week": w + first, "jobs": np.bincount(index),
            "processes": np.bincount(index, weights=processes[mine], minlength=len(keys)),
            "proc_seconds": np.bincount(index, weights=seconds[mine], minlength=len(keys)),
            "average": average, "first_week": first, "weeks": weeks}


def _distinct(key: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(key, return_inverse=True) of keys in [0, bound): by counting
    when the range is not much larger than the keys, which is linear where
    np.unique sorts."""
    if bound > max(4 * len(key), 1 << 20):
        return np.unique(key, return_inverse=True)
    slot = np.zeros(bound, dtype=np.int64)
    slot[key] = 1
    keys = np.flatnonzero(slot)
    slot[keys] = np.arange(len(keys))
    return keys, slot[key]


def detect(log: LogData, ratio: float = 1.0, job_flurry: float = 1.0) -> list[Finding]:
    """One finding per user whose weeks hold at least `ratio` times the
    average weekly processes or processor-seconds with fewer than
    `job_flurry` times the average weekly jobs (`wla flurries`'s candidate
    threshold, 1.0 by default: such a week is a job flurry and reported
    there). The default `ratio` judges processes as `wla flurries` judges
    jobs: one user's week alone worth an average week of the whole log."""
    t = weekly_totals(log)
    if not t["average"]:
        return []
    avg = t["average"]
    over = {m: (t[m] >= ratio * avg[m]) & (avg[m] > 0) for m in MEASURES}
    hit = (over["processes"] | over["proc_seconds"]) & (t["jobs"] < job_flurry * avg["jobs"])
    findings = []
    for user in np.unique(t["user"][hit]):
        rows = np.flatnonzero(hit & (t["user"] == user))
        findings.append(_finding(log, int(user), rows, t, over))
    return findings


def _finding(log: LogData, user: int, rows: np.ndarray, t: dict, over: dict) -> Finding:
    avg = t["average"]
    weeks = []
    for r in rows:
        week = int(t["week"][r])
        weeks.append({"week": week, "date": local_date(log.clock, week * WEEK), "jobs": int(t["jobs"][r]),
                      "job_ratio": round(t["jobs"][r] / avg["jobs"], 2),
                      "processes_ratio": round(t["processes"][r] / avg["processes"], 2) if avg["processes"] else None,
                      "proc_seconds_ratio": round(t["proc_seconds"][r] / avg["proc_seconds"], 2)
                      if avg["proc_seconds"] else None,
                      "measures": [m for m in MEASURES if over[m][r]]})
    jobs = sum(w["jobs"] for w in weeks)
    top = max(weeks, key=lambda w: max(w["processes_ratio"] or 0, w["proc_seconds_ratio"] or 0))
    named = ", ".join(f"week {w['week']}" + (f" ({w['date']})" if w["date"] else "") for w in weeks[:4])
    more = f" and {len(weeks) - 4} more" if len(weeks) > 4 else ""
    measures = " and ".join(MEASURES[m] for m in MEASURES if any(m in w["measures"] for w in weeks))
    spans = _job_spans(log, user, [w["week"] for w in weeks])
    ranges = [f"job>={a} and job<={b}" for a, b in spans]
    predicate = f"user={user} and " + (ranges[0] if len(ranges) == 1 else f"({' or '.join(ranges)})")
    return Finding(
        detector="process_flurries",
        what=f"process flurry of user {user} ({measures}, not a job flurry)",
        where=f"{named}{more}; jobs {', '.join(f'{a}-{b}' for a, b in spans[:4])}",
        how_much=f"{_worst(top)} the average weekly {_measure(top)} from {top['jobs']:,} jobs "
                 f"({top['job_ratio']:.2f}x the average weekly jobs); {jobs:,} jobs in all",
        action=f"Check them (wla flurries {log.name}); if unrepresentative, --exclude \"{predicate}\"",
        data={"user": user, "weeks": weeks, "jobs": jobs, "predicate": predicate,
              "averages": {k: round(float(v), 2) for k, v in avg.items()}},
    )


def _worst(top: dict) -> str:
    return f"{max(top['processes_ratio'] or 0, top['proc_seconds_ratio'] or 0):.2f}x"


def _measure(top: dict) -> str:
    return "processes" if (top["processes_ratio"] or 0) >= (top["proc_seconds_ratio"] or 0) else "processor-seconds"


def _job_spans(log: LogData, user: int, weeks: list[int]) -> list[tuple[int, int]]:
    """The first and last job number of the user's jobs in each week."""
    submit = log.jobs["submit"]
    mine = (log.jobs["user_id"] == user) & (submit != -1)
    week = np.floor(submit[mine] / WEEK).astype(np.int64)
    numbers = log.jobs["job"][mine]
    return [(int(numbers[week == w].min()), int(numbers[week == w].max())) for w in weeks]
