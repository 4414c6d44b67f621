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
    moved later (None under the other policies). `arrive` is when each job
    arrived: its submit time, unless with feedback it waited for another."""

    start: np.ndarray
    held: np.ndarray
    estimate: np.ndarray
    order: np.ndarray
    reservation: np.ndarray | None = None
    delayed: int | None = None
    arrive: np.ndarray | None = None


def schedule(submit, run, procs, estimate, P: int, policy: str = "easy", overrun: str = "truncate",
             user=None, last_k: int = 0, ties: str = "log", passes: str = "instant", pred=None,
             think=None) -> Schedule:
    """The schedule the core computes; same arguments and semantics as
    `reference.simulate_reference`."""
    check_options(policy, overrun, ties, passes, procs=P, last_k=last_k)
    run, own = apply_overrun(run, estimate, overrun)
    return schedule_adjusted(submit, run, procs, own, P, policy, overrun, user, last_k, ties, passes, pred, think)


def _feedback(order: np.ndarray, pred, think) -> tuple[np.ndarray, ...]:
    """In arrival order: which jobs wait for another, the first job each
    releases and the next one its predecessor releases (lists in arrival
    order), and the think times. `pred` is in log order (-1 for none)."""
    n = len(order)
    child = np.full(n, -1, np.int64)
    sibling = np.full(n, -1, np.int64)
    if pred is None:
        return np.zeros(n, np.bool_), child, sibling, np.zeros(n)
    place = np.empty(n, np.int64)
    place[order] = np.arange(n)
    p = np.asarray(pred, np.int64)[order]
    dependent = p >= 0
    jobs = np.flatnonzero(dependent)
    parents = place[p[jobs]]
    by = np.lexsort((jobs, parents))  # each parent's jobs together, in arrival order
    jobs, parents = jobs[by], parents[by]
    first = np.ones(len(jobs), bool)
    first[1:] = parents[1:] != parents[:-1]
    child[parents[first]] = jobs[first]
    same = ~first[1:]
    sibling[jobs[:-1][same]] = jobs[1:][same]
    t = np.asarray(think, np.float64)[order]
    return dependent, child, sibling, np.where(dependent, t, 0.0)


def schedule_adjusted(submit, run: np.ndarray, procs, own: np.ndarray, P: int, policy: str, overrun: str,
                      user=None, last_k: int = 0, ties: str = "log", passes: str = "instant", pred=None,
                      think=None) -> Schedule:
    """The core's schedule for run times and estimates that the overrun mode
    has already adjusted (`apply_overrun`, applied once per simulation);
    options already checked. `pred` (log-order indices, -1 for none) and
    `think` simulate with feedback."""
    submit = np.ascontiguousarray(submit, dtype=np.float64)
    procs = np.asarray(procs, dtype=np.int64)
    n = len(submit)
    order = arrival_order(submit, ties)
    dependent, child, sibling, think_s = _feedback(order, pred, think)
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
    links = (dependent, child, sibling, think_s)
    reservation, delayed = None, None
    if policy == "conservative":
        start, used, first, delayed, came = conservative_core(
            *args, OVERRUN_CODES[overrun], int(window), n_users, passes == "event", *links)
        reservation = np.empty(n)
        reservation[order] = first
        delayed = int(delayed)
    else:
        start, used, came = simulate_core(
            *args, POLICY_CODES[policy], OVERRUN_CODES[overrun], int(window), n_users, passes == "event", *links)
    out_start = np.empty(n)
    out_used = np.empty(n)
    arrive = np.empty(n)
    out_start[order] = start
    out_used[order] = used
    arrive[order] = came
    if dependent.any():  # the order of arrival: by arrival time, the trace's order breaking ties
        order = order[np.lexsort((np.arange(n), came))]
    return Schedule(out_start, run, out_used, order, reservation, delayed, arrive)
