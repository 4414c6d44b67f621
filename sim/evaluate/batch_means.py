"""Batch means: a confidence interval for a metric from one simulation.

A trace replayed once gives one number; the classic way to put an interval
on it without other workloads (the resampling paper, section 6.1, names it
as the only one a single trace allows) is to cut the measured jobs into k
consecutive batches, take each batch's mean, and treat the k batch means as
independent: the interval is Student's t with k - 1 degrees of freedom over
them. The method holds only when batches are long enough for their means to
be nearly uncorrelated, so the lag-1 autocorrelation of the batch means is
reported beside it, with the bound 1.96 / sqrt(k) an uncorrelated series
stays within 95% of the time.

Batches are over the measured jobs (after the simulator's warm-up, which is
the discard at the start) in arrival order, log order breaking ties:
- by "jobs": k batches of floor(n / k) jobs each; the n mod k earliest
  jobs are left out (one more bit of warm-up), so every batch weighs the same
  and the mean of the batch means is the mean of the jobs used;
- by "time": the span from the first to the last measured arrival in k
  equal parts, each job in the part its arrival falls in; a part with no
  measured job is refused.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from wla.archive.kernel.errors import ParameterError
from wla.archive.kernel.ranges import MAX_COUNT, whole

from .summary import CONFIDENCE, t_quantile

ORDERS = ("jobs", "time")
METRICS = ("wait", "response", "bounded_slowdown")  # per-job metrics of SimResult
Z95 = 1.96  # an uncorrelated series' lag-1 autocorrelation stays within Z95 / sqrt(k), 95% of the time


@dataclass(frozen=True)
class BatchMeans:
    metric: str
    by: str
    means: np.ndarray  # each batch's mean, in order
    sizes: np.ndarray  # jobs in each batch
    left_out: int  # measured jobs before the first batch (by jobs)
    mean: float  # the mean of the batch means
    ci_low: float
    ci_high: float
    lag1: float | None  # lag-1 autocorrelation of the batch means; None when they are all equal

    @property
    def bound(self) -> float:
        return Z95 / math.sqrt(len(self.means))

    def to_dict(self) -> dict:
        return {"metric": self.metric, "by": self.by, "batches": len(self.means),
                "batch_jobs": [int(self.sizes.min()), int(self.sizes.max())], "left_out": self.left_out,
                "mean": self.mean, "ci_low": self.ci_low, "ci_high": self.ci_high, "confidence": CONFIDENCE,
                "lag1": self.lag1, "lag1_bound": self.bound,
                "independent": None if self.lag1 is None else abs(self.lag1) <= self.bound,
                "batch_means": [float(x) for x in self.means]}


def lag1(x: np.ndarray) -> float | None:
    """Lag-1 autocorrelation: sum (x_i - m)(x_i+1 - m) / sum (x_i - m)^2."""
    d = np.asarray(x, dtype=np.float64) - np.mean(x)
    den = float(np.dot(d, d))
    return None if den == 0 else float(np.dot(d[:-1], d[1:])) / den


def check_batches(batches: int, by: str = "jobs") -> None:
    """Refuse, before any simulation, a count or an order batches cannot have."""
    whole("batches", batches, 2, MAX_COUNT)
    if by not in ORDERS:
        raise ParameterError(f"{{by}} is one of {', '.join(ORDERS)}, not {by!r}", "by")


def cut(values: np.ndarray, arrival: np.ndarray, k: int, by: str = "jobs") -> tuple[list[np.ndarray], int]:
    """The values cut into k consecutive batches by arrival, and how many of
    the earliest were left out."""
    check_batches(k, by)
    n = len(values)
    if k > n:
        raise ParameterError(f"{k:,} {{batches}} of {n:,} measured jobs: at most one batch per job", "batches")
    order = np.lexsort((np.arange(n), arrival))
    v, t = np.asarray(values, dtype=np.float64)[order], np.asarray(arrival, dtype=np.float64)[order]
    if by == "jobs":
        size = n // k
        skip = n - k * size
        return [v[skip + i * size: skip + (i + 1) * size] for i in range(k)], skip
    edges = np.linspace(t[0], t[-1], k + 1)
    part = np.clip(np.searchsorted(edges, t, side="right") - 1, 0, k - 1)
    out = [v[part == i] for i in range(k)]
    empty = [i + 1 for i, b in enumerate(out) if len(b) == 0]
    if empty:
        raise ParameterError(f"batch {empty[0]} of {k:,} has no measured job: give fewer {{batches}}, or "
                             "{by} jobs", "batches", "by")
    return out, 0


def batch_means(values: np.ndarray, arrival: np.ndarray, k: int, by: str = "jobs",
                metric: str = "value") -> BatchMeans:
    """The batch means of `values` (one per job, arriving at `arrival`) and
    the t-interval of their mean."""
    parts, skip = cut(values, arrival, k, by)
    means = np.array([p.mean() for p in parts])
    mean = float(means.mean())
    half = t_quantile(k - 1) * float(means.std(ddof=1)) / math.sqrt(k)
    return BatchMeans(metric, by, means, np.array([len(p) for p in parts]), skip, mean, mean - half, mean + half,
                      lag1(means))


def result_batch_means(result, batches: int, by: str = "jobs",
                       metrics: tuple[str, ...] = METRICS) -> list[BatchMeans]:
    """Batch means of a SimResult's per-job metrics over its measured jobs."""
    m = result.measured
    return [batch_means(getattr(result, name)[m], result.submit[m], batches, by, name) for name in metrics]
