"""The figures of a workload's statistics (`wla stats`, `wla validate`): the
pox plot with its fitted line, bins locality per day, the per-user
distributions and the arrival cycles; and the pox plot of an original with
the lines of many resampled copies, to see whether they keep its slope.
Each is the same bytes for the same statistics."""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter
from wla.archive.analysis.cycles_plot import plot_cycles
from wla.archive.kernel.clock import DAY
from wla.archive.kernel.errors import UsageError
from wla.archive.kernel.plot import count_axis, plain, save

from .collect import ATTRIBUTES

HOUR = 3600.0

# Per-user distribution -> (axis label, divisor of its values, log x axis).
USER_PANELS = {
    "jobs": ("jobs per user (jobs)", 1.0, True),
    "sessions": ("sessions per user (sessions)", 1.0, True),
    "session_length": ("average session length (h)", HOUR, True),
    "cpu_work": ("CPU work per user (processor-h)", HOUR, True),
    "first_arrival": ("first arrival after the log's start (d)", DAY, False),
    "last_departure": ("last departure after the log's start (d)", DAY, False),
    "activity_period": ("activity period (d)", DAY, False),
}
ATTRIBUTE_LABELS = {"run": "run time", "req_time": "requested time", "procs": "processors"}


def _margins(**given: float) -> dict:
    """Fixed margins for a grid of panels: the constrained layout would take
    a second or more to find them for each figure."""
    return {"left": 0.06, "right": 0.98, "bottom": 0.13, "top": 0.9, "wspace": 0.25, **given}


def _line(ax, hurst: Mapping, lo: float, hi: float, **style) -> None:
    x = np.array([lo, hi])
    ax.plot(x, hurst["intercept"] + hurst["H"] * x, **style)


def _pox_points(ax, hurst: Mapping) -> tuple[float, float]:
    """Every distinct (n, R/S) point of the pox plot; the range of log10 n."""
    points = hurst["points"]
    x, y = np.log10(points["n"]), np.log10(points["rs"])
    ax.scatter(x, y, s=4, color="tab:blue", alpha=0.25, linewidths=0, label="blocks (log10 n, log10 R/S)")
    period = f"periods of {plain(hurst['unit'])} s" if hurst.get("unit") else "periods"
    ax.set_xlabel(f"log10 n (n: a block's length in {period})")
    ax.set_ylabel("log10 R/S (rescaled range, no unit)")
    ax.grid(True, linewidth=0.3, alpha=0.5)
    return float(x.min()), float(x.max())


