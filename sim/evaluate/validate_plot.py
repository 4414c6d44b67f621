"""The validation's figures: per statistic, the histogram of the resampled
workloads with the log's value marked; and the log's pox plot with the
regression lines of a sample of resampled workloads."""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from wla.archive.kernel.plot import count_axis, save

from .plot_units import axis
from .validate import ValidationResult

SAMPLE = 50  # resampled workloads whose pox-plot lines are drawn (the first ones)
COLUMNS = 4  # panels a row: each wide enough for its title, unit and ticks
WIDTH, HEIGHT = 4.6, 3.1  # inches a panel


def plot_validation(result: ValidationResult, directory: str | os.PathLike) -> list[Path]:
    """Write histograms.png and pox.png into `directory`; the same validation gives the same bytes."""
    from wla.archive.analysis.stats.plot import pox_comparison

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    names = list(result.statistics)
    rows = math.ceil(len(names) / COLUMNS)
    top = 0.6  # inches above the panels, for the title
    fig = Figure(figsize=(WIDTH * COLUMNS, HEIGHT * rows + top), dpi=100)
    axes = fig.subplots(rows, COLUMNS, squeeze=False, gridspec_kw={
        "left": 0.9 / (WIDTH * COLUMNS), "right": 1 - 0.3 / (WIDTH * COLUMNS), "wspace": 0.45,
        "top": 1 - top / (HEIGHT * rows + top), "bottom": 0.75 / (HEIGHT * rows + top), "hspace": 0.75})
    for ax, name in zip(axes.flat, names):
        _histogram(ax, result, name)
    for ax in axes[:, 0]:
        ax.set_ylabel("resampled workloads")
    for ax in list(axes.flat)[len(names):]:
        ax.set_visible(False)
    fig.suptitle(f"{result.settings['log']}: {result.settings['runs']} resampled workloads (blue) and the log (red)",
                 y=1 - 0.2 / (HEIGHT * rows + top))
    hist = out / "histograms.png"
    save(fig, hist)
    h = result.values[1:SAMPLE + 1, result.columns.index("hurst")]
    b = result.values[1:SAMPLE + 1, result.columns.index("hurst_intercept")]
    others = [{"H": float(x), "intercept": float(y)} for x, y in zip(h, b) if np.isfinite(x) and np.isfinite(y)]
    pox = out / "pox.png"
    pox_comparison(result.original["hurst"], others, pox,
                   title=f"{result.settings['log']}: pox plot, and the lines of {len(others)} resampled workloads")
    return [hist, pox]


def _histogram(ax, result: ValidationResult, name: str) -> None:
    """One statistic's panel: the resampled values, the log's value, in the statistic's unit."""
    values = result.values[1:, result.columns.index(name)]
    values = values[np.isfinite(values)]
    o = result.statistics[name]["original"]
    shown = axis(name, [*values, *([] if o is None else [o])])
    if len(values):
        ax.hist(values / shown.divisor, bins=30, color="tab:blue", alpha=0.7)
    if o is not None:
        ax.axvline(o / shown.divisor, color="tab:red", linewidth=1.5)
    pct = result.statistics[name]["percentile"]
    ax.set_title(name + ("" if pct is None else f" (log at p{pct:.0f})"), fontsize="medium")
    ax.set_xlabel(shown.label, fontsize="small")
    ax.xaxis.set_major_locator(MaxNLocator(nbins=4, integer=shown.counts))
    count_axis(ax.yaxis)
    ax.tick_params(labelsize="small")
