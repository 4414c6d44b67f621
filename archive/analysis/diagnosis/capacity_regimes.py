"""Capacity regimes: a machine whose usable capacity changed within its log
(the experience paper's Fig. 7: SDSC SP2 grew, Sandia Ross shrank, LLNL
Atlas began with a half-size trial, CEA Curie added a partition). A
simulation takes one machine size for the whole log, so such a log is two
workloads side by side; the `regime` rule keeps one of them.

The series is the daily peak of processors in use: a job holds its
processors (allocated, else requested: kernel/processors.py) over
[submit + wait, submit + wait + run), as schema/quality.sql's usage_steps
counts them, and a day is a day of the log's local calendar. Days on which
no processor was in use are left out (an outage says nothing of the
capacity); when no job of the log has a known wait, starts are taken as the
submit times (LLNL's logs, whose arrivals are their starts).

The series is cut by binary segmentation: each segment's best split is the
boundary between two blocks of 7 days that minimizes the absolute deviation
of the blocks' medians from each side's median, refined to the day, and
segments are split while both sides hold `min_days` days and their means or
medians differ by `min_change` of the larger. Then neighbours are merged,
the closest levels (median daily peaks) first, until every two adjacent
regimes' levels differ by `min_change` and both are plateaus (at least
`plateau` of their days, and `min_days` days, within `tolerance` of their
level), since a capacity is a ceiling the usage is pressed against, not a
demand that wanders. Medians make a quiet week or a day of exceptions no
regime.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

import numpy as np

from ...kernel.clock import DAY, LogClock
from ...kernel.processors import processors
from .finding import Finding
from .log_data import LogData

MIN_DAYS = 28  # days with jobs running, on each side of a change
MIN_CHANGE = 0.08  # of the larger level
TOLERANCE = 0.05  # of the level: a day at the level
PLATEAU = 0.5  # share of a regime's days at its level
BLOCK = 7  # days per block of the coarse search
EPOCH = date(1970, 1, 1).toordinal()


@dataclass(frozen=True)
class DailyPeaks:
    """The daily peak of processors in use, on the days jobs ran: `day` is a
    day of the log's local calendar (days since 1970-01-01), or of its
    submit clock (days since the start) when its start time is unknown."""

    day: np.ndarray
    peak: np.ndarray
    dated: bool
    starts_from_submit: bool  # no job has a known wait: each start taken as its submit


@dataclass(frozen=True)
class Regime:
    """A stretch of the log at one capacity. `start`/`end` are submit-clock
    seconds (None: open-ended), so the regime holds the jobs submitted in
    [start, end); `first`/`last` are its first and last days with jobs
    running (dates, or "day N" of the log when it has no start time)."""

    number: int
    first: str
    last: str
    start: float | None
    end: float | None
    capacity: int
    days: int
    jobs: int
    at_level: float  # share of its days within the tolerance of its capacity

    def as_dict(self) -> dict:
        return dict(self.__dict__)


# Starts spread over more days than this (a century) are no machine's
# history but a damaged log's: its capacity is not judged, rather than a
# day's peak computed for each of millions of days.
MAX_DAYS = 36_525


def daily_peaks(log: LogData) -> DailyPeaks:
    """Each day's highest count of processors in use, from the day of the
    first start to that of the last, leaving out days on which none was."""
    j = log.jobs
    p = processors(j["procs"], j["req_procs"])
    wait = j["wait"].astype(np.float64)
    from_submit = bool(len(wait)) and bool((wait == -1).all())
    if from_submit:
        wait = np.zeros_like(wait)
    keep = (j["submit"] != -1) & (wait != -1) & (j["run"] > 0) & ~np.isnan(p)
    clock = log.clock
    dated = clock.unix_start_time is not None
    if not keep.any():
        return DailyPeaks(np.zeros(0, np.int64), np.zeros(0), dated, from_submit)
    start = j["submit"][keep] + wait[keep]
    end = start + j["run"][keep]
    p = p[keep]
    if float(start.max() - start.min()) > MAX_DAYS * DAY:  # no machine's history: not judged
        return DailyPeaks(np.zeros(0, np.int64), np.zeros(0), dated, from_submit)
    # one sweep of every end and start, ends first at a tie (a job ending as
    # another starts frees its processors first)
    times = np.concatenate([end, start])
    order = np.argsort(times, kind="stable")  # two nearly sorted runs: a merge sort is fastest
    times = times[order]
    level = np.cumsum(np.concatenate([-p, p])[order])
    first_day, midnights = _midnights(clock, float(start.min()), float(start.max()), dated)
    # in use as each day begins: every event before its midnight counted, and
    # the ends at it (a job ending at midnight does not run that day)
    begins = np.searchsorted(times, midnights, "left")
    for k in np.flatnonzero(np.searchsorted(times, midnights, "right") > begins):
        at = begins[k]
        while at < len(times) and times[at] == midnights[k] and order[at] < len(end):
            at += 1
        begins[k] = at
    peak = np.where(begins > 0, level[np.maximum(begins - 1, 0)], 0.0)
    # the highest level within the day: levels only fall at ends, so this is
    # the highest just after one of its start instants, or the count as it began
    stops = np.r_[begins[1:], len(times)]
    busy = stops > begins
    if busy.any():  # reduceat runs each listed segment to the next: idle days are left out of the list
        peak[busy] = np.maximum(peak[busy], np.maximum.reduceat(level, begins[busy]))
    ran = peak > 0
    return DailyPeaks(first_day + np.flatnonzero(ran), peak[ran], dated, from_submit)


def _midnights(clock: LogClock, first: float, last: float, dated: bool) -> tuple[int, np.ndarray]:
    """The first day (local calendar, or submit clock) and the submit-clock
    instants at which each day from it to the day of `last` begins."""
    if not dated:
        lo, hi = int(np.floor(first / DAY)), int(np.floor(last / DAY))
        return lo, np.arange(lo, hi + 1, dtype=np.float64) * DAY
    zone = ZoneInfo(clock.tz or "UTC")
    lo, hi = (datetime.fromtimestamp(clock.unix_start_time + t, zone).date().toordinal() - EPOCH
              for t in (first, last))
    return lo, np.array([_local_midnight(clock, d, zone) for d in range(lo, hi + 1)])


def _local_midnight(clock: LogClock, day: int, zone: ZoneInfo) -> float:
    return datetime.combine(date.fromordinal(day + EPOCH), time(0), zone).timestamp() - clock.unix_start_time


def regimes(log: LogData, min_days: int = MIN_DAYS, min_change: float = MIN_CHANGE,
            tolerance: float = TOLERANCE, plateau: float = PLATEAU) -> list[Regime]:
    """The log cut into capacity regimes, numbered from 1 in time order; one
    regime when its capacity never changed (none when no job ran)."""
    return _regimes(log, daily_peaks(log), min_days, min_change, tolerance, plateau)


def level(log: LogData) -> int | None:
    """The capacity of a log taken as one regime: its median daily peak of
    processors in use (None when no job ran)."""
    peaks = daily_peaks(log).peak
    return int(round(float(np.median(peaks)))) if len(peaks) else None


def _regimes(log: LogData, peaks: DailyPeaks, min_days: int, min_change: float, tolerance: float,
             plateau: float) -> list[Regime]:
    if len(peaks.peak) == 0:
        return []
    cuts = _segment(peaks.peak, min_days, min_change, tolerance, plateau)
    bounds = [0, *cuts, len(peaks.peak)]
    instants = [None, *(_instant(log, peaks, int(peaks.day[c])) for c in cuts), None]
    submit = log.jobs["submit"][log.jobs["submit"] != -1]
    before = [0, *(int(np.count_nonzero(submit < t)) for t in instants[1:-1]), len(submit)]
    out = []
    for k, (a, b) in enumerate(zip(bounds, bounds[1:])):
        level = float(np.median(peaks.peak[a:b]))
        out.append(Regime(k + 1, _day_text(peaks, int(peaks.day[a])), _day_text(peaks, int(peaks.day[b - 1])),
                          instants[k], instants[k + 1], int(round(level)), b - a, before[k + 1] - before[k],
                          _at_level(peaks.peak[a:b], level, tolerance)))
    return out


def _segment(x: np.ndarray, min_days: int, min_change: float, tolerance: float,
             plateau: float) -> list[int]:
    """The split points (indices into x): binary segmentation while a split
    changes the mean or the median by `min_change`, then neighbours merged, the closest
    levels first, while they differ by less or either is no plateau (fewer
    than `plateau` of its days, or fewer than `min_days` days, at its level)."""
    cuts, todo = [], [(0, len(x))]
    while todo:
        lo, hi = todo.pop()
        s = _best_split(x[lo:hi], min_days)
        if s is not None and max(_change(f(x[lo:lo + s]), f(x[lo + s:hi])) for f in (np.mean, np.median)) \
                >= min_change:
            cuts.append(lo + s)
            todo += [(lo, lo + s), (lo + s, hi)]
    bounds = [0, *sorted(cuts), len(x)]
    while len(bounds) > 2:
        levels = [float(np.median(x[a:b])) for a, b in zip(bounds, bounds[1:])]
        at = [_at_level(x[a:b], m, tolerance) for (a, b), m in zip(zip(bounds, bounds[1:]), levels)]
        flat = [share >= plateau and share * (b - a) >= min_days for share, a, b in zip(at, bounds, bounds[1:])]
        changes = [_change(a, b) for a, b in zip(levels, levels[1:])]
        failing = [k for k in range(len(changes)) if changes[k] < min_change or not (flat[k] and flat[k + 1])]
        if not failing:
            break
        del bounds[min(failing, key=lambda k: changes[k]) + 1]
    return bounds[1:-1]


def _change(a: float, b: float) -> float:
    """How far two levels are apart, as a share of the larger."""
    return abs(a - b) / max(a, b) if max(a, b) > 0 else 0.0


def _best_split(x: np.ndarray, min_days: int) -> int | None:
    """The split between 7-day blocks (each its median) minimizing the absolute
    deviations from each side's median, refined to the day within a block of it
    by the absolute deviations of the days from the levels of the four blocks
    on each side."""
    n = len(x)
    if n < 2 * min_days:
        return None
    full = n // BLOCK
    w = np.median(x[: full * BLOCK].reshape(full, BLOCK), axis=1)
    if n > full * BLOCK:
        w = np.r_[w, np.median(x[full * BLOCK:])]
    k = np.arange(1, len(w))
    k = k[(k * BLOCK >= min_days) & (n - k * BLOCK >= min_days)]
    if len(k) == 0:
        return None
    cost = _deviations(w)[k] + _deviations(w[::-1])[len(w) - k]  # each side's, for every split at once
    at = int(k[np.argmin(cost)])  # the first of equal costs
    a, b = np.median(w[max(at - 4, 0):at]), np.median(w[at:at + 4])  # the levels next to it
    lo, hi = max((at - 1) * BLOCK, min_days), min((at + 1) * BLOCK, n - min_days)
    splits = np.arange(lo, hi + 1)
    # cost of splitting at s, within the window: days before s against a, after against b
    window = x[lo:hi]
    left = np.r_[0, np.cumsum(np.abs(window - a))]
    right = np.r_[np.cumsum(np.abs(window - b)[::-1])[::-1], 0]
    return int(splits[np.argmin(left + right)])


def _deviations(w: np.ndarray) -> np.ndarray:
    """For i = 0..len(w), the absolute deviations of w[:i] from its median,
    summed: every prefix sorted at once (a row each), not a median per split.
    The weekly levels are halves and quarters of whole processors, so the
    sums are exact whatever their order."""
    m = len(w)
    held = np.arange(m)[None, :] < np.arange(m + 1)[:, None]  # row i holds w[:i]
    rows = np.sort(np.where(held, w[None, :], np.inf), axis=1)
    i = np.arange(m + 1)
    lo, hi = np.clip((i - 1) // 2, 0, max(m - 1, 0)), np.clip(i // 2, 0, max(m - 1, 0))
    median = (rows[i, lo] + rows[i, hi]) / 2
    return np.where(held, np.abs(np.where(held, rows, 0.0) - median[:, None]), 0.0).sum(axis=1)


def _at_level(x: np.ndarray, level: float, tolerance: float) -> float:
    return float(np.mean(np.abs(x - level) <= tolerance * level)) if len(x) else 0.0


def _instant(log: LogData, peaks: DailyPeaks, day: int) -> float:
    """The submit-clock second at which a day of the series begins."""
    clock = log.clock
    if not peaks.dated:
        return float(day * DAY)
    return _local_midnight(clock, day, ZoneInfo(clock.tz or "UTC"))


def _day_text(peaks: DailyPeaks, day: int) -> str:
    return date.fromordinal(day + EPOCH).isoformat() if peaks.dated else f"day {day} of the log"


def detect(log: LogData, min_days: int = MIN_DAYS, min_change: float = MIN_CHANGE,
           tolerance: float = TOLERANCE, plateau: float = PLATEAU) -> list[Finding]:
    """One finding per change of capacity between regimes of at least
    `min_days` days with jobs running whose daily-peak levels differ by at
    least `min_change` of the larger and which both keep at least `plateau`
    of their days within `tolerance` of their level."""
    peaks = daily_peaks(log)
    found = _regimes(log, peaks, min_days, min_change, tolerance, plateau)
    if len(found) < 2:
        return []
    peaks_from_submit = peaks.starts_from_submit
    size = log.facts.get("machine_size")
    table = [r.as_dict() for r in found]
    findings = []
    for before, after in zip(found, found[1:]):
        grew = after.capacity > before.capacity
        change = (after.capacity - before.capacity) / before.capacity if before.capacity else float("inf")
        findings.append(Finding(
            detector="capacity_regimes",
            what=f"usable capacity {'grew' if grew else 'dropped'} within the log"
                 + (" (starts taken as submit times: no job has a known wait)" if peaks_from_submit else ""),
            where=f"from {after.first}: regime {before.number} ({before.first} to {before.last}, "
                  f"{before.jobs:,} jobs) then regime {after.number} ({after.first} to {after.last}, "
                  f"{after.jobs:,} jobs)",
            how_much=f"daily peak {before.capacity:,} then {after.capacity:,} processors in use "
                     f"({change:+.0%})" + (f"; the machine size is {int(size):,}" if size is not None else ""),
            action=f"Study the regimes apart: a recipe step with rule regime and regime = {before.number} "
                   f"or {after.number} keeps one and sets the version's machine size to its capacity",
            data={"date": after.first, "instant": after.start, "before": before.capacity,
                  "after": after.capacity, "regimes": table, "starts_from_submit": peaks_from_submit},
        ))
    return findings
