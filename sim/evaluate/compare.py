"""Two configurations on the same shaken workloads: run i of A and run i
of B are shaken by the same (seed, i), so their difference is paired. Per
metric: both single results, both shaken means with their intervals, the
mean paired difference (B - A) with its interval, whether the difference
survives shaking, and the wrong-conclusion ratio.

A difference survives shaking when the 95% interval of the mean paired
difference excludes 0 and has the sign of the single runs' difference. The
wrong-conclusion ratio is the share of shaken runs whose difference has
the other sign than the shaken mean's: how often one run alone would have
told the wrong story."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from wla.archive.kernel.errors import OptionError
from wla.archive.kernel.progress import Progress, tell

from ..settings import SimSettings
from ..simulate import simulate
from ..workload import Workload
from .executors import executor
from .settings import ShakeSettings, split
from .shake import Shaking
from .summary import (
    METRIC_NAMES,
    RANGES,
    RUN_COLUMNS,
    SATURATED,
    difference_range,
    metric_values,
    saturated_note,
    summarize,
    t_interval,
)

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Configuration:
    """One side: a workload and the simulation's settings."""

    name: str
    workload: Workload
    sim: SimSettings = SimSettings()

    def __post_init__(self) -> None:
        if isinstance(self.sim, dict):  # keywords of simulate(), as {"policy": "fcfs"}
            object.__setattr__(self, "sim", SimSettings().edit(**self.sim))


@dataclass(frozen=True)
class CompareStudy:
    configurations: tuple
    shaking: Shaking


def compare_run(study: CompareStudy, item: tuple[int, int]) -> tuple[float, ...]:
    """The metrics of run `run` of configuration `c` (a task)."""
    c, run = item
    conf = study.configurations[c]
    return metric_values(simulate(study.shaking.workload(conf.workload, run), conf.sim).metrics)


@dataclass(frozen=True)
class CompareResult:
    settings: dict
    configurations: list  # per side: name, source, options
    metrics: dict  # per metric: a, b (summaries), difference, survives, verdict, wrong_conclusion
    values: np.ndarray  # [side, run, metric]; run 0 is the single run

    @property
    def kind(self) -> str:
        """What runs 1.. are: "shaken" workloads, or "resampled" ones (compare_resampled.py)."""
        return "resampled" if self.settings.get("resampling") else "shaken"

    @cached_property
    def runs(self) -> pd.DataFrame:
        """One row per run: run, seed, shaken (or resampled and the seed that
        made its workload), then each metric for a and b (built when asked
        for: pandas is not needed to print)."""
        import pandas as pd

        n = self.values.shape[1]
        run = np.arange(n)
        if self.kind == "resampled":
            from .resample.study import run_seed

            seed = self.settings["resampling"]["seed"]
            frame = pd.DataFrame({"run": run, "seed": np.full(n, seed), "resampled": run > 0,
                                  "workload_seed": [run_seed(seed, r) if r else -1 for r in run]})
        else:
            frame = pd.DataFrame({"run": run, "seed": np.full(n, self.settings["shaking"]["seed"]),
                                  "shaken": run > 0})
        for k, name in enumerate(RUN_COLUMNS):
            frame[f"{name}_a"] = self.values[0, :, k]
            frame[f"{name}_b"] = self.values[1, :, k]
        return frame

    @property
    def saturated(self) -> dict:
        """Whether each single run saturated, and the shaken pairs left out because either side did."""
        flags = self.values[:, :, SATURATED] == 1
        left_out = int((flags[0, 1:] | flags[1, 1:]).sum())
        out = {"single_a": bool(flags[0, 0]), "single_b": bool(flags[1, 0]), f"{self.kind}_pairs": left_out}
        if self.kind == "resampled":  # each side's count too: which configuration saturates more
            out.update(a=int(flags[0, 1:].sum()), b=int(flags[1, 1:].sum()), kept=self.values.shape[1] - 1 - left_out)
        return out

    @property
    def warnings(self) -> list[str]:
        note = saturated_note(self.saturated[f"{self.kind}_pairs"], self.values.shape[1] - 1, f"{self.kind} pairs")
        return [note] if note else []

    def summary(self) -> dict:
        return {"settings": self.settings, "configurations": self.configurations, "saturated": self.saturated,
                "metrics": self.metrics}

    def to_json(self) -> str:
        return json.dumps(self.summary(), indent=2)


