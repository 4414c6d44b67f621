"""The histogram of a shaking study: one metric's shaken values, with the
original value and the shaken mean marked, so a reader sees at once whether
the single run is typical of its neighbours."""
from __future__ import annotations

import os

import numpy as np
from matplotlib.figure import Figure
from wla.archive.kernel.errors import OptionError
from wla.archive.kernel.plot import save

from .shake import ShakeResult
from .summary import METRIC_NAMES


def plot_shake(result: ShakeResult, path: str | os.PathLike, metric: str = "bounded_slowdown_mean") -> None:
    """Write a PNG; the same study gives the same bytes."""
    if metric not in METRIC_NAMES:
        raise OptionError("metric", f"is one of {', '.join(METRIC_NAMES)}, not {metric!r}")
    runs = result.runs
    values = runs.loc[runs["shaken"], metric].to_numpy(dtype=np.float64)
    values = values[~np.isnan(values)]
    s = result.summaries[metric]
    fig = Figure(figsize=(8, 4), dpi=100)
    ax = fig.add_subplot()
    ax.hist(values, bins=max(10, min(50, len(values) // 4)), color="tab:blue", alpha=0.6,
            label=f"{len(values)} shaken runs")
    if s["original"] is not None:
        ax.axvline(s["original"], color="tab:red", linewidth=1.5, label=f"original {s['original']:,.4g}")
    if s["mean"] is not None:
        ax.axvline(s["mean"], color="black", linewidth=1.0, linestyle="--", label=f"shaken mean {s['mean']:,.4g}")
    if s["ci_low"] is not None:
        ax.axvspan(s["ci_low"], s["ci_high"], color="gray", alpha=0.25, linewidth=0, label="95% CI of the mean")
    sh = result.settings["shaking"]
    how = f"{sh['degree']:g}" + (f", at most {sh['relative_pct']:g}%" if sh["relative_pct"] is not None else "")
    ax.set_title(f"{result.source.get('log') or 'query'}: {result.settings['policy'].upper()}, "
                 f"{sh['attribute']} shaken by {how} on {sh['jobs_pct']:g}% of jobs")
    ax.set_xlabel(metric.replace("_", " "))
    ax.set_ylabel("runs")
    ax.grid(True, linewidth=0.3, alpha=0.5)
    ax.legend(loc="upper right", fontsize="small")
    fig.tight_layout()
    save(fig, path)
