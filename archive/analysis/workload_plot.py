"""What the experience paper's figures show of a log, drawn: processors
allocated against requested (its Fig. 2), the gaps between starts beside
those between arrivals (Fig. 8: a batching scheduler's starts fall on a
period), long requests by hour and day of submission (KTH's limits by time
of day, section 3.4) and size against run time (section 3.5). The counts
behind them are in the quality report; matplotlib is imported only while
drawing."""
from __future__ import annotations

import os
from typing import Callable

import numpy as np
import pandas as pd

from ..kernel.clock import LogClock
from ..kernel.errors import UsageError
from .cycles import arrival_cycles

HOUR = 3600
# Requests longer than KTH's daytime limit (4 h) and its night limit (15 h).
LONG_REQUESTS = (4 * HOUR, 15 * HOUR)
# The gaps drawn, in seconds: a batching period shows as peaks at its multiples.
GAP_LIMIT = 300


def _log2_edges(values: np.ndarray) -> np.ndarray:
    """Bins centred on the powers of two (from 2^(k - 1/2) to 2^(k + 1/2)), so
    that a job of 8 processors asking for 8 sits on the diagonal's cell."""
    top = int(np.ceil(np.log2(values.max()))) if len(values) else 1
    return 2.0 ** (np.arange(0, max(top, 1) + 2) - 0.5)


def _grid(ax, x, y, xedges, yedges, fig, label: str) -> None:
    """A 2-D histogram with counts in colour on a logarithmic scale."""
    from matplotlib.colors import LogNorm

    counts = np.histogram2d(x, y, bins=(xedges, yedges))[0].T
    mesh = ax.pcolormesh(xedges, yedges, np.ma.masked_equal(counts, 0), norm=LogNorm(vmin=1, vmax=max(counts.max(), 2)),
                         cmap="viridis")
    fig.colorbar(mesh, ax=ax, label=label)


