"""Self-similarity of arrivals by rescaled range (docs/pages/definitions/statistics.md): a Hurst
parameter between 0.5 and 1 says the log is bursty at many time scales,
which a generated workload must keep for its waits to mean anything.

R/S of short blocks is biased upward (Anis and Lloyd 1976), so independent
arrivals give a little more than 0.5; an original and its resampled copies
share the bias, and are compared with each other, not with 0.5.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from wla.archive.kernel.errors import UsageError

UNIT = 600.0  # seconds per value of the series
FACTOR = 1.2  # successive block sizes
# Sizes with fewer non-overlapping blocks than this use this many blocks,
# overlapping, their starts spread evenly from the first value to the last
# possible one: every size up to N/2 has at least this many points, and the
# largest sizes do not outweigh the smaller ones in the fit.
MIN_BLOCKS = 10
# The line through the pox plot: through every block's point (the plot as
# drawn; short blocks, being many, weigh most), or through the mean log R/S
# of each block size (every time scale weighs the same, as in nolds'
# hurst_rs and Mandelbrot and Wallis's averaged R/S).
FITS = ("points", "means")


@dataclass(frozen=True)
class Hurst:
    """The fitted line through the pox plot (slope H, None when fewer than
    two block sizes gave a point) and its points: each distinct (n, R/S)
    once, with how many blocks gave it."""

    H: float | None
    intercept: float | None
    n: np.ndarray
    rs: np.ndarray
    count: np.ndarray
    unit: float
    length: int  # values in the series
    fit: str = "points"

    def as_dict(self, detail: bool = True) -> dict:
        """With `detail`, the points too (what the pox plot is drawn of)."""
        out = {"H": self.H, "intercept": self.intercept, "unit": self.unit, "length": self.length,
               "fit": self.fit, "sizes": np.unique(self.n).tolist()}
        if detail:
            out["points"] = {"n": self.n.tolist(), "rs": self.rs.tolist(), "count": self.count.tolist()}
        return out


def arrival_series(submit: np.ndarray, unit: float = UNIT) -> np.ndarray:
    """Jobs arriving in each `unit` from the first submit to the last
    (unknown submits left out)."""
    submit = np.asarray(submit, dtype=np.float64)
    submit = submit[np.isfinite(submit) & (submit >= 0)]
    if len(submit) == 0:
        return np.zeros(0, dtype=np.float64)
    slot = np.floor((submit - submit.min()) / unit).astype(np.int64)
    return np.bincount(slot).astype(np.float64)


def smallest_size(x: np.ndarray) -> int | None:
    """The smallest block size (from 2: one value has no spread) at which
    more than half of the non-overlapping blocks hold an arrival."""
    cumulative = np.concatenate(([0.0], np.cumsum(x)))
    for n in range(2, len(x) // 2 + 1):
        m = len(x) // n
        sums = cumulative[n:m * n + 1:n] - cumulative[0:m * n:n]
        if 2 * np.count_nonzero(sums) > m:
            return n
    return None


def block_sizes(length: int, smallest: int) -> np.ndarray:
    """Sizes from `smallest` up to length // 2, log-spaced by FACTOR, rounded, each once."""
    top = length // 2
    if smallest > top:
        return np.zeros(0, dtype=np.int64)
    steps = int(np.floor(np.log(top / smallest) / np.log(FACTOR))) + 1
    sizes = np.unique(np.round(smallest * FACTOR ** np.arange(steps + 1)).astype(np.int64))
    return sizes[(sizes >= smallest) & (sizes <= top)]


def blocks(x: np.ndarray, n: int) -> np.ndarray:
    """The blocks of size n, one per row (see MIN_BLOCKS)."""
    m = len(x) // n
    if m >= MIN_BLOCKS:
        return x[:m * n].reshape(m, n)
    starts = np.unique(np.arange(MIN_BLOCKS) * (len(x) - n) // (MIN_BLOCKS - 1))
    return x[starts[:, None] + np.arange(n)]


def rescaled_ranges(rows: np.ndarray) -> np.ndarray:
    """R/S of each row; S is the population standard deviation (divided by
    n). Rows with S = 0 (no arrival, or the same count throughout) have
    none and are left out."""
    z = rows - rows.mean(axis=1, keepdims=True)
    y = np.cumsum(z, axis=1)
    r = y.max(axis=1) - y.min(axis=1)
    s = np.sqrt((z * z).mean(axis=1))
    keep = s > 0
    return r[keep] / s[keep]


def hurst_rs(submit: np.ndarray, unit: float = UNIT, fit: str = "points") -> Hurst:
    """H of the arrivals: the least-squares slope through every block's
    (log10 n, log10 R/S), or through each size's mean (see FITS)."""
    if fit not in FITS:
        raise UsageError(f"the Hurst fit is one of {', '.join(FITS)}, not {fit!r}")
    x = arrival_series(submit, unit)
    smallest = smallest_size(x)
    sizes = block_sizes(len(x), smallest) if smallest is not None else np.zeros(0, dtype=np.int64)
    ns, rss, counts, logn, logrs = [], [], [], [], []
    for n in sizes:
        rs = rescaled_ranges(blocks(x, int(n)))
        if len(rs) == 0:
            continue
        if fit == "points":
            logn.append(np.full(len(rs), np.log10(n)))
            logrs.append(np.log10(rs))
        else:
            logn.append(np.array([np.log10(n)]))
            logrs.append(np.array([np.log10(rs).mean()]))
        distinct, count = np.unique(rs, return_counts=True)
        ns.append(np.full(len(distinct), n, dtype=np.int64))
        rss.append(distinct)
        counts.append(count)
    if len(ns) < 2:
        empty = np.zeros(0, dtype=np.float64)
        return Hurst(None, None, np.zeros(0, dtype=np.int64), empty, np.zeros(0, dtype=np.int64), unit, len(x), fit)
    lx, ly = np.concatenate(logn), np.concatenate(logrs)
    dx = lx - lx.mean()
    slope = float(np.dot(dx, ly - ly.mean()) / np.dot(dx, dx))
    intercept = float(ly.mean() - slope * lx.mean())
    return Hurst(slope, intercept, np.concatenate(ns), np.concatenate(rss), np.concatenate(counts), unit, len(x),
                 fit)
