"""Stability of a log (docs/pages/definitions/statistics.md): whether the work arriving in each
interval fits the machine. Short intervals overflow with every burst; the
fraction should fall to zero as they grow, else the log (or a resampled
copy at a raised load) asks for more than the machine can give.
"""
from __future__ import annotations

import numpy as np
from wla.archive.kernel.clock import DAY, WEEK

# Interval lengths reported, by name: a month is 30 days.
PERIODS = {"day": DAY, "week": WEEK, "two_weeks": 2 * WEEK, "month": 30 * DAY}


def interval_work(submit: np.ndarray, run: np.ndarray, procs: np.ndarray, length: float,
                  intervals: int) -> np.ndarray:
    """Work arriving in each of the intervals [k*length, (k+1)*length),
    k < `intervals`: a job's run is cut into slices of `length` placed in
    successive intervals from its arrival's, the last slice the remainder.
    Jobs of unknown run (< 0) or processors (NaN) bring no work."""
    submit = np.asarray(submit, dtype=np.float64)
    run = np.asarray(run, dtype=np.float64)
    procs = np.asarray(procs, dtype=np.float64)
    keep = np.isfinite(submit) & (submit >= 0) & (run >= 0) & (procs > 0)
    submit, run, procs = submit[keep], run[keep], procs[keep]
    first = np.floor(submit / length).astype(np.int64)
    slices = np.maximum(np.ceil(run / length).astype(np.int64), 1)
    last = first + slices - 1  # the interval of the remainder
    # whole slices in [first, last): a difference array, summed
    whole = np.where(slices > 1, length * procs, 0.0)
    size = intervals + 1  # the last cell takes what falls beyond
    starts = np.bincount(np.minimum(first, intervals), weights=whole, minlength=size)
    ends = np.bincount(np.minimum(last, intervals), weights=whole, minlength=size)
    work = np.cumsum(starts - ends)[:intervals]
    rest = (run - (slices - 1) * length) * procs
    return work + np.bincount(np.minimum(last, intervals), weights=rest, minlength=size)[:intervals]


def unaccommodated(submit: np.ndarray, run: np.ndarray, procs: np.ndarray, P: int | None,
              periods: dict[str, float] = PERIODS) -> dict[str, dict]:
    """Per interval length: the intervals from the first submit's to the last
    submit's, how many got more work than P x length, and the fraction
    (None without P or jobs)."""
    submit = np.asarray(submit, dtype=np.float64)
    known = submit[np.isfinite(submit) & (submit >= 0)]
    out = {}
    for name, length in periods.items():
        if len(known) == 0 or P is None:
            out[name] = {"length": length, "intervals": 0, "unaccommodated": None, "fraction": None}
            continue
        lo, hi = int(np.floor(known.min() / length)), int(np.floor(known.max() / length))
        work = interval_work(submit, run, procs, length, hi + 1)[lo:]
        over = int(np.count_nonzero(work > P * length))
        out[name] = {"length": length, "intervals": hi - lo + 1, "unaccommodated": over,
                     "fraction": over / (hi - lo + 1)}
    return out
