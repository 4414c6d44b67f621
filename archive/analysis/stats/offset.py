"""How a workload's users offset each other's weekly work. A user who holds
back while others are busy leaves the weekly total steadier than the users'
own ups and downs add up to; resampling, which places each user's activity
in other weeks, cannot keep that, so a log whose users offset each other
much is one its resampled copies overload (docs/pages/feedback.md)."""
from __future__ import annotations

import numpy as np
from wla.archive.kernel.clock import WEEK


def weekly_offset(submit: np.ndarray, run: np.ndarray, procs: np.ndarray, user: np.ndarray) -> dict:
    """The variance of the work submitted each week (processor-seconds of the
    jobs with a known submit time, run time, width and user, by the week of
    their submit) over the sum of each user's own weekly variance: 1 when
    users are independent, below 1 when they offset each other; and the
    largest user (by work), its share of the work and the correlation of its
    weekly work with all the others'. None where undefined."""
    ok = np.isfinite(submit) & (submit >= 0) & (run > 0) & (procs > 0) & (user >= 0)
    none = {"weeks": 0, "variance_ratio": None, "top_user": None, "top_share": None, "top_correlation": None}
    if not ok.any():
        return none
    week = (submit[ok] // WEEK).astype(np.int64)
    users, row = np.unique(user[ok].astype(np.int64), return_inverse=True)
    work = np.zeros((len(users), int(week.max()) + 1))
    np.add.at(work, (row, week), run[ok] * procs[ok])
    total = work.sum(axis=0)
    own = work.var(axis=1).sum()
    top = int(work.sum(axis=1).argmax())
    rest = total - work[top]
    varied = work[top].std() > 0 and rest.std() > 0
    return {"weeks": int(work.shape[1]),
            "variance_ratio": float(total.var() / own) if own > 0 else None,
            "top_user": int(users[top]),
            "top_share": float(work[top].sum() / work.sum()),
            "top_correlation": float(np.corrcoef(work[top], rest)[0, 1]) if varied else None}
