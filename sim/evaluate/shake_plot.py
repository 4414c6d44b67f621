"""The histogram of a shaking study: one metric's shaken values, with the
original value and the shaken mean marked, so a reader sees at once whether
the single run is typical of its neighbours."""
from __future__ import annotations

import os

import numpy as np
from matplotlib.figure import Figure
from wla.archive.kernel.errors import OptionError
from wla.archive.kernel.plot import count_axis, plain, save

from .plot_units import axis
from .shake import ShakeResult
from .summary import METRIC_NAMES


def plot_shake(result: ShakeResult, path: str | os.PathLike, metric: str = "bounded_slowdown_mean") -> None:
    """Write the figure (PNG, SVG or PDF, as the extension says); the same study gives the same bytes."""
    if metric not in METRIC_NAMES:
        raise OptionError("metric", f"is one of {', '.join(METRIC_NAMES)}, not {metric!r}")
    runs = result.runs
    values = runs.loc[runs["shaken"], metric].to_numpy(dtype=np.float64)
    values = values[~np.isnan(values)]
    s = result.summaries[metric]
    shown = axis(metric, [*values, *(s[k] for k in ("original", "mean", "ci_low", "ci_high") if s[k] is not None)])
    per = shown.divisor
    fig = Figure(figsize=(8, 4), dpi=100)
    ax = fig.add_subplot()
    ax.hist(values / per, bins=max(10, min(50, len(values) // 4)), color="tab:blue", alpha=0.6,
            label=f"{len(values)} shaken run{'' if len(values) == 1 else 's'}")
    if s["original"] is not None:
        ax.axvline(s["original"] / per, color="tab:red", linewidth=1.5, label=f"original {shown.text(s['original'])}")
    if s["mean"] is not None:
        ax.axvline(s["mean"] / per, color="black", linewidth=1.0, linestyle="--",
                   label=f"shaken mean {shown.text(s['mean'])}")
    if s["ci_low"] is not None:
        ax.axvspan(s["ci_low"] / per, s["ci_high"] / per, color="gray", alpha=0.25, linewidth=0,
                   label="95% CI of the mean")
    sh = result.settings["shaking"]
    unit = "processors" if sh["attribute"] == "size" else "s"  # the degree's unit (perturb.py)
    how = f"{plain(sh['degree'])} {unit}" + (f", at most {plain(sh['relative_pct'])}%"
                                              if sh["relative_pct"] is not None else "")
    ax.set_title(f"{result.source.get('log') or 'query'}: {result.settings['policy'].upper()}, "
                 f"{sh['attribute']} shaken by {how} on {plain(sh['jobs_pct'])}% of jobs")
    ax.set_xlabel(shown.label)
    ax.set_ylabel("shaken runs")
    count_axis(ax.yaxis)
    ax.grid(True, linewidth=0.3, alpha=0.5)
    ax.legend(loc="upper right", fontsize="small")
    fig.tight_layout()
    save(fig, path)
