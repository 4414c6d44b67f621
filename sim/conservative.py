"""Conservative backfilling, compiled: the semantics of
`reference.conservative_reference`, start time for start time.

What differs from the reference is only bookkeeping:

- jobs come sorted by arrival, so an arrival is a pointer step; the queue is
  four arrays in arrival order (job, reservation, processors, estimate),
  closed up when jobs start, so a compression reads it front to back;
- the profile (`profile.py`) keeps every reservation from pass to pass, and
  a job that moves changes only the steps its hold leaves and takes;
- in a compression, a job whose processors are free just before its
  reservation moves (at the latest to where that room begins); one without
  must fit wholly before that step, which it cannot if the step begins
  within one estimate of now: most jobs that cannot move cost one
  comparison. The others are searched for in one pass over the steps before
  their reservation, from now (the reference's `room_before`, then
  `earliest`, with the same answer);
- reservations mostly grow along the queue, so each one's step is found by
  walking on from the one before;
- the earliest reservation still to come is found in the passes that visit
  every waiting job anyway (compressions, starts), and lowered by arrivals;
- running jobs are kept in order of estimated end only when an estimate can
  grow (keep, last-k): only then is the profile built afresh.
"""
from __future__ import annotations

import numpy as np
from wla.archive.kernel.jit import njit

from . import profile as pr
from .arrivals import next_arrival, release, skip_dependent
from .heap import empty, pop, push
from .lastk import memory, predict, remember
from .lists import run_extend, run_insert, run_remove, running

KEEP = 2  # core.OVERRUN_CODES["keep"]


@njit(cache=True, nogil=True, _nrt=False)
def _rebuild(pt, pf, st, now, P, r_end, r_procs, rcount):
    """The profile of the running jobs alone, each held to its estimated end."""
    held = 0
    for i in range(rcount):
        if r_end[i] > now:
            held += r_procs[i]
    pr.reset(pt, pf, st, now, P - held)
    hi = st[pr.HI]
    for i in range(rcount):
        t = r_end[i]
        if t <= now:
            continue
        if t == pt[hi - 1]:
            pf[hi - 1] += r_procs[i]
        else:
            pt[hi] = t
            pf[hi] = pf[hi - 1] + r_procs[i]
            hi += 1
    st[pr.HI] = hi


@njit(cache=True, nogil=True, _nrt=False)
def _place(pt, pf, st, p, length):
    """A job's earliest reservation from now; its hold taken."""
    t = pt[pr.earliest(pt, pf, st, p, length)]
    pr.hold(pt, pf, st, t, t + length, p)
    return t


