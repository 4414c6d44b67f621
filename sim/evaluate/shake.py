"""A shaking study: the original workload and N shaken copies, each
simulated with the same settings; the runs as a table, and per metric the
summaries against the original. Run 0 is the original; run i >= 1 is shaken
with `run_rng(seed, i)`, so any run can be redone alone, anywhere."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from wla.archive.kernel.errors import OptionError, ParameterError
from wla.archive.kernel.progress import Progress
from wla.archive.kernel.settings import canonical

from ..seeds import run_rng
from ..settings import SimSettings
from ..simulate import simulate
from ..workload import Workload
from .executors import fill_runs
from .perturb import RULES, check_shaking, perturb
from .settings import ATTRIBUTES, ShakeSettings, split
from .summary import (
    METRIC_NAMES,
    RANGES,
    RUN_COLUMNS,
    SATURATED,
    metric_values,
    prepare,
    saturated_note,
    summarize,
    unsaturated,
)

if TYPE_CHECKING:
    import pandas as pd



@dataclass(frozen=True)
class Shaking:
    """How each run's workload is shaken (perturb's arguments)."""

    attribute: str = "interarrival"
    degree: float = 60.0
    relative: float | None = 10.0  # percent; None: absolute shaking
    jobs: float = 100.0  # percent of jobs shaken
    seed: int = 0

    @classmethod
    def checked(cls, attribute: str, degree: float, relative: float | None, jobs: float, seed: int) -> Shaking:
        """The settings of a study, refused here if perturb would refuse them."""
        attribute = canonical(attribute, ATTRIBUTES) or attribute  # RUNTIME is runtime
        check_shaking(attribute, degree, relative, jobs)
        return cls(attribute, float(degree), None if relative is None else float(relative), float(jobs), seed)

    def workload(self, original: Workload, run: int) -> Workload:
        """Run `run`'s workload: the original for run 0."""
        if run < 0:
            raise ParameterError(f"{{run}} is 0 (the original) or a shaken run's number, not {run}", "run")
        if run == 0:
            return original
        return perturb(original, self.attribute, self.degree, self.relative, self.jobs, run_rng(self.seed, run))

    def as_dict(self) -> dict:
        return {"attribute": self.attribute, "degree": self.degree,
                "mode": "absolute" if self.relative is None else "relative", "relative_pct": self.relative,
                "jobs_pct": self.jobs, "seed": self.seed, "rules": RULES}


@dataclass(frozen=True)
class Study:
    """What every task of a study shares: sent to each worker once."""

    workload: Workload
    shaking: Shaking
    sim: SimSettings


def one_run(study: Study, run: int) -> tuple[float, ...]:
    """The metrics of run `run` (a task: runs in any process)."""
    result = simulate(study.shaking.workload(study.workload, run), study.sim)
    return metric_values(result.metrics)


@dataclass(frozen=True)
class ShakeResult:
    settings: dict  # the simulation's settings and the shaking's
    source: dict
    values: np.ndarray  # per run (row 0: the original), each column of RUN_COLUMNS
    summaries: dict = field(default_factory=dict)  # per metric: summarize()

    @cached_property
    def runs(self) -> pd.DataFrame:
        """One row per run: run (0 is the original), seed, shaken, every
        metric (built when asked for: pandas is not needed to print)."""
        return runs_frame(self.values, self.settings["shaking"]["seed"])

    @property
    def saturated(self) -> dict:
        """Whether the original saturated, and how many shaken runs did."""
        flags = self.values[:, SATURATED] == 1
        return {"original": bool(flags[0]), "shaken_runs": int(flags[1:].sum())}

    @property
    def warnings(self) -> list[str]:
        note = saturated_note(self.saturated["shaken_runs"], len(self.values) - 1)
        return [note] if note else []

    def summary(self) -> dict:
        return {"source": self.source, "settings": self.settings, "saturated": self.saturated,
                "summaries": self.summaries}

    def to_json(self) -> str:
        return json.dumps(self.summary(), indent=2)


def shake(workload: Workload, settings: ShakeSettings | None = None, sim: SimSettings | None = None, *,
          workers: int | None = None, dask: str | None = None, progress: Progress | None = None,
          **changes: Any) -> ShakeResult:
    """Simulate `workload` and `settings.runs` shaken copies of it with the
    simulation's settings `sim`, on `workers` local processes (default: the
    cores) or the Dask cluster at `dask`; keywords edit either settings
    (`runs=10, policy="fcfs"`). The result is the same for any number of
    workers and on any cluster. The seed seeds the shaking and is passed to
    the simulation (badness estimates) unchanged for every run."""
    settings, sim = split(settings, sim, changes)
    shaking = settings.shaking()
    runs = settings.runs
    if runs < 1:
        raise OptionError("runs", f"is at least 1, not {runs}")
    first = simulate(workload, sim)  # the original, and a check of every setting before any process starts
    study = Study(workload, shaking, sim)
    values = np.full((runs + 1, len(RUN_COLUMNS)), np.nan)
    values[0] = metric_values(first.metrics)
    # prepare() once the workers are started and busy
    fill_runs(values, one_run, study, runs, workers, dask, progress, after_first=prepare)
    return ShakeResult(settings={**first.settings, "shaking": shaking.as_dict(), "runs": runs},
                       source=first.source, values=values, summaries=summaries(values))


def shaking_notes(shaking: Shaking, run: int, source: dict) -> list[str]:
    """What a written shaken workload says of itself (its SWF Note lines)."""
    from wla import __version__

    what = ", ".join(f"{k} {v}" for k, v in source.items() if v is not None and k != "procs_from")
    if run == 0:
        return [f"the original workload ({what}) as simulated by wla {__version__}: run 0 of any study"]
    s = shaking.as_dict()
    mode = "absolute" if s["relative_pct"] is None else f"relative, at most {s['relative_pct']:g}%"
    return [f"workload of run {run} of a shaking study by wla {__version__} ({what})",
            f"shaken: {s['attribute']}, degree {s['degree']:g}, {mode}, {s['jobs_pct']:g}% of jobs, "
            f"seed {s['seed']}: wla shake --attribute {s['attribute']} --degree {s['degree']:g} "
            + ("--absolute" if s["relative_pct"] is None else f"--relative {s['relative_pct']:g}")
            + f" --jobs {s['jobs_pct']:g} --seed {s['seed']} --run {run}"]


def runs_frame(values: np.ndarray, seed: int) -> pd.DataFrame:
    import pandas as pd

    n = len(values)
    frame = pd.DataFrame({"run": np.arange(n, dtype=np.int64), "seed": np.full(n, seed, dtype=np.int64),
                          "shaken": np.arange(n) > 0})
    for k, name in enumerate(RUN_COLUMNS):
        frame[name] = values[:, k]
    return frame


def summaries(values: np.ndarray) -> dict:
    """Per metric, the shaken runs (rows 1..) that did not saturate against
    the original (row 0)."""
    kept = unsaturated(values[1:])
    return {name: summarize(kept[:, k], float(values[0, k]), RANGES[name]) for k, name in enumerate(METRIC_NAMES)}
