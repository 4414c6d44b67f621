"""Checks a schedule against what any valid schedule satisfies (docs/pages/definitions/simulation.md):
every job starts, none before its submit time, at no instant do running jobs
hold more than P processors; for EASY under exact estimates, the head of
the queue starts no later than the shadow time it got on becoming the head
(backfilled jobs never delay it); and for conservative backfilling, when no
estimate grew, no job starts after the reservation it got on arrival. Cheap
enough to run on every simulation in the tests, and on request (--check)."""
from __future__ import annotations

import numpy as np
from wla.archive.kernel.errors import ScheduleInvalid
from wla.archive.kernel.jit import njit


def problems(job, submit, start, held, procs, P: int) -> list[str]:
    """What is wrong with a schedule, worst first (empty when valid)."""
    out = []
    never = np.isnan(start)
    if never.any():
        out.append(f"{int(never.sum())} jobs never started (first: job {int(job[never][0])})")
    early = start < submit
    if early.any():
        i = int(np.flatnonzero(early)[0])
        out.append(f"job {int(job[i])} starts at {start[i]:g}, before its submit time {submit[i]:g}")
    ok = ~never
    times = np.concatenate([start[ok], start[ok] + held[ok]])
    delta = np.concatenate([procs[ok], -procs[ok]])
    order = np.lexsort((delta, times))  # at one instant, ends before starts
    use = np.cumsum(delta[order])
    if len(use) and use.max() > P:
        k = int(use.argmax())
        out.append(f"{int(use[k])} processors in use at {times[order][k]:g} on a machine of {P}")
    return out


@njit(cache=True, nogil=True)
def _late_heads(submit, start, end, procs, by_start, P):
    """Arrival-order indices of head jobs that started after the shadow time
    they got when they became the head, with that shadow time (inputs in
    arrival order, `by_start` the indices sorted by start)."""
    n = submit.shape[0]
    late = np.empty(n, np.int64)
    shadows = np.empty(n)
    nl = 0
    active = np.empty(n, np.int64)
    na = 0
    ptr = 0
    h = -np.inf
    ends = np.empty(n)
    widths = np.empty(n, np.int64)
    for j in range(n):
        # j becomes the head once it has arrived and every earlier job started
        if submit[j] > h:
            h = submit[j]
        if start[j] > h:
            while ptr < n and start[by_start[ptr]] <= h:
                active[na] = by_start[ptr]
                na += 1
                ptr += 1
            m = 0
            k = 0
            for a in range(na):
                i = active[a]
                if end[i] > h:
                    active[k] = i
                    k += 1
                    # later jobs started at h were backfilled in this very pass
                    if not (start[i] == h and i > j):
                        ends[m] = end[i]
                        widths[m] = procs[i]
                        m += 1
            na = k
            free = P
            for a in range(m):
                free -= widths[a]
            o = np.argsort(ends[:m])
            shadow = np.inf
            a = 0
            while a < m:
                t = ends[o[a]]
                while a < m and ends[o[a]] == t:
                    free += widths[o[a]]
                    a += 1
                if free >= procs[j]:
                    shadow = t
                    break
            if start[j] > shadow:
                late[nl] = j
                shadows[nl] = shadow
                nl += 1
        if start[j] > h:
            h = start[j]
    return late[:nl], shadows[:nl]


def late_heads(job, submit, start, held, procs, P: int, order: np.ndarray) -> list[str]:
    """EASY's guarantee under exact estimates: each head job starts no later
    than its shadow time. `order` is the arrival order used by the run."""
    s, st, en, pr = submit[order], start[order], (start + held)[order], np.asarray(procs, np.int64)[order]
    late, shadows = _late_heads(s, st, en, pr, np.argsort(st, kind="stable"), int(P))
    return [f"head job {int(job[order][j])} started at {st[j]:g}, after its reservation at {t:g}"
            for j, t in zip(late[:3], shadows[:3])]


def late_reservations(job, start, held, estimate, reservation, delayed: int) -> list[str]:
    """Conservative backfilling's promise: a reservation never moves later
    unless an estimate grows, so when no job outlived the estimate it started
    with (no prediction ran out, no job ran past its estimate under keep),
    every job starts at or before the reservation it got on arrival, and no
    reservation was counted as delayed."""
    if (held > estimate).any():
        return []  # an estimate grew: reservations may move later
    out = []
    late = np.flatnonzero(start > reservation)
    for i in late[:3]:
        out.append(f"job {int(job[i])} started at {start[i]:g}, after its reservation at {reservation[i]:g}")
    if delayed:
        out.append(f"{delayed} reservations moved later though no estimate grew")
    return out


def late_arrivals(job, trace_submit, submit, end, prev, think) -> list[str]:
    """Feedback's rule: a job arrives at its submit time if it waits for no
    other, else at its preceding job's end plus its think time or its submit
    time, whichever is later."""
    due = trace_submit.copy()
    linked = prev >= 0
    due[linked] = np.maximum(trace_submit[linked], end[prev[linked]] + think[linked])
    wrong = np.flatnonzero(submit != due)
    return [f"job {int(job[i])} arrived at {submit[i]:g}, not at {due[i]:g}" for i in wrong[:3]]


def check_feedback(job, trace_submit, submit, end, prev, think) -> None:
    """Raise ScheduleInvalid when a job arrived at another time than
    feedback's rule gives."""
    found = late_arrivals(job, trace_submit, submit, end, prev, think)
    if found:
        raise ScheduleInvalid("invalid schedule: " + "; ".join(found))


def check(job, submit, start, held, procs, P: int, order: np.ndarray | None = None,
          reservation: np.ndarray | None = None, estimate: np.ndarray | None = None, delayed: int = 0) -> None:
    """Raise ScheduleInvalid naming the first problems; `order` (the arrival
    order) adds EASY's head guarantee, valid only under exact estimates;
    `reservation` (each job's first, with the estimates jobs started with)
    adds conservative backfilling's."""
    found = problems(job, submit, start, held, procs, P)
    if not found and order is not None:
        found = late_heads(job, submit, start, held, procs, P, order)
    if not found and reservation is not None:
        found = late_reservations(job, start, held, estimate, reservation, delayed)
    if found:
        raise ScheduleInvalid("invalid schedule: " + "; ".join(found[:3]))
