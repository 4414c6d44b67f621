"""Locality of sampling (docs/pages/definitions/statistics.md): do jobs repeat recent values of an
attribute (stack depth), and does each day draw from a narrow part of the
log's distribution (bins)? A resampled workload keeps each user's jobs
together, so it should keep both; a shuffled one would lose them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from wla.archive.kernel.clock import DAY
from wla.archive.kernel.errors import UsageError
from wla.archive.kernel.jit import njit

from . import summarize

# "Found" for run and requested times: within 5% of the value on the stack.
TIME_TOLERANCE = 0.05
# How a value matches one on the stack: within the tolerance of it (the
# resampling paper's reading, which gives back its Table VI), or by the ratio
# of the smaller to the larger.
MATCHES = ("stack", "ratio")
BINS = 16
MIN_JOBS = 10


@dataclass(frozen=True)
class StackDepth:
    """The average depth at which a value was found (None when none was),
    how many jobs found theirs, and how many had a known value."""

    mean: float | None
    found: int
    known: int

    def as_dict(self) -> dict:
        return {"mean": self.mean, "found": self.found, "known": self.known}


@njit(cache=True)
def _depths(values: np.ndarray, tolerance: float, ratio: bool) -> tuple[int, int]:
    """The sum of found depths and their number. A value x is found at a
    stack value s when |x - s| <= tolerance * s (the resampling paper's
    reading), or with `ratio` when the smaller over the larger is at least
    1 - tolerance. The stack keeps the value first pushed, not the latest
    match: its values then stay more than the tolerance apart, so it holds a
    few hundred at most and the walk is short."""
    stack = np.empty(len(values), dtype=np.float64)  # the top is stack[size - 1]
    size = 0
    total = 0
    found = 0
    for v in values:
        at = -1
        for i in range(size - 1, -1, -1):
            s = stack[i]
            if ratio:
                lo, hi = (s, v) if s <= v else (v, s)
                hit = lo == hi or (tolerance > 0.0 and lo / hi >= 1.0 - tolerance)
            else:
                hit = abs(v - s) <= tolerance * s
            if hit:
                at = i
                break
        if at < 0:
            stack[size] = v
            size += 1
        else:
            total += size - 1 - at
            found += 1
            s = stack[at]
            for i in range(at, size - 1):
                stack[i] = stack[i + 1]
            stack[size - 1] = s
    return total, found


def stack_depth(values: np.ndarray, tolerance: float = 0.0, submit: np.ndarray | None = None,
                match: str = "stack") -> StackDepth:
    """Stack-depth locality of `values` in the order given, or in submit
    order (stable) when `submit` is given. A value x is found at a value s on
    the stack when |x - s| <= `tolerance` * s (`match="stack"`, the paper's
    reading), or when the smaller over the larger is at least 1 - `tolerance`
    (`match="ratio"`); with tolerance 0 both mean equal. Unknown values (<=
    0, NaN) are skipped: neither pushed nor recorded."""
    if match not in MATCHES:
        raise UsageError(f"unknown stack match {match!r}; one of {', '.join(MATCHES)}")
    values = np.asarray(values, dtype=np.float64)
    if submit is not None:
        values = values[np.argsort(np.asarray(submit, dtype=np.float64), kind="stable")]
    known = values[values > 0]  # NaN compares False
    total, found = _depths(known, float(tolerance), match == "ratio")
    return StackDepth(float(total) / found if found else None, int(found), int(len(known)))


@dataclass(frozen=True)
class BinsLocality:
    """Per day with enough jobs, the share of its jobs in its most popular of
    the log's equal-weight bins; `edges` are the interior edges."""

    days: np.ndarray
    shares: np.ndarray
    edges: np.ndarray

    def summary(self) -> dict:
        return summarize(self.shares)

    def as_dict(self, detail: bool = True) -> dict:
        """With `detail`, the per-day shares too (what the histogram is drawn of)."""
        out = {"summary": self.summary(), "edges": self.edges.tolist()}
        return {**out, "days": self.days.tolist(), "shares": self.shares.tolist()} if detail else out


def bin_of(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin 0..len(edges) of each value: values equal to an edge go above it."""
    return np.searchsorted(edges, values, side="right")


def bins_locality(values: np.ndarray, submit: np.ndarray, bins: int = BINS, min_jobs: int = MIN_JOBS) -> BinsLocality:
    """Bins locality of an attribute: edges are the quantiles 1/bins ..
    (bins-1)/bins (numpy's linear interpolation) of its known values (> 0)
    over the whole log; a job's day is floor(submit / DAY); days with fewer
    than `min_jobs` jobs of known value are skipped. Ties make equal edges,
    and a value equal to several goes above them all: a log where most jobs
    use one processor has fewer, fuller bins, as its distribution has."""
    values = np.asarray(values, dtype=np.float64)
    submit = np.asarray(submit, dtype=np.float64)
    keep = (values > 0) & np.isfinite(submit)
    values, submit = values[keep], submit[keep]
    if len(values) == 0:
        empty = np.array([], dtype=np.float64)
        return BinsLocality(np.array([], dtype=np.int64), empty, empty)
    edges = np.quantile(values, np.arange(1, bins) / bins)
    day = np.floor(submit / DAY).astype(np.int64)
    first = int(day.min())
    cell = (day - first) * bins + bin_of(values, edges)
    counts = np.bincount(cell, minlength=(int(day.max()) - first + 1) * bins).reshape(-1, bins)
    jobs = counts.sum(axis=1)
    busy = jobs >= min_jobs
    days = np.flatnonzero(busy) + first
    return BinsLocality(days.astype(np.int64), counts.max(axis=1)[busy] / jobs[busy], edges)


def warm() -> None:
    """Compile the stack walk (or load it from numba's cache) for the
    argument types real runs give it."""
    stack_depth(np.array([10.0, 20.0, 10.0]), TIME_TOLERANCE)
