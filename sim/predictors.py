"""Runtime estimates the scheduler believes (simulation.md):

- user: the requested time;
- exact: the real run time;
- badness:F: drawn uniformly from [R, (F+1)R], R the run time, by seed;
- last:K: the mean run time of the user's last K completed jobs, never more
  than the user's estimate, the user's estimate without history; a job that
  outlives its prediction gets its user estimate back. It depends on the
  simulated order of completions, so the core computes it.

The overrun mode applies first, to the run time and the user's estimate (a
job killed at its requested time runs only that long, whatever the scheduler
believed); the predictor then works on what remains.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from wla.archive.errors import UsageError

KINDS = ("user", "exact", "badness", "last")


@dataclass(frozen=True)
class Estimator:
    kind: str = "user"
    factor: float = 0.0  # badness
    k: int = 0  # last

    def __str__(self) -> str:
        if self.kind == "badness":
            return f"badness:{self.factor:g}"
        if self.kind == "last":
            return f"last:{self.k}"
        return self.kind


def parse_estimator(text: str | Estimator) -> Estimator:
    """`user`, `exact`, `badness:F` (F >= 0) or `last:K` (K >= 1)."""
    if isinstance(text, Estimator):
        return text
    kind, _, arg = str(text).strip().partition(":")
    if kind in ("user", "exact") and not arg:
        return Estimator(kind)
    if kind == "badness" and arg:
        try:
            factor = float(arg)
        except ValueError:
            factor = -1.0
        if factor >= 0 and np.isfinite(factor):
            return Estimator("badness", factor=factor)
        raise UsageError(f"badness takes a factor >= 0, as in badness:0.5, not {arg!r}")
    if kind == "last" and arg:
        if arg.isdigit() and int(arg) >= 1:
            return Estimator("last", k=int(arg))
        raise UsageError(f"last takes a whole number of jobs >= 1, as in last:2, not {arg!r}")
    raise UsageError(f"unknown estimate {text!r}; one of user, exact, badness:F, last:K")


def scheduler_estimates(estimator: Estimator, run: np.ndarray, own: np.ndarray,
                        seed: int) -> np.ndarray:
    """The estimate each job starts with, before any last-K prediction;
    `run` and `own` already reflect the overrun mode."""
    if estimator.kind == "exact":
        return run.copy()
    if estimator.kind == "badness":
        draw = np.random.default_rng(seed).random(len(run))
        return run + estimator.factor * run * draw
    return own.copy()
