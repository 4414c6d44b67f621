"""The flurry graph: weekly job counts with the busiest users in colour, as
the Parallel Workloads Archive draws them, so a flurry shows as one colour
towering over the average."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..clean.predicate import LogClock
from ..errors import UsageError
from .flurries import weekly_counts
from .load import DAY, WEEK, log_clock

GREY = "#b0b0b0"


def period_axis(clock: LogClock, periods: np.ndarray, length: int) -> tuple[np.ndarray, float, bool]:
    """Where periods of the submit clock sit on the x axis: local dates (as
    matplotlib day numbers) when the log's start is known, else period numbers.
    Returns positions, the width of one period, and whether they are dates."""
    if clock.unix_start_time is None:
        return periods.astype(np.float64), 1.0, False
    instants = pd.to_datetime(clock.unix_start_time + periods * length, unit="s", utc=True)
    local = instants.tz_convert(clock.tz or "UTC").tz_localize(None)
    epoch = pd.Timestamp("1970-01-01")
    return ((local - epoch) / pd.Timedelta(days=1)).to_numpy(np.float64), length / DAY, True


def date_axis(ax) -> None:
    locator = AutoDateLocator()
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))


def save(fig: Figure, path: str | os.PathLike) -> None:
    """PNG without the software stamp, so the same figure gives the same bytes."""
    FigureCanvasAgg(fig)
    fig.savefig(path, format="png", metadata={"Software": None})


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
               label=f"average weekly total ({average:,.0f})")
    ax.axhline(5 * average, color="black", linestyle=":", linewidth=1, label="5 × average")
    ax.set_ylabel("jobs per week")
    if dated:
        date_axis(ax)
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
