"""The load graph: daily and weekly utilization, the level the trim detector
used, and the suggested trim point, so a person can see whether the start of
the log really is a low-load interval."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter

from ..kernel.clock import DAY, WEEK
from ..kernel.errors import UsageError
from ..kernel.plot import date_axis, period_axis, save
from .load import LoadReport, load_profile


def plot_load(report_or_jobs: LoadReport | pd.DataFrame, path: str | os.PathLike,
              capacity: int | None = None, level: float | None = None, title: str | None = None,
              unix_start_time: int | None = None, tz: str | None = None) -> None:
    """Plot a LoadReport, or the load profile of a log's jobs (then capacity,
    level, unix_start_time and tz are passed to `load_profile`)."""
    report = report_or_jobs
    if isinstance(report_or_jobs, pd.DataFrame):
        report = load_profile(report_or_jobs, capacity, level, unix_start_time, tz)
    if len(report.weekly) == 0:
        raise UsageError("no job has a known start, run time and processors: nothing to plot")
    days = report.first_day + np.arange(len(report.daily))
    weeks = report.first_week + np.arange(len(report.weekly) + 1)
    xd, day_width, dated = period_axis(report.clock, days, DAY)
    xw, _, _ = period_axis(report.clock, weeks, WEEK)
    if not dated:  # both series on one axis: days of the log
        xw = weeks * (WEEK / DAY)
    fig = Figure(figsize=(11, 4.8), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    ax.step(np.append(xd, xd[-1] + day_width), np.append(report.daily, report.daily[-1]), where="post",
            color="#9ecae1", linewidth=0.8, label="daily utilization")
    ax.step(xw, np.append(report.weekly, report.weekly[-1]), where="post", color="#08519c",
            linewidth=1.6, label="weekly utilization")
    ax.axhline(report.level, color="black", linestyle="--", linewidth=1,
               label=f"level ({report.level:.1%})")
    if report.trim_week is not None and not report.nothing_to_trim:
        at = xw[report.trim_week - report.first_week]
        ax.axvline(at, color="#d62728", linewidth=1.5, label=f"trim point (week {report.trim_week})")
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylabel(f"utilization (% of {report.capacity:,} processors)")
    ax.set_ylim(0, max(1.0, float(report.daily.max())) * 1.05)
    ax.set_xlim(min(xd[0], xw[0]), max(xd[-1] + day_width, xw[-1]))
    if dated:
        date_axis(ax)
        ax.set_xlabel(f"date ({report.clock.tz or 'UTC'})")
    else:
        ax.set_xlabel("day of the log")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.legend(loc="outside right upper", fontsize="small", frameon=False)
    ax.set_title(title or "Utilization")
    save(fig, path)
