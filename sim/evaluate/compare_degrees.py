"""Two configurations compared at several shaking degrees in one study, as
the shaking paper's Table II lays them out: one metric's single results of A
and B, then per degree the means of their shaken runs, each column with
|B - A| as a percent of A and, for the shaken ones, the paired difference's
interval and verdict. Each degree is one `compare` (the same seeds, so the
same shakes at every degree but their size)."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from wla.archive.kernel.errors import OptionError
from wla.archive.kernel.progress import Progress

from .compare import CompareResult, Configuration, compare
from .settings import ShakeSettings
from .summary import check_metric

if TYPE_CHECKING:
    import pandas as pd

MAX_DEGREES = 100  # columns of one table: far more than a study lays side by side


def gap_pct(a: float | None, b: float | None) -> float | None:
    """|B - A| as a percent of A (None where either is missing or A is 0)."""
    if a is None or b is None or math.isnan(a) or math.isnan(b) or a == 0:
        return None
    return abs(b - a) / abs(a) * 100


@dataclass(frozen=True)
class DegreesResult:
    metric: str
    degrees: tuple[float, ...]
    results: tuple[CompareResult, ...]  # one per degree, in order

    def columns(self) -> list[dict]:
        """The table: the single runs, then one column per degree."""
        first = self.results[0].metrics[self.metric]
        a, b = first["a"]["original"], first["b"]["original"]
        out = [{"degree": None, "a": a, "b": b, "gap_pct": gap_pct(a, b), "difference": None}]
        for degree, result in zip(self.degrees, self.results):
            m = result.metrics[self.metric]
            a, b = m["a"]["mean"], m["b"]["mean"]
            out.append({"degree": degree, "a": a, "b": b, "gap_pct": gap_pct(a, b), "difference": m["difference"]})
        return out

    @cached_property
    def runs(self) -> pd.DataFrame:
        """Every degree's runs, one row each, with a degree column."""
        import pandas as pd

        frames = [r.runs.assign(degree=d) for d, r in zip(self.degrees, self.results)]
        return pd.concat(frames, ignore_index=True)[["degree", *self.results[0].runs.columns]]

    @property
    def warnings(self) -> list[str]:
        return [f"degree {d:g}: {w}" for d, r in zip(self.degrees, self.results) for w in r.warnings]

    def summary(self) -> dict:
        first = self.results[0]
        shaking = {k: v for k, v in first.settings["shaking"].items() if k != "degree"}
        return {"settings": {**first.settings, "shaking": shaking, "degrees": list(self.degrees)},
                "configurations": first.configurations, "metric": self.metric, "columns": self.columns(),
                "per_degree": [r.summary() for r in self.results]}

    def to_json(self) -> str:
        return json.dumps(self.summary(), indent=2)


def compare_degrees(a: Configuration, b: Configuration, degrees: list[float],
                    settings: ShakeSettings | None = None, *, metric: str = "bounded_slowdown_mean",
                    workers: int | None = None, dask: str | None = None, progress: Progress | None = None,
                    **changes: Any) -> DegreesResult:
    """`compare` of A and B at each degree in `degrees` (the other shaking
    settings from `settings` and `changes`), reported for `metric`."""
    check_metric(metric)
    degrees = list(degrees)
    if not 1 <= len(degrees) <= MAX_DEGREES:
        raise OptionError("degrees", f"is 1 to {MAX_DEGREES} degrees, not {len(degrees)}")
    settings = (settings or ShakeSettings()).edit(**changes)
    for d in degrees:  # every degree checked before the first simulation
        settings.edit(degree=d).shaking()
    results = []
    for k, d in enumerate(degrees):
        told = None if progress is None else (
            lambda done, total, what, k=k, d=d: progress(k * total + done, len(degrees) * total, f"degree {d:g}"))
        results.append(compare(a, b, settings.edit(degree=d), workers=workers, dask=dask, progress=told))
    return DegreesResult(metric, tuple(float(d) for d in degrees), tuple(results))


def parse_degrees(text: str) -> list[float]:
    """`60,300,900` as degrees (seconds, or processors for size)."""
    parts = [p.strip() for p in str(text).split(",")]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise OptionError("degrees", f"is a comma-separated list of numbers, e.g. 60,300,900, not {text!r}") from None
    if not 1 <= len(values) <= MAX_DEGREES:
        raise OptionError("degrees", f"is 1 to {MAX_DEGREES} degrees, not {len(values)}")
    bad = next((v for v in values if not math.isfinite(v) or v < 0), None)
    if bad is not None:
        raise OptionError("degrees", f"are numbers >= 0, not {bad:g}")
    return values
