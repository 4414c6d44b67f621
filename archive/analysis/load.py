"""The load profile and the initial low-load interval (docs/pages/definitions/cleaning.md section 5).

Some logs begin while the machine was still in testing: idle stretches or a
plateau at half capacity, then production. Daily and weekly utilization show
it; the suggested trim point is the first week after which weekly
utilization never drops below a level again, and the trim rule removes every
job submitted before that week.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..kernel.clock import DAY, WEEK, LogClock, local_date, local_time, log_clock
from ..kernel.errors import UsageError
from ..kernel.processors import job_processors
from ..kernel.ranges import MAX_PROCESSORS, number, whole


def occupation(jobs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start, end and processors of the jobs that occupy the machine: known
    submit and wait, run > 0, a processor count (schema/quality.sql)."""
    submit = jobs["submit"].to_numpy(dtype=np.float64)
    wait = jobs["wait"].to_numpy(dtype=np.float64)
    run = jobs["run"].to_numpy(dtype=np.float64)
    procs = job_processors(jobs)
    keep = (submit != -1) & (wait != -1) & (run > 0) & ~np.isnan(procs)
    start = submit[keep] + wait[keep]
    return start, start + run[keep], procs[keep]


def bucket_usage(start: np.ndarray, end: np.ndarray, procs: np.ndarray,
                 length: float) -> tuple[int, np.ndarray]:
    """Processor-seconds inside each bucket [k*length, (k+1)*length), each job
    clipped to the buckets it spans; returns the first bucket and the sums.

    Every start adds its processors to the rate and every end removes them.
    An event at t in bucket k adds delta * ((k+1)*length - t) to bucket k and
    changes the rate of all later buckets, a difference array whose running
    sum times the bucket length gives their full-bucket share.
    """
    if len(start) == 0:
        return 0, np.zeros(0)
    first = int(np.floor(start.min() / length))
    last = int(np.ceil(end.max() / length)) - 1
    n = last - first + 1
    times = np.concatenate([start, end])
    delta = np.concatenate([procs, -procs])
    k = np.floor(times / length).astype(np.int64)
    partial = np.bincount(k - first, weights=delta * ((k + 1) * length - times), minlength=n)
    # The last end may fall exactly on a boundary: its rate change then lands
    # one past the range, where nothing is left to count.
    rate = np.cumsum(np.bincount(k - first + 1, weights=delta, minlength=n + 1))[:n]
    return first, rate * length + partial[:n]


@dataclass
class LoadReport:
    """Utilization per day and week, the level, and the suggested trim point."""

    capacity: int
    jobs: int
    first_day: int
    daily: np.ndarray  # utilization of days first_day, first_day+1, ...
    first_week: int
    weekly: np.ndarray
    last_week_partial: bool  # the last week ends before it is over (ignored by the detector)
    median_weekly: float | None
    level: float | None
    trim_week: int | None  # None: no week after which utilization stays at the level
    jobs_before: int  # jobs submitted before the trim week
    unknown_submit: int
    clock: LogClock = field(default_factory=LogClock)

    @property
    def trim_submit(self) -> int | None:
        """The trim point in submit seconds: the start of the trim week."""
        return None if self.trim_week is None else self.trim_week * WEEK

    @property
    def share_before(self) -> float:
        return self.jobs_before / self.jobs if self.jobs else 0.0

    @property
    def nothing_to_trim(self) -> bool:
        """Utilization is at the level from the first week on (or no job
        came before the trim week): the log needs no trimming."""
        return self.trim_week is not None and (self.trim_week <= self.first_week or self.jobs_before == 0)

    @property
    def median_before(self) -> float | None:
        """Median weekly utilization of the weeks before the trim point."""
        if self.trim_week is None or self.trim_week <= self.first_week:
            return None
        return float(np.median(self.weekly[: self.trim_week - self.first_week]))

    @property
    def dip(self) -> bool:
        """The rule's trim point follows one low week (a holiday, an outage)
        rather than a low-load start: most weeks before it reach the level."""
        return self.median_before is not None and self.median_before >= self.level

    def predicate(self) -> str | None:
        """The trim rule's selection (jobs to remove); jobs with an unknown
        submit time (-1) are kept out of it, else `submit < T` would take them."""
        if self.trim_week is None or self.nothing_to_trim:
            return None
        return self._guard() + f"submit < {self.trim_submit}"

    def date_predicate(self) -> str | None:
        """The same selection written with the trim point's local date and time
        (none when that wall-clock time occurs twice, as in a DST fall-back hour,
        since a date in a predicate is read as its first occurrence)."""
        when = local_time(self.clock, self.trim_submit) if self.predicate() else None
        if when is None or when.replace(fold=0).timestamp() != when.timestamp():
            return None
        return self._guard() + f"submit < '{when.strftime('%Y-%m-%d %H:%M:%S')}'"

    def _guard(self) -> str:
        return "submit != -1 and " if self.unknown_submit else ""

    def summary(self) -> str:
        """One sentence a cleaning decision can carry."""
        if self.trim_week is None:
            if self.level is None:
                return "no job has a known start (submit and wait), run time and processors: no load profile"
            return f"weekly utilization never stays at or above {self.level:.1%} until the end of the log"
        if self.nothing_to_trim:
            return (f"weekly utilization stays at or above {self.level:.1%} from the first week "
                    f"(week {self.trim_week}): nothing to trim")
        when = local_date(self.clock, self.trim_submit)
        date = f" ({when})" if when else ""
        text = (f"weekly utilization stays at or above {self.level:.1%} from week {self.trim_week}{date}: "
                f"{self.jobs_before:,} jobs ({self.share_before:.1%}) were submitted before it")
        if self.dip:
            text += (f"; but the weeks before it have a median utilization of {self.median_before:.1%}, "
                     "so it follows a dip, not an initial low-load interval")
        return text

    def to_dict(self) -> dict:
        when = local_time(self.clock, self.trim_submit) if self.trim_week is not None else None
        return {
            "capacity": int(self.capacity),
            "jobs": int(self.jobs),
            "unknown_submit": int(self.unknown_submit),
            "median_weekly_utilization": _round(self.median_weekly, 6),
            "level": _round(self.level, 6),
            "trim": {
                "week": self.trim_week,
                "submit": self.trim_submit,
                "date": when.isoformat() if when else None,
                "jobs_before": int(self.jobs_before),
                "share_before": round(self.share_before, 6),
                "nothing_to_trim": self.nothing_to_trim,
                "median_before": _round(self.median_before, 6),
                "dip": self.dip,
                "predicate": self.predicate(),
                "date_predicate": self.date_predicate(),
                "summary": self.summary(),
            },
            "last_week_partial": self.last_week_partial,
            "weekly": [{"week": self.first_week + i, "date": local_date(self.clock, (self.first_week + i) * WEEK),
                        "utilization": round(float(u), 6)} for i, u in enumerate(self.weekly)],
            "daily": [{"day": self.first_day + i, "date": local_date(self.clock, (self.first_day + i) * DAY),
                       "utilization": round(float(u), 6)} for i, u in enumerate(self.daily)],
        }


