"""Overlays of a log and a few of its resampled workloads (the resampling
paper's Figs. 4, 5, 11 and 15): each workload's whole curves, not a
summary, so that they are drawn over one another and a reader sees whether
the resampled ones fall on the log's. Per workload: each per-user
distribution sorted (the users ranked by it), the per-day shares of bins
locality sorted, and the arrivals per hour of the week.

Workload i of a group is the log resampled with run_seed(seed, i), as run i
of `validate` is (so the first group's workloads are the validation's
first ones); a group is the base settings, or one value of a setting the
overlay varies (load, rb_npw), every group drawing the same seeds."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from wla.archive.kernel.clock import LogClock
from wla.archive.kernel.errors import OptionError, UsageError
from wla.archive.kernel.progress import Progress, tell

from .resample.settings import ResampleSettings
from .resample.study import Resampling
from .resample.workload import SourceLog

OVERLAID = 8  # workloads a group: the paper's Figs. 4 and 5 overlay eight
PARAMETERS = ("load", "rb_npw")  # the settings an overlay may vary
LOG = "log"


@dataclass(frozen=True)
class Curves:
    """One workload's curves: `group` is LOG for the log itself."""

    group: str
    run: int
    users: dict[str, np.ndarray]  # per-user distribution -> its values ascending (a user each)
    bins: dict[str, np.ndarray]  # attribute -> the per-day shares of the top bin, ascending
    week: np.ndarray  # arrivals per hour of the week, Monday 0:00 first (168)
    relative: bool  # days counted from the log's start: it has no known start

    @property
    def user_count(self) -> int:
        return len(next(iter(self.users.values())))


def user_index(n: int, normalized: bool = False) -> np.ndarray:
    """The x of n ranked users: 1..n, or with `normalized` spread over
    [0, 1] as (rank - 1) / (n - 1) (one user at 0), so that workloads with
    more users than the log (a higher load) are drawn over the same width."""
    if not normalized:
        return np.arange(1, n + 1, dtype=np.float64)
    if n <= 1:
        return np.zeros(n, dtype=np.float64)
    return np.arange(n, dtype=np.float64) / (n - 1)


def curves(jobs: Any, P: int | None, clock: LogClock, group: str, run: int) -> Curves:
    """The curves of one workload (the archive's columns), from the same
    statistics `wla stats` reports of it."""
    from wla.archive.analysis.cycles import hour_of_week
    from wla.archive.analysis.stats.collect import ATTRIBUTES, column, workload_statistics

    stats = workload_statistics(jobs, P, clock, detail=True)
    users = {name: np.sort(np.asarray(entry["values"], dtype=np.float64))
             for name, entry in stats["users"]["distributions"].items()}
    bins = {name: np.sort(np.asarray(stats["bins"][name]["shares"], dtype=np.float64)) for name in ATTRIBUTES}
    return Curves(group, run, users, bins, hour_of_week(column(jobs, "submit"), clock),
                  stats["cycles"]["relative"])


@dataclass(frozen=True)
class Overlay:
    """The log's curves and each group's workloads' (in the groups' order)."""

    settings: dict
    groups: tuple[str, ...]
    workloads: tuple[Curves, ...]  # the log first

    @property
    def log(self) -> Curves:
        return self.workloads[0]

    def group(self, label: str) -> list[Curves]:
        return [c for c in self.workloads if c.group == label]

    def summary(self) -> dict:
        """Per group, its users and the medians of its distributions, over its workloads (the log's are its own)."""
        out = {}
        for label in (LOG, *self.groups):
            members = self.group(label)
            users = [c.user_count for c in members]
            out[label] = {"workloads": len(members), "users_min": min(users), "users_max": max(users),
                          **{f"median_{name}": _median_of_medians([c.users[name] for c in members])
                             for name in self.log.users},
                          "most_jobs": float(np.median([c.users["jobs"][-1] for c in members if c.user_count])),
                          **{f"bins_median_{name}": _median_of_medians([c.bins[name] for c in members])
                             for name in self.log.bins}}
        return {"settings": self.settings,
                "groups": {label: {k: None if isinstance(v, float) and not np.isfinite(v) else v
                                   for k, v in g.items()} for label, g in out.items()}}


def _median_of_medians(curves: list[np.ndarray]) -> float:
    """The median over workloads of each one's median; NaN when none has a value."""
    medians = [float(np.median(c)) for c in curves if len(c)]
    return float(np.median(medians)) if medians else float("nan")


def group_label(name: str | None, value: Any) -> str:
    """A group's name: the base settings, or NAME=VALUE."""
    return "resampled" if name is None else f"{name}={value:g}" if isinstance(value, float) else f"{name}={value}"


def overlay(source: SourceLog, runs: int = OVERLAID, seed: int = 0, settings: ResampleSettings | None = None,
            vary: tuple[str, list[Any]] | None = None, progress: Progress | None = None) -> Overlay:
    """The log's curves and those of `runs` resampled workloads, of the
    settings given or, with `vary` = (NAME, values), `runs` workloads at each
    value of NAME (one of PARAMETERS), the same seeds at every value."""
    if runs < 1:
        raise OptionError("overlay_runs", f"is at least 1, not {runs}")
    if vary is not None and vary[0] not in PARAMETERS:
        raise OptionError("overlay", f"{vary[0]}: one of {', '.join(PARAMETERS)}")
    if vary is not None and not vary[1]:
        raise UsageError("the overlay varies a setting over no value")
    resampling = Resampling(source, replace(settings or ResampleSettings(), seed=seed).checked())
    points = [(group_label(None, None), {})] if vary is None else [
        (group_label(vary[0], v), {vary[0]: v}) for v in vary[1]]
    out = [curves(source.jobs, source.P, source.clock, LOG, 0)]
    total, done = runs * len(points), 0
    tell(progress, done, total, "")
    for label, change in points:
        for run in range(1, runs + 1):
            r = resampling.resampled(run, **change)
            out.append(curves(r.jobs, source.P, source.clock, label, run))
            done += 1
            tell(progress, done, total, "")
    settings_out = {"log": source.name, "runs": runs, "resampling": resampling.as_dict(),
                    "varied": None if vary is None else {"name": vary[0], "values": list(vary[1])}}
    return Overlay(settings_out, tuple(label for label, _ in points), tuple(out))


def parse_vary(text: str) -> tuple[str, list[Any]]:
    """`NAME=VALUES` of `--overlay` as a sweep's grid is written (V1,V2,... or A:B:STEP), NAME one of PARAMETERS,
    each value checked as the resampling's setting is."""
    from wla.archive.kernel.errors import ParameterError

    from .grid import parse_grid

    name = text.partition("=")[0].strip()
    if name not in PARAMETERS:
        raise OptionError("overlay", f"{name}: one of {', '.join(PARAMETERS)}")
    try:
        name, values = parse_grid(text)
    except OptionError as e:
        raise OptionError("overlay", e.problem) from None
    for v in values:
        try:
            ResampleSettings(**{name: v}).checked()
        except ParameterError as e:
            raise OptionError("overlay", f"{name}={v}: {e}") from None
    return name, values
