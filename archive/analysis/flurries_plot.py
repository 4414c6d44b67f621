"""The flurry graph: weekly job counts with the busiest users in colour, as
the Parallel Workloads Archive draws them, so a flurry shows as one colour
towering over the average."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..kernel.clock import WEEK, log_clock
from ..kernel.errors import UsageError
from ..kernel.plot import count_axis, date_axis, period_axis, save
from .flurries import weekly_counts

GREY = "#b0b0b0"


def plot_flurries(jobs: pd.DataFrame, path: str | os.PathLike, top: int = 5, title: str | None = None,
                  unix_start_time: int | None = None, tz: str | None = None) -> None:
    """Weekly job counts as stacked bars: the `top` users (by their largest
    weekly count) each in a colour, everyone else grey, with lines at the
    average weekly total and at five times it."""
    table = weekly_counts(jobs, top)
    if table.empty:
        raise UsageError("no job with a known submit time: nothing to plot")
    clock = log_clock(unix_start_time, tz)
    x, width, dated = period_axis(clock, table.week.to_numpy(), WEEK)
    average = table.jobs.sum() / len(table)
    fig = Figure(figsize=(11, 4.8), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    users = [c for c in table.columns if c.startswith("user ")]
    colours = [f"C{i % 10}" for i in range(len(users))]
    bottom = np.zeros(len(table))
    for column, colour in zip(["others"] + users, [GREY] + colours):
        counts = table[column].to_numpy(np.float64)
        ax.bar(x, counts, width=width, bottom=bottom, align="edge", color=colour, linewidth=0,
               label="other users" if column == "others" else column)
        bottom += counts
    ax.axhline(average, color="black", linestyle="--", linewidth=1,
               label=f"average weekly total ({average:,.0f} jobs)")
    ax.axhline(5 * average, color="black", linestyle=":", linewidth=1, label="5 × average")
    ax.set_ylabel("jobs per week")
    count_axis(ax.yaxis)
    if dated:
        date_axis(ax)
        ax.set_xlabel(f"week's start ({clock.tz or 'UTC'})")
    else:
        ax.set_xlabel("week of the log")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(x[0], x[-1] + width)
    ax.set_ylim(0, max(bottom.max(), 5 * average) * 1.05)
    # Users in rank order, then the grey rest, then the two lines.
    handles = dict(zip(*reversed(ax.get_legend_handles_labels())))
    labels = users + ["other users"] + [k for k in handles if k.startswith(("average", "5 ×"))]
    fig.legend([handles[k] for k in labels], labels, loc="outside right upper",
               fontsize="small", frameon=False)
    ax.set_title(title or "Jobs per week")
    save(fig, path)