def _round(x: float | None, digits: int) -> float | None:
    return None if x is None else round(float(x), digits)


def trim_week(weekly: np.ndarray, first_week: int, level: float) -> int | None:
    """The first week from which every later week is at or above the level."""
    below = np.flatnonzero(weekly < level)
    if len(below) == 0:
        return first_week
    if below[-1] == len(weekly) - 1:
        return None
    return first_week + int(below[-1]) + 1


def load_profile(jobs: pd.DataFrame, capacity: int, level: float | None = None,
                 unix_start_time: int | None = None, tz: str | None = None) -> LoadReport:
    """Daily and weekly utilization and the suggested trim point.

    Buckets follow the log's submit clock (day 0 and week 0 start at submit
    0) and cover every bucket from the first job's start to the last end.
    The last week is usually cut short by the end of the log and its
    utilization is low for that reason alone, so when it is partial it takes
    no part in the median or the trim point. The default level is half the
    median weekly utilization.
    """
    if capacity is None or pd.isna(capacity):
        raise UsageError("the load profile needs the machine's capacity (a positive processor count)")
    capacity = whole("capacity", capacity, 1, MAX_PROCESSORS)
    if level is not None:
        level = number("level", level, 0, 1)  # a utilization: a share of the machine
    start, end, procs = occupation(jobs)
    first_day, daily = bucket_usage(start, end, procs, DAY)
    first_week, weekly = bucket_usage(start, end, procs, WEEK)
    daily, weekly = daily / (capacity * DAY), weekly / (capacity * WEEK)
    partial = len(weekly) > 0 and bool(end.max() < (first_week + len(weekly)) * WEEK)
    judged = weekly[:-1] if partial and len(weekly) > 1 else weekly
    median = float(np.median(judged)) if len(judged) else None
    if level is None and median is not None:
        level = median / 2
    trim = trim_week(judged, first_week, level) if median is not None else None
    submit = jobs["submit"].to_numpy(dtype=np.float64)
    known = submit != -1
    # From the first week on there is nothing to trim, whatever was submitted before it.
    before = int(np.count_nonzero(known & (submit < trim * WEEK))) if trim is not None and trim > first_week else 0
    return LoadReport(capacity=int(capacity), jobs=len(jobs), first_day=first_day, daily=daily,
                      first_week=first_week, weekly=weekly, last_week_partial=partial,
                      median_weekly=median, level=level, trim_week=trim, jobs_before=before,
                      unknown_submit=int(np.count_nonzero(~known)), clock=log_clock(unix_start_time, tz))
