"""Binary heaps over parallel arrays, keyed on (time, key), for the compiled
cores: the key (a job's place in the log or in arrival order) fixes the order
of simultaneous events, as the reference's tuples do."""
from __future__ import annotations

from wla.archive.jit import njit


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


# -- a heap holding each job at most once, its place kept in `pos` (-1: not
# in it), so that a job's time can be changed where it is


@njit(cache=True, nogil=True, _nrt=False)
def _place_at(ht, hj, pos, i, t, j):
    ht[i] = t
    hj[i] = j
    pos[j] = i


@njit(cache=True, nogil=True, _nrt=False)
def _up(ht, hj, pos, i, t, j):
    while i > 0:
        p = (i - 1) >> 1
        if before(t, j, ht[p], hj[p]):
            _place_at(ht, hj, pos, i, ht[p], hj[p])
            i = p
        else:
            break
    _place_at(ht, hj, pos, i, t, j)


@njit(cache=True, nogil=True, _nrt=False)
def _down(ht, hj, pos, size, i, t, j):
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and before(ht[c + 1], hj[c + 1], ht[c], hj[c]):
            c += 1
        if before(ht[c], hj[c], t, j):
            _place_at(ht, hj, pos, i, ht[c], hj[c])
            i = c
        else:
            break
    _place_at(ht, hj, pos, i, t, j)


@njit(cache=True, nogil=True, _nrt=False)
def keyed_set(ht, hj, pos, size, j, t):
    """Job j at time t, whether it was in the heap or not; returns the size."""
    i = pos[j]
    if i < 0:
        _up(ht, hj, pos, size, t, j)
        return size + 1
    if before(t, j, ht[i], j):
        _up(ht, hj, pos, i, t, j)
    else:
        _down(ht, hj, pos, size, i, t, j)
    return size


@njit(cache=True, nogil=True, _nrt=False)
def keyed_pop(ht, hj, pos, size):
    """Remove the top; the caller has read it. Returns the new size."""
    pos[hj[0]] = -1
    size -= 1
    if size > 0:
        _down(ht, hj, pos, size, 0, ht[size], hj[size])
    return size
