"""The detectors the diagnosis runs, in the order the report lists them.
A new detector is a module of this package with `detect(log, **params)`
returning findings, and a line here; its parameters' defaults are its
documented thresholds."""
from __future__ import annotations

from typing import Callable

from . import capacity_regimes, non_dedicated, periodic, process_flurries, sentinels, start_arrivals, time_zone
from .finding import Finding

DETECTORS: dict[str, Callable[..., list[Finding]]] = {
    "sentinels": sentinels.detect,
    "capacity_regimes": capacity_regimes.detect,
    "start_arrivals": start_arrivals.detect,
    "non_dedicated": non_dedicated.detect,
    "time_zone": time_zone.detect,
    "periodic_jobs": periodic.detect,
    "process_flurries": process_flurries.detect,
}
