"""The validation's figures: per statistic, the histogram of the resampled
workloads with the log's value marked; and the log's pox plot with the
regression lines of a sample of resampled workloads."""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from wla.archive.kernel.plot import save

from .validate import ValidationResult

SAMPLE = 50  # resampled workloads whose pox-plot lines are drawn (the first ones)
COLUMNS = 6


def plot_validation(result: ValidationResult, directory: str | os.PathLike) -> list[Path]:
    """Write histograms.png and pox.png into `directory`; the same validation gives the same bytes."""
    from wla.archive.analysis.stats.plot import pox_comparison

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    names = list(result.statistics)
    rows = math.ceil(len(names) / COLUMNS)
    fig = Figure(figsize=(3.0 * COLUMNS, 2.2 * rows), dpi=100)
    axes = fig.subplots(rows, COLUMNS, squeeze=False)
    for ax, name in zip(axes.flat, names):
        k = result.columns.index(name)
        values = result.values[1:, k]
        values = values[np.isfinite(values)]
        if len(values):
            ax.hist(values, bins=30, color="tab:blue", alpha=0.7)
        o = result.statistics[name]["original"]
        if o is not None:
            ax.axvline(o, color="tab:red", linewidth=1.5)
        pct = result.statistics[name]["percentile"]
        ax.set_title(name + ("" if pct is None else f" (log at p{pct:.0f})"), fontsize="small")
        ax.tick_params(labelsize="x-small")
    for ax in list(axes.flat)[len(names):]:
        ax.set_visible(False)
    fig.suptitle(f"{result.settings['log']}: {result.settings['runs']} resampled workloads (blue) and the log (red)")
    fig.tight_layout()
    hist = out / "histograms.png"
    save(fig, hist)
    h = result.values[1:SAMPLE + 1, result.columns.index("hurst")]
    b = result.values[1:SAMPLE + 1, result.columns.index("hurst_intercept")]
    others = [{"H": float(x), "intercept": float(y)} for x, y in zip(h, b) if np.isfinite(x) and np.isfinite(y)]
    pox = out / "pox.png"
    pox_comparison(result.original["hurst"], others, pox,
                   title=f"{result.settings['log']}: pox plot, and the lines of {len(others)} resampled workloads")
    return [hist, pox]
