"""How large and how long the jobs are: histograms of processors and of run
time on logarithmic bins, since both span orders of magnitude and sizes
cluster at powers of two."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from wla.archive.kernel.clock import DAY
from wla.archive.kernel.plot import count_axis, save
from wla.archive.kernel.processors import job_processors


def size_bins(procs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts of jobs by processors in bins [2^k, 2^(k+1)), and the bin edges;
    jobs of unknown size are left out."""
    known = procs[np.isfinite(procs) & (procs >= 1)]
    top = int(np.ceil(np.log2(known.max() + 1))) if len(known) else 1
    edges = 2.0 ** np.arange(0, max(top, 1) + 1)
    return np.histogram(known, bins=edges)[0], edges


def run_bins(run: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts of jobs by run time in quarter-decade bins from the shortest;
    run times unknown or below one second are left out."""
    known = run[np.isfinite(run) & (run >= 1)]
    low, top = (np.floor(np.log10([known.min(), known.max()]) * 4) if len(known) else (0.0, 4.0))
    edges = 10.0 ** (np.arange(low, top + 2) / 4)
    return np.histogram(known, bins=edges)[0], edges


# Run-time ticks a person reads at a glance, in seconds and as written.
RUN_TICKS = ((1, "1 s"), (10, "10 s"), (60, "1 min"), (600, "10 min"), (3600, "1 h"), (DAY, "1 d"),
             (10 * DAY, "10 d"), (100 * DAY, "100 d"), (1000 * DAY, "1,000 d"))


def _size_ticks(edges: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Positions and labels of the processor axis: powers of two, plain numbers, at most eight."""
    exponents = np.log2(edges)
    at = np.flatnonzero(np.abs(exponents - np.round(exponents)) < 1e-9)
    at = at[::-(-len(at) // 8)]
    return at.astype(np.float64), [f"{edges[i]:,.0f}" for i in at]


def _run_ticks(edges: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Positions and labels of the run-time axis: 1 s, 1 min, 1 h, 1 d and some
    tens of them, placed on the quarter-decade bins (bar i spans edges i to i + 1)."""
    low, high = np.log10(edges[0]), np.log10(edges[-1])
    shown = [(4 * (np.log10(s) - low), text) for s, text in RUN_TICKS if low <= np.log10(s) <= high]
    return np.array([p for p, _ in shown]), [t for _, t in shown]


def plot_distributions(jobs: pd.DataFrame, path: str | os.PathLike, title: str) -> dict:
    """Draw both histograms; returns how many jobs each leaves out. The
    bins are drawn side by side and labelled by their lower edge: a
    logarithmic axis would draw the same at several times the cost."""
    procs = job_processors(jobs)
    run = jobs["run"].to_numpy(np.float64)
    sizes, size_edges = size_bins(procs)
    runs, run_edges = run_bins(run)
    fig = Figure(figsize=(10, 3.6), dpi=100)
    left, right = fig.subplots(1, 2, gridspec_kw={"left": 0.08, "right": 0.98, "bottom": 0.16, "top": 0.87,
                                                  "wspace": 0.22})
    for ax, counts, edges, ticks in ((left, sizes, size_edges, _size_ticks), (right, runs, run_edges, _run_ticks)):
        ax.bar(np.arange(len(counts)), counts, width=1.0, align="edge", color="tab:blue",
               edgecolor="white", linewidth=0.5)
        ax.set_xticks(*ticks(edges))
        ax.set_xlim(0, len(counts))
        ax.tick_params(axis="x", pad=6)  # the first tick sits in the corner: clear of the y axis's 0
        ax.grid(True, axis="y", linewidth=0.3, alpha=0.5)
        count_axis(ax.yaxis)
    left.set_xlabel("processors (allocated, else requested), bins from each power of two")
    right.set_xlabel("run time (s, min, h, d), four bins a decade of seconds")
    left.set_ylabel("jobs")
    fig.suptitle(title)
    save(fig, path)
    return {"size_unknown": int(len(procs) - sizes.sum()), "run_unknown": int(len(run) - runs.sum())}
