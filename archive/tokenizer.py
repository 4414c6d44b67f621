"""The fast path of SWF parsing: one pass over the bytes of a whole file.

It classifies every line (blank, comment, job) and converts the job lines
whose every token is a plain decimal that converts exactly. Any other job line
is handed back as "slow" and parsed by `lineparse`, which is the definition
of what a job line may hold and says what is wrong with a bad one. Compiled
with numba, `nogil`, so several files are tokenized at once on threads.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .fields import EXACT_DOUBLE_LIMIT, FIELDS, NFIELDS

# Field k goes to slot SLOT[k] of the integer block when IS_INT[k], else of
# the float block.
IS_INT = np.array([f.integer for f in FIELDS], dtype=np.bool_)
SLOT = np.array(
    [sum(1 for g in FIELDS[:k] if g.integer == f.integer) for k, f in enumerate(FIELDS)],
    dtype=np.int64,
)
N_INT = int(IS_INT.sum())
N_FLOAT = NFIELDS - N_INT

# Powers of ten that are exact doubles: m / 10**e is then correctly rounded
# whenever m < 2**53 (Clinger's fast path).
_POW10 = np.array([10.0**e for e in range(23)], dtype=np.float64)
_INT64_GUARD = (2**63 - 1) // 10 - 1


@njit(nogil=True, cache=True, inline="always")
def _is_space(c: int) -> bool:
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(nogil=True, cache=True)
def scan(buf, is_int, slot, ints, floats, job_line, comments, slow):
    """Tokenize `buf`; return (jobs, comments, slow lines, blank lines, lines).

    `job_line[j]` is the 1-based line number of job slot j. `comments[c]` and
    `slow[s]` hold (line number, start offset, end offset[, job slot]).
    """
    n = buf.shape[0]
    njobs = 0
    ncom = 0
    nslow = 0
    nblank = 0
    lineno = 0
    i = 0
    limit = EXACT_DOUBLE_LIMIT
    while i < n:
        lineno += 1
        start = i
        # end of this line
        e = i
        while e < n and buf[e] != 10:
            e += 1
        nxt = e + 1
        while i < e and _is_space(buf[i]):
            i += 1
        if i == e:
            nblank += 1
            i = nxt
            continue
        if buf[i] == 59:  # ';'
            comments[ncom, 0] = lineno
            comments[ncom, 1] = start
            comments[ncom, 2] = e
            ncom += 1
            i = nxt
            continue
        j = njobs
        njobs += 1
        job_line[j] = lineno
        ok = True
        k = 0
        while True:
            while i < e and _is_space(buf[i]):
                i += 1
            if i >= e:
                break
            if k >= NFIELDS:
                ok = False
                break
            neg = False
            c = buf[i]
            if c == 45 or c == 43:  # '-' '+'
                neg = c == 45
                i += 1
            mant = 0
            nd = 0
            fd = 0
            fracnz = False
            while i < e and 48 <= buf[i] <= 57:
                if mant > _INT64_GUARD:
                    ok = False
                    break
                mant = mant * 10 + (buf[i] - 48)
                nd += 1
                i += 1
            if not ok:
                break
            intpart = mant
            if i < e and buf[i] == 46:  # '.'
                i += 1
                while i < e and 48 <= buf[i] <= 57:
                    d = buf[i] - 48
                    if d != 0:
                        fracnz = True
                    if mant > _INT64_GUARD:
                        ok = False
                        break
                    mant = mant * 10 + d
                    fd += 1
                    i += 1
                if not ok:
                    break
            if nd + fd == 0 or (i < e and not _is_space(buf[i])):
                ok = False
                break
            if is_int[k]:
                if fracnz:
                    ok = False
                    break
                ints[slot[k], j] = -intpart if neg else intpart
            else:
                if mant > limit or fd > 22:
                    ok = False
                    break
                v = float(mant)
                if fd > 0:
                    v = v / _POW10[fd]
                if neg and mant != 0:
                    v = -v
                floats[slot[k], j] = v
            k += 1
        if not ok or k != NFIELDS:
            slow[nslow, 0] = lineno
            slow[nslow, 1] = start
            slow[nslow, 2] = e
            slow[nslow, 3] = j
            nslow += 1
        i = nxt
    return njobs, ncom, nslow, nblank, lineno


def tokenize(data: bytes):
    """Run `scan` over `data` with buffers sized for its line count."""
    buf = np.frombuffer(data, dtype=np.uint8)
    nmax = data.count(b"\n") + 1
    ints = np.empty((N_INT, nmax), dtype=np.int64)
    floats = np.empty((N_FLOAT, nmax), dtype=np.float64)
    job_line = np.empty(nmax, dtype=np.int64)
    comments = np.empty((nmax, 3), dtype=np.int64)
    slow = np.empty((nmax, 4), dtype=np.int64)
    njobs, ncom, nslow, nblank, nlines = scan(
        buf, IS_INT, SLOT, ints, floats, job_line, comments, slow
    )
    return (
        ints[:, :njobs],
        floats[:, :njobs],
        job_line[:njobs],
        comments[:ncom],
        slow[:nslow],
        nblank,
        nlines,
    )


def warm() -> None:
    """Load the compiled scanner (from numba's cache) ahead of the first file."""
    tokenize(b"1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n")
