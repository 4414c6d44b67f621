"""The detectors the diagnosis runs, in the order the report lists them.
A new detector is a module of this package with `detect(log, **params)`
returning findings, and a line here; its parameters' defaults are its
documented thresholds."""
from __future__ import annotations

from typing import Callable

from . import capacity_regimes, sentinels
from .finding import Finding

DETECTORS: dict[str, Callable[..., list[Finding]]] = {
    "sentinels": sentinels.detect,
    "capacity_regimes": capacity_regimes.detect,
}