@njit(cache=True, nogil=True)
def conservative_core(submit, run, procs, own, user, logidx, P, overrun, last_k, n_users, per_event,
                      dependent, child, sibling, think):
    """Start times, the estimate each job started with, the reservation each
    got on arrival, how many times a reservation moved later, and each job's
    arrival time, for jobs sorted by trace arrival (the arguments of
    `core.simulate_core`)."""
    n = submit.shape[0]
    inf = np.inf
    start = np.full(n, np.nan)
    first = np.full(n, np.nan)
    est = own.copy()
    est_end = np.zeros(n)
    # the queue, in arrival order: job, reservation, processors, estimate
    qj = np.zeros(n, np.int64)
    qr = np.zeros(n)
    qp = np.zeros(n, np.int64)
    qe = np.zeros(n)
    qlen = 0
    cap = min(n, P) + 1
    r_end, r_procs, r_job = running(cap)
    rcount = 0
    # only a growing estimate needs the running jobs in order (to build the
    # profile afresh, and under keep to see one pass its estimate)
    listed = overrun == KEEP or last_k > 0
    eh_t, eh_k, eh_j = empty(cap)  # terminations
    esize = 0
    xh_t, xh_k, xh_j = empty(cap)  # prediction expiries
    xsize = 0
    hist, hcount, hpos = memory(n_users, last_k)
    # steps: now, and the ends of the running jobs' holds and the reservations' two ends
    size = 2 * (2 * n + 2) + 4
    pt = np.zeros(size)
    pf = np.zeros(size, np.int64)
    st = np.zeros(2, np.int64)
    pr.reset(pt, pf, st, submit[0] if n > 0 else 0.0, P)
    free = P
    arrive = np.full(n, np.nan)
    rh_t, rh_k, rh_j = empty(n + 1)  # released jobs: (arrival, arrival index)
    rsize = 0
    left = n  # jobs still to arrive
    came = np.zeros(n, np.int64)  # one instant's arrivals, in order
    k = skip_dependent(dependent, 0, n)
    delayed = 0
    last = -inf
    due = inf  # the earliest reservation after now
    at_now = False  # some waiting job may be reserved at now
    grown = False
    while left > 0 or qlen > 0:
        now = due
        if esize > 0 and eh_t[0] < now:
            now = eh_t[0]
        if xsize > 0 and xh_t[0] < now:
            now = xh_t[0]
        if k < n and submit[k] < now:
            now = submit[k]
        if rsize > 0 and rh_t[0] < now:
            now = rh_t[0]
        if now == inf:
            break
        if now > last:
            # under keep, a job past its estimated end holds until now at least
            if overrun == KEEP and rcount > 0 and r_end[0] < now:
                grown = True
            pr.advance(pt, pf, st, now)
            at_now = now == due
            last = now
        budget = 1 if per_event else 1 << 62  # events applied before the pass
        gave_back = False
        # -- terminations; the rest of a hold is given back
        while esize > 0 and eh_t[0] == now and budget > 0:
            budget -= 1
            j = eh_j[0]
            esize = pop(eh_t, eh_k, eh_j, esize)
            if listed:
                rcount = run_remove(r_end, r_procs, r_job, rcount, est_end[j], j)
            free += procs[j]
            if est_end[j] > now:
                pr.hold(pt, pf, st, now, est_end[j], -procs[j])
                gave_back = True
            if last_k > 0:
                remember(hist, hcount, hpos, user[j], last_k, run[j])
            if child[j] >= 0:
                rsize = release(j, now, submit, child, sibling, think, rh_t, rh_k, rh_j, rsize)
        # -- expiries: a prediction ran out, the job holds until its own estimate
        while xsize > 0 and xh_t[0] == now and budget > 0:
            budget -= 1
            j = xh_j[0]
            xsize = pop(xh_t, xh_k, xh_j, xsize)
            rcount = run_extend(r_end, r_procs, r_job, rcount, est_end, j, start[j] + own[j], procs[j])
            pr.hold(pt, pf, st, now, est_end[j], procs[j])
            grown = True
        arrived = 0
        while budget > 0:
            a, k, rsize = next_arrival(now, submit, dependent, k, n, rh_t, rh_k, rh_j, rsize)
            if a < 0:
                break
            budget -= 1
            arrive[a] = now
            left -= 1
            came[arrived] = a
            arrived += 1
        # -- the pass
        if grown:  # every waiting job placed again, beside those before it
            _rebuild(pt, pf, st, now, P, r_end, r_procs, rcount)
            due = inf
            for x in range(qlen):
                t = _place(pt, pf, st, qp[x], qe[x])
                if t > qr[x]:
                    delayed += 1
                qr[x] = t
                if t == now:
                    at_now = True
                elif t < due:
                    due = t
            grown = False
        elif gave_back:  # compression: each waiting job at its earliest fit beside all the others
            due = inf
            # reservations mostly grow along the queue: the step of each is
            # looked for from the one before, by a walk
            y = st[pr.LO]
            prev = now
            for x in range(qlen):
                r = qr[x]
                if r > now:
                    if r < prev:
                        y = pr.find(pt, st, r)
                    else:
                        hi = st[pr.HI]
                        while y < hi and pt[y] < r:
                            y += 1
                    prev = r
                    p = qp[x]
                    c = -1
                    # without room just before r, a window must end sooner:
                    # not at all if that step begins within an estimate of now
                    if pf[y - 1] >= p or pt[y - 1] - now >= qe[x]:
                        c = pr.earlier(pt, pf, st[pr.LO], y - 1, p, qe[x], r)
                    if c >= 0:
                        t = pt[c]
                        pr.move(pt, pf, st, c, y, r, qe[x], p)
                        qr[x] = t
                        r = t
                        prev = inf  # the steps moved: search afresh
                if r == now:
                    at_now = True
                elif r < due:
                    due = r
        for x in range(arrived):  # arrivals: each gets its reservation
            j = came[x]
            if procs[j] > P:
                continue  # wider than the machine: it never starts (checked input has none)
            if last_k > 0:
                est[j] = predict(hist, hcount, hpos, user[j], last_k, own[j])
            t = _place(pt, pf, st, procs[j], est[j])
            first[j] = t
            qj[qlen] = j
            qr[qlen] = t
            qp[qlen] = procs[j]
            qe[qlen] = est[j]
            qlen += 1
            if t == now:
                at_now = True
            elif t < due:
                due = t
        if not at_now:
            continue
        # -- reservations at now, in arrival order: start, when the
        # processors really are free; the queue closes up behind them
        at_now = False
        due = inf
        w = 0
        for x in range(qlen):
            j = qj[x]
            r = qr[x]
            if r == now and qp[x] <= free:
                free -= qp[x]
                start[j] = now
                est_end[j] = now + est[j]
                if listed:
                    rcount = run_insert(r_end, r_procs, r_job, rcount, est_end[j], procs[j], j)
                esize = push(eh_t, eh_k, eh_j, esize, now + run[j], logidx[j], j)
                if est[j] < own[j] and run[j] > est[j]:  # a prediction that runs out before the job ends
                    xsize = push(xh_t, xh_k, xh_j, xsize, now + est[j], logidx[j], j)
                continue
            if r == now:
                at_now = True  # held up: tried again after this instant's next event
            elif r < due:
                due = r
            if w < x:
                qj[w] = j
                qr[w] = r
                qp[w] = qp[x]
                qe[w] = qe[x]
            w += 1
        qlen = w
    return start, est, first, delayed, arrive
