"""Whether a simulated machine saturated (resampling.md): its backlog grows
week after week, so the run's metrics describe the length of the log, not
the policy.

Outstanding jobs (submitted at or before t, ending after t) are counted at
the start of every week of the submit clock from the first arrival to the
last; each count is replaced by the minimum from that week on (a passing
surge does not count); the last 20% of the weeks (rounded down) are
dropped; the slope of a least-squares line through the rest, in jobs per
week, above 1 means saturated. Fewer than two weeks left: no slope, not
saturated.
"""
from __future__ import annotations

import numpy as np
from wla.archive.clock import WEEK

DROP = 0.2
THRESHOLD = 1.0  # jobs per week


def backlog(submit: np.ndarray, end: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
    """Outstanding jobs at the start of each week from the first arrival to
    the last; `order`, the arrival order when known, spares a sort."""
    if len(submit) == 0:
        return np.zeros(0, dtype=np.int64)
    arrivals = np.sort(submit) if order is None else submit[order]
    weeks = np.arange(np.ceil(arrivals[0] / WEEK), np.floor(arrivals[-1] / WEEK) + 1) * WEEK
    arrived = np.searchsorted(arrivals, weeks, side="right")
    finished = np.searchsorted(np.sort(end), weeks, side="right")
    return (arrived - finished).astype(np.int64)


def saturation(submit: np.ndarray, end: np.ndarray, order: np.ndarray | None = None) -> dict:
    """{'saturated': bool, 'slope': jobs per week or None, 'weeks': weeks fitted}."""
    counts = backlog(submit, end, order)
    floor = np.minimum.accumulate(counts[::-1])[::-1]
    kept = floor[:len(floor) - int(len(floor) * DROP)]
    if len(kept) < 2:
        return {"saturated": False, "slope": None, "weeks": int(len(kept))}
    x = np.arange(len(kept), dtype=np.float64)
    y = kept.astype(np.float64)
    xc = x - x.mean()
    slope = float((xc * (y - y.mean())).sum() / (xc * xc).sum())
    return {"saturated": slope > THRESHOLD, "slope": slope, "weeks": int(len(kept))}
