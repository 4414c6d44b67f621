"""Validation of resampling (docs/pages/definitions/resampling.md): N resampled workloads of a log,
each measured by the statistics of docs/pages/definitions/statistics.md and simulated with EASY,
set against the log's own values. Run 0 is the log; run i is resampled
with run_seed(seed, i) (resample/study.py), on any executor, the same
result for any number of workers."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from wla.archive.kernel.errors import OptionError, UsageError
from wla.archive.kernel.names import for_shell
from wla.archive.kernel.progress import Progress

from ..settings import SimSettings
from ..simulate import simulate
from .executors import fill_runs
from .resample.settings import ResampleSettings
from .resample.study import Resampling, run_seed
from .resample.workload import SourceLog

if TYPE_CHECKING:
    import pandas as pd

# The system metrics of every run: (column, key in SimResult.metrics, statistic).
SYSTEM = (("jobs", None, None), ("utilization", "utilization", None),
          ("throughput_per_hour", "throughput_per_hour", None), ("wait_mean", "wait", "mean"),
          ("bounded_slowdown_mean", "bounded_slowdown", "mean"), ("saturated", "saturation", "saturated"))
HURST_LINE = ("hurst_intercept",)  # kept per run for the pox plot's lines
SHOWN_PCT = (5, 95)
SIMULATED = ("utilization", "throughput_per_hour", "wait_mean", "bounded_slowdown_mean")  # saturated runs left out


def _statistics(jobs: Any, P: int | None, clock, match: str, hurst_fit: str) -> tuple[dict, dict]:
    from wla.archive.analysis.stats.collect import scalar_statistics, workload_statistics

    stats = workload_statistics(jobs, P, clock, detail=False, match=match, hurst_fit=hurst_fit)
    return scalar_statistics(stats), stats


@dataclass(frozen=True)
class ValidationStudy:
    """What every task shares: sent to each worker once."""

    resampling: Resampling
    sim: SimSettings
    match: str = "stack"  # the stack-depth rule
    hurst_fit: str = "points"  # the line through the pox plot


def _row(scalars: dict, stats: dict, result) -> tuple[float, ...]:
    values = [math.nan if v is None else float(v) for v in scalars.values()]
    values.append(math.nan if stats["hurst"]["intercept"] is None else float(stats["hurst"]["intercept"]))
    for name, key, stat in SYSTEM:
        if key is None:
            value = result.counts["simulated"]
        else:
            value = result.metrics[key] if stat is None else result.metrics[key][stat]
        values.append(math.nan if value is None else float(value))
    return tuple(values)


def validation_run(study: ValidationStudy, run: int) -> tuple[float, ...]:
    """One resampled workload's statistics and metrics (a task: runs in any process)."""
    src = study.resampling.source
    r = study.resampling.resampled(run)
    scalars, stats = _statistics(r.jobs, src.P, src.clock, study.match, study.hurst_fit)
    return _row(scalars, stats, simulate(r.workload(), study.sim))


@dataclass(frozen=True)
class ValidationResult:
    settings: dict
    columns: tuple[str, ...]
    values: np.ndarray  # per run (row 0: the log), each column
    statistics: dict = field(default_factory=dict)  # per column: the log's value and the resampled distribution
    original: dict = field(default_factory=dict)  # the log's statistics in full (workload_statistics)

    @property
    def warnings(self) -> list[str]:
        from .summary import saturated_note

        note = saturated_note(self.settings["saturated_runs"], self.settings["runs"], "resampled workloads")
        return [note.replace("the summaries", "the simulated metrics' distributions")] if note else []

    @cached_property
    def runs(self) -> pd.DataFrame:
        import pandas as pd

        n = len(self.values)
        frame = pd.DataFrame({"run": np.arange(n, dtype=np.int64),
                              "workload_seed": [run_seed(self.settings["resampling"]["seed"], i) if i else -1
                                                for i in range(n)]})
        for k, name in enumerate(self.columns):
            frame[name] = self.values[:, k]
        return frame

    def summary(self) -> dict:
        return {"settings": self.settings, "statistics": self.statistics}

    def to_json(self) -> str:
        return json.dumps(self.summary(), indent=2, default=str)


