"""Per point of a sweep, the distribution of its runs (the resampling
paper's Fig. 16, one histogram per RB_NPW): the measured (non-flurry) job
count, the measured utilization, the metric shown and the mean wait, each a
panel with one outline per point over the same bins. Saturated runs are
left out, as from the means; the single run (in a resampled sweep, the log
itself) is a dashed line."""
from __future__ import annotations

import os

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from wla.archive.kernel.errors import OptionError
from wla.archive.kernel.plot import save

from .plot_units import axis, metric_words
from .summary import METRIC_NAMES
from .sweep import SweepResult

BINS = 20
MAX_POINTS = 12  # outlines one panel can tell apart
COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:gray",
          "tab:olive", "tab:cyan", "black", "gold")


def panels(metric: str) -> tuple[str, ...]:
    """The metrics drawn: Fig. 16's (the non-flurry jobs and their
    utilization, which shrink as flurries take users' places, then the
    slowdown and the wait), the shown metric in the place of the slowdown."""
    return ("measured_jobs", "utilization_measured", metric) + (() if metric == "wait_mean" else ("wait_mean",))


def plot_histograms(result: SweepResult, metric: str, path: str | os.PathLike) -> None:
    """Write the figure (PNG, SVG or PDF, as the extension says); the same sweep gives the same bytes."""
    if metric not in METRIC_NAMES:
        raise OptionError("metric", f"takes a metric, one of {', '.join(METRIC_NAMES)}; not {metric!r}")
    if result.settings["runs"] < 1:
        raise OptionError("histograms", "draws the distribution of each point's runs: this sweep has only the "
                                        "single run of each")
    if len(result.points) > MAX_POINTS:
        raise OptionError("histograms", f"draws one outline per point, at most {MAX_POINTS}; this sweep has "
                                        f"{len(result.points):,}")
    t = result.table
    names = list(result.settings["grids"])
    resampled = bool(result.settings.get("resampling"))
    kind = "resampled" if resampled else "shaken"
    shown = panels(metric)
    fig = Figure(figsize=(11, 7.5), dpi=100)
    for k, name in enumerate(shown):
        ax = fig.add_subplot(2, 2, k + 1)
        runs = t[(t.run > 0) & (t.saturated != 1)]
        values = runs[name].to_numpy(np.float64)
        unit = axis(name, t[name].to_numpy(np.float64))
        finite = values[np.isfinite(values)] / unit.divisor
        edges = np.histogram_bin_edges(finite, BINS) if len(finite) else np.linspace(0, 1, BINS + 1)
        for p, pt in enumerate(result.points):
            color = COLORS[p % len(COLORS)]
            mine = t[t.point == p]
            kept = mine[(mine.run > 0) & (mine.saturated != 1)][name].to_numpy(np.float64) / unit.divisor
            label = ", ".join(f"{n}={pt[n]:g}" if isinstance(pt[n], float) else f"{n}={pt[n]}" for n in names)
            left = int((mine.run > 0).sum()) - len(kept)
            ax.hist(kept[np.isfinite(kept)], bins=edges, histtype="step", color=color, linewidth=1.4,
                    label=f"{label} ({len(kept)} runs" + (f", {left} saturated left out)" if left else ")"))
            if not resampled:
                single = mine[mine.run == 0][name].to_numpy(np.float64) / unit.divisor
                ax.axvline(single[0], color=color, linestyle="--", linewidth=0.8)
        if resampled:
            log = t[(t.run == 0) & (t.point == 0)][name].to_numpy(np.float64) / unit.divisor
            ax.axvline(log[0], color="black", linestyle="--", linewidth=0.9, label="the log")
        ax.set_xlabel(unit.label)
        ax.set_ylabel(f"{kind} runs")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(metric_words(name), fontsize="medium")
        ax.grid(True, linewidth=0.3, alpha=0.5)
        if k == 0:
            ax.legend(fontsize="x-small", loc="upper left")
    src = result.source.get("log") or "query"
    fig.suptitle(f"{src}: each point's {kind} runs (saturated ones left out)", fontsize="medium")
    fig.tight_layout()
    save(fig, path)
