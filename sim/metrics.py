"""Per-job metrics, which jobs are measured, and the summaries.

Measurement hygiene of simulation.md, each an option recorded in results:
- warm-up: the first `warmup` fraction of jobs by arrival (rounded down) is
  simulated but not measured;
- stop at the last arrival: jobs ending after it meet less and less
  competition, so they are not measured, and utilization and throughput are
  taken over [first arrival, last arrival]; without it, over [first
  arrival, last end];
- jobs an exclusion predicate picks are simulated but not measured.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HOUR = 3600.0


@dataclass(frozen=True)
class JobMetrics:
    wait: np.ndarray
    response: np.ndarray
    bounded_slowdown: np.ndarray


def job_metrics(submit: np.ndarray, start: np.ndarray, held: np.ndarray, tau: float) -> JobMetrics:
    """wait = start - submit; response = wait + run; bounded slowdown =
    max(1, response / max(run, tau))."""
    wait = start - submit
    response = wait + held
    return JobMetrics(wait, response, np.maximum(1.0, response / np.maximum(held, tau)))


@dataclass(frozen=True)
class Measured:
    mask: np.ndarray
    warmup: int  # jobs left out as warm-up
    after_last_arrival: int  # jobs left out for ending after the last arrival
    excluded: int  # jobs left out by the predicate (and by nothing before)
    interval: tuple[float, float]


def measured(submit: np.ndarray, end: np.ndarray, order: np.ndarray, excluded: np.ndarray,
             warmup: float, stop_at_last_arrival: bool) -> Measured:
    """Which jobs count; `order` is the arrival order. A job left out for
    several reasons is counted under the first: warm-up, late, excluded."""
    n = len(submit)
    mask = np.ones(n, dtype=bool)
    skip = int(np.floor(warmup * n))
    mask[order[:skip]] = False
    if n == 0:
        return Measured(mask, 0, 0, 0, (0.0, 0.0))
    first, last = float(submit.min()), float(submit.max())
    late = np.zeros(n, dtype=bool)
    if stop_at_last_arrival:
        late = mask & (end > last)
        mask &= ~late
        interval = (first, last)
    else:
        interval = (first, float(end.max()))
    dropped = mask & excluded
    mask &= ~excluded
    return Measured(mask, skip, int(late.sum()), int(dropped.sum()), interval)


def _stats(values: np.ndarray) -> dict:
    if len(values) == 0:
        return {"mean": None, "median": None, "p95": None}
    return {"mean": float(values.mean()), "median": float(np.median(values)),
            "p95": float(np.percentile(values, 95))}


def summarize(metrics: JobMetrics, measure: Measured, start: np.ndarray, end: np.ndarray,
              procs: np.ndarray, submit: np.ndarray, P: int) -> dict:
    """Means, medians and 95th percentiles (linear interpolation) over the
    measured jobs; utilization, throughput and makespan over all simulated
    jobs, the first two within the measured interval."""
    m = measure.mask
    t0, t1 = measure.interval
    span = t1 - t0
    overlap = np.clip(np.minimum(end, t1) - np.maximum(start, t0), 0, None)
    busy = float((overlap * procs).sum())
    done = int(((end >= t0) & (end <= t1)).sum())
    return {
        "wait": _stats(metrics.wait[m]),
        "response": _stats(metrics.response[m]),
        "bounded_slowdown": _stats(metrics.bounded_slowdown[m]),
        "utilization": busy / (P * span) if span > 0 else None,
        "throughput_per_hour": done / span * HOUR if span > 0 else None,
        "makespan": float(end.max() - submit.min()) if len(end) else None,
        "interval": [t0, t1],
    }
