"""A daily cycle that points at a wrong time zone: arrivals that peak at
night or ebb in working hours, as when a converter read UTC timestamps as
local time (SDSC Blue's cycle once peaked from the evening to midnight). A
study of daily cycles, or a simulation that starts at a time of day, then
works on hours that are off by the zone's offset.

The cycle is that of weekdays (Monday to Friday, the log's local time),
where work sets it. Its peak is the centre of the busiest `window`-hour
span of the day, its trough the centre of the quietest `trough_window`-hour
span: both robust to a single odd hour, which a largest or smallest hour is
not. Working hours are `work_start` to `work_end` (08:00-18:00 by default);
the peak belongs in them, the trough outside them.
"""
from __future__ import annotations

import numpy as np

from ...kernel.clock import DAY
from ..cycles import EPOCH_WEEKDAY, HOUR, utc_offsets
from .finding import Finding
from .log_data import LogData


def local_seconds(log: LogData) -> tuple[np.ndarray, np.ndarray]:
    """The local wall-clock instant (seconds from 1970 as the wall clock
    reads) of every job whose submit time is known, and the mask of those
    jobs; empty when the log's start is unknown. Kept with the log: two
    detectors read it."""
    if "local_seconds" not in log.kept:
        log.kept["local_seconds"] = _local_seconds(log)
    return log.kept["local_seconds"]


def _local_seconds(log: LogData) -> tuple[np.ndarray, np.ndarray]:
    submit = log.jobs["submit"]
    known = np.isfinite(submit) & (submit >= 0)
    start = log.clock.unix_start_time
    if start is None:
        return np.zeros(0, dtype=np.int64), np.zeros(len(submit), dtype=bool)
    instants = start + np.floor(submit[known]).astype(np.int64)
    return instants + utc_offsets(instants, log.clock.tz), known


def weekday_hours(log: LogData) -> np.ndarray:
    """Weekday arrivals by local hour of the day (24 counts)."""
    local, _ = local_seconds(log)
    weekday = (local // DAY + EPOCH_WEEKDAY) % 7
    return np.bincount(((local % DAY) // HOUR)[weekday < 5], minlength=24)


def _window_sums(hours: np.ndarray, width: int) -> np.ndarray:
    """Arrivals in the `width` hours starting at each hour, around midnight."""
    doubled = np.concatenate([hours, hours])
    return np.array([doubled[h:h + width].sum() for h in range(24)])


def daily_peak(hours: np.ndarray, window: int = 8, trough_window: int = 4) -> dict:
    """The peak and trough of a day's 24 hourly counts, as centres (hours,
    0 <= h < 24, e.g. 13.0 for a busiest span 09:00-17:00), and the busiest
    span's share of the day (1/3 for a flat day with an 8-hour span)."""
    busy, quiet = _window_sums(hours, window), _window_sums(hours, trough_window)
    first = int(np.argmax(busy))
    return {"peak": (first + window / 2) % 24, "trough": (int(np.argmin(quiet)) + trough_window / 2) % 24,
            "peak_share": float(busy[first] / hours.sum()) if hours.sum() else 0.0,
            "busiest": [first, (first + window) % 24]}


def detect(log: LogData, work_start: float = 8.0, work_end: float = 18.0, window: int = 8,
           trough_window: int = 4, min_share: float = 0.4, min_jobs: int = 1000) -> list[Finding]:
    """A finding when the weekday peak's centre lies outside working hours
    or the trough's centre inside them. Judged only with the log's start
    known (else no time of day is), at least `min_jobs` weekday arrivals,
    and a cycle worth the name: its busiest `window` hours hold at least
    `min_share` of the arrivals (a flat day has window/24)."""
    hours = weekday_hours(log)
    if hours.sum() < min_jobs:
        return []
    p = daily_peak(hours, window, trough_window)
    peak_in = work_start <= p["peak"] <= work_end
    trough_in = work_start < p["trough"] < work_end
    if p["peak_share"] < min_share or (peak_in and not trough_in):
        return []
    midday = (work_start + work_end) / 2
    offset = (midday - p["peak"] + 12) % 24 - 12  # in [-12, 12): the shorter way round
    return [_finding(log, p, offset, int(hours.sum()), peak_in, trough_in, work_start, work_end)]


def _clock(hour: float) -> str:
    return f"{int(hour) % 24:02d}:{int(round(hour % 1 * 60)):02d}"


def _finding(log: LogData, p: dict, offset: float, jobs: int, peak_in: bool, trough_in: bool,
             work_start: float, work_end: float) -> Finding:
    start = log.clock.unix_start_time
    zone = log.clock.tz or "UTC"
    standard = _standard_offset(log)
    utc_like = standard is not None and standard != 0 and abs(offset - standard) <= 1
    why = " and ".join(s for s in ("the peak falls outside working hours" if not peak_in else "",
                                   "the trough falls in working hours" if trough_in else "") if s)
    hint = (f"; {offset:+g} h is {zone}'s offset from UTC, so the times were likely kept in UTC"
            if utc_like else "")
    a, b = p["busiest"]
    return Finding(
        detector="time_zone",
        what="daily cycle off working hours (a wrong time zone?)",
        where=f"weekday arrivals in {zone} time: busiest 8 hours {a:02d}:00-{b:02d}:00 (peak {_clock(p['peak'])}), "
              f"quietest at {_clock(p['trough'])}; {why}",
        how_much=f"{p['peak_share']:.0%} of {jobs:,} weekday arrivals in the busiest hours; "
                 f"{offset:+g} h would move the peak to {_clock((work_start + work_end) / 2)}{hint}",
        action=f"If the log's times are off by {offset:+g} h, correct its clock: "
               f"wla set {log.name} unix-start-time {start + int(offset * HOUR)}",
        data={"peak_hour": p["peak"], "trough_hour": p["trough"], "busiest": p["busiest"],
              "peak_share": round(p["peak_share"], 4), "offset_hours": offset, "weekday_jobs": jobs,
              "zone": zone, "zone_utc_offset_hours": standard, "utc_like": utc_like},
    )


def _standard_offset(log: LogData) -> float | None:
    """The zone's offset from UTC at the log's start, in hours."""
    start = log.clock.unix_start_time
    if start is None:
        return None
    return float(utc_offsets(np.array([start]), log.clock.tz)[0]) / HOUR
