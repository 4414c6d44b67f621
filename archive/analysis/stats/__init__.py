"""Statistics that say whether a workload still looks like the log it came
from (docs/pages/definitions/statistics.md, docs/pages/definitions/resampling.md "Validating a resampled workload"):
locality, self-similarity, per-user behavior, daily and weekly cycles, and
stability. They are computed for the original and for every resampled copy,
so they are cheap and give the same numbers for the same jobs.

Names are loaded on first use: `wla` commands that never compute a statistic
do not pay for numba's or matplotlib's import.
"""
from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from ...kernel.jit import Part, register

# Registered before any module here compiles (the package is imported first).
register(Part("the workload statistics", ("wla.archive.analysis.stats.locality", "wla.archive.analysis.stats.users",
                                          "wla.archive.analysis.stats.sessions"),
              ("wla.archive.analysis.stats.locality:warm", "wla.archive.analysis.stats.users:warm",
               "wla.archive.analysis.stats.sessions:warm"), 3))

# Every distribution is reported with these, in this order (None when empty).
SUMMARY_KEYS = ("count", "mean", "median", "p10", "p90")

_EXPORTS = {
    "StackDepth": "locality", "BinsLocality": "locality", "stack_depth": "locality",
    "bins_locality": "locality",
    "Hurst": "hurst", "hurst_rs": "hurst", "arrival_series": "hurst",
    "UserStatistics": "users", "user_statistics": "users", "job_ends": "users",
    "arrival_cycles": "collect",  # archive/analysis/cycles.py: the site draws the same counts
    "unaccommodated": "stability", "PERIODS": "stability",
    "workload_statistics": "collect", "scalar_statistics": "collect",
    "session_report": "sessions", "SessionReport": "sessions",
    "write_plots": "plot", "pox_comparison": "plot",
}

__all__ = sorted([*_EXPORTS, "SUMMARY_KEYS", "summarize"])


def summarize(values: np.ndarray) -> dict[str, float | int | None]:
    """count, mean, median, 10th and 90th percentiles (numpy's linear
    interpolation): the same five numbers for every distribution, so an
    original and its resampled copies compare number by number."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return {"count": 0, "mean": None, "median": None, "p10": None, "p90": None}
    p10, median, p90 = np.quantile(values, [0.1, 0.5, 0.9])
    return {"count": int(len(values)), "mean": float(values.mean()), "median": float(median),
            "p10": float(p10), "p90": float(p90)}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
