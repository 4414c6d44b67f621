"""The overlays drawn (the resampling paper's Figs. 4, 5, 11 and 15): the
log in black over each group's workloads in a colour of its own; the users
ranked by each distribution (by rank, or normalized to [0, 1]), the arrivals
per hour of the week, and per attribute the days ranked by bins locality.
The same overlay gives the same bytes."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter
from wla.archive.kernel.plot import plain, save

from .overlay import LOG, Overlay, user_index

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan")
LOG_STYLE = {"color": "black", "linewidth": 1.6, "zorder": 3}


def _style(k: int) -> dict:
    return {"color": COLOURS[k % len(COLOURS)], "linewidth": 0.8, "alpha": 0.6}


def _legend_title(ov: Overlay) -> str:
    varied = ov.settings["varied"]
    return f"{ov.settings['runs']} workloads each" if varied else f"{ov.settings['runs']} resampled workloads"


def _series(ov: Overlay):
    """(label for the legend or None, style, curves) of every workload, the log last so it is drawn on top."""
    for k, label in enumerate(ov.groups):
        for i, c in enumerate(ov.group(label)):
            yield (label if i == 0 else None), _style(k), c
    yield LOG, LOG_STYLE, ov.log


def plot_users_overlay(ov: Overlay, path: str | os.PathLike, normalized: bool = False) -> None:
    """Figs. 4, 11, 15: per distribution, the users ranked by it; the last panel the arrivals per hour of the week."""
    from wla.archive.analysis.stats.plot import USER_PANELS

    fig = Figure(figsize=(15, 7.5), dpi=80)
    axes = fig.subplots(2, 4, gridspec_kw={"left": 0.06, "right": 0.98, "bottom": 0.09, "top": 0.9,
                                           "wspace": 0.3, "hspace": 0.38}).ravel()
    xlabel = "user, ranked (normalized to 0..1)" if normalized else "user, ranked"
    for ax, (name, (label, unit, log)) in zip(axes, USER_PANELS.items()):
        for legend, style, c in _series(ov):
            values = c.users[name] / unit
            ax.plot(user_index(len(values), normalized), values, label=legend, **style)
        if log:
            ax.set_yscale("log")
        ax.set_ylabel(label, fontsize="small")
        ax.set_xlabel(xlabel, fontsize="small")
        ax.grid(True, linewidth=0.3, alpha=0.5)
        ax.tick_params(labelsize="small")
    week = axes[-1]
    for legend, style, c in _series(ov):
        week.plot(np.arange(7 * 24), c.week, **style)
    week.set_xticks(np.arange(0, 7 * 24 + 1, 6), minor=True)
    week.set_xticks(np.arange(0, 7 * 24, 24) + 12, labels=DAYS if not ov.log.relative else
                    [f"day {d}" for d in range(7)], fontsize="small")
    for d in range(1, 7):
        week.axvline(24 * d, color="gray", linewidth=0.6)
    week.tick_params(axis="x", which="major", length=0)
    week.set_xlim(0, 7 * 24)
    week.set_xlabel("hour of the week (local time; ticks every 6 h)", fontsize="small")
    week.set_ylabel("jobs arrived in the hour (all weeks)", fontsize="small")
    week.grid(True, axis="y", linewidth=0.3, alpha=0.5)
    axes[0].legend(loc="upper left", fontsize="small", title=_legend_title(ov), title_fontsize="small")
    users = sorted({c.user_count for c in ov.workloads[1:]})
    fig.suptitle(f"{ov.settings['log']} ({ov.log.user_count} users) and resampled workloads "
                 f"({users[0]}-{users[-1]} users): per-user distributions, users ranked by each")
    save(fig, path)


def plot_bins_overlay(ov: Overlay, path: str | os.PathLike) -> None:
    """Fig. 5: per attribute, the days ranked by the share of their jobs in their top bin."""
    from wla.archive.analysis.stats.locality import BINS, MIN_JOBS
    from wla.archive.analysis.stats.plot import ATTRIBUTE_LABELS

    names = list(ov.log.bins)
    fig = Figure(figsize=(13, 4.2), dpi=80)
    axes = fig.subplots(1, len(names), sharey=True, gridspec_kw={"left": 0.07, "right": 0.98, "bottom": 0.14,
                                                                 "top": 0.86, "wspace": 0.12})
    for ax, name in zip(axes, names):
        for legend, style, c in _series(ov):
            shares = c.bins[name]
            ax.plot(shares, (np.arange(len(shares)) + 1) / max(len(shares), 1), drawstyle="steps-post",
                    label=legend, **style)
        ax.axvline(1 / BINS, color="gray", linestyle="--", linewidth=1, label=f"no locality (1/{BINS})")
        ax.set_xlim(0, 1)
        ax.set_xlabel(f"share of a day's jobs in its top {ATTRIBUTE_LABELS[name]} bin", fontsize="small")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        days = ov.log.bins[name]
        if not any(len(c.bins[name]) for c in ov.workloads):
            ax.text(0.5, 0.5, f"no day of {MIN_JOBS} jobs with a known {ATTRIBUTE_LABELS[name]}", ha="center",
                    transform=ax.transAxes, fontsize="small")
        median = f", median {plain(round(100 * float(np.median(days)), 1))}%" if len(days) else ""
        ax.set_title(f"{ATTRIBUTE_LABELS[name]} (log: {len(days):,} days{median})", fontsize="medium")
        ax.grid(True, linewidth=0.3, alpha=0.5)
    axes[0].set_ylabel("days at or below the share (cumulative)")
    axes[-1].legend(loc="lower right", fontsize="small", title=_legend_title(ov), title_fontsize="small")
    fig.suptitle(f"{ov.settings['log']} and resampled workloads: bins locality ({BINS} equal-weight bins, "
                 f"days of at least {MIN_JOBS} jobs)")
    save(fig, path)


def plot_overlay(ov: Overlay, directory: str | os.PathLike, normalized: bool = False) -> list[Path]:
    """Write overlay-users.png and overlay-bins.png into `directory`."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    users, bins = out / "overlay-users.png", out / "overlay-bins.png"
    plot_users_overlay(ov, users, normalized)
    plot_bins_overlay(ov, bins)
    return [users, bins]
