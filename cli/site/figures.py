"""The figures of one log's page, drawn by the plotting code the commands
use (capacity, flurries) and the site's own (cycles, distributions). A
figure that cannot be drawn for a log (no machine size, no known submit
time) is named with the reason instead, so the page says why it is absent."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from wla.archive.kernel.clock import log_clock
from wla.archive.kernel.errors import UsageError


@dataclass(frozen=True)
class Drawn:
    """A figure of a page: its kind, caption, site path (None when not drawn) and why not."""

    kind: str
    caption: str
    path: str | None
    absent: str | None = None


KINDS = {
    "cycles": "Weekly and daily arrival cycles: jobs submitted by day of the week and hour of the day",
    "distributions": "Job sizes and run times",
    "utilization": "Daily lowest and highest utilization; above the dashed 100% line the running jobs "
                   "hold more processors than the machine has (capacity exceptions)",
    "flurries": "Jobs per week, the five busiest users in colour: a flurry is one colour far above the "
                "average (flurry candidates)",
    # what the experience paper's figures show (archive/analysis/workload_plot.py)
    "requests": "Allocated against requested processors",
    "inter_starts": "Gaps between starts beside gaps between arrivals",
    "requested_time": "Long requests by day and hour of submission",
    "size_run": "Run time against size",
}


def draw_figures(jobs: pd.DataFrame, facts: dict, root: Path, paths: dict[str, str]) -> list[Drawn]:
    """Every figure of the log whose `jobs` and `facts` (log_jobs) are given,
    written to `root` / paths[kind]."""
    from wla.archive.analysis.capacity.plot import plot_capacity
    from wla.archive.analysis.cycles import arrival_cycles
    from wla.archive.analysis.cycles_plot import plot_cycles
    from wla.archive.analysis.flurries_plot import plot_flurries
    from wla.archive.analysis.workload_plot import FIGURES, draw

    from .distributions_plot import plot_distributions

    name = facts["name"]
    clock = log_clock(facts.get("unix_start_time"), facts.get("tz"))
    size = facts.get("machine_size")
    out = []
    for kind, caption in KINDS.items():
        target = root / paths[kind]
        target.parent.mkdir(parents=True, exist_ok=True)
        absent = None
        try:
            if jobs.empty:
                absent = "the log has no jobs"
            elif kind == "cycles":
                plot_cycles(arrival_cycles(jobs["submit"].to_numpy(), clock), target, f"{name}: arrivals")
            elif kind == "distributions":
                plot_distributions(jobs, target, f"{name}: {len(jobs):,} jobs")
            elif kind == "utilization" and (size is None or pd.isna(size)):
                absent = "the log has no machine size (set it with `wla set LOG max-procs N`)"
            elif kind == "utilization":
                plot_capacity(jobs, int(size), target, f"{name}: daily utilization of {int(size):,} processors",
                              clock.unix_start_time, clock.tz)
            elif kind in FIGURES:
                draw(kind, jobs, clock, target, name)
            else:
                plot_flurries(jobs, target, title=f"{name}: jobs per week", unix_start_time=clock.unix_start_time,
                              tz=clock.tz)
        except UsageError as e:  # nothing the figure could show (no known submit time, ...)
            absent = str(e)
        out.append(Drawn(kind, caption, None if absent else paths[kind], absent))
    return out
