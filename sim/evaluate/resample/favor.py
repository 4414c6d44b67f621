"""Resampling biased toward a class of users (the resampling paper's
section 6.5.4, selective manipulation): docs/pages/reproductions/baselines.md.

The class is the users whose figure is among the largest: of the pool's
users that are not rare-behavior (every class, each log's users together
when logs are mixed), the ceil(top x n) with the largest figure, ties to
the user that comes first in the pools. The figures, per pool user:
processor-seconds (run time x processors over its jobs, unknown run times
counted 0), jobs, mean run time and mean processors (over the jobs that
give them). A favored user is `weight` times as likely as another to be
drawn at every draw (generate.py and units.py say how each draw takes it).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from wla.archive.kernel.errors import ParameterError
from wla.archive.kernel.processors import processors

from .pools import RARE, UserPools
from .settings import ResampleSettings

if TYPE_CHECKING:
    import pandas as pd


def user_figures(pools: UserPools, jobs: pd.DataFrame, figure: str) -> np.ndarray:
    """Per pool user, its figure (NaN when none of its jobs gives it)."""
    run = jobs["run"].to_numpy(np.float64, na_value=np.nan)
    width = processors(jobs["procs"].to_numpy(np.float64, na_value=np.nan),
                       jobs["req_procs"].to_numpy(np.float64, na_value=np.nan))
    run = np.where(run >= 0, run, np.nan)
    width = np.where(width > 0, width, np.nan)
    out = np.full(len(pools.user), np.nan)
    for u in range(len(pools.user)):
        j = pools.jobs_of(u)
        if figure == "jobs":
            out[u] = len(j)
        elif figure == "processor-seconds":
            out[u] = float(np.nansum(run[j] * width[j]))
        else:
            values = (run if figure == "run-time" else width)[j]
            out[u] = float(np.nanmean(values)) if np.isfinite(values).any() else np.nan
    return out


def favored(pools: UserPools, jobs: pd.DataFrame, figure: str, top: float) -> np.ndarray:
    """Which pool users are in the class: the top share by the figure."""
    values = user_figures(pools, jobs, figure)
    eligible = np.flatnonzero((pools.kind != RARE) & np.isfinite(values))
    k = math.ceil(top * len(eligible) - 1e-9)
    order = eligible[np.argsort(-values[eligible], kind="stable")]
    out = np.zeros(len(pools.user), bool)
    out[order[:k]] = True
    return out


def user_weights(pools: UserPools, jobs: pd.DataFrame, s: ResampleSettings) -> tuple[np.ndarray | None, dict]:
    """The weight of each pool user (None: no bias) and what the class is."""
    if s.favor is None:
        if s.favor_weight != 1.0:
            raise ParameterError("{favor_weight} weighs the users {favor} picks out: give {favor} too",
                                 "favor_weight", "favor")
        return None, {}
    mask = favored(pools, jobs, s.favor, s.favor_top)
    values = user_figures(pools, jobs, s.favor)
    info = {"figure": s.favor, "top": s.favor_top, "weight": s.favor_weight, "users": int(mask.sum()),
            "threshold": float(values[mask].min()) if mask.any() else None,
            "favored_users": sorted(int(u) for u in pools.user[mask])}
    if s.favor_weight == 1.0:
        return None, info
    return np.where(mask, s.favor_weight, 1.0), info
