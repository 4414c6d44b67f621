"""ESP's rule for full-configuration jobs: top priority, started as soon as
possible after submission, and no other job may delay them (docs/pages/definitions/simulation.md,
"ESP efficiency").

The simulator's queue is in arrival order and has no priorities, so the rule
has its own small scheduler here: an ESP run has a few hundred jobs. The
queue is ordered full-configuration jobs first (by submission), then the
others (by submission). Under FCFS nothing passes the head; under EASY a
later job may start only if it ends by the head's reservation or uses
processors the head does not need then. A full-configuration head needs all
of them, so no job that would end after the machine can first be emptied
starts while it waits: nothing delays it. Jobs run for their run times and
are believed to (the ESP jobs' estimates are their run times); no job is
preempted (ESP favors machines that checkpoint; wla models none).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from wla.archive.kernel.errors import ParameterError, UsageError

POLICIES = ("fcfs", "easy")


def full_first_schedule(submit: ArrayLike, run: ArrayLike, procs: ArrayLike, P: int, full: ArrayLike,
                        policy: str = "easy") -> np.ndarray:
    """Start time of every job when the jobs marked `full` go first.

    At each instant, ends are applied, then arrivals, then one pass over the
    queue in priority order, as in the simulator (sim/reference.py)."""
    if policy not in POLICIES:
        raise ParameterError(f"full-configuration priority runs under fcfs or easy, not {policy!r}", "policy")
    submit = np.asarray(submit, dtype=float)
    run = np.asarray(run, dtype=float)
    procs = np.asarray(procs, dtype=int)
    full = np.asarray(full, dtype=bool)
    n = len(submit)
    if not (len(run) == len(procs) == len(full) == n):
        raise UsageError("submit, run, procs and full must have the same length")
    if n and procs.max() > P:
        raise UsageError(f"a job needs {procs.max()} processors, more than the machine's {P}")
    by_arrival = sorted(range(n), key=lambda j: (submit[j], j))
    start = np.full(n, np.nan)
    running: list[tuple[float, int]] = []  # (end, job)
    queue: list[int] = []
    free = P
    k = 0
    while k < n or queue:
        times = [submit[by_arrival[k]]] if k < n else []
        times += [e for e, _ in running]
        now = min(times)
        for e, j in [r for r in running if r[0] == now]:
            running.remove((e, j))
            free += procs[j]
        while k < n and submit[by_arrival[k]] == now:
            queue.append(by_arrival[k])
            k += 1
        queue.sort(key=lambda j: (not full[j], submit[j], j))
        free = _pass(queue, running, start, now, free, run, procs, policy)
    return start


def _pass(queue, running, start, now, free, run, procs, policy) -> int:
    """One pass: start from the head while jobs fit; under EASY, backfill
    behind a head that does not fit. Returns the processors left free."""
    def go(j):
        start[j] = now
        running.append((now + run[j], j))
        queue.remove(j)
        return free - procs[j]

    while queue and procs[queue[0]] <= free:
        free = go(queue[0])
    if policy == "fcfs" or not queue or free == 0:
        return free
    need, avail, shadow, extra = procs[queue[0]], free, np.inf, 0
    for end in sorted({e for e, _ in running}):
        avail += sum(procs[j] for e, j in running if e == end)
        if avail >= need:
            shadow, extra = end, avail - need
            break
    for j in list(queue[1:]):
        if procs[j] > free:
            continue
        if now + run[j] <= shadow:
            free = go(j)
        elif procs[j] <= extra:
            extra -= procs[j]
            free = go(j)
    return free
