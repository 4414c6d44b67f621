"""What the analysis plots share: where periods of a log's clock sit on the
x axis, dates on it, and PNG files that are the same bytes for the same
figure."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
from matplotlib.figure import Figure

from .clock import DAY, LogClock


def period_axis(clock: LogClock, periods: np.ndarray, length: int) -> tuple[np.ndarray, float, bool]:
    """Where periods of the submit clock sit on the x axis: local dates (as
    matplotlib day numbers) when the log's start is known, else period numbers.
    Returns positions, the width of one period, and whether they are dates."""
    if clock.unix_start_time is None:
        return np.asarray(periods).astype(np.float64), 1.0, False
    instants = pd.to_datetime(clock.unix_start_time + np.asarray(periods) * length, unit="s", utc=True)
    local = instants.tz_convert(clock.tz or "UTC").tz_localize(None)
    epoch = pd.Timestamp("1970-01-01")
    return ((local - epoch) / pd.Timedelta(days=1)).to_numpy(np.float64), length / DAY, True


def date_axis(ax) -> None:
    """Dates on the x axis, as many as fit and no more."""
    locator = AutoDateLocator()
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))


def save(fig: Figure, path: str | os.PathLike) -> None:
    """PNG without the software stamp, so the same figure gives the same bytes."""
    FigureCanvasAgg(fig)
    fig.savefig(path, format="png", metadata={"Software": None})
