"""Per-job metrics, which jobs are measured, and the summaries.

Measurement hygiene of docs/pages/definitions/simulation.md, each an option recorded in results:
- warm-up: the first `warmup` fraction of jobs by arrival (rounded down) is
  simulated but not measured;
- stop at the last arrival: jobs ending after it meet less and less
  competition, so they are not measured, and utilization and throughput are
  taken over [first arrival, last arrival]; without it, over [first
  arrival, last end];
- jobs an exclusion predicate picks, and a resampled workload's
  rare-behavior jobs, are simulated but not measured, and left out of
  throughput and of the measured jobs' utilization too (the resampling
  paper, section 6.4); the machine's utilization counts every job.
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
    kept: np.ndarray  # jobs neither a predicate nor rare behavior leaves out (warm-up and late ones in)


def measured(submit: np.ndarray, end: np.ndarray, order: np.ndarray, excluded: np.ndarray,
             warmup: float, stop_at_last_arrival: bool) -> Measured:
    """Which jobs count; `order` is the arrival order. A job left out for
    several reasons is counted under the first: warm-up, late, excluded."""
    n = len(submit)
    mask = np.ones(n, dtype=bool)
    skip = int(np.floor(warmup * n))
    mask[order[:skip]] = False
    if n == 0:
        return Measured(mask, 0, 0, 0, (0.0, 0.0), ~excluded)
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
    return Measured(mask, skip, int(late.sum()), int(dropped.sum()), interval, ~excluded)


def _stats(values: np.ndarray) -> dict:
    if len(values) == 0:
        return {"mean": None, "median": None, "p95": None}
    return {"mean": float(values.mean()), "median": float(np.median(values)),
            "p95": float(np.percentile(values, 95))}


def summarize(metrics: JobMetrics, measure: Measured, start: np.ndarray, end: np.ndarray,
              procs: np.ndarray, submit: np.ndarray, P: int) -> dict:
    """Means, medians and 95th percentiles (linear interpolation) over the
    measured jobs; within the measured interval, the machine's utilization
    (every simulated job), and the utilization and throughput of the jobs
    not left out; makespan over every simulated job."""
    m, kept = measure.mask, measure.kept
    t0, t1 = measure.interval
    span = t1 - t0
    work = np.clip(np.minimum(end, t1) - np.maximum(start, t0), 0, None) * procs
    done = int(((end >= t0) & (end <= t1) & kept).sum())
    return {
        "wait": _stats(metrics.wait[m]),
        "response": _stats(metrics.response[m]),
        "bounded_slowdown": _stats(metrics.bounded_slowdown[m]),
        "utilization": float(work.sum()) / (P * span) if span > 0 else None,
        "utilization_measured": float(work[kept].sum()) / (P * span) if span > 0 else None,
        "throughput_per_hour": done / span * HOUR if span > 0 else None,
        "makespan": float(end.max() - submit.min()) if len(end) else None,
        "measured_jobs": int(m.sum()),
        "interval": [t0, t1],
    }