def distribution(values: np.ndarray, original: float) -> dict:
    """The resampled values of one statistic against the log's: mean, p5,
    p95, and where the log falls (the share of resampled values below it,
    ties counting half, as a percentile)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    o = None if not math.isfinite(original) else float(original)
    if len(v) == 0:
        return {"original": o, "runs": 0, "mean": None, "p5": None, "p95": None, "percentile": None}
    p5, p95 = np.percentile(v, SHOWN_PCT)
    pct = None if o is None else float(100.0 * ((v < o).sum() + 0.5 * (v == o).sum()) / len(v))
    return {"original": o, "runs": int(len(v)), "mean": float(v.mean()), "p5": float(p5), "p95": float(p95),
            "percentile": pct}


def validate(source: SourceLog, runs: int = 1000, seed: int = 0, settings: ResampleSettings | None = None,
             workers: int | None = None, dask: str | None = None, progress: Progress | None = None,
             match: str = "stack", hurst_fit: str = "points", sim: SimSettings | None = None,
             **changes: Any) -> ValidationResult:
    """The log (run 0) and `runs` resampled workloads of it, each measured
    (`match`: the stack-depth rule, `hurst_fit`: the line through the pox
    plot) and simulated with the settings `sim` (keywords edit them; the
    seed is the study's)."""
    if runs < 1:
        raise OptionError("runs", f"is at least 1, not {runs}")
    if source.P is None:
        raise UsageError(f"{source.name} has no machine size: "
                         f"set it with `wla set {for_shell(source.name)} max-procs N`")
    base = settings or ResampleSettings()
    from dataclasses import replace

    resampling = Resampling(source, replace(base, seed=seed).checked())
    sim = (sim or SimSettings()).edit(**changes).edit(seed=seed)
    study = ValidationStudy(resampling, sim, match, hurst_fit)
    from wla.archive.analysis.stats.collect import scalar_statistics, workload_statistics

    from ..workload import from_frame

    # the log: its statistics in full (the plots draw them), and a check of every option before any process starts
    original = workload_statistics(source.jobs, source.P, source.clock, match=match, hurst_fit=hurst_fit)
    scalars = scalar_statistics(original)
    log_run = simulate(from_frame(source.jobs, source.P, clock=source.clock, source={"log": source.name}), sim)
    columns = tuple(scalars) + HURST_LINE + tuple(name for name, _, _ in SYSTEM)
    values = np.full((runs + 1, len(columns)), np.nan)
    values[0] = _row(scalars, original, log_run)
    fill_runs(values, validation_run, study, runs, workers, dask, progress)
    saturated = values[1:, columns.index("saturated")] == 1
    stats = {}
    for name in columns:
        if name in HURST_LINE or name == "saturated":
            continue
        k = columns.index(name)
        column = values[1:, k][~saturated] if name in SIMULATED else values[1:, k]
        stats[name] = distribution(column, float(values[0, k]))
    settings_out = {"log": source.name, "runs": runs, "resampling": resampling.as_dict(), "simulate": sim.as_dict(),
                    "saturated_runs": int(saturated.sum()),
                    "log_saturated": bool(values[0, columns.index("saturated")])}
    return ValidationResult(settings_out, columns, values, stats, original)


def log_statistics(source: SourceLog, match: str = "stack", hurst_fit: str = "points", *,
                   start: str | float | None = None, end: str | float | None = None,
                   years: str | int | None = None) -> dict:
    """`wla stats`: every statistic of a log (or any stored workload), and
    the named numbers; `match` is the stack-depth rule, `hurst_fit` the line
    through the pox plot. `start`/`end` (dates in the log's local time or
    submit seconds, [start, end)) or `years` ('N' or 'A:B', counted from the
    first submit) take the jobs submitted in that window alone, as a log of
    their own (archive/analysis/stats/window.py); "window" then says which."""
    from wla.archive.analysis.stats.collect import scalar_statistics, workload_statistics
    from wla.archive.analysis.stats.window import select, window

    jobs, clock, info = source.jobs, source.clock, None
    win = window(jobs["submit"].to_numpy(dtype=np.float64, na_value=np.nan), clock, start=start, end=end,
                 years=years)
    if win is not None:
        jobs, clock, info = select(jobs, source.P, clock, win, source.name)
    stats = workload_statistics(jobs, source.P, clock, match=match, hurst_fit=hurst_fit)
    out = {"log": source.name, "statistics": stats, "scalars": scalar_statistics(stats)}
    return out if info is None else {**out, "window": info}
