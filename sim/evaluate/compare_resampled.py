"""Two configurations on the same resampled workloads: workload i is the log
resampled with run_seed(seed, i) (the same workload `wla resample --seed`
makes), simulated once under A and once under B, so their difference is
paired by workload; run 0 is the log itself under each. The summaries and
verdicts are `compare`'s (compare.paired_metrics), with resampling in the
place of shaking. A pair where either side saturated is left out, as the
resampling paper leaves saturated runs out of its means: the pairs kept are
the workloads unsaturated under both."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from wla.archive.kernel.errors import OptionError
from wla.archive.kernel.progress import Progress, tell

from ..simulate import simulate
from .compare import CompareResult, Configuration, paired_metrics
from .executors import executor
from .resample.study import Resampling
from .summary import RUN_COLUMNS, metric_values
from .sweep import resized


@dataclass(frozen=True)
class ResampledPairs:
    """What every task shares: both sides and the log read once."""

    configurations: tuple
    resampling: Resampling


def pair_run(study: ResampledPairs, run: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The metrics of workload `run` under A and under B (a task): the
    workload is made once for both."""
    made = study.resampling.workload(run) if run else None
    rows = []
    for conf in study.configurations:
        w = conf.workload if made is None else resized(made, conf.workload.P)
        rows.append(metric_values(simulate(w, conf.sim).metrics))
    return rows[0], rows[1]


def compare_resampled(a: Configuration, b: Configuration, resampling: Resampling, *, runs: int = 100,
                      seed: int = 0, workers: int | None = None, dask: str | None = None,
                      progress: Progress | None = None) -> CompareResult:
    """Simulate both configurations on the log (`a.workload` and
    `b.workload`, the log on each side's machine) and on `runs` resampled
    workloads of it (`resampling`: the log read by resample.read_source and
    the settings every workload takes: load, rb_npw, weeks, phase), paired
    by workload. `seed` seeds the workloads (run i: run_seed(seed, i)) and
    each simulation. The result is the same on any executor."""
    if runs < 1:
        raise OptionError("runs", f"is at least 1, not {runs}")
    resampling = Resampling(resampling.source, replace(resampling.settings, seed=seed).checked())
    confs = tuple(Configuration(c.name, c.workload, c.sim.edit(seed=seed)) for c in (a, b))
    study = ResampledPairs(confs, resampling)
    values = np.full((2, runs + 1, len(RUN_COLUMNS)), np.nan)
    values[0, 0], values[1, 0] = pair_run(study, 0)  # here: every option checked before any process starts
    resampling.workload(1)  # the resampling's settings refused here, not in a worker
    tell(progress, 0, runs, "")
    with executor(workers, dask) as ex:
        for done, (run, (row_a, row_b)) in enumerate(ex.results(pair_run, study, range(1, runs + 1)), 1):
            values[0, run], values[1, run] = row_a, row_b
            tell(progress, done, runs, "")
    sides = [{"name": c.name, "source": dict(c.workload.source), "options": c.sim.as_dict()} for c in confs]
    settings = {"runs": runs, "shaking": None, "resampling": resampling.as_dict(),
                "difference": "B - A, paired by resampled workload"}
    return CompareResult(settings=settings, configurations=sides, metrics=paired_metrics(values, "resampling"),
                         values=values)
