"""The sweep plot: a metric against the first swept parameter, the single
run (jagged: one data point per value) against the mean of the shaken runs
with its 95% band (the trend); one pair of curves per combination of the
other swept parameters. A resampled sweep adds the share of runs that
saturated (right axis), and a second panel: each run's utilization against
the metric, saturated runs marked. A sweep of the shaking's own settings is
drawn as sweep_settings_plot.py says."""
from __future__ import annotations

import os
import re

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter
from wla.archive.kernel.errors import OptionError
from wla.archive.kernel.plot import save

from .plot_units import SWEPT, axis, metric_words
from .summary import METRIC_NAMES
from .sweep import SweepResult

_LAST = re.compile(r"^last:(\d+)$")


def _positions(name: str, values: list) -> tuple[np.ndarray, list[str] | None, str]:
    """x positions, tick labels when the values are names, and the axis label with its unit."""
    if all(isinstance(v, (int, float)) for v in values):
        return np.asarray(values, dtype=np.float64), None, SWEPT.get(name, name)
    found = [_LAST.match(str(v)) for v in values]
    if all(found):
        return (np.asarray([int(m.group(1)) for m in found], dtype=np.float64), None,
                f"{name}: K of last:K (the user's last K jobs)")
    return np.arange(len(values), dtype=np.float64), [str(v) for v in values], name


def plot_sweep(result: SweepResult, metric: str | list[str], path: str | os.PathLike) -> None:
    """Write the figure (PNG, SVG or PDF, as the extension says); the same sweep gives the same bytes.
    A sweep of the shaking's settings (degree and jobs) draws the maps of
    sweep_settings_plot.py instead, a row per metric given."""
    from .grid import is_settings_sweep
    from .sweep_settings_plot import plot_settings

    if is_settings_sweep(list(result.settings["grids"])):
        return plot_settings(result, metric, path)
    if metric not in METRIC_NAMES:
        raise OptionError("metric", f"takes a metric, one of {', '.join(METRIC_NAMES)}; not {metric!r}")
    grids = list(result.settings["grids"].items())
    x_name, x_values = grids[0]
    others = [n for n, _ in grids[1:]]
    x, labels, x_label = _positions(x_name, x_values)
    resampled = bool(result.settings.get("resampling"))
    kind = "resampled" if resampled else "shaken"
    fig = Figure(figsize=(14, 4.8) if resampled else (9, 4.5), dpi=100)
    ax = fig.add_subplot(1, 2, 1) if resampled else fig.add_subplot()
    groups: dict[tuple, list[dict]] = {}
    for pt in result.points:
        groups.setdefault(tuple(pt[n] for n in others), []).append(pt)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:gray"]
    runs = result.settings["runs"]
    shown = axis(metric, [m[k] for pt in result.points for m in [pt["metrics"][metric]]
                          for k in ("original", "mean", "ci_low", "ci_high") if m[k] is not None])
    for g, (key, pts) in enumerate(groups.items()):
        color = colors[g % len(colors)]
        name = ", ".join(f"{n}={v}" for n, v in zip(others, key))
        at = np.asarray([x[x_values.index(pt[x_name])] for pt in pts])
        single = np.asarray([np.nan if pt["metrics"][metric]["original"] is None else pt["metrics"][metric]["original"]
                             for pt in pts], dtype=np.float64) / shown.divisor
        ax.plot(at, single, color=color, linewidth=0.8, alpha=0.8, marker=".", markersize=3,
                label=f"{'the log' if resampled else 'single run'}{' ' + name if name else ''}")
        if runs > 0:
            s = [pt["metrics"][metric] for pt in pts]
            mean = np.asarray([np.nan if m["mean"] is None else m["mean"] for m in s], dtype=np.float64)
            lo = np.asarray([np.nan if m["ci_low"] is None else m["ci_low"] for m in s], dtype=np.float64)
            hi = np.asarray([np.nan if m["ci_high"] is None else m["ci_high"] for m in s], dtype=np.float64)
            mean, lo, hi = mean / shown.divisor, lo / shown.divisor, hi / shown.divisor
            ax.plot(at, mean, color=color, linewidth=2.0, label=f"mean of {runs} {kind}{' ' + name if name else ''}")
            ax.fill_between(at, lo, hi, color=color, alpha=0.2, linewidth=0)
    if labels is not None:
        ax.set_xticks(x, labels)
    ax.set_xlabel(x_label)
    ax.set_ylabel(shown.label)
    src = result.source.get("log") or "query"
    ax.set_title(f"{src}: {metric_words(metric)} against {x_name}\n(band: 95% CI of the {kind} mean)",
                 fontsize="medium")
    ax.grid(True, linewidth=0.3, alpha=0.5)
    ax.legend(fontsize="small", loc="upper left")
    if resampled and runs > 0:
        _saturated_share(ax, result, x, x_values, x_name)
        _utilization_panel(fig.add_subplot(1, 2, 2), result, metric, x_name, x_label)
    fig.tight_layout()
    save(fig, path)


def _saturated_share(ax, result: SweepResult, x: np.ndarray, x_values: list, x_name: str) -> None:
    """The share of each x value's runs that saturated, on a right axis."""
    t = result.table
    runs = t[t.run > 0]
    share = [float((runs[runs[x_name] == v].saturated == 1).mean()) for v in x_values]
    right = ax.twinx()
    right.plot(x, share, color="black", linestyle="--", linewidth=1.0, marker="x", markersize=4,
               label="share of runs saturated")
    right.set_ylim(-0.02, 1.02)
    right.yaxis.set_major_formatter(PercentFormatter(1.0))
    right.set_ylabel("runs saturated (%)")
    right.legend(fontsize="small", loc="upper center")


def _utilization_panel(ax, result: SweepResult, metric: str, x_name: str, x_label: str) -> None:
    """Each run's utilization against the metric, coloured by the swept value."""
    t = result.table
    runs = t[t.run > 0]
    ok = runs[runs.saturated != 1]
    bad = runs[runs.saturated == 1]
    shown = axis(metric, runs[metric].to_numpy(np.float64))
    dots = ax.scatter(100 * ok.utilization, ok[metric] / shown.divisor, c=ok[x_name], cmap="viridis", s=10,
                      linewidths=0)
    if len(bad):
        ax.scatter(100 * bad.utilization, bad[metric] / shown.divisor, c="red", marker="x", s=14, linewidths=0.8,
                   label=f"saturated ({len(bad)} run{'' if len(bad) == 1 else 's'}, left out of the means)")
        ax.legend(fontsize="small", loc="upper left")
    ax.figure.colorbar(dots, ax=ax, label=x_label)
    ax.set_yscale("log")
    ax.set_xlabel("utilization (%)")
    ax.set_ylabel(shown.label)
    ax.set_title(f"each resampled run: utilization against {metric_words(metric)}", fontsize="medium")
    ax.grid(True, linewidth=0.3, alpha=0.5)