def plot_requests(jobs: pd.DataFrame, path: str | os.PathLike, title: str) -> None:
    """Allocated against requested processors, jobs with both known, on
    powers of two: the diagonal is the jobs that got what they asked for."""
    from matplotlib.figure import Figure

    from ..kernel.plot import save

    both = (jobs["procs"] > 0) & (jobs["req_procs"] > 0)
    if not both.any():
        raise UsageError("no job with both allocated and requested processors: nothing to plot")
    req, got = jobs.loc[both, "req_procs"].to_numpy(float), jobs.loc[both, "procs"].to_numpy(float)
    edges = _log2_edges(np.concatenate([req, got]))
    fig = Figure(figsize=(6.4, 5.2), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    _grid(ax, req, got, edges, edges, fig, "jobs")
    ax.plot([edges[0], edges[-1]], [edges[0], edges[-1]], color="tab:red", linewidth=0.6)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("requested processors")
    ax.set_ylabel("allocated processors")
    ax.set_title(title, fontsize=10)
    fig.subplots_adjust(left=0.14, right=0.9, bottom=0.11, top=0.93)
    save(fig, path)


def gaps(instants: pd.Series) -> np.ndarray:
    """The gaps between consecutive distinct instants (jobs of one instant are one event)."""
    return np.diff(np.unique(instants.to_numpy(np.float64)))


def plot_inter_starts(jobs: pd.DataFrame, path: str | os.PathLike, title: str) -> None:
    """The gaps between distinct start instants beside those between distinct
    arrivals, in 1-s bins up to GAP_LIMIT: a batching scheduler's starts peak
    on a period and its multiples, arrivals stay smooth."""
    from matplotlib.figure import Figure

    from ..kernel.plot import count_axis, save

    known = jobs[(jobs["submit"] != -1) & (jobs["wait"] != -1)]
    if known.empty:
        raise UsageError("no job with a known submit and wait: nothing to plot")
    edges = np.arange(0.5, GAP_LIMIT + 1.5)
    fig = Figure(figsize=(9, 3.8), dpi=100)
    starts, arrivals = fig.subplots(1, 2, sharey=True, gridspec_kw={"left": 0.08, "right": 0.98, "bottom": 0.14,
                                                                     "top": 0.86, "wspace": 0.06})
    for ax, values, what in ((starts, gaps(known["submit"] + known["wait"]), "starts"),
                             (arrivals, gaps(known["submit"]), "arrivals")):
        counts, _ = np.histogram(values[values <= GAP_LIMIT], bins=edges)
        ax.stairs(counts, edges, fill=True, color="tab:blue")  # one artist, not a patch per bin
        ax.set_xlabel(f"seconds between {what}")
        ax.grid(True, axis="y", linewidth=0.3, alpha=0.5)
    starts.set_ylabel("gaps")
    count_axis(starts.yaxis)
    fig.suptitle(title, fontsize=10)
    save(fig, path)


def long_request_shares(jobs: pd.DataFrame, clock: LogClock) -> dict:
    """Of the jobs with a known requested time submitted in each hour of the
    day and each day of the week (local time), the share requesting more than
    each of LONG_REQUESTS."""
    known = jobs[(jobs["req_time"] > 0) & (jobs["submit"] != -1)]
    if known.empty:
        raise UsageError("no job with a known requested time and submit time: nothing to plot")
    every = arrival_cycles(known["submit"].to_numpy(), clock)
    out = {"relative": every["relative"], "time_zone": every["time_zone"], "limits": LONG_REQUESTS}
    for limit in LONG_REQUESTS:
        some = arrival_cycles(known.loc[known["req_time"] > limit, "submit"].to_numpy(), clock)
        for part in ("day_of_week", "hour_of_day"):
            n = np.array(every[part], dtype=float)
            out.setdefault(part, []).append(np.divide(some[part], n, out=np.zeros_like(n), where=n > 0))
    return out


def plot_requested_time(jobs: pd.DataFrame, clock: LogClock, path: str | os.PathLike, title: str) -> None:
    """The shares of long requests (over 4 h, over 15 h) by day of the week
    and hour of submission: KTH's limits show as requests over 4 h after 4
    PM and over 15 h on Friday afternoons."""
    from matplotlib.figure import Figure

    from ..kernel.plot import save
    from .cycles_plot import WEEKDAYS

    shares = long_request_shares(jobs, clock)
    fig = Figure(figsize=(10, 3.6), dpi=100)
    days, hours = fig.subplots(1, 2, width_ratios=(1, 2.2), gridspec_kw={"left": 0.08, "right": 0.98,
                                                                         "bottom": 0.16, "top": 0.87, "wspace": 0.22})
    for k, (limit, color) in enumerate(zip(LONG_REQUESTS, ("tab:blue", "tab:orange"))):
        label = f"over {limit // HOUR} h"
        days.bar(np.arange(7) + (k - 0.5) * 0.4, 100 * shares["day_of_week"][k], width=0.4, color=color, label=label)
        hours.plot(range(24), 100 * shares["hour_of_day"][k], marker="o", markersize=3, color=color, label=label)
    days.set_xticks(range(7), [str(i) for i in range(7)] if shares["relative"] else WEEKDAYS)
    hours.set_xticks(range(0, 24, 2))
    where = "from the log's start" if shares["relative"] else shares["time_zone"]
    days.set_xlabel("day of submission")
    hours.set_xlabel(f"hour of submission ({where})")
    days.set_ylabel("% of the jobs requesting")
    hours.legend(fontsize=8, loc="upper left")
    for ax in (days, hours):
        ax.grid(True, axis="y", linewidth=0.3, alpha=0.5)
    fig.suptitle(title, fontsize=10)
    save(fig, path)


def size_run_correlation(jobs: pd.DataFrame) -> float | None:
    """Pearson's r of ln(procs) and ln(run) over jobs with both above 0 (the
    quality report's size_run_correlation)."""
    ok = (jobs["procs"] > 0) & (jobs["run"] > 0)
    if ok.sum() < 2:
        return None
    return float(np.corrcoef(np.log(jobs.loc[ok, "procs"]), np.log(jobs.loc[ok, "run"]))[0, 1])


def plot_size_run(jobs: pd.DataFrame, path: str | os.PathLike, title: str) -> None:
    """Run time against allocated processors (powers of two, run times on
    quarter decades), jobs with both above 0, with Pearson's r of their logs."""
    from matplotlib.figure import Figure

    from ..kernel.plot import save

    ok = (jobs["procs"] > 0) & (jobs["run"] > 0)
    if not ok.any():
        raise UsageError("no job with known processors and a run time above 0: nothing to plot")
    procs, run = jobs.loc[ok, "procs"].to_numpy(float), jobs.loc[ok, "run"].to_numpy(float)
    low, top = np.floor(np.log10([run.min(), run.max()]) * 4)
    fig = Figure(figsize=(6.4, 5.2), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    _grid(ax, procs, run, _log2_edges(procs), 10.0 ** (np.arange(low, top + 2) / 4), fig, "jobs")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("allocated processors")
    ax.set_ylabel("run time (s)")
    ax.set_title(f"{title}; r of ln size and ln run {size_run_correlation(jobs):+.2f}", fontsize=10)
    fig.subplots_adjust(left=0.14, right=0.9, bottom=0.11, top=0.93)
    save(fig, path)


def draw(kind: str, jobs: pd.DataFrame, clock: LogClock, path: str | os.PathLike, name: str) -> None:
    """The figure `kind` (a key of FIGURES) of the log `name`."""
    title, plot = FIGURES[kind]
    plot(jobs, clock, path, f"{name}: {title}")


FIGURES: dict[str, tuple[str, Callable]] = {
    "requests": ("allocated against requested processors",
                 lambda jobs, clock, path, title: plot_requests(jobs, path, title)),
    "inter_starts": ("gaps between starts and between arrivals",
                     lambda jobs, clock, path, title: plot_inter_starts(jobs, path, title)),
    "requested_time": ("long requests by time of submission", plot_requested_time),
    "size_run": ("run time against size", lambda jobs, clock, path, title: plot_size_run(jobs, path, title)),
}


def write_figures(jobs: pd.DataFrame, clock: LogClock, directory: str | os.PathLike,
                  name: str) -> list[tuple[str, str | None]]:
    """Every figure of FIGURES as NAME-KIND.png in `directory`: for each, the
    file written, or why it could not be drawn (no job with what it shows)."""
    from pathlib import Path

    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for kind in FIGURES:
        path = folder / f"{name}-{kind}.png"
        try:
            draw(kind, jobs, clock, path, name)
            out.append((str(path), None))
        except UsageError as e:
            out.append((str(path), str(e)))
    return out
