"""Runtime estimates the scheduler believes (docs/pages/definitions/simulation.md):

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
from wla.archive.kernel.errors import UsageError
from wla.archive.kernel.ranges import MAX_COUNT

from .seeds import stream

KINDS = ("user", "exact", "badness", "last")
# Badness factors up to a million: estimates stay finite (run times are at
# most 2**53 s) and far past any factor studied (0 to 10 or so).
MAX_BADNESS = 1e6


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
    """`user`, `exact`, `badness:F` (0 <= F <= 1e6) or `last:K` (1 <= K < 2**31)."""
    if isinstance(text, Estimator):  # built by hand: the same ranges as the text's
        if (text.kind in ("user", "exact") or (text.kind == "badness" and 0 <= text.factor <= MAX_BADNESS)
                or (text.kind == "last" and 1 <= text.k <= MAX_COUNT)):
            return text
        raise UsageError(f"not an estimate the simulator has: {text!r}")
    kind, _, arg = str(text).strip().partition(":")
    kind = kind.lower()  # USER is user
    if kind in ("user", "exact") and not arg:
        return Estimator(kind)
    if kind == "badness" and arg:
        try:
            factor = float(arg)
        except ValueError:
            factor = -1.0
        if 0 <= factor <= MAX_BADNESS:  # false for nan
            return Estimator("badness", factor=factor)
        raise UsageError(f"badness takes a factor in [0, {MAX_BADNESS:,.0f}], as in badness:0.5, not {arg!r}")
    if kind == "last" and arg:
        # ASCII digits only (int() takes '²' and '1_0'), and few enough of them for int()
        if arg.isascii() and arg.isdigit() and len(arg) <= 10 and 1 <= int(arg) <= MAX_COUNT:
            return Estimator("last", k=int(arg))
        raise UsageError(f"last takes a whole number of jobs from 1 to {MAX_COUNT:,}, as in last:2, not {arg!r}")
    raise UsageError(f"unknown estimate {text!r}; one of user, exact, badness:F, last:K")


def scheduler_estimates(estimator: Estimator, run: np.ndarray, own: np.ndarray,
                        seed: int) -> np.ndarray:
    """The estimate each job starts with, before any last-K prediction;
    `run` and `own` already reflect the overrun mode."""
    if estimator.kind == "exact":
        return run.copy()
    if estimator.kind == "badness":
        draw = stream(seed).random(len(run))
        return run + estimator.factor * run * draw
    return own.copy()
