"""The compiled cores' lists: running jobs sorted by estimated end (the
shadow time is a walk from the front; a rebuild of conservative's profile
reads them in order), and the queue, linked in arrival order."""
from __future__ import annotations

import numpy as np
from wla.archive.kernel.jit import njit


@njit(cache=True, nogil=True)
def running(cap):
    """The running list's arrays for `cap` jobs: estimated ends, processors, jobs."""
    return np.zeros(cap), np.zeros(cap, np.int64), np.zeros(cap, np.int64)


@njit(cache=True, nogil=True, _nrt=False)
def run_insert(r_end, r_procs, r_job, count, est_end, procs, j):
    """Insert into the running list sorted by estimated end (after equals)."""
    lo, hi = 0, count
    while lo < hi:
        mid = (lo + hi) >> 1
        if r_end[mid] <= est_end:
            lo = mid + 1
        else:
            hi = mid
    for i in range(count, lo, -1):
        r_end[i] = r_end[i - 1]
        r_procs[i] = r_procs[i - 1]
        r_job[i] = r_job[i - 1]
    r_end[lo] = est_end
    r_procs[lo] = procs
    r_job[lo] = j
    return count + 1


@njit(cache=True, nogil=True, _nrt=False)
def run_remove(r_end, r_procs, r_job, count, est_end, j):
    lo, hi = 0, count
    while lo < hi:
        mid = (lo + hi) >> 1
        if r_end[mid] < est_end:
            lo = mid + 1
        else:
            hi = mid
    while r_job[lo] != j:
        lo += 1
    for i in range(lo, count - 1):
        r_end[i] = r_end[i + 1]
        r_procs[i] = r_procs[i + 1]
        r_job[i] = r_job[i + 1]
    return count - 1


@njit(cache=True, nogil=True, _nrt=False)
def run_extend(r_end, r_procs, r_job, count, est_end, j, end, procs):
    """Job j, running, is now believed to end at `end` (a prediction ran
    out): its place in the running list follows."""
    count = run_remove(r_end, r_procs, r_job, count, est_end[j], j)
    est_end[j] = end
    return run_insert(r_end, r_procs, r_job, count, end, procs, j)


@njit(cache=True, nogil=True, _nrt=False)
def unlink(j, nxt, prv, head, tail):
    """Take job j out of the queue; returns the new (head, tail)."""
    if prv[j] >= 0:
        nxt[prv[j]] = nxt[j]
    else:
        head = nxt[j]
    if nxt[j] >= 0:
        prv[nxt[j]] = prv[j]
    else:
        tail = prv[j]
    return head, tail
