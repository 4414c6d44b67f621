"""How large and how long the jobs are: histograms of processors and of run
time on logarithmic bins, since both span orders of magnitude and sizes
cluster at powers of two."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from wla.archive.kernel.plot import save
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


def _size_label(x: float) -> str:
    return f"{x:.0f}" if x < 1024 else f"{x / 1024:.0f}K"  # processors: powers of two, 1K = 1024


def _run_label(x: float) -> str:
    return f"{x:,.0f}" if x < 1e7 else f"{x:.0e}"


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
    for ax, counts, edges, log, label in ((left, sizes, size_edges, np.log2, _size_label),
                                         (right, runs, run_edges, np.log10, _run_label)):
        ax.bar(np.arange(len(counts)), counts, width=1.0, align="edge", color="tab:blue",
               edgecolor="white", linewidth=0.5)
        exponents = log(edges)
        ticks = np.flatnonzero(np.abs(exponents - np.round(exponents)) < 1e-9)  # powers of two, decades
        ticks = ticks[::-(-len(ticks) // 10)]  # at most ten labels
        ax.set_xticks(ticks, [label(edges[i]) for i in ticks])
        ax.set_xlim(0, len(counts))
        ax.grid(True, axis="y", linewidth=0.3, alpha=0.5)
    left.set_xlabel("processors (allocated, else requested), bins from each power of two")
    right.set_xlabel("run time in seconds, four bins a decade")
    left.set_ylabel("jobs")
    fig.suptitle(title)
    save(fig, path)
    return {"size_unknown": int(len(procs) - sizes.sum()), "run_unknown": int(len(run) - runs.sum())}
