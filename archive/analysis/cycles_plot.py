"""The arrival cycles of `cycles.py` as two bar charts: the week and the day."""
from __future__ import annotations

import os

from matplotlib.figure import Figure

from ..kernel.plot import count_axis, save

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def plot_cycles(cycles: dict, path: str | os.PathLike, title: str) -> None:
    """Two bar charts side by side, the week and the day, of `arrival_cycles`."""
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
        count_axis(ax.yaxis)
        ax.grid(True, axis="y", linewidth=0.3, alpha=0.5)
    fig.suptitle(title)
    save(fig, path)
