"""Arrivals by day of the week and hour of the day, in the log's local
time: the cycles a reader checks first (working hours, weekends), which
the site draws for every log and resampling must keep (it shifts users by
whole weeks; `wla stats` counts them to show it did).
"""
from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import numpy as np

from ..kernel.clock import DAY, LogClock

HOUR = 3600
EPOCH_WEEKDAY = 3  # 1970-01-01 was a Thursday (Monday = 0)


def _offset(zone: ZoneInfo, instant: int) -> int:
    """Seconds to add to UTC for `zone`'s wall clock at a unix instant."""
    return int(datetime.fromtimestamp(instant, timezone.utc).astimezone(zone).utcoffset().total_seconds())


def utc_offsets(instants: np.ndarray, tz: str | None) -> np.ndarray:
    """`tz`'s offset from UTC at each unix instant (whole seconds). The zone
    is asked at the start and end of each day that holds an instant (days
    counted from the first instant), and where the two differ, the second of
    the change is found by bisection: a zone changes its offset at most once
    a day, so this is exact at a few thousand questions for a log of years,
    where asking per job would take seconds, and a log whose few jobs span
    millennia asks only about its own days."""
    instants = np.floor(np.asarray(instants, dtype=np.float64)).astype(np.int64)
    if len(instants) == 0 or tz is None or tz == "UTC":
        return np.zeros(len(instants), dtype=np.int64)
    zone = ZoneInfo(tz)
    lo = int(instants.min())
    day = (instants - lo) // DAY
    days = np.unique(day)
    asked: dict[int, int] = {}

    def offset(t: int) -> int:
        if t not in asked:
            asked[t] = _offset(zone, t)
        return asked[t]

    starts = [lo + int(d) * DAY for d in days]
    before = np.array([offset(t) for t in starts], dtype=np.int64)
    after = before.copy()
    change = np.full(len(days), np.iinfo(np.int64).max, dtype=np.int64)
    for i, a in enumerate(starts):
        b = a + DAY
        oa, ob = int(before[i]), offset(b)
        if oa != ob:
            while b - a > 1:  # the offset at a is oa, at b it is ob
                mid = (a + b) // 2
                if _offset(zone, mid) == oa:
                    a = mid
                else:
                    b = mid
            change[i], after[i] = b, ob
    at = np.searchsorted(days, day)
    return np.where(instants >= change[at], after[at], before[at])


def _weekday_hour(submit: np.ndarray, clock: LogClock) -> tuple[np.ndarray, np.ndarray, bool]:
    """Each known arrival's day of the week and hour in local time, and
    whether they are counted from the log's start (no known start)."""
    submit = np.asarray(submit, dtype=np.float64)
    submit = submit[np.isfinite(submit) & (submit >= 0)]
    seconds = np.floor(submit).astype(np.int64)
    relative = clock.unix_start_time is None
    if relative:
        local = seconds
        weekday = (local // DAY) % 7
    else:
        instants = clock.unix_start_time + seconds
        local = instants + utc_offsets(instants, clock.tz)
        weekday = (local // DAY + EPOCH_WEEKDAY) % 7
    return weekday, (local % DAY) // HOUR, relative


def hour_of_week(submit: np.ndarray, clock: LogClock) -> np.ndarray:
    """Arrivals in each of the week's 168 hours of local time, Monday 0:00
    first (from the log's start when it has none): the weekly cycle as one
    curve, which the resampling paper's overlays draw."""
    weekday, hour, _ = _weekday_hour(submit, clock)
    return np.bincount(weekday * 24 + hour, minlength=7 * 24)


def arrival_cycles(submit: np.ndarray, clock: LogClock) -> dict:
    """Arrivals by day of the week (Monday = 0) and hour (0..23) of the
    log's local time. Without a known start the days and hours are counted
    from the log's start (its day 0 is index 0) and `relative` says so."""
    weekday, hour, relative = _weekday_hour(submit, clock)
    return {"day_of_week": np.bincount(weekday, minlength=7).tolist(),
            "hour_of_day": np.bincount(hour, minlength=24).tolist(),
            "relative": relative, "time_zone": None if relative else (clock.tz or "UTC")}

