"""The compiled cores' arrivals with feedback: jobs without a preceding job
arrive from the trace, in order, through a pointer; a job with one is
released into a heap when that job ends, at its end plus the think time and
never before the job's own submit time. One instant's arrivals come from
both in arrival-index order (the trace's order), as the reference's
`Arrivals` gives them."""
from __future__ import annotations

from wla.archive.kernel.jit import njit

from .heap import pop, push


@njit(cache=True, nogil=True, _nrt=False)
def skip_dependent(dependent, k, n):
    """The next job from k on that arrives from the trace."""
    while k < n and dependent[k]:
        k += 1
    return k


@njit(cache=True, nogil=True, _nrt=False)
def release(j, now, submit, child, sibling, think, rh_t, rh_k, rh_j, rsize):
    """Job j ended at now: each job waiting for it is due at now plus its
    think time, not before its submit time. Returns the heap's size."""
    c = child[j]
    while c >= 0:
        t = now + think[c]
        if submit[c] > t:
            t = submit[c]
        rsize = push(rh_t, rh_k, rh_j, rsize, t, c, c)
        c = sibling[c]
    return rsize


@njit(cache=True, nogil=True, _nrt=False)
def next_arrival(now, submit, dependent, k, n, rh_t, rh_k, rh_j, rsize):
    """The next job arriving at now (-1 if none), the trace pointer and the
    heap's size after taking it."""
    a = -1
    if k < n and submit[k] == now:
        a = k
    if rsize > 0 and rh_t[0] == now and (a < 0 or rh_j[0] < a):
        a = rh_j[0]
        rsize = pop(rh_t, rh_k, rh_j, rsize)
    elif a >= 0:
        k = skip_dependent(dependent, k + 1, n)
    return a, k, rsize
