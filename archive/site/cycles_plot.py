"""Arrivals by day of the week and hour of the day: the weekly and daily
cycles a reader checks first (working hours, weekends), in the log's local
time."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..analysis.plot import save
from ..clock import DAY, LogClock

HOUR = 3600
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def arrival_cycles(submit: np.ndarray, clock: LogClock) -> dict:
    """Jobs by day of the week (Monday first) and by hour (0..23) of the
    log's wall clock. Without a known start, days and hours count from the
    log's start, and `relative` says so. Unknown submit times are left out."""
    submit = np.asarray(submit, dtype=np.float64)
    seconds = np.floor(submit[np.isfinite(submit) & (submit >= 0)]).astype(np.int64)
    relative = clock.unix_start_time is None
    if relative:
        weekday, hour = (seconds // DAY) % 7, (seconds % DAY) // HOUR
    else:
        local = pd.to_datetime(clock.unix_start_time + seconds, unit="s", utc=True).tz_convert(clock.tz or "UTC")
        weekday, hour = local.day_of_week.to_numpy(np.int64), local.hour.to_numpy(np.int64)
    return {"day_of_week": np.bincount(weekday, minlength=7).tolist(),
            "hour_of_day": np.bincount(hour, minlength=24).tolist(),
            "relative": relative, "time_zone": None if relative else (clock.tz or "UTC")}


def plot_cycles(cycles: dict, path: str | os.PathLike, title: str) -> None:
    """Two bar charts side by side: the week and the day."""
    fig = Figure(figsize=(10, 3.6), dpi=100)
    days, hours = fig.subplots(1, 2, width_ratios=(1, 2.2),
                               gridspec_kw={"left": 0.08, "right": 0.98, "bottom": 0.16, "top": 0.87,
                                            "wspace": 0.22})
    relative = cycles["relative"]
    days.bar(range(7), cycles["day_of_week"], color="tab:blue")
    days.set_xticks(range(7), [str(i) for i in range(7)] if relative else WEEKDAYS)
    hours.bar(range(24), cycles["hour_of_day"], color="tab:blue")
    hours.set_xticks(range(0, 24, 2))
    where = "from the log's start: its start time is unknown" if relative else cycles["time_zone"]
    days.set_xlabel("day of the log's week" if relative else "day of the week")
    hours.set_xlabel(f"hour of the day ({where})")
    days.set_ylabel("jobs submitted")
    for ax in (days, hours):
        ax.grid(True, axis="y", linewidth=0.3, alpha=0.5)
    fig.suptitle(title)
    save(fig, path)
