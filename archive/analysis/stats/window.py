"""A time window of a workload (`wla stats --from/--to`, `--years`): the jobs
submitted in it, as a log of their own, so that a year of a resampled
workload five times the log's length is measured as the log is (the
resampling paper's Fig. 10).

The window is [start, end) on the log's submit clock, cut to the workload's
first and last submit; its jobs' times are then counted from its start (the
clock's start moved with them, so days of the week and hours of the day
stay the calendar's), as if the window were a log whose UnixStartTime is the
window's start.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
from wla.archive.kernel.clock import DAY, LogClock, local_time
from wla.archive.kernel.errors import OptionError, ParameterError, PredicateError, UsageError
from wla.archive.kernel.processors import processors

YEAR = 365 * DAY  # year N of a workload: [first + (N-1) YEAR, first + N YEAR)
MAX_YEAR = 10_000
_NUMBER = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")
_YEARS = re.compile(r"^\s*(\d{1,9})\s*(?::\s*(\d{1,9})\s*)?$")
_FORMS = "a date YYYY-MM-DD or 'YYYY-MM-DD HH:MM[:SS]' (the log's local time) or seconds on the log's clock"


@dataclass(frozen=True)
class Window:
    """The window as asked (`start`, `end`: submit seconds, None when open)
    and in words (`label`)."""

    start: float | None
    end: float | None
    label: str


def instant(value: str | float | int, clock: LogClock, name: str) -> float:
    """Submit seconds of a date in the log's local time (as the rules'
    since/until and `--where submit < '1998-06-01'` take it) or of a number
    of seconds; `name` is the parameter an error names."""
    from wla.archive.store.predicate import submit_seconds

    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str) and _NUMBER.match(value.strip()):
        seconds = float(value.strip())
    elif isinstance(value, str):
        try:
            seconds = float(submit_seconds(value.strip(), clock))
        except PredicateError as e:
            raise OptionError(name, f"takes {_FORMS}: {e}") from None
    else:
        raise OptionError(name, f"takes {_FORMS}, not {value!r}")
    if not math.isfinite(seconds):
        raise OptionError(name, f"takes a finite number of seconds, not {value!r}")
    return seconds


def parse_years(text: str | int) -> tuple[int, int]:
    """'N' or 'A:B' (years A to B, both counted): whole years from 1."""
    m = _YEARS.match(str(text))
    if m is None:
        raise OptionError("years", f"takes N or A:B, whole years counted from 1 (e.g. 3 or 1:2), not {text!r}")
    first, last = int(m[1]), int(m[2] or m[1])
    if not 1 <= first <= MAX_YEAR or not 1 <= last <= MAX_YEAR:
        raise OptionError("years", f"counts years from 1 to {MAX_YEAR:,}, not {text!r}")
    if last < first:
        raise OptionError("years", f"{text!r} ends before it begins (A:B with A <= B)")
    return first, last


def _known(submit: np.ndarray) -> np.ndarray:
    return np.isfinite(submit) & (submit >= 0)


def window(submit: np.ndarray, clock: LogClock, *, start: str | float | None = None,
           end: str | float | None = None, years: str | int | None = None) -> Window | None:
    """The window the options name (None for none): dates or seconds, or
    years counted from the first known submit. Refused: years with dates, a
    malformed value, an end not after the start."""
    if years is not None and (start is not None or end is not None):
        raise ParameterError("give {years} or {start}/{end}, not both", "years", "start", "end")
    if years is not None:
        first_year, last_year = parse_years(years)
        submit = np.asarray(submit, dtype=np.float64)
        known = submit[_known(submit)]
        if len(known) == 0:
            raise UsageError("the workload has no job with a known submit time: no year to count")
        origin = float(known.min())
        label = f"year {first_year}" if first_year == last_year else f"years {first_year} to {last_year}"
        return Window(origin + (first_year - 1) * YEAR, origin + last_year * YEAR, label)
    if start is None and end is None:
        return None
    lo = None if start is None else instant(start, clock, "start")
    hi = None if end is None else instant(end, clock, "end")
    if lo is not None and hi is not None and not lo < hi:
        raise ParameterError(f"the window ends before it begins: {{start}} {start} is not before {{end}} {end}",
                             "start", "end")
    label = " ".join(part for part in (f"from {start}" if start is not None else "",
                                       f"to {end}" if end is not None else "") if part)
    return Window(lo, hi, label)


def _when(clock: LogClock, seconds: float) -> str | None:
    at = local_time(clock, seconds)
    return None if at is None else at.strftime("%Y-%m-%d %H:%M:%S")


def select(jobs: Any, P: int | None, clock: LogClock, win: Window, name: str = "the workload") -> tuple:
    """The jobs submitted in the window (a DataFrame of the archive's
    columns), their submit times counted from the window's start, the clock
    moved with them, and what the window is: its start and end (cut to the
    workload's first and last submit), span, jobs, arrivals a day and
    offered load (work submitted over P x span). A window without jobs is
    refused."""
    from .collect import column

    submit = column(jobs, "submit")
    known = _known(submit)
    if not known.any():
        raise UsageError(f"{name} has no job with a known submit time: no window to take")
    first, last = float(submit[known].min()), float(submit[known].max())
    inside = known.copy()
    if win.start is not None:
        inside &= submit >= win.start
    if win.end is not None:
        inside &= submit < win.end
    if not inside.any():
        raise UsageError(f"no job of {name} is submitted in the window ({win.label}); its jobs are submitted "
                         f"from {_said(clock, first)} to {_said(clock, last)}")
    lo = first if win.start is None else max(win.start, first)
    hi = last if win.end is None else min(win.end, last)
    origin = math.floor(lo)  # whole seconds: the calendar of every job stays the same
    picked = jobs[inside].copy()
    picked["submit"] = picked["submit"] - origin
    moved = LogClock(None if clock.unix_start_time is None else int(clock.unix_start_time) + origin, clock.tz)
    span = hi - lo
    run = column(picked, "run", len(picked))
    width = processors(column(picked, "procs", len(picked)), column(picked, "req_procs", len(picked)))
    ok = (run >= 0) & (width > 0)
    work = float((run[ok] * width[ok]).sum())
    info = {"label": win.label, "asked_start": win.start, "asked_end": win.end,
            "start": lo, "end": hi, "start_date": _when(clock, lo), "end_date": _when(clock, hi),
            "span": span, "jobs": int(inside.sum()), "workload_jobs": int(len(submit)),
            "arrival_rate": picked.shape[0] / (span / DAY) if span > 0 else None,
            "load": work / (P * span) if P and span > 0 else None}
    return picked.reset_index(drop=True), moved, info


def _said(clock: LogClock, seconds: float) -> str:
    when = _when(clock, seconds)
    return f"{seconds:,.0f} s" + (f" ({when})" if when else "")
