"""What the plots share: where periods of a log's clock sit on the x axis,
dates on it, numbers as a reader writes them (no `2.075e+04`, no `1e6` in
a corner), whole ticks on axes that count, durations in a unit a person
reads, and PNG, SVG or PDF files that are the same bytes for the same
figure."""
from __future__ import annotations

import math
import os
from collections.abc import Iterable

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
from matplotlib.figure import Figure
from matplotlib.ticker import Formatter, LogFormatter, LogFormatterSciNotation, MaxNLocator, ScalarFormatter

from .clock import DAY, LogClock
from .figure_files import figure_format
from .units import UNITS

# The text's units but years (an axis of years reads as days): durations are
# drawn in the first unit they reach twice, from the largest down.
_DURATIONS = tuple(u for u in UNITS if u[0] != "y")


def plain(value: float) -> str:
    """A number for a legend or a title: thousands separated, four significant
    digits below a thousand, never an exponent (`20,750`, `0.8246`, `3.5`)."""
    if value is None or not math.isfinite(value):
        return "-"
    size = abs(value)
    if size >= 1000 or value == 0:
        text = f"{value:,.0f}"
    else:
        text = f"{value:,.{max(0, 3 - math.floor(math.log10(size)))}f}"
        text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text == "-0" else text


class PlainFormatter(Formatter):
    """Tick labels of a linear axis: as many decimals as the ticks need,
    thousands separated, no exponent and no offset."""

    decimals = 0

    def set_locs(self, locs) -> None:
        super().set_locs(locs)
        finite = np.sort(np.asarray([x for x in locs if math.isfinite(x)], dtype=np.float64))
        step = float(np.min(np.diff(finite))) if len(finite) > 1 else 1.0
        tolerance = max(step, 1e-12) * 1e-6
        self.decimals = next((d for d in range(12) if np.all(np.abs(np.round(finite, d) - finite) <= tolerance)), 12)

    def __call__(self, x, pos=None) -> str:
        text = f"{x:,.{self.decimals}f}"
        return self.fix_minus(text.lstrip("-") if text.lstrip("-").strip("0.,") == "" else text)


class PlainLogFormatter(LogFormatter):
    """Tick labels of a logarithmic axis, chosen as matplotlib chooses them,
    written as plain numbers (`100,000`, not `10^5` or `1e+05`)."""

    def _num_to_string(self, x, vmin, vmax) -> str:
        return plain(x)


def plain_ticks(fig: Figure) -> None:
    """Every axis of `fig` still on matplotlib's default labels gets plain
    numbers instead; labels a figure chose itself (dates, percent) stay."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            major, minor = axis.get_major_formatter(), axis.get_minor_formatter()
            if type(major) is ScalarFormatter:
                axis.set_major_formatter(PlainFormatter())
            elif type(major) is LogFormatterSciNotation:
                axis.set_major_formatter(PlainLogFormatter(major._base, labelOnlyBase=major.labelOnlyBase))
            if type(minor) is LogFormatterSciNotation:
                axis.set_minor_formatter(PlainLogFormatter(minor._base, labelOnlyBase=minor.labelOnlyBase,
                                                           minor_thresholds=minor.minor_thresholds))


def count_axis(axis) -> None:
    """An axis that counts (jobs, runs, users): ticks on whole numbers only."""
    axis.set_major_locator(MaxNLocator(nbins="auto", steps=[1, 2, 2.5, 5, 10], integer=True))


def duration_unit(values: Iterable[float]) -> tuple[str, float]:
    """The unit durations of `values` seconds read best in, and its size in
    seconds: days, hours or minutes when the largest is at least two of
    them, else seconds."""
    finite = [abs(v) for v in values if v is not None and math.isfinite(v)]
    largest = max(finite, default=0.0)
    return next(((unit, size) for unit, size in _DURATIONS if largest >= 2 * size), ("s", 1.0))


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
    its ticks in plain numbers (plain_ticks), without the software's or the date's stamp, so the same figure gives the
    same bytes; SVG's element ids are salted alike every time."""
    import matplotlib

    kind = figure_format(path)
    plain_ticks(fig)
    FigureCanvasAgg(fig)
    with matplotlib.rc_context({"svg.hashsalt": "wla", "svg.fonttype": "path"}):
        fig.savefig(path, format=kind, metadata=_UNSTAMPED[kind])
