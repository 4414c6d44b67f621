"""What the analysis plots share: where periods of a log's clock sit on the
x axis, dates on it, and PNG, SVG or PDF files that are the same bytes for
the same figure."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
from matplotlib.figure import Figure

from .clock import DAY, LogClock
from .figure_files import figure_format


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


# What each format would stamp into the file besides the figure: the
# software and the date. Left out, the same figure gives the same bytes.
_UNSTAMPED = {"png": {"Software": None}, "svg": {"Creator": None, "Date": None},
              "pdf": {"Creator": None, "Producer": None, "CreationDate": None}}


def save(fig: Figure, path: str | os.PathLike) -> None:
    """The figure in the format its file's extension names (.png, .svg, .pdf),
    without the software's or the date's stamp, so the same figure gives the
    same bytes; SVG's element ids are salted alike every time."""
    import matplotlib

    kind = figure_format(path)
    FigureCanvasAgg(fig)
    with matplotlib.rc_context({"svg.hashsalt": "wla", "svg.fonttype": "path"}):
        fig.savefig(path, format=kind, metadata=_UNSTAMPED[kind])
