"""The fast simulator core: the semantics of reference.py, compiled.

Every decision mirrors the plain-Python reference; the tests require the
same start time for every job, so a change here is a change there first.
What differs is only the bookkeeping that makes it fast:

- jobs come sorted by arrival (submit, then log order), so an arrival is a
  pointer step and the queue is a linked list over job numbers;
- running jobs are kept sorted by estimated end, so the shadow time is a walk
  from the front, without sorting at each pass;
- terminations and prediction expiries are binary heaps keyed on
  (time, log index), which fixes the order of simultaneous events;
- a pass stops scanning the queue once no processor is free;
- with feedback, a job that waits for another is skipped by the arrival
  pointer and released into a heap keyed on (arrival, arrival index) when
  that job ends; an instant's arrivals merge the pointer and the heap by
  arrival index (`arrivals.py`).

Conservative backfilling keeps reservations from pass to pass, and has its
own loop (`conservative.py`).
"""
from __future__ import annotations

import numpy as np
from wla.archive.kernel.jit import njit

from .arrivals import next_arrival, release, skip_dependent
from .heap import empty
from .heap import pop as _heap_pop
from .heap import push as _heap_push
from .lastk import memory, predict, remember
from .lists import run_extend as _run_extend
from .lists import run_insert as _run_insert
from .lists import run_remove as _run_remove
from .lists import running
from .lists import unlink as _unlink

FCFS, EASY = 0, 1
TRUNCATE, EXTEND, KEEP = 0, 1, 2
POLICY_CODES = {"fcfs": FCFS, "easy": EASY}
OVERRUN_CODES = {"truncate": TRUNCATE, "extend": EXTEND, "keep": KEEP}


# No reference counting in here (_nrt=False: it allocates nothing): with it,
# numba counts a reference to each of the 18 arrays on every call, and the
# pass that starts a job in three places ran 30% slower than with the step
# written out three times.
@njit(cache=True, nogil=True, _nrt=False)
def _start(j, now, free, qlen, run, procs, own, est, logidx, start, est_end,
           r_end, r_procs, r_job, rcount, eh_t, eh_k, eh_j, esize, xh_t, xh_k, xh_j, xsize,
           nxt, prv, head, tail):
    """Start job j at `now` (the reference's `_start`): it takes its
    processors, runs until its real end, is believed to end at now +
    estimate, and leaves the queue. Returns the state it changed: free,
    qlen, rcount, esize, xsize, head, tail."""
    start[j] = now
    est_end[j] = now + est[j]
    rcount = _run_insert(r_end, r_procs, r_job, rcount, est_end[j], procs[j], j)
    esize = _heap_push(eh_t, eh_k, eh_j, esize, now + run[j], logidx[j], j)
    if est[j] < own[j] and run[j] > est[j]:  # a prediction that runs out before the job ends
        xsize = _heap_push(xh_t, xh_k, xh_j, xsize, now + est[j], logidx[j], j)
    head, tail = _unlink(j, nxt, prv, head, tail)
    return free - procs[j], qlen - 1, rcount, esize, xsize, head, tail


