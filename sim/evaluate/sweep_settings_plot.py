"""The figure of a sweep over the shaking's own settings (the shaking
paper's Figs. 6 to 9): for each metric given, its span (5th to 95th percentile of
the shaken runs), distance ((mean - O) / O) and concentration (the share of
runs within 1% of O), all against the single run O, as maps over degree and
share of jobs shaken, one row per attribute. The paper draws them as 3-D
bars; a map with each cell's number written in it reads the same numbers
without a perspective to guess through."""
from __future__ import annotations

import os

import numpy as np
from matplotlib.figure import Figure
from wla.archive.kernel.errors import OptionError
from wla.archive.kernel.plot import plain, save

from .grid import is_settings_sweep
from .plot_units import metric_words
from .summary import METRIC_NAMES
from .sweep import SweepResult


def _cells(points: list[dict], metric: str, degrees: list, shares: list, key: str) -> np.ndarray:
    """One summary of the metric per (share, degree): NaN where there is none."""
    out = np.full((len(shares), len(degrees)), np.nan)
    for pt in points:
        value = pt["metrics"][metric][key]
        if value is not None:
            out[shares.index(pt["jobs"]), degrees.index(pt["degree"])] = value
    return out


def _span(low: float, high: float) -> str:
    """A span as percent of the single run: whole percents, or tenths when
    narrow (then on two lines, to fit the cell)."""
    if high - low < 3:
        return f"{low:.1f} to\n{high:.1f}"
    return f"{low:.0f}–{high:.0f}"


def _map(ax, values: np.ndarray, labels: np.ndarray, cmap: str, lo: float, hi: float,
         degrees: list, shares: list, unit: str, title: str) -> None:
    image = ax.imshow(values, cmap=cmap, vmin=lo, vmax=hi, origin="lower", aspect="auto")
    for (i, j), text in np.ndenumerate(labels):
        v = values[i, j]
        shade = 0.5 if np.isnan(v) else (v - lo) / (hi - lo) if hi > lo else 0.0
        dark = abs(shade - 0.5) > 0.3 if cmap == "RdBu_r" else shade > 0.6  # a diverging map is dark at both ends
        ax.text(j, i, text, ha="center", va="center", fontsize="small", color="white" if dark else "black")
    ax.set_xticks(range(len(degrees)), [plain(d) for d in degrees])
    ax.set_yticks(range(len(shares)), [f"{plain(s)}%" for s in shares])
    ax.set_xlabel(f"degree ({unit})")
    ax.set_ylabel("jobs shaken")
    ax.set_title(title, fontsize="medium")
    ax.figure.colorbar(image, ax=ax, format="%g%%", shrink=0.85)


def metric_list(metric: str | list[str]) -> list[str]:
    """One metric or several, each checked."""
    metrics = [metric] if isinstance(metric, str) else list(metric)
    for name in metrics or [""]:
        if name not in METRIC_NAMES:
            raise OptionError("metric", f"takes a metric, one of {', '.join(METRIC_NAMES)}; not {name!r}")
    return metrics


def plot_settings(result: SweepResult, metric: str | list[str], path: str | os.PathLike) -> None:
    """Write the figure (PNG, SVG or PDF, as the extension says), a row of
    maps per attribute and metric; the same sweep gives the same bytes."""
    metrics = metric_list(metric)
    grids = result.settings["grids"]
    if not is_settings_sweep(list(grids)):
        raise OptionError("grid", "the settings figure takes a sweep of degree and jobs (and attribute) alone")
    degrees, shares = list(grids["degree"]), list(grids["jobs"])
    attributes = list(grids.get("attribute", [result.settings["shaking"]["attribute"]]))
    sh = result.settings["shaking"]
    mode = "absolute" if sh["relative_pct"] is None else f"relative, at most {plain(sh['relative_pct'])}% of the value"
    rows = [(a, m) for a in attributes for m in metrics]
    fig = Figure(figsize=(15, 0.6 + 3.6 * len(rows)), dpi=80)
    for row, (attribute, metric) in enumerate(rows):
        what = f"{attribute}, {metric_words(metric)}"
        pts = [pt for pt in result.points if pt.get("attribute", attribute) == attribute]
        low = 100 * _cells(pts, metric, degrees, shares, "span_low")
        high = 100 * _cells(pts, metric, degrees, shares, "span_high")
        distance = 100 * _cells(pts, metric, degrees, shares, "distance")
        near = 100 * _cells(pts, metric, degrees, shares, "concentration")
        unit = "processors" if attribute == "size" else "s"
        width = high - low
        span_text = np.array([["-" if np.isnan(w) else _span(lo, hi) for lo, hi, w in zip(*r)]
                              for r in zip(low, high, width)])
        far = max(float(np.nanmax(np.abs(distance), initial=0.0)), 0.1)
        axes = [fig.add_subplot(len(rows), 3, 3 * row + k + 1) for k in range(3)]
        _map(axes[0], width, span_text, "Blues", 0, max(float(np.nanmax(width, initial=0.0)), 1.0), degrees, shares,
             unit, f"{what}:\nspan p5–p95, % of the single run (colour: width)")
        _map(axes[1], distance, np.where(np.isnan(distance), "-", np.char.mod("%+.1f", np.nan_to_num(distance))),
             "RdBu_r", -far, far, degrees, shares, unit,
             f"{what}:\ndistance of the shaken mean from the single run (%)")
        _map(axes[2], near, np.where(np.isnan(near), "-", np.char.mod("%.0f", np.nan_to_num(near))),
             "Greens", 0, 100, degrees, shares, unit,
             f"{what}:\nconcentration: runs within 1% of the single run (%)")
    src = result.source.get("log") or "query"
    fig.suptitle(f"{src}: {result.settings['runs']} shaken runs per cell, {mode}", fontsize="large")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / fig.get_figheight()))  # the title above the first row's
    save(fig, path)
