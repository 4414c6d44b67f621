"""Whether a simulated machine saturated (docs/pages/definitions/resampling.md): its backlog grows
week after week, so the run's metrics describe the length of the log, not
the policy.

The backlog is counted at the start of every week of the submit clock from
the first arrival to the last: by default the waiting jobs (submitted at or
before t, starting after t); or, as the resampling paper counts, the
outstanding ones (submitted at or before t, ending after t), which include
the running jobs, so that on a machine of thousands of processors a
growing number of running jobs reads as overload though nobody waits. Each
count is replaced by the minimum from that week on (a passing surge does
not count); the last 20% of the weeks (rounded down) are dropped; the slope
of a least-squares line through the rest, in jobs per week, above 1 means
saturated. Fewer than two weeks left: no slope, not saturated.
"""
from __future__ import annotations

import numpy as np
from wla.archive.kernel.clock import WEEK
from wla.archive.kernel.errors import UsageError

from .settings import BACKLOGS

DROP = 0.2
THRESHOLD = 1.0  # jobs per week


def backlog(submit: np.ndarray, end: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
    """Jobs submitted and not yet past `end` (their start: waiting; their
    end: outstanding) at the start of each week from the first arrival to the
    last; `order`, the arrival order when known, spares a sort."""
    if len(submit) == 0:
        return np.zeros(0, dtype=np.int64)
    arrivals = np.sort(submit) if order is None else submit[order]
    weeks = np.arange(np.ceil(arrivals[0] / WEEK), np.floor(arrivals[-1] / WEEK) + 1) * WEEK
    arrived = np.searchsorted(arrivals, weeks, side="right")
    finished = np.searchsorted(np.sort(end), weeks, side="right")
    return (arrived - finished).astype(np.int64)


def saturation(submit: np.ndarray, start: np.ndarray, end: np.ndarray, order: np.ndarray | None = None,
               count: str = "waiting") -> dict:
    """{'saturated': bool, 'slope': jobs per week or None, 'weeks': weeks
    fitted, 'backlog': what was counted}."""
    if count not in BACKLOGS:
        raise UsageError(f"unknown backlog {count!r}; one of {', '.join(BACKLOGS)}")
    counts = backlog(submit, start if count == "waiting" else end, order)
    floor = np.minimum.accumulate(counts[::-1])[::-1]
    kept = floor[:len(floor) - int(len(floor) * DROP)]
    if len(kept) < 2:
        return {"saturated": False, "slope": None, "weeks": int(len(kept)), "backlog": count}
    x = np.arange(len(kept), dtype=np.float64)
    y = kept.astype(np.float64)
    xc = x - x.mean()
    slope = float((xc * (y - y.mean())).sum() / (xc * xc).sum())
    return {"saturated": slope > THRESHOLD, "slope": slope, "weeks": int(len(kept)), "backlog": count}
