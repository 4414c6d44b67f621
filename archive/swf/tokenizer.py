"""The fast path of SWF parsing: one pass over the bytes of a whole file.

It classifies every line (blank, comment, job) and converts the job lines
whose every token is a plain decimal that converts exactly. Any other job line
is handed back as "slow" and parsed by `lineparse`, which is the definition
of what a job line may hold and says what is wrong with a bad one. Compiled
with numba, `nogil`, so several files are tokenized at once on threads.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from ..kernel.jit import njit
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
POW10 = np.array([10.0**e for e in range(23)], dtype=np.float64)
_INT64_GUARD = (2**63 - 1) // 10 - 1

# Below this mantissa (15 digits) no two decimals are the same double, so a
# fraction written in its fewest decimals has no shorter spelling.
UNIQUE_MANTISSA = 10**15
# The shortest spelling of a fraction tries up to this many decimals.
MAX_DECIMALS = 17

# The layout of `Scan` without one: fields one space apart, shortest spellings.
_PLAIN = (np.array([[0] + [1] * (NFIELDS - 1), [0] * NFIELDS, [0] * NFIELDS], dtype=np.int64),
          np.array([32, 0, 0], dtype=np.int64))

# A job line holds 18 tokens of at least one byte and 17 separators.
MIN_JOB_LINE = 2 * NFIELDS - 1
# Comment and slow lines handed back per call of `scan`.
BATCH = 1 << 16


@njit(nogil=True, cache=True, inline="always")
def is_space(c: int) -> bool:
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(nogil=True, cache=True)
def _as_rendered(neg, nd, zero_first, dot, fd, fracnz, lastz, mant, intpart, tlen, decimals, width):
    """Whether a float token (its sign, integer digits, first digit 0,
    point, decimals, ...) is exactly what `layout._spell_float` writes for
    the value it spells. It may say no to a token that is (the line is then
    kept as written), never yes to one that is not."""
    signs = 1 if neg else 0
    point = 1 if dot else 0
    if tlen != signs + nd + point + fd:  # a '+'
        return False
    if nd == 0 or (zero_first and nd > 1) or (neg and mant == 0) or (dot and fd == 0):
        return False
    if not fracnz:  # a whole value: fixed decimals where they fit and are exact, else no point
        fixed = (decimals > 0 and not (neg and intpart == 1)
                 and float(intpart) * POW10[decimals] < EXACT_DOUBLE_LIMIT
                 and tlen - fd - point + 1 + decimals <= width)
        return dot and fd == decimals if fixed else not dot
    if mant >= UNIQUE_MANTISSA or fd > MAX_DECIMALS:
        return False
    if decimals > 0 and fd <= decimals:
        if fd == decimals and tlen <= width:
            return True
        if fd < decimals and tlen + decimals - fd <= width:
            return False
    return not lastz  # the fewest decimals: below 10**15 no shorter decimal is the same double


@njit(nogil=True, cache=True, inline="always")
def _tail_as_rendered(buf, a, e, line):
    """Whether buf[a:e], after a line's last field, is the layout's tail
    padding and its \\r, if any."""
    if line[2]:
        if e == a or buf[e - 1] != 13:
            return False
        e -= 1
    if e - a != line[1]:
        return False
    for i in range(a, e):
        if buf[i] != line[0]:
            return False
    return True


@njit(nogil=True, cache=True)
def scan(buf, base, state, is_int, slot, ints, floats, job_line, job_start, comments, slow,
         fmt, line, irregular):
    """Tokenize `buf`, the rest of a file from offset `base`, until its end
    or until `comments` or `slow` is full; return how many of each it filled.

    `state` holds (offset, lines, jobs, blank lines) and is updated, so the
    next call goes on from there. `job_line[j]` is the 1-based line number of
    job slot j and `job_start[j]` the offset its line starts at. `comments[c]`
    and `slow[s]` hold (line number, start offset, end offset[, job slot]).
    A line too short to hold 18 fields is slow with slot -1: slots go only
    to lines of at least MIN_JOB_LINE bytes, so a file of n bytes needs at
    most n // (MIN_JOB_LINE + 1) + 1. `irregular[j]` says whether job slot
    j's line differs from what `layout.render_lines` writes for its values in
    the layout `fmt`, `line` (layout.Layout.arrays); a slow line always
    does. (`buf` starts at
    the offset, rather than `i` starting there: an index the compiler sees
    start at 0 needs no check for negative values, 10% faster.)
    """
    n = buf.shape[0]
    i = 0
    lineno = state[1]
    njobs = state[2]
    nblank = state[3]
    ncom = 0
    nslow = 0
    limit = EXACT_DOUBLE_LIMIT
    pad = line[0]
    spaces, widths, decimals = fmt[0], fmt[1], fmt[2]
    while i < n:
        lineno += 1
        start = i
        # end of this line
        e = i
        while e < n and buf[e] != 10:
            e += 1
        nxt = e + 1
        while i < e and is_space(buf[i]):
            i += 1
        if i == e:
            nblank += 1
            i = nxt
            continue
        if buf[i] == 59:  # ';'
            comments[ncom, 0] = lineno
            comments[ncom, 1] = base + start
            comments[ncom, 2] = base + e
            ncom += 1
            i = nxt
            if ncom == comments.shape[0]:
                break
            continue
        if e - i < MIN_JOB_LINE:
            slow[nslow, 0] = lineno
            slow[nslow, 1] = base + start
            slow[nslow, 2] = base + e
            slow[nslow, 3] = -1
            nslow += 1
            i = nxt
            if nslow == slow.shape[0]:
                break
            continue
        j = njobs
        njobs += 1
        job_line[j] = lineno
        job_start[j] = base + start
        ok = True
        regular = True  # so far, the line is what `layout` renders from its values
        a = start  # where the padding before the next field starts
        i = start
        k = 0
        while True:
            while i < e and buf[i] == pad:
                i += 1
            if i < e and is_space(buf[i]):  # padding of another kind (or the \r of a line end)
                while i < e and is_space(buf[i]):
                    i += 1
                regular &= i >= e
            if i >= e:
                break
            if k >= NFIELDS:
                ok = False
                break
            tstart = i
            neg = False
            c = buf[i]
            if c == 45 or c == 43:  # '-' '+'
                neg = c == 45
                i += 1
            d0 = buf[i] if i < e else 0  # the first digit, if any
            mant = 0
            nd = 0
            fd = 0
            dot = False
            fracnz = False
            lastz = False
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
                dot = True
                i += 1
                while i < e and 48 <= buf[i] <= 57:
                    d = buf[i] - 48
                    lastz = d == 0
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
            if nd + fd == 0 or (i < e and not is_space(buf[i])):
                ok = False
                break
            tlen = i - tstart
            if is_int[k]:
                if fracnz:
                    ok = False
                    break
                ints[slot[k], j] = -intpart if neg else intpart
                # [-]digits, no leading 0, no -0: as layout._spell_int writes it
                regular &= (tlen == nd + neg) & ((d0 != 48) | (tlen == 1))
            else:
                if mant > limit or fd > 22:
                    ok = False
                    break
                v = float(mant)
                if fd > 0:
                    v = v / POW10[fd]
                if neg and mant != 0:
                    v = -v
                floats[slot[k], j] = v
                if dot or decimals[k]:
                    regular &= _as_rendered(neg, nd, d0 == 48, dot, fd, fracnz, lastz, mant, intpart,
                                            tlen, decimals[k], widths[k])
                else:  # a whole number written whole, the layout's way when it has no decimals
                    regular &= (tlen == nd + neg) & ((d0 != 48) | (tlen == 1))
            # right-aligned in its width after its spaces (branchless: faster)
            regular &= tstart - a == spaces[k] + max(widths[k] - tlen, 0)
            a = i
            k += 1
        if not ok or k != NFIELDS:
            slow[nslow, 0] = lineno
            slow[nslow, 1] = base + start
            slow[nslow, 2] = base + e
            slow[nslow, 3] = j
            nslow += 1
            irregular[j] = True
        else:
            irregular[j] = not (regular and _tail_as_rendered(buf, a, e, line))
        i = nxt
        if nslow == slow.shape[0]:
            break
    state[0] = base + i
    state[1] = lineno
    state[2] = njobs
    state[3] = nblank
    return ncom, nslow


class Scan:
    """One pass of `scan` over a file's bytes. The job blocks are sized once,
    by the most job lines the bytes can hold; comment and slow lines come back
    in batches of BATCH, so no buffer grows with blank, comment or bad lines
    (the old sizing, by line count alone, took 208 bytes per blank line).
    `layout` is (fmt, line) of `layout.Layout.arrays()`, the layout job
    lines are checked against; without one, every field is one space and
    its shortest spelling."""

    def __init__(self, data: bytes | bytearray, batch: int = BATCH,
                 layout: tuple[np.ndarray, np.ndarray] | None = None):
        buf = np.frombuffer(data, dtype=np.uint8)
        buf.flags.writeable = False  # one compiled signature for bytes and bytearray
        self.buf = buf
        # At most one job per line, and per MIN_JOB_LINE + 1 bytes: the
        # second bound keeps a flood of blank lines from costing anything.
        cap = min(data.count(b"\n"), len(data) // (MIN_JOB_LINE + 1)) + 1
        self.ints = np.empty((N_INT, cap), dtype=np.int64)
        self.floats = np.empty((N_FLOAT, cap), dtype=np.float64)
        self.job_line_all = np.empty(cap, dtype=np.int64)
        self.job_start = np.empty(cap, dtype=np.int64)  # offset of each job slot's line
        self.irregular = np.empty(cap, dtype=np.bool_)  # a job slot's line is not as rendered
        self.fmt, self.line = layout if layout is not None else _PLAIN
        self._comments = np.empty((batch, 3), dtype=np.int64)
        self._slow = np.empty((batch, 4), dtype=np.int64)
        self.state = np.zeros(4, dtype=np.int64)
        self._first_short = 0  # line of the first line too short for a job slot

    def batches(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(comments, slow lines) of each stretch scanned; each batch is
        overwritten by the next, so use it before asking for more."""
        while True:
            base = int(self.state[0])
            ncom, nslow = scan(self.buf[base:], base, self.state, IS_INT, SLOT, self.ints, self.floats,
                               self.job_line_all, self.job_start, self._comments, self._slow,
                               self.fmt, self.line, self.irregular)
            slow = self._slow[:nslow]
            if not self._first_short:
                short = slow[slow[:, 3] < 0, 0]
                self._first_short = int(short[0]) if len(short) else 0
            yield self._comments[:ncom], slow
            if self.state[0] >= len(self.buf):
                return

    @property
    def jobs(self) -> int:
        return int(self.state[2])

    @property
    def lines(self) -> int:
        return int(self.state[1])

    @property
    def blank_lines(self) -> int:
        return int(self.state[3])

    @property
    def first_job_line(self) -> int:
        """Line number of the first line that is neither blank nor a comment,
        among those scanned so far (0: none)."""
        lines = [int(self.job_line_all[0])] if self.jobs else []
        lines += [self._first_short] if self._first_short else []
        return min(lines, default=0)

    def blocks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The integer and float blocks and job line numbers of the jobs so far."""
        n = self.jobs
        return self.ints[:, :n], self.floats[:, :n], self.job_line_all[:n]


def tokenize(data: bytes | bytearray):
    """The whole pass at once: (ints, floats, job lines, comments, slow lines,
    blank lines, lines), every comment and slow line collected."""
    s = Scan(data)
    comments, slow = [], []
    for c, sl in s.batches():
        comments.append(c.copy())
        slow.append(sl.copy())
    ints, floats, job_line = s.blocks()
    return (ints, floats, job_line, np.concatenate(comments), np.concatenate(slow),
            s.blank_lines, s.lines)


def warm() -> None:
    """Load the compiled scanner (from numba's cache) ahead of the first file."""
    tokenize(b"1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n")
