"""ESP studies: the score over many seeds (the division into batches is
random, so one run is one draw), and the critique's two-stage test (section
3.3: a run without special requirements, then one with the full-configuration
jobs' priority, judged by their waits)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from wla.archive.kernel import ranges

from .esp import run_esp

SCORES = ("efficiency", "corrected", "by_processor", "official", "amortized")
QUANTILES = (5, 25, 50, 75, 95)


def esp_over_seeds(mix: pd.DataFrame, procs: int, seeds: int, first_seed: int = 0, policy: str = "easy",
                   full_arrivals: Sequence[float] = (), **options) -> pd.DataFrame:
    """One row per seed first_seed .. first_seed + seeds - 1: the seed and
    the run's scores (run_esp's, with the same options)."""
    ranges.whole("seeds", seeds, 1, 100_000)
    ranges.whole("seed", first_seed + seeds - 1, 0, ranges.MAX_SEED)
    rows = []
    for seed in range(first_seed, first_seed + seeds):
        _, score = run_esp(mix, procs, policy, seed, full_arrivals, **options)
        rows.append({"seed": seed, **score.to_dict()})
    return pd.DataFrame(rows)


def distribution(runs: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Per score: mean, standard deviation (n - 1), min, the 5th, 25th, 50th,
    75th and 95th percentiles (linear interpolation) and max over the seeds."""
    out: dict[str, dict[str, float]] = {}
    for name in SCORES:
        values = runs[name].dropna().to_numpy(dtype=float) if name in runs else np.array([])
        if len(values) == 0:
            continue
        row = {"mean": float(values.mean()), "std": float(values.std(ddof=1)) if len(values) > 1 else 0.0,
               "min": float(values.min())}
        row.update({f"p{q}": float(np.percentile(values, q)) for q in QUANTILES})
        row["max"] = float(values.max())
        out[name] = row
    return out


def _waits(result: Any, full: np.ndarray) -> dict[str, dict[str, float | int]]:
    """Mean and maximum wait of the full-configuration jobs and of the others."""
    out = {}
    for name, mask in (("full", full), ("other", ~full)):
        w = result.wait[mask]
        out[name] = {"jobs": int(mask.sum()), "mean": float(w.mean()) if len(w) else None,
                     "max": float(w.max()) if len(w) else None}
    return out


def two_stage(mix: pd.DataFrame, procs: int, seed: int = 0, policy: str = "easy",
              full_arrivals: Sequence[float] = (), **options) -> dict[str, Any]:
    """Stage 1: the workload with no special requirement (the full jobs queue
    like any other, backfilling as the policy does). Stage 2: the same
    workload with the full jobs' priority. Each stage's scores and the waits
    of each class; the second stage's full-job waits are its own metric."""
    from .esp import esp_workload

    full = esp_workload(mix, procs, seed, full_arrivals)["type"].isin(
        mix["type"][mix["fraction"] == 1.0]).to_numpy()
    stages = {}
    for name, first in (("without_priority", False), ("full_first", True)):
        result, score = run_esp(mix, procs, policy, seed, full_arrivals, full_first=first, **options)
        stages[name] = {"score": score.to_dict(), "waits": _waits(result, full)}
    return stages