def pox_plot(hurst: Mapping, path: str | os.PathLike, title: str) -> None:
    """The points, the fitted line and lines of slopes 0.5 and 1 through its start."""
    fig = Figure(figsize=(7, 5), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    if hurst["H"] is None:
        ax.text(0.5, 0.5, "too few arrivals for a Hurst parameter", ha="center", transform=ax.transAxes)
    else:
        lo, hi = _pox_points(ax, hurst)
        _line(ax, hurst, lo, hi, color="tab:red", linewidth=1.8, label=f"least squares: H = {hurst['H']:.3f}")
        start = hurst["intercept"] + hurst["H"] * lo
        for slope, style in ((0.5, ":"), (1.0, "--")):
            _line(ax, {"H": slope, "intercept": start - slope * lo}, lo, hi, color="gray", linestyle=style,
                  linewidth=1, label=f"slope {slope:g}")
        ax.legend(loc="upper left", fontsize="small")
    ax.set_title(f"{title}: pox plot of arrivals per {plain(hurst['unit'])} s")
    save(fig, path)


def pox_comparison(original_points: Mapping, others: Sequence[Mapping], path: str | os.PathLike,
                   title: str | None = None) -> None:
    """The original's pox plot (its `stats["hurst"]`: points and line) with
    the fitted line of each of `others` (mappings with "H" and "intercept",
    such as their `stats["hurst"]`; those without an H are left out)."""
    fig = Figure(figsize=(7, 5), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    if original_points["H"] is None:
        ax.text(0.5, 0.5, "too few arrivals for a Hurst parameter", ha="center", transform=ax.transAxes)
    else:
        lo, hi = _pox_points(ax, original_points)
        drawn = [o for o in others if o.get("H") is not None]
        for i, other in enumerate(drawn):
            _line(ax, other, lo, hi, color="gray", linewidth=0.6, alpha=0.3,
                  label=f"{len(drawn)} other workloads" if i == 0 else None)
        _line(ax, original_points, lo, hi, color="tab:red", linewidth=1.8,
              label=f"original: H = {original_points['H']:.3f}")
        ax.legend(loc="upper left", fontsize="small")
    ax.set_title(title or "Pox plot of the original and the regression lines of others")
    save(fig, path)


def bins_plot(bins: Mapping, path: str | os.PathLike, title: str) -> None:
    """Per attribute, the histogram over days of the most popular bin's share."""
    fig = Figure(figsize=(12, 4), dpi=100)
    axes = fig.subplots(1, len(ATTRIBUTES), sharey=True, gridspec_kw=_margins(top=0.84))
    edges = np.linspace(0, 1, 41)
    for ax, name in zip(axes, ATTRIBUTES):
        entry = bins[name]
        ax.stairs(np.histogram(entry["shares"], bins=edges)[0], edges, fill=True, color="tab:blue", alpha=0.7)
        ax.axvline(1 / (len(entry["edges"]) + 1), color="gray", linestyle="--", linewidth=1, label="no locality")
        median = entry["summary"]["median"]
        if median is not None:
            ax.axvline(median, color="tab:red", linewidth=1.5, label=f"median {plain(100 * median)}%")
        ax.set_title(f"{ATTRIBUTE_LABELS[name]} ({entry['summary']['count']:,} days)")
        ax.set_xlabel("share of a day's jobs in its top bin (%)")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.grid(True, linewidth=0.3, alpha=0.5)
        ax.legend(loc="upper right", fontsize="small")
    axes[0].set_ylabel("days")
    count_axis(axes[0].yaxis)  # shared by the three
    fig.suptitle(f"{title}: bins locality")
    save(fig, path)


def users_plot(users: Mapping, path: str | os.PathLike, title: str) -> None:
    """A histogram per distribution; log-spaced bins for the heavy-tailed ones."""
    fig = Figure(figsize=(14, 7), dpi=100)
    axes = fig.subplots(2, 4, gridspec_kw=_margins(top=0.92, hspace=0.35)).ravel()
    for ax, (name, (label, unit, log)) in zip(axes, USER_PANELS.items()):
        values = np.asarray(users["distributions"][name]["values"], dtype=np.float64) / unit
        note = ""
        if log:
            zero = int(np.count_nonzero(values <= 0))
            values = values[values > 0]
            note = f", {zero} at 0 not shown" if zero else ""
        if len(values):
            spread = values.min() < values.max()
            bins = np.geomspace(values.min(), values.max(), 31) if log and spread else 30
            counts, edges = np.histogram(values, bins=bins)
            ax.stairs(counts, edges, fill=True, color="tab:blue", alpha=0.7)
        if log:
            ax.set_xscale("log")
        ax.set_xlabel(label)
        ax.set_title(f"{len(values):,} users{note}", fontsize="small")
        ax.grid(True, linewidth=0.3, alpha=0.5)
        count_axis(ax.yaxis)
    for ax in axes[::4]:
        ax.set_ylabel("users")
    axes[-1].axis("off")
    fig.suptitle(f"{title}: per-user distributions ({users['users']} users, "
                 f"sessions split at gaps over {plain(users['session_gap'])} s)")
    save(fig, path)


def write_plots(stats: Mapping, directory: str | os.PathLike, original_name: str) -> list[Path]:
    """The figures of `workload_statistics` output, as NAME-pox.png,
    NAME-bins.png, NAME-users.png and NAME-cycles.png in `directory`."""
    if "points" not in stats["hurst"]:
        raise UsageError("these statistics were computed without detail: nothing to plot")
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {kind: folder / f"{original_name}-{kind}.png" for kind in ("pox", "bins", "users", "cycles")}
    pox_plot(stats["hurst"], paths["pox"], original_name)
    bins_plot(stats["bins"], paths["bins"], original_name)
    users_plot(stats["users"], paths["users"], original_name)
    plot_cycles(stats["cycles"], paths["cycles"], f"{original_name}: arrivals")
    return list(paths.values())
