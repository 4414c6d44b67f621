"""The load manipulations a single trace allows besides arrivals (load_factor)
and the machine (procs): run times or job sizes multiplied by a constant.

The resampling paper (section 6.3) lists them as the crude ways of changing
the load and says why they are not equivalent: scaled run times tie load to
response time, scaled sizes stop being powers of two and small jobs cannot
scale faithfully. What wla does, exactly:

- run times: each job's run time and its user estimate (requested time) are
  multiplied by the factor together, unrounded (the simulator's times are
  seconds as floats), so a job that ran within its request still does;
  think times (field 18) are left alone;
- sizes: each job's processors are multiplied by the factor and rounded to
  the nearest whole number, halves up, then held between 1 and the machine
  (a job that would need more runs on the whole machine); how many jobs
  each bound held is counted.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ScaledSizes:
    procs: np.ndarray
    raised: int  # jobs whose product rounded below 1, run on one processor
    capped: int  # jobs whose product rounded above the machine, run on all of it


def scale_runtimes(run: np.ndarray, estimate: np.ndarray, factor: float) -> tuple[np.ndarray, np.ndarray]:
    """Run times and user estimates, both times `factor`."""
    run = np.asarray(run, dtype=np.float64)
    estimate = np.asarray(estimate, dtype=np.float64)
    if factor == 1.0:
        return run, estimate
    return run * factor, estimate * factor


def scale_sizes(procs: np.ndarray, factor: float, machine: int) -> ScaledSizes:
    """Processors times `factor`, rounded half up, held in [1, machine]."""
    procs = np.asarray(procs)
    if factor == 1.0:
        return ScaledSizes(procs, 0, 0)
    rounded = np.floor(procs.astype(np.float64) * factor + 0.5)
    raised = int((rounded < 1).sum())
    capped = int((rounded > machine).sum())
    return ScaledSizes(np.clip(rounded, 1, machine).astype(procs.dtype), raised, capped)


def offered_load(submit: np.ndarray, run: np.ndarray, procs: np.ndarray, machine: int) -> float | None:
    """The work submitted (run time x processors) over what the machine can
    do between the first and the last arrival; None when they coincide."""
    if len(submit) == 0:
        return None
    span = float(np.max(submit) - np.min(submit))
    if span <= 0:
        return None
    return float(np.sum(np.asarray(run, dtype=np.float64) * procs)) / (machine * span)