def verdict(single: float, diffs: np.ndarray, bounds: tuple[float, float] = (-math.inf, math.inf),
            by: str = "shaking") -> dict:
    """The paired difference's summary and what it says; `bounds`: where a
    difference can lie (summary.difference_range); `by`: what made the runs
    ("shaking" or "resampling"), as the verdict says it."""
    kind = "shaken" if by == "shaking" else "resampled"
    d = diffs[~np.isnan(diffs)]
    n = len(d)
    out: dict = {"single": None if math.isnan(single) else single, "mean": None, "ci_low": None, "ci_high": None,
                 "ci_cut": None, "survives": False, "wrong_conclusion": None, "verdict": f"no {kind} runs"}
    if n == 0:
        return out
    mean = float(d.mean())
    out["mean"] = mean
    sign = np.sign(mean)
    out["wrong_conclusion"] = float(np.mean(np.sign(d) != sign)) if sign != 0 else float(np.mean(d != 0))
    if n < 2:
        out["verdict"] = f"one {kind} run: no interval"
        return out
    lo, hi, cut = t_interval(d, bounds)
    out.update(ci_low=lo, ci_high=hi, ci_cut=cut)
    excludes_zero = lo > 0 or hi < 0
    same_sign = not math.isnan(single) and np.sign(single) == sign
    out["survives"] = bool(excludes_zero and same_sign)
    if not excludes_zero:
        out["verdict"] = f"does not survive {by}: the interval of the paired difference includes 0"
    elif not same_sign:
        out["verdict"] = f"reversed by {by}: the {kind} difference has the other sign than the single runs'"
    else:
        out["verdict"] = f"survives {by}"
    return out


def paired_metrics(values: np.ndarray, by: str = "shaking") -> dict:
    """Per metric, from `values` [side, run, metric] (run 0 the single
    runs): each side's summary and the paired difference's verdict, over
    the pairs of runs 1.. where neither side saturated."""
    kept = (values[0, 1:, SATURATED] != 1) & (values[1, 1:, SATURATED] != 1)
    metrics = {}
    for k, name in enumerate(METRIC_NAMES):
        va, vb = values[0, :, k], values[1, :, k]
        metrics[name] = {"a": summarize(va[1:][kept], float(va[0]), RANGES[name]),
                         "b": summarize(vb[1:][kept], float(vb[0]), RANGES[name]),
                         "difference": verdict(float(vb[0] - va[0]), (vb[1:] - va[1:])[kept],
                                               difference_range(name), by)}
    return metrics


SIDE_KEYS = {
    # what --a / --b set: where the workload comes from, or simulate()'s options
    "version": "workload", "exclude": "workload", "procs": "workload",
    "policy": "policy", "estimate": "estimate", "overrun": "overrun", "load": "load_factor", "tau": "tau",
    "warmup": "warmup", "ties": "ties", "passes": "passes", "feedback": "feedback",
}
TRUTH = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False, "0": False}


def parse_side(settings: list[str], which: str) -> tuple[dict, dict]:
    """`--a KEY=VALUE ...` as (workload settings, simulate() options)."""
    source: dict = {}
    options: dict = {}
    for text in settings:
        key, eq, value = text.partition("=")
        key = key.strip()
        if not eq or key not in SIDE_KEYS:
            raise OptionError(f"side_{which}", f"takes KEY=VALUE with KEY one of {', '.join(SIDE_KEYS)}, not {text!r}")
        target = SIDE_KEYS[key]
        if target == "workload":
            if key == "procs":
                try:
                    source[key] = int(value)
                except ValueError:
                    raise OptionError(f"side_{which}", f"procs={value!r}: a whole number") from None
            else:
                source[key] = value
        elif target in ("load_factor", "tau", "warmup"):
            try:
                options[target] = float(value)
            except ValueError:
                raise OptionError(f"side_{which}", f"{key}={value!r}: a number") from None
        elif target == "feedback":
            if value.strip().lower() not in TRUTH:
                raise OptionError(f"side_{which}", f"feedback={value!r}: true or false")
            options[target] = TRUTH[value.strip().lower()]
        else:
            options[target] = value.strip()
    return source, options


def compare(a: Configuration, b: Configuration, settings: ShakeSettings | None = None, *,
            workers: int | None = None, dask: str | None = None, progress: Progress | None = None,
            **changes: Any) -> CompareResult:
    """Simulate both configurations unshaken and on `settings.runs` shaken
    workloads (paired by run index); keywords edit `settings`. The result is
    the same on any executor. The seed is each side's simulation seed too."""
    settings = (settings or ShakeSettings()).edit(**changes)
    shaking = settings.shaking()
    runs = settings.runs
    if runs < 1:
        raise OptionError("runs", f"is at least 1, not {runs}")
    confs = tuple(Configuration(c.name, c.workload, split(settings, c.sim, {})[1]) for c in (a, b))
    study = CompareStudy(confs, shaking)
    values = np.full((2, runs + 1, len(RUN_COLUMNS)), np.nan)
    for c in (0, 1):  # the single runs here: every option checked before any process starts
        values[c, 0] = compare_run(study, (c, 0))
    total, done = 2 * runs, 0
    tell(progress, done, total, "")
    with executor(workers, dask) as ex:
        for (c, run), row in ex.results(compare_run, study, [(c, r) for r in range(1, runs + 1) for c in (0, 1)]):
            values[c, run] = row
            done += 1
            tell(progress, done, total, "")
    metrics = paired_metrics(values)
    sides = [{"name": c.name, "source": dict(c.workload.source), "options": c.sim.as_dict()} for c in confs]
    settings = {"runs": runs, "shaking": shaking.as_dict(), "difference": "B - A, paired by run"}
    return CompareResult(settings=settings, configurations=sides, metrics=metrics, values=values)
