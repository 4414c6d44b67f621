"""Sentinel values: numbers a converter wrote for "no value" that read as
real ones, such as 4294967294 s (a 32-bit -2 read as unsigned) for a time
limit, or a field's largest integer. A simulation takes them at face value.
"""
from __future__ import annotations

import numpy as np

from .finding import Finding, share
from .log_data import LogData, extremes

# The fields a sentinel can hide in, as the report names them.
NAMES = {
    "submit": "submit time", "wait": "wait time", "run": "run time", "procs": "allocated processors",
    "cpu": "CPU time", "mem": "used memory", "req_procs": "requested processors", "req_time": "requested time",
    "req_mem": "requested memory", "status": "status", "user_id": "user", "group_id": "group",
    "app_id": "application", "queue_id": "queue", "partition_id": "partition", "prev_job": "preceding job",
    "think": "think time",
}
# Fields no real value of which is below -1 (times may be negative by clock skew).
NEVER_NEGATIVE = {"procs", "mem", "req_procs", "req_time", "req_mem", "user_id", "group_id", "app_id",
                  "queue_id", "partition_id", "prev_job", "think"}
WRAPS = {31: "2^31", 32: "2^32", 63: "2^63", 64: "2^64"}


def detect(log: LogData, margin: int = 64) -> list[Finding]:
    """One finding per field holding values within `margin` below 2^31, 2^32,
    2^63 or 2^64 (the largest integers and small negatives read as unsigned),
    or below -1 where a field cannot be negative."""
    findings = []
    ranges = extremes(log, list(NAMES))
    for field, label in NAMES.items():
        lo, hi = ranges[field]
        # a column is read only when its range allows a hit (a NaN range: read it)
        if hi < 2.0 ** 31 - margin and not (field in NEVER_NEGATIVE and not lo >= -1):
            continue
        values = log.jobs[field].astype(np.float64)
        hits = np.zeros(len(values), dtype=bool)
        forms = []
        for bits, power in WRAPS.items():
            top = float(2 ** bits)
            near = (values >= top - margin) & (values <= top)
            if near.any():
                hits |= near
                forms += [_form(v, top, power) for v in np.unique(values[near])]
        if field in NEVER_NEGATIVE:
            below = values < -1
            if below.any():
                hits |= below
                forms += [f"{v:g}" for v in np.unique(values[below])[:3]]
        if hits.any():
            findings.append(_finding(log, field, label, hits, forms))
    return findings


def _form(value: float, top: float, power: str) -> str:
    gap = int(top - value)
    if gap == 1:
        return f"{value:.0f} ({power} - 1, the largest {'signed ' if power in ('2^31', '2^63') else ''}integer)"
    return f"{value:.0f} ({power} - {gap}, a -{gap} read as unsigned)" if power in ("2^32", "2^64") \
        else f"{value:.0f} ({power} - {gap})"


def _finding(log: LogData, field: str, label: str, hits: np.ndarray, forms: list[str]) -> Finding:
    jobs = log.jobs["job"][hits]
    lines = log.jobs["line_no"][hits]
    count = int(hits.sum())
    return Finding(
        detector="sentinels",
        what=f"sentinel value in {label} (field {field})",
        where=f"{count:,} job{'s' if count != 1 else ''}, lines {int(lines.min())}-{int(lines.max())}, "
              f"value {', '.join(forms[:3])}",
        how_much=f"{share(count, len(log))} of the jobs",
        action=f"Read it as unknown (-1), not as a value: a study of {label} leaves these jobs out "
               f"(--exclude \"{field} {_condition(log.jobs[field][hits])}\")",
        data={"field": field, "jobs": count, "values": sorted({float(v) for v in log.jobs[field][hits]}),
              "first_job": int(jobs[0]), "lines": [int(lines.min()), int(lines.max())]},
    )


def _condition(values: np.ndarray) -> str:
    low = float(values.min())
    return "< -1" if low < -1 else f">= {low:.0f}"
