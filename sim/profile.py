"""Free processors from now on, compiled: the reference's `Profile`, with
the bookkeeping that makes conservative backfilling fast.

The step function lives in the slice [lo, hi) of two arrays, `pt` the times
at which a count begins and `pf` the processors free from then on; `st`
holds lo and hi. Steps are kept canonical (no two neighbours with the same
count), so every time at which a job can first fit is a step. A step is
inserted or deleted by moving the shorter side of the slice, so that steps
near now, the commonest, cost little; the arrays have room for twice the
steps there can be, so one side always has room. The edits are compiled
into their callers (numba's inline="always"): as calls, passing the arrays
cost more than the edits themselves.
"""
from __future__ import annotations

from wla.archive.kernel.jit import njit

LO, HI = 0, 1


@njit(cache=True, nogil=True, _nrt=False)
def reset(pt, pf, st, now, free):
    """One step, `free` processors from now on, a quarter into the arrays."""
    lo = pt.shape[0] >> 2
    pt[lo] = now
    pf[lo] = free
    st[LO] = lo
    st[HI] = lo + 1


@njit(cache=True, nogil=True, _nrt=False)
def find(pt, st, t):
    """The first index whose time is t or later (hi if none)."""
    return _find(pt, st[LO], st[HI], t)


@njit(cache=True, nogil=True, _nrt=False)
def _find(pt, lo, hi, t):
    while lo < hi:
        mid = (lo + hi) >> 1
        if pt[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _insert(pt, pf, st, i, t, f):
    """Put step (t, f) before index i; returns how far the steps before i
    moved (-1 or 0)."""
    lo, hi = st[LO], st[HI]
    if lo > 0 and (i - lo < hi - i or hi == pt.shape[0]):
        for x in range(lo, i):
            pt[x - 1] = pt[x]
            pf[x - 1] = pf[x]
        st[LO] = lo - 1
        pt[i - 1] = t
        pf[i - 1] = f
        return -1
    for x in range(hi, i, -1):
        pt[x] = pt[x - 1]
        pf[x] = pf[x - 1]
    st[HI] = hi + 1
    pt[i] = t
    pf[i] = f
    return 0


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _delete(pt, pf, st, i):
    """Drop step i; returns how far the steps before it moved (1 or 0)."""
    lo, hi = st[LO], st[HI]
    if i - lo < hi - 1 - i:
        for x in range(i, lo, -1):
            pt[x] = pt[x - 1]
            pf[x] = pf[x - 1]
        st[LO] = lo + 1
        return 1
    for x in range(i, hi - 1):
        pt[x] = pt[x + 1]
        pf[x] = pf[x + 1]
    st[HI] = hi - 1
    return 0


@njit(cache=True, nogil=True, _nrt=False)
def hold(pt, pf, st, a, b, p):
    """Take p processors over [a, b), a being now or later (give them back
    when p < 0), keeping the steps canonical."""
    if b > a:
        i = _find(pt, st[LO], st[HI], a)
        _hold_at(pt, pf, st, i, _find(pt, i, st[HI], b), a, b, p)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _hold_at(pt, pf, st, i, k, a, b, p):
    """`hold` with i and k, the first indices at or after a and b, known;
    returns how far the steps before i moved."""
    new_a = i == st[HI] or pt[i] != a
    new_b = k == st[HI] or pt[k] != b
    at_a = pf[i - 1] - p if new_a else 0  # the count a new step at a takes
    at_b = pf[k - 1]  # the count from b on, as it was
    for x in range(i, k):
        pf[x] -= p
    # the step at b first: changing it moves i only by a shift of the
    # whole left side
    moved = 0
    if new_b:
        moved = _insert(pt, pf, st, k, b, at_b)
    elif k < st[HI] and pf[k] == (at_a if new_a and k == i else pf[k - 1]):
        moved = _delete(pt, pf, st, k)
    i += moved
    if new_a:
        moved += _insert(pt, pf, st, i, a, at_a)
    elif i > st[LO] and pf[i] == pf[i - 1]:
        moved += _delete(pt, pf, st, i)
    return moved


@njit(cache=True, nogil=True, _nrt=False)
def move(pt, pf, st, c, y, r, length, p):
    """Move a hold of p processors from [r, r + length) to [t, t + length),
    t = pt[c] < r, y the first step at or after r. Only what changes is
    touched: when the two overlap, [t, r) is taken and [t + length, r +
    length) given back; the later part first, so that the indices of the
    earlier stay known."""
    t = pt[c]
    e = t + length
    hi = st[HI]
    if e > r:
        i = _find(pt, y, hi, e)
        c += _hold_at(pt, pf, st, i, _find(pt, i, st[HI], r + length), e, r + length, -p)
        _hold_at(pt, pf, st, c, _find(pt, c, st[HI], r), t, r, p)
    else:
        c += _hold_at(pt, pf, st, y, _find(pt, y, hi, r + length), r, r + length, -p)
        _hold_at(pt, pf, st, c, _find(pt, c, st[HI], e), t, e, p)


@njit(cache=True, nogil=True, _nrt=False)
def advance(pt, pf, st, now):
    """Forget what is before now."""
    lo, hi = st[LO], st[HI]
    i = lo
    while i + 1 < hi and pt[i + 1] <= now:
        i += 1
    st[LO] = i
    pt[i] = now


@njit(cache=True, nogil=True, _nrt=False)
def earliest(pt, pf, st, p, length):
    """The first index from now at which p processors stay free for `length`:
    the start of the first run of steps with p free that lasts that long."""
    hi = st[HI]
    run = -1
    for x in range(st[LO], hi):
        if pf[x] < p:
            run = -1
            continue
        if run < 0:
            run = x
        if x == hi - 1 or pt[x + 1] >= pt[run] + length:
            return run
    return -1  # more processors than the machine has


@njit(cache=True, nogil=True, _nrt=False)
def earlier(pt, pf, c, i, p, length, r):
    """For a job of p processors for `length` reserved at r, the first index
    at which it fits earlier, or -1, searching from index c, before which no
    step has p free; i is the last step before r. The
    job's own hold frees the rest of any window that reaches r, so one pass
    over the steps before r finds the first run of steps with p free that
    lasts long enough or reaches r. When step i itself lacks room, a window
    must end before it, which ends the search as soon as a run begins too
    late."""
    blocked = pf[i] < p
    run = -1
    for x in range(c, i + 1):
        if pf[x] < p:
            run = -1
            continue
        if run < 0:
            run = x
            if blocked and pt[x] + length > pt[i]:
                return -1
        if x == i or pt[x + 1] >= pt[run] + length:
            return run
    return -1

