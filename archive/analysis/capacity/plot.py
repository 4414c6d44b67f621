"""The capacity plot: daily lowest and highest utilization against time, so
that over-capacity stretches and a ceiling far below 100% show at a glance."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ...kernel.clock import DAY, log_clock
from ...kernel.plot import date_axis, period_axis, save
from .report import daily_utilization


def plot_capacity(jobs: pd.DataFrame, capacity: int, path: str | os.PathLike,
                  title: str | None = None, unix_start_time: int | None = None,
                  tz: str | None = None) -> None:
    """Write a figure (PNG, SVG or PDF, as the extension says) of each day's lowest and highest usage as a share of
    `capacity`, with the 100% line. The same input gives the same bytes."""
    daily = daily_utilization(jobs, capacity)
    clock = log_clock(unix_start_time, tz)
    fig = Figure(figsize=(10, 4), dpi=100)
    ax = fig.add_subplot()
    days = daily["day"].to_numpy()
    # Each day is a step from its start to the next day's; the last one too.
    x, _, dated = period_axis(clock, np.r_[days, days[-1:] + 1], DAY)
    lo, hi = daily["min_share"].to_numpy(), daily["max_share"].to_numpy()
    lo, hi = np.r_[lo, lo[-1:]], np.r_[hi, hi[-1:]]
    ax.fill_between(x, lo, hi, step="post", color="tab:blue", alpha=0.3, linewidth=0,
                    label="daily range")
    ax.step(x, hi, where="post", color="tab:blue", linewidth=0.8, label="daily maximum")
    ax.step(x, lo, where="post", color="tab:gray", linewidth=0.6, label="daily minimum")
    ax.axhline(1.0, color="tab:red", linewidth=1.0, linestyle="--", label=f"capacity ({capacity:,} processors)")
    ax.set_ylim(bottom=0, top=max(1.1, float(hi.max()) * 1.05) if len(hi) else 1.1)
    ax.yaxis.set_major_formatter(lambda v, _: f"{100 * v:.0f}%")
    ax.set_ylabel("utilization (% of capacity)")
    if dated:
        date_axis(ax)
        ax.set_xlabel(f"date ({clock.tz or 'UTC'})")
    else:
        ax.set_xlabel("day of the log")
    ax.set_title(title or f"Daily utilization against a capacity of {capacity:,} processors")
    ax.grid(True, linewidth=0.3, alpha=0.5)
    ax.legend(loc="upper right", fontsize="small")
    fig.tight_layout()
    save(fig, path)
