"""Binary heaps over parallel arrays, keyed on (time, key), for the compiled
cores: the key (a job's place in the log or in arrival order) fixes the order
of simultaneous events, as the reference's tuples do."""
from __future__ import annotations

import numpy as np
from wla.archive.kernel.jit import njit


@njit(cache=True, nogil=True)
def empty(cap):
    """A heap's arrays for `cap` entries: times, keys, jobs."""
    return np.zeros(cap), np.zeros(cap, np.int64), np.zeros(cap, np.int64)


@njit(cache=True, nogil=True, _nrt=False)
def before(t, a, u, b):
    return t < u or (t == u and a < b)


@njit(cache=True, nogil=True, _nrt=False)
def push(ht, hk, hj, size, t, key, j):
    """Add (t, key) carrying j; returns the new size."""
    i = size
    while i > 0:
        p = (i - 1) >> 1
        if before(t, key, ht[p], hk[p]):
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


@njit(cache=True, nogil=True, _nrt=False)
def pop(ht, hk, hj, size):
    """Remove the top; the caller has read it. Returns the new size."""
    size -= 1
    t, key, j = ht[size], hk[size], hj[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and before(ht[c + 1], hk[c + 1], ht[c], hk[c]):
            c += 1
        if before(ht[c], hk[c], t, key):
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

