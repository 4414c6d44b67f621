"""Per-user distributions (docs/pages/definitions/resampling.md "Validating a resampled workload"):
resampling moves whole users, so how much each user submits, in how many
sessions, for how long and with how much work should come out as in the log.

A session ends when the user's next job comes more than `session_gap` after
the latest end of the user's jobs so far, not only the end of the previous
one in submit order: a user waiting on a long job is still at work, jobs
submitted together have no "previous" among themselves, and sessions so
defined never overlap (each spans its first submit to its last end).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from wla.archive.kernel.jit import njit

from . import summarize

SESSION_GAP = 1200.0  # seconds: 20 minutes

# The per-user distributions, in the order they are reported.
DISTRIBUTIONS = ("jobs", "sessions", "session_length", "cpu_work", "first_arrival", "last_departure",
                 "activity_period")


def job_ends(submit: np.ndarray, wait: np.ndarray, run: np.ndarray) -> np.ndarray:
    """submit + wait + run, an unknown (negative, NaN) wait or run counted as 0."""
    wait = np.asarray(wait, dtype=np.float64)
    run = np.asarray(run, dtype=np.float64)
    return np.asarray(submit, dtype=np.float64) + np.where(wait > 0, wait, 0.0) + np.where(run > 0, run, 0.0)


@njit(cache=True)
def _sessions(user: np.ndarray, submit: np.ndarray, end: np.ndarray,
              gap: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Jobs sorted by user then submit, users numbered 0..u-1: per user the
    sessions, the sum of their lengths, and the latest end."""
    users = user[-1] + 1 if len(user) else 0
    sessions = np.zeros(users, dtype=np.int64)
    lengths = np.zeros(users, dtype=np.float64)
    latest = np.zeros(users, dtype=np.float64)
    start = 0.0
    n = len(user)
    for i in range(n):
        u = user[i]
        if i == 0 or user[i - 1] != u:
            sessions[u] = 1
            start = submit[i]
            latest[u] = end[i]
        elif submit[i] - latest[u] > gap:
            lengths[u] += latest[u] - start
            sessions[u] += 1
            start = submit[i]
            latest[u] = end[i]  # later than every end so far: the gap is positive
        else:
            latest[u] = max(latest[u], end[i])
        if i == n - 1 or user[i + 1] != u:
            lengths[u] += latest[u] - start
    return sessions, lengths, latest


@dataclass(frozen=True)
class UserStatistics:
    """Per user (ids ascending), each distribution of DISTRIBUTIONS; times
    in seconds of the log's clock, work in processor-seconds."""

    ids: np.ndarray
    values: dict[str, np.ndarray]
    unknown_user_jobs: int
    session_gap: float

    def as_dict(self, detail: bool = True) -> dict:
        """With `detail`, the per-user values too (what the histograms are drawn of)."""
        out = {"users": int(len(self.ids)), "unknown_user_jobs": self.unknown_user_jobs,
               "session_gap": self.session_gap,
               "distributions": {name: {"summary": summarize(v), **({"values": v.tolist()} if detail else {})}
                                 for name, v in self.values.items()}}
        return {**out, "ids": self.ids.tolist()} if detail else out


def user_statistics(user_id: np.ndarray, submit: np.ndarray, end: np.ndarray, work: np.ndarray,
                    session_gap: float = SESSION_GAP) -> UserStatistics:
    """The per-user distributions of jobs of known user (>= 0) and submit;
    `work` is run x processors per job, NaN when unknown (left out of the sum)."""
    user_id = np.asarray(user_id)
    if user_id.dtype.kind not in "iu":  # doubles, NaN where unknown
        user_id = np.where(np.asarray(user_id, dtype=np.float64) >= 0, user_id, -1)
    user_id = user_id.astype(np.int64)
    submit = np.asarray(submit, dtype=np.float64)
    known = np.isfinite(submit) & (submit >= 0)
    unknown_user = known & (user_id < 0)
    keep = known & (user_id >= 0)
    ids, user = np.unique(user_id[keep], return_inverse=True)
    submit, end = submit[keep], np.asarray(end, dtype=np.float64)[keep]
    work = np.asarray(work, dtype=np.float64)[keep]
    order = np.lexsort((submit, user))  # stable: ties keep the log's order
    user, submit, end = user[order], submit[order], end[order]
    sessions, lengths, latest = _sessions(user, submit, end, float(session_gap))
    jobs = np.bincount(user, minlength=len(ids))
    first = submit[np.cumsum(jobs) - jobs]  # each user's first job in the sorted order
    work = work[order]
    cpu = np.bincount(user, weights=np.where(np.isfinite(work), work, 0.0), minlength=len(ids))
    values = {"jobs": jobs.astype(np.int64), "sessions": sessions,
              "session_length": lengths / np.maximum(sessions, 1), "cpu_work": cpu,
              "first_arrival": first, "last_departure": latest, "activity_period": latest - first}
    return UserStatistics(ids, values, int(unknown_user.sum()), float(session_gap))


def warm() -> None:
    """Compile the session walk (or load it from numba's cache) for the
    argument types real runs give it."""
    user_statistics(np.array([1, 1, 2]), np.array([0.0, 5000.0, 1.0]), np.array([10.0, 5010.0, 2.0]),
                    np.array([10.0, np.nan, 1.0]))
