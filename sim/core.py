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
- conservative backfilling keeps the profile it built, every queued job's
  reservation in it: while no estimated end moves and no reservation passes,
  a rebuild would give every job the same reservation, so a pass only places
  the arrivals; a job needing no more processors for no longer than one
  placed before it in the pass fits no earlier, so its search starts there.
"""
from __future__ import annotations

import numpy as np
from wla.archive.jit import njit

FCFS, EASY, CONSERVATIVE = 0, 1, 2
TRUNCATE, EXTEND, KEEP = 0, 1, 2
POLICY_CODES = {"fcfs": FCFS, "easy": EASY, "conservative": CONSERVATIVE}
OVERRUN_CODES = {"truncate": TRUNCATE, "extend": EXTEND, "keep": KEEP}
RECENT = 8  # conservative: how many jobs placed last a search may start from


@njit(cache=True, nogil=True)
def _before(t, a, u, b):
    return t < u or (t == u and a < b)


@njit(cache=True, nogil=True)
def _heap_push(ht, hk, hj, size, t, key, j):
    i = size
    while i > 0:
        p = (i - 1) >> 1
        if _before(t, key, ht[p], hk[p]):
            ht[i] = ht[p]
            hk[i] = hk[p]
            hj[i] = hj[p]
            i = p
        else:
            break
    ht[i] = t
    hk[i] = key
    hj[i] = j
    return size + 1


@njit(cache=True, nogil=True)
def _heap_pop(ht, hk, hj, size):
    """Remove the top; the caller has read it. Returns the new size."""
    size -= 1
    t, key, j = ht[size], hk[size], hj[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and _before(ht[c + 1], hk[c + 1], ht[c], hk[c]):
            c += 1
        if _before(ht[c], hk[c], t, key):
            ht[i] = ht[c]
            hk[i] = hk[c]
            hj[i] = hj[c]
            i = c
        else:
            break
    ht[i] = t
    hk[i] = key
    hj[i] = j
    return size


@njit(cache=True, nogil=True)
def _run_insert(r_end, r_procs, r_job, count, est_end, procs, j):
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


@njit(cache=True, nogil=True)
def _run_remove(r_end, r_procs, r_job, count, est_end, j):
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


@njit(cache=True, nogil=True)
def _unlink(j, nxt, prv, head, tail):
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


@njit(cache=True, nogil=True)
def _fit_at(pt, pf, m, c, length, need):
    """First profile index >= c at which `need` processors stay free for
    `length`, and the first step at or past its end (where the reservation's
    end goes): candidates that overlap a too-full step are skipped at once."""
    while True:
        end = pt[c] + length
        i = c
        ok = True
        while i < m and pt[i] < end:
            if pf[i] < need:
                ok = False
                break
            i += 1
        if ok:
            return c, i
        c = i + 1


@njit(cache=True, nogil=True)
def _add_point(pt, pf, m, t, i):
    """Make t a step of the profile, searching from index i (at or before
    where t goes); returns (its index, new length)."""
    while i < m and pt[i] < t:
        i += 1
    if i < m and pt[i] == t:
        return i, m
    for k in range(m, i, -1):
        pt[k] = pt[k - 1]
        pf[k] = pf[k - 1]
    pt[i] = t
    pf[i] = pf[i - 1]
    return i, m + 1


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
def simulate_core(submit, run, procs, own, user, logidx, P, policy, overrun, last_k, n_users, per_event):
    """Start times and the estimate each job started with, for jobs sorted by
    arrival. `run` and `own` are already adjusted to the overrun mode
    (truncated runs, extended estimates); `logidx` breaks ties between
    simultaneous events as the log orders them; `per_event` runs a pass after
    each single event instead of once per instant."""
    n = submit.shape[0]
    start = np.full(n, np.nan)
    est = own.copy()
    est_end = np.zeros(n)
    nxt = np.full(n, -1, np.int64)
    prv = np.full(n, -1, np.int64)
    head, tail, qlen = -1, -1, 0
    cap = min(n, P) + 1
    r_end = np.zeros(cap)
    r_procs = np.zeros(cap, np.int64)
    r_job = np.zeros(cap, np.int64)
    rcount = 0
    eh_t = np.zeros(cap)
    eh_k = np.zeros(cap, np.int64)
    eh_j = np.zeros(cap, np.int64)
    esize = 0
    xh_t = np.zeros(cap)
    xh_k = np.zeros(cap, np.int64)
    xh_j = np.zeros(cap, np.int64)
    xsize = 0
    kk = max(last_k, 1)
    hist = np.zeros((max(n_users, 1), kk))
    hcount = np.zeros(max(n_users, 1), np.int64)
    hpos = np.zeros(max(n_users, 1), np.int64)
    pt = np.zeros(2 * n + 2 * cap + 2)
    pf = np.zeros(2 * n + 2 * cap + 2, np.int64)
    m = 0  # the profile's steps, kept from pass to pass (conservative)
    moved = True  # an estimated end moved since the last pass: rebuild
    due = np.inf  # the earliest reservation of a queued job (conservative)
    res = np.zeros(n if policy == CONSERVATIVE else 0)  # each queued job's reservation
    recent = np.zeros(RECENT, np.int64)  # the jobs last placed in a pass, and their steps
    recent_c = np.zeros(RECENT, np.int64)
    free = P
    k = 0
    inf = np.inf
    while k < n or qlen > 0:
        now = inf
        if esize > 0:
            now = eh_t[0]
        if xsize > 0 and xh_t[0] < now:
            now = xh_t[0]
        if k < n and submit[k] < now:
            now = submit[k]
        if now == inf:
            break
        budget = 1 if per_event else 1 << 62  # events applied before the pass
        # -- ends: terminations at now free their processors (and feed last-k)
        while esize > 0 and eh_t[0] == now and budget > 0:
            budget -= 1
            j = eh_j[0]
            esize = _heap_pop(eh_t, eh_k, eh_j, esize)
            if est_end[j] > now:  # ended before its estimated end
                moved = True
            rcount = _run_remove(r_end, r_procs, r_job, rcount, est_end[j], j)
            free += procs[j]
            if last_k > 0:
                u = user[j]
                hist[u, hpos[u]] = run[j]
                hpos[u] = (hpos[u] + 1) % last_k
                if hcount[u] < last_k:
                    hcount[u] += 1
        # -- expiries: a prediction ran out; the job's own estimate is back
        while xsize > 0 and xh_t[0] == now and budget > 0:
            budget -= 1
            j = xh_j[0]
            xsize = _heap_pop(xh_t, xh_k, xh_j, xsize)
            moved = True
            rcount = _run_remove(r_end, r_procs, r_job, rcount, est_end[j], j)
            est_end[j] = start[j] + own[j]
            rcount = _run_insert(r_end, r_procs, r_job, rcount, est_end[j], procs[j], j)
        # -- arrivals: each takes its last-k estimate and joins the queue's tail
        arrived = k
        while k < n and submit[k] == now and budget > 0:
            budget -= 1
            if last_k > 0:
                u = user[k]
                c = hcount[u]
                if c > 0:
                    s = 0.0
                    first = (hpos[u] - c) % last_k
                    for i in range(c):
                        s += hist[u, (first + i) % last_k]
                    mean = s / c
                    if mean < own[k]:
                        est[k] = mean
            prv[k] = tail
            if tail >= 0:
                nxt[tail] = k
            else:
                head = k
            tail = k
            qlen += 1
            k += 1

        # -- _pass: one scheduling pass; a job it starts leaves the queue at once.
        j = head
        if policy != CONSERVATIVE:
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
            continue

        # -- _conservative: each queued job, in order, gets its earliest
        # reservation in the profile of free processors from now on.
        keep = not moved and now <= due
        if keep:
            # The profile is as it was built from now on (no estimated end
            # moved: a job that ended at or past its estimated end frees
            # nothing it had not freed) and every reservation in it is now or
            # later: each is still the earliest fit after those before it, as
            # a rebuild would find. Those at now start if their processors
            # are free; only the arrivals, at the tail, need a place.
            c = 0
            while c + 1 < m and pt[c + 1] <= now:
                c += 1
            if c > 0:  # forget the steps before the one holding now
                for i in range(c, m):
                    pt[i - c] = pt[i]
                    pf[i - c] = pf[i]
                m -= c
            pt[0] = now
            if due > now:  # none of them is due now: only the arrivals
                j = arrived if arrived < k else -1
            else:
                due = np.inf
        else:
            # rebuild: the running jobs' estimated ends, then every job
            m = 1
            pt[0] = now
            pf[0] = free
            for i in range(rcount):
                t = r_end[i]
                if overrun == KEEP and t < now:
                    t = now
                if t == pt[m - 1]:
                    pf[m - 1] += r_procs[i]
                else:
                    pt[m] = t
                    pf[m] = pf[m - 1] + r_procs[i]
                    m += 1
            moved = False
            due = np.inf
        placed = 0
        while j >= 0:
            nj = nxt[j]
            if keep and j < arrived:
                t0 = res[j]
            else:
                # a window that fits it would have fitted a job placed before
                # it in this pass needing no more processors for no longer
                # (with more room then): search from that one's step (an index
                # that later insertions shifted points to an earlier step)
                c = 0
                for r in range(min(placed, RECENT)):
                    b = recent[r]
                    if procs[b] <= procs[j] and est[b] <= est[j] and recent_c[r] > c:
                        c = recent_c[r]
                c, e = _fit_at(pt, pf, m, c, est[j], procs[j])  # _fits_from
                t0 = pt[c]  # already a step
                e, m = _add_point(pt, pf, m, t0 + est[j], e)  # _reserve
                for i in range(c, e):
                    pf[i] -= procs[j]
                res[j] = t0
                recent[placed % RECENT] = j
                recent_c[placed % RECENT] = c
                placed += 1
            if t0 == now and procs[j] <= free:
                free, qlen, rcount, esize, xsize, head, tail = _start(
                    j, now, free, qlen, run, procs, own, est, logidx, start, est_end,
                    r_end, r_procs, r_job, rcount, eh_t, eh_k, eh_j, esize, xh_t, xh_k, xh_j, xsize,
                    nxt, prv, head, tail)
            elif t0 < due:
                due = t0
            j = nj
    return start, est
