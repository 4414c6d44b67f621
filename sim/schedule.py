"""The array-level entry to the fast core: sort by arrival, adjust to the
overrun mode, call the compiled loop, put the answers back in log order."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .conservative import conservative_core
from .core import OVERRUN_CODES, POLICY_CODES, simulate_core
from .reference import apply_overrun, arrival_order, check_options


@dataclass(frozen=True)
class Schedule:
    """Per job, in log order: when it started, how long it held its
    processors, and the estimate the scheduler started it with; and the
    arrival order the run used. Under conservative backfilling, also the
    reservation each job got on arrival and how many times a reservation
    moved later (None under the other policies)."""

    start: np.ndarray
    held: np.ndarray
    estimate: np.ndarray
    order: np.ndarray
    reservation: np.ndarray | None = None
    delayed: int | None = None


def schedule(submit, run, procs, estimate, P: int, policy: str = "easy", overrun: str = "truncate",
             user=None, last_k: int = 0, ties: str = "log", passes: str = "instant") -> Schedule:
    """The schedule the core computes; same arguments and semantics as
    `reference.simulate_reference`."""
    check_options(policy, overrun, ties, passes, procs=P, last_k=last_k)
    run, own = apply_overrun(run, estimate, overrun)
    return schedule_adjusted(submit, run, procs, own, P, policy, overrun, user, last_k, ties, passes)


def schedule_adjusted(submit, run: np.ndarray, procs, own: np.ndarray, P: int, policy: str, overrun: str,
                      user=None, last_k: int = 0, ties: str = "log", passes: str = "instant") -> Schedule:
    """The core's schedule for run times and estimates that the overrun mode
    has already adjusted (`apply_overrun`, applied once per simulation);
    options already checked."""
    submit = np.ascontiguousarray(submit, dtype=np.float64)
    procs = np.asarray(procs, dtype=np.int64)
    n = len(submit)
    order = arrival_order(submit, ties)
    window = last_k
    if last_k > 0:
        _, users = np.unique(np.asarray(user), return_inverse=True)
        n_users = int(users.max()) + 1 if n else 1
        # The core keeps last_k run times per user; a user never has more than
        # their jobs, so a longer window is the same window in less memory.
        window = min(last_k, int(np.bincount(users).max())) if n else 1
    else:
        users, n_users = np.zeros(n, dtype=np.int64), 1
    args = (submit[order], run[order], procs[order], own[order], users[order].astype(np.int64),
            order.astype(np.int64), int(P))
    reservation, delayed = None, None
    if policy == "conservative":
        start, used, first, delayed = conservative_core(
            *args, OVERRUN_CODES[overrun], int(window), n_users, passes == "event")
        reservation = np.empty(n)
        reservation[order] = first
        delayed = int(delayed)
    else:
        start, used = simulate_core(
            *args, POLICY_CODES[policy], OVERRUN_CODES[overrun], int(window), n_users, passes == "event")
    out_start = np.empty(n)
    out_used = np.empty(n)
    out_start[order] = start
    out_used[order] = used
    return Schedule(out_start, run, out_used, order, reservation, delayed)
