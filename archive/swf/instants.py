"""The calendar range every stored time must fall in.

A job's submit, start and end are seconds after its log's UnixStartTime (0
when the header has none). Every later command turns them into dates:
DuckDB's to_timestamp and timezone, pandas (datetime64[us]) and Python's
datetime, the narrowest of the three (years 1 to 9999). A time outside that
range would make every report over the archive fail, so ingest, `wla set`
and `wla convert` refuse it. A day is kept free at the end and eight days at
the start, so the local date in any time zone is still one Python can hold,
and so is the start of the week (of the submit clock) that reports count a
job in.
"""
from __future__ import annotations

import math
from datetime import datetime, timezone

import numpy as np

FIRST_INSTANT = -62134905600  # 0001-01-09 00:00:00 UTC, in Unix seconds
LAST_INSTANT = 253402214400  # 9999-12-31 00:00:00 UTC
RANGE_TEXT = "0001-01-09 to 9999-12-31 UTC"



def outside(submit: np.ndarray, wait: np.ndarray, run: np.ndarray,
            start: int | None = None) -> np.ndarray:
    """Per job (float seconds, -1 for unknown): whether one of its instants
    (see `instants`) falls outside the range."""
    origin = float(start or 0)
    if len(submit):  # every instant lies between these bounds: most logs end here
        low = float(submit.min()) + origin + min(0.0, float(wait.min())) + min(0.0, float(run.min()))
        high = float(submit.max()) + origin + max(0.0, float(wait.max())) + max(0.0, float(run.max()))
        if FIRST_INSTANT + 1 <= low and high <= LAST_INSTANT - 1:  # (a second for rounding)
            return np.zeros(len(submit), dtype=bool)
    s = submit + origin
    w = np.where(wait != -1, wait, 0.0)
    r = np.where(run != -1, run, 0.0)
    bad = np.zeros(len(submit), dtype=bool)
    with np.errstate(invalid="ignore", over="ignore"):  # a damaged line's inf + -inf: no warning
        for t in (s, s + w, (s + w) + r, s + r):
            bad |= (t < FIRST_INSTANT) | (t > LAST_INSTANT)
    return bad & (submit != -1)


def instants(submit, wait, run, start: int = 0) -> list[tuple[str, object]]:
    """A job's instants, named, in the order a message reports them (floats
    or Decimals; -1 is unknown). An unknown wait or run counts as 0, as the
    catalog's end times do and as the cleaning rules that set one unknown
    leave it: so the end without the wait is an instant too. A job without a
    submit time has none."""
    if submit == -1:
        return []
    s = submit + start
    if wait == -1:
        return [("submit time", s), ("end time (submit + run)", s + (run if run != -1 else 0))]
    r = run if run != -1 else 0
    return [("submit time", s), ("start time (submit + wait)", s + wait),
            ("end time (submit + wait + run)", s + wait + r),
            ("end time without the wait (submit + run)", s + r)]


def job_problem(submit, wait, run, start: int | None = None) -> str | None:
    """What is wrong with a job's first instant outside the range, or None."""
    for what, t in instants(submit, wait, run, start or 0):
        if not inside(t):
            return out_of_range(what, float(t))
    return None


def inside(seconds: float) -> bool:
    """Whether Unix seconds `seconds` fall in the range."""
    return FIRST_INSTANT <= seconds <= LAST_INSTANT


def where(seconds: float) -> str:
    """Where an instant falls, for a message: its UTC time when Python can
    show it, else its year."""
    seconds = max(-1e300, min(float(seconds), 1e300))
    try:
        t = datetime.fromtimestamp(seconds, timezone.utc)
    except (OverflowError, OSError, ValueError):
        year = math.floor(1970 + seconds / 31556952)  # (mean Gregorian year)
        return f"in the year {year:,}" if abs(year) < 10**15 else f"in the year {float(year):.3g}"
    fraction = f".{t.microsecond:06d}".rstrip("0") if t.microsecond else ""
    return f"at {t.year:04d}-{t.month:02d}-{t.day:02d} {t:%H:%M:%S}{fraction} UTC"


def out_of_range(what: str, seconds: float) -> str:
    """The problem of an instant outside the range, as a message says it."""
    return f"{what} falls {where(seconds)}, outside the dates the archive can hold ({RANGE_TEXT})"
