"""Every statistic of one workload, as plain JSON values, and the flat set of
named numbers that an original and its resampled copies are compared by."""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from wla.archive.analysis.cycles import arrival_cycles
from wla.archive.kernel.clock import LogClock
from wla.archive.kernel.errors import UsageError
from wla.archive.kernel.processors import processors

from .hurst import UNIT, hurst_rs
from .locality import MIN_JOBS, TIME_TOLERANCE, bins_locality, stack_depth
from .offset import weekly_offset
from .stability import unaccommodated
from .users import SESSION_GAP, job_ends, user_statistics

# Attribute -> tolerance of the stack-depth match (docs/pages/definitions/statistics.md).
ATTRIBUTES = {"run": TIME_TOLERANCE, "req_time": TIME_TOLERANCE, "procs": 0.0}

# Per-user distributions by the name their scalars take.
USER_SCALARS = {"jobs": "jobs_per_user", "sessions": "sessions_per_user", "session_length": "session_length",
                "cpu_work": "cpu_work_per_user", "first_arrival": "first_arrival",
                "last_departure": "last_departure", "activity_period": "activity_period"}

DAYTIME = range(8, 18)  # local hours counted as the working day


def column(jobs: Any, name: str, size: int | None = None) -> np.ndarray:
    """A column as doubles, NaN where unknown (NULL) or absent (then
    `size` of them; a column without a size must be there)."""
    names = jobs.columns if hasattr(jobs, "columns") else jobs.keys()
    if name not in names:
        if size is None:
            raise UsageError(f"the jobs have no {name} column")
        return np.full(size, np.nan)
    values = jobs[name]
    if isinstance(values, np.ma.MaskedArray):
        return values.astype(np.float64).filled(np.nan)
    if hasattr(values, "to_numpy"):  # a pandas column, maybe of a nullable type
        return values.to_numpy(dtype=np.float64, na_value=np.nan)
    return np.asarray(values, dtype=np.float64)


def workload_statistics(jobs: Any, P: int | None, clock: LogClock, *, session_gap: float = SESSION_GAP,
                        unit: float = UNIT, min_jobs: int = MIN_JOBS, detail: bool = True,
                        match: str = "stack", hurst_fit: str = "points") -> dict:
    """All statistics of `jobs` (a DataFrame, Columns or dict of arrays
    with the archive's column names, in any order) on a machine of P
    processors: JSON values, None where undefined, the same for the same
    jobs. Without `detail` the per-day, per-user and pox-plot lists are left
    out (no plots then): the summaries of a thousand resampled workloads,
    small enough to keep. `match` is the stack-depth rule (locality.py),
    `hurst_fit` the line through the pox plot (hurst.py)."""
    submit = column(jobs, "submit")
    order = np.argsort(submit, kind="stable")  # NaN last
    submit = submit[order]
    cols = {name: column(jobs, name, len(submit))[order]
            for name in ("wait", "run", "procs", "req_procs", "req_time", "user_id")}
    procs = processors(cols["procs"], cols["req_procs"])
    known = np.isfinite(submit) & (submit >= 0)
    values = {"run": cols["run"], "req_time": cols["req_time"], "procs": procs}
    valued = {name: np.where(known, v, np.nan) for name, v in values.items()}
    run = cols["run"]
    work = np.where(run >= 0, run, np.nan) * procs
    users = user_statistics(cols["user_id"], submit, job_ends(submit, cols["wait"], run), work, session_gap)
    return {
        "jobs": int(len(submit)),
        "unknown_submit": int((~known).sum()),
        "P": None if P is None else int(P),
        "parameters": {"session_gap": float(session_gap), "unit": float(unit), "min_jobs": int(min_jobs),
                       "stack_match": match, "hurst_fit": hurst_fit},
        "stack_depth": {name: stack_depth(valued[name], tol, match=match).as_dict()
                        for name, tol in ATTRIBUTES.items()},
        "bins": {name: bins_locality(valued[name], submit, min_jobs=min_jobs).as_dict(detail)
                 for name in ATTRIBUTES},
        "hurst": hurst_rs(submit, unit, hurst_fit).as_dict(detail),
        "users": users.as_dict(detail),
        "cycles": arrival_cycles(submit, clock),
        "stability": unaccommodated(submit, run, procs, P),
        "weekly_offset": weekly_offset(submit, run, procs, cols["user_id"]),
    }


def _share(counts: list[int], picked: Any) -> float | None:
    total = sum(counts)
    return sum(counts[i] for i in picked) / total if total else None


def scalar_statistics(stats: dict) -> dict[str, float | None]:
    """Named numbers, always the same names in the same order, None where
    undefined: what a histogram over resampled workloads is drawn of."""
    out: dict[str, float | None] = {}
    for name in ATTRIBUTES:
        out[f"stack_depth_{name}"] = stats["stack_depth"][name]["mean"]
    for name in ATTRIBUTES:
        summary = stats["bins"][name]["summary"]
        out[f"bins_median_{name}"] = summary["median"]
        out[f"bins_mean_{name}"] = summary["mean"]
    out["hurst"] = stats["hurst"]["H"]
    out["users"] = float(stats["users"]["users"])
    for name, scalar in USER_SCALARS.items():
        summary = stats["users"]["distributions"][name]["summary"]
        out[f"{scalar}_mean"] = summary["mean"]
        out[f"{scalar}_median"] = summary["median"]
    cycles = stats["cycles"]
    dated = not cycles["relative"]  # else day 0 of the log is no Monday
    out["weekend_share"] = _share(cycles["day_of_week"], (5, 6)) if dated else None
    out["daytime_share"] = _share(cycles["hour_of_day"], DAYTIME) if dated else None
    for name, entry in stats["stability"].items():
        out[f"unaccommodated_{name}"] = entry["fraction"]
    out["weekly_variance_ratio"] = stats["weekly_offset"]["variance_ratio"]
    return {k: None if v is None or not math.isfinite(v) else float(v) for k, v in out.items()}
