"""Shaking one attribute of a workload (docs/pages/definitions/shaking.md): each chosen job's value
moves by +/- pert x U, pert the degree (absolute) or min(degree, pct x
value) (relative), U uniform on [0, 1), the sign + or - with equal odds.

Choices docs/pages/definitions/shaking.md leaves open, recorded in every result (`RULES`):
- the jobs shaken are round(jobs% x n) of them, picked without replacement;
- the draws are made for every job, in log order, whether it is picked or
  not, so that the same (seed, run) shakes a job the same way at any
  percentage: first U, then the signs, then (when some jobs but not all are
  shaken) a permutation whose first round(jobs% x n) entries are picked;
- interarrival: gaps are taken in arrival order (submit time, ties in log
  order); the first job has no gap and keeps its arrival; each shaken arrival
  is the original previous arrival plus the shaken gap, floored at 0; the
  simulator re-sorts by the shaken arrivals, stably (ties keep log order);
- runtime and estimate: floored at 1 second (the logs' resolution), so no job
  becomes one the simulator cannot replay;
- size: pert is rounded to whole processors, the shaken size is rounded
  (halves up) and kept in [1, P].
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
from wla.archive.kernel.errors import OptionError, UsageError

from ..workload import Workload
from .settings import ATTRIBUTES

RULES = {
    "jobs": "round(jobs% x n) jobs shaken, picked at random without replacement",
    "draws": "per run: U, then a sign, for every job in log order; then, unless every job or none is shaken, "
             "a permutation whose first k entries are the jobs shaken",
    "interarrival": "gaps in arrival order (ties in log order); the first arrival is kept; "
                    "shaken arrival = original previous arrival + shaken gap, at least 0; re-sorted stably",
    "runtime": "the real run time moves, the estimate does not; at least 1 s",
    "estimate": "the estimate moves, the run time does not; at least 1 s",
    "size": "pert rounded to whole processors; the size rounded (halves up), kept in [1, P]",
}
FLOOR_SECONDS = 1.0


def check_shaking(attribute: str, degree: float, relative: float | None, jobs: float) -> None:
    if attribute not in ATTRIBUTES:
        raise OptionError("attribute", f"is one of {', '.join(ATTRIBUTES)}, not {attribute!r}")
    if not np.isfinite(degree) or degree < 0:
        raise OptionError("degree", f"is a number >= 0 (seconds, or processors for size), not {degree}")
    if relative is not None and (not np.isfinite(relative) or relative < 0):
        raise OptionError("relative", f"is a percentage >= 0, not {relative}")
    if not 0 <= jobs <= 100:
        raise OptionError("jobs", f"is a percentage from 0 to 100, not {jobs}")


def _round_half_up(x: np.ndarray) -> np.ndarray:
    return np.floor(x + 0.5)


def _shift(orig: np.ndarray, degree: float, relative: float | None, u: np.ndarray, sign: np.ndarray,
           whole: bool = False) -> np.ndarray:
    """orig +/- pert x U; pert the degree or min(degree, relative% x |orig|)."""
    pert = np.full(len(orig), float(degree))
    if relative is not None:
        pert = np.minimum(pert, relative * np.abs(orig) / 100.0)  # 29% of 50 is 14.5, not 14.499...
    if whole:
        pert = _round_half_up(pert)
    return orig + sign * pert * u


def perturb(workload: Workload, attribute: str = "interarrival", degree: float = 60.0,
            relative: float | None = 10.0, jobs: float = 100.0,
            rng: np.random.Generator | None = None) -> Workload:
    """A shaken copy of `workload`: `attribute` moved by up to `degree`
    (seconds, or processors for size), bounded by `relative` percent of the
    value unless that is None (absolute shaking), for `jobs` percent of the
    jobs. The original is left as it was."""
    check_shaking(attribute, degree, relative, jobs)
    if rng is None:
        raise UsageError("perturb needs a generator: wla.sim.evaluate.run_rng(seed, run)")
    n = len(workload)
    k = int(Fraction(jobs) * n / 100 + Fraction(1, 2))  # exact: 58% of 25 jobs is 14.5, rounded to 15
    u = rng.random(n)
    sign = np.where(rng.integers(0, 2, n) == 1, 1.0, -1.0)
    picked = np.full(n, k >= n)
    if 0 < k < n:
        picked[rng.permutation(n)[:k]] = True
    if k == 0 or degree == 0:
        return workload
    if attribute == "interarrival":
        order = np.argsort(workload.submit, kind="stable")
        t = workload.submit[order].astype(np.float64)
        gap = np.diff(t)
        shaken = t.copy()
        shaken[1:] = np.maximum(t[:-1] + _shift(gap, degree, relative, u[order][1:], sign[order][1:]), 0.0)
        keep = ~picked[order]
        keep[0] = True
        shaken[keep] = t[keep]
        submit = np.empty(n)
        submit[order] = shaken
        return replace(workload, submit=submit)
    if attribute == "runtime":
        moved = np.maximum(_shift(workload.run, degree, relative, u, sign), FLOOR_SECONDS)
        return replace(workload, run=np.where(picked, moved, workload.run))
    if attribute == "estimate":
        moved = np.maximum(_shift(workload.estimate, degree, relative, u, sign), FLOOR_SECONDS)
        return replace(workload, estimate=np.where(picked, moved, workload.estimate))
    size = workload.procs.astype(np.float64)
    moved = np.clip(_round_half_up(_shift(size, degree, relative, u, sign, whole=True)), 1, workload.P)
    return replace(workload, procs=np.where(picked, moved, size).astype(np.int64))
