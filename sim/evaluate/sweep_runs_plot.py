"""Each point's shaken runs as a distribution of one metric relative to its
single run (= 100), overlaid (the shaking paper's Fig. 4): one curve per
value of the last grid, one panel per combination of the others. The paper
draws the density; this draws the distribution function, which needs no
bandwidth, shows every run, and gives the span (5% to 95%) and where the
single run falls at a glance."""
from __future__ import annotations

import os

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter
from wla.archive.kernel.errors import OptionError
from wla.archive.kernel.plot import plain, save

from .plot_units import metric_words
from .sweep import SweepResult
from .sweep_settings_plot import metric_list

MAX_PANELS = 30  # panels a figure holds and still reads


def panels(grids: list[tuple[str, list]], metrics: int = 1) -> int:
    """How many panels a sweep's runs figure draws (one per metric and
    combination of every grid but the last); too many refused before the
    sweep runs."""
    n = metrics
    for _, values in grids[:-1]:
        n *= len(values)
    if n > MAX_PANELS:
        raise OptionError("plot_runs", f"draws one panel per metric and combination of every grid but the last: {n:,} "
                                       f"here, at most {MAX_PANELS}; give the grid with most values last")
    return n


def _value(name: str, value: object) -> str:
    if name == "jobs":
        return f"jobs {plain(value)}%"
    if name == "degree":
        return f"degree {plain(value)}"
    return f"{name} {plain(value) if isinstance(value, float) else value}"


def plot_runs(result: SweepResult, metric: str | list[str], path: str | os.PathLike) -> None:
    """Write the figure (PNG, SVG or PDF, as the extension says), a panel per
    metric and combination of the grids but the last; the same sweep gives the same bytes."""
    metrics = metric_list(metric)
    grids = list(result.settings["grids"].items())
    n = panels(grids, len(metrics))
    if result.settings["runs"] < 1:
        raise OptionError("plot_runs", "draws the shaken runs, and this sweep has none")
    names = [g for g, _ in grids]
    curve_name, curve_values = grids[-1]
    t = result.table
    columns = min(n, 2)
    rows = -(-n // columns)
    fig = Figure(figsize=(6.5 * columns, 0.8 + 3.2 * rows), dpi=80)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:gray",
              "tab:olive", "tab:cyan"]
    groups: dict[tuple, list[int]] = {}
    for p, pt in enumerate(result.points):
        groups.setdefault(tuple(pt[g] for g in names[:-1]), []).append(p)
    kind = "resampled" if result.settings.get("resampling") else "shaken"
    base = (result.settings.get("shaking") or {}).get("attribute")
    drawn = [(metric, key, members) for metric in metrics for key, members in groups.items()]
    for k, (metric, key, members) in enumerate(drawn):
        ax = fig.add_subplot(rows, columns, k + 1)
        singles = set()
        for p in members:
            runs = t[(t["point"] == p)]
            single = float(runs.loc[runs["run"] == 0, metric].iloc[0])
            singles.add(single)
            values = runs.loc[(runs["run"] > 0) & (runs["saturated"] != 1), metric].to_numpy(np.float64)
            values = np.sort(values[~np.isnan(values)])
            if not len(values) or single == 0 or np.isnan(single):
                continue
            relative = 100 * values / single
            share = np.arange(1, len(values) + 1) / len(values)
            value = result.points[p][curve_name]
            color = colors[curve_values.index(value) % len(colors)]
            unit = "processors" if result.points[p].get("attribute", base) == "size" else "s"
            label = f"{_value(curve_name, value)} {unit}" if curve_name == "degree" else _value(curve_name, value)
            ax.step(np.r_[relative[0], relative], np.r_[0.0, share], where="post", color=color, linewidth=1.4,
                    label=label)
        ax.axvline(100, color="black", linewidth=0.8, linestyle=":")
        for level in (0.05, 0.95):
            ax.axhline(level, color="gray", linewidth=0.5, linestyle="--")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(f"{metric_words(metric)}, % of the single run")
        ax.set_ylabel(f"{kind} runs at or below")
        where = ", ".join(_value(g, v) for g, v in zip(names[:-1], key)) or "every point"
        single_text = f"single run = {plain(round(next(iter(singles)), 2))}" if len(singles) == 1 else \
            "each curve against its own single run"
        ax.set_title(f"{metric_words(metric)}, {where}\n({single_text})", fontsize="medium")
        ax.grid(True, linewidth=0.3, alpha=0.5)
        ax.legend(fontsize="small", loc="lower right")
    src = result.source.get("log") or "query"
    fig.suptitle(f"{src}: each {kind} run relative to the single run (= 100), {result.settings['runs']} runs per "
                 "curve", fontsize="medium")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / fig.get_figheight()))  # the title above the first row's
    save(fig, path)