@njit(cache=True, nogil=True)
def simulate_core(submit, run, procs, own, user, logidx, P, policy, overrun, last_k, n_users, per_event,
                  dependent, child, sibling, think):
    """Start times, the estimate each job started with and its arrival time,
    for jobs sorted by trace arrival. `run` and `own` are already adjusted to
    the overrun mode (truncated runs, extended estimates); `logidx` breaks
    ties between simultaneous events as the log orders them; `per_event` runs
    a pass after each single event instead of once per instant. With
    feedback, `dependent` marks the jobs that wait for another, `child` and
    `sibling` list the jobs each job releases when it ends (in arrival
    order), `think` their think times (arrivals.py)."""
    n = submit.shape[0]
    start = np.full(n, np.nan)
    est = own.copy()
    est_end = np.zeros(n)
    nxt = np.full(n, -1, np.int64)
    prv = np.full(n, -1, np.int64)
    head, tail, qlen = -1, -1, 0
    cap = min(n, P) + 1
    r_end, r_procs, r_job = running(cap)
    rcount = 0
    eh_t, eh_k, eh_j = empty(cap)  # terminations
    esize = 0
    xh_t, xh_k, xh_j = empty(cap)  # prediction expiries
    xsize = 0
    hist, hcount, hpos = memory(n_users, last_k)
    free = P
    arrive = np.full(n, np.nan)
    rh_t, rh_k, rh_j = empty(n + 1)  # released jobs: (arrival, arrival index)
    rsize = 0
    left = n  # jobs still to arrive
    k = skip_dependent(dependent, 0, n)
    inf = np.inf
    while left > 0 or qlen > 0:
        now = inf
        if esize > 0:
            now = eh_t[0]
        if xsize > 0 and xh_t[0] < now:
            now = xh_t[0]
        if k < n and submit[k] < now:
            now = submit[k]
        if rsize > 0 and rh_t[0] < now:
            now = rh_t[0]
        if now == inf:
            break
        budget = 1 if per_event else 1 << 62  # events applied before the pass
        # -- ends: terminations at now free their processors (and feed last-k)
        while esize > 0 and eh_t[0] == now and budget > 0:
            budget -= 1
            j = eh_j[0]
            esize = _heap_pop(eh_t, eh_k, eh_j, esize)
            rcount = _run_remove(r_end, r_procs, r_job, rcount, est_end[j], j)
            free += procs[j]
            if last_k > 0:
                remember(hist, hcount, hpos, user[j], last_k, run[j])
            if child[j] >= 0:
                rsize = release(j, now, submit, child, sibling, think, rh_t, rh_k, rh_j, rsize)
        # -- expiries: a prediction ran out; the job's own estimate is back
        while xsize > 0 and xh_t[0] == now and budget > 0:
            budget -= 1
            j = xh_j[0]
            xsize = _heap_pop(xh_t, xh_k, xh_j, xsize)
            rcount = _run_extend(r_end, r_procs, r_job, rcount, est_end, j, start[j] + own[j], procs[j])
        # -- arrivals: each takes its last-k estimate and joins the queue's tail
        while budget > 0:
            a, k, rsize = next_arrival(now, submit, dependent, k, n, rh_t, rh_k, rh_j, rsize)
            if a < 0:
                break
            budget -= 1
            arrive[a] = now
            left -= 1
            if last_k > 0:
                est[a] = predict(hist, hcount, hpos, user[a], last_k, own[a])
            prv[a] = tail
            if tail >= 0:
                nxt[tail] = a
            else:
                head = a
            tail = a
            qlen += 1

        # -- _pass: one scheduling pass; a job it starts leaves the queue at once.
        j = head
        # fcfs (and easy's first part): start jobs from the head while they fit.
        while j >= 0 and procs[j] <= free:
            nj = nxt[j]
            free, qlen, rcount, esize, xsize, head, tail = _start(
                j, now, free, qlen, run, procs, own, est, logidx, start, est_end,
                r_end, r_procs, r_job, rcount, eh_t, eh_k, eh_j, esize, xh_t, xh_k, xh_j, xsize,
                nxt, prv, head, tail)
            j = nj
        if policy == FCFS or j < 0 or free == 0:
            continue
        # -- _shadow: the head's shadow time and extra processors (the
        # running list is kept sorted by estimated end: no sort here).
        need = procs[j]
        avail = free
        shadow = inf
        extra = 0
        i = 0
        while i < rcount:
            t = r_end[i]
            if overrun == KEEP and t < now:
                t = now
            while i < rcount:  # every job ending at t counts
                ti = r_end[i]
                if overrun == KEEP and ti < now:
                    ti = now
                if ti != t:
                    break
                avail += r_procs[i]
                i += 1
            if avail >= need:
                shadow = t
                extra = avail - need
                break
        # -- _pass, easy: backfill every later job that fits now and ends
        # by the shadow time, or else uses no more than the extra processors.
        b = nxt[j]
        while b >= 0 and free > 0:
            nb = nxt[b]
            p = procs[b]
            if p <= free:
                go = False
                if now + est[b] <= shadow:
                    go = True
                elif p <= extra:
                    go = True
                    extra -= p
                if go:
                    free, qlen, rcount, esize, xsize, head, tail = _start(
                        b, now, free, qlen, run, procs, own, est, logidx, start, est_end,
                        r_end, r_procs, r_job, rcount, eh_t, eh_k, eh_j, esize, xh_t, xh_k, xh_j, xsize,
                        nxt, prv, head, tail)
            b = nb
    return start, est, arrive
