"""Scheduler simulation over the archive: a workload, a policy, its schedule and metrics.

The names below load when first used (archive/kernel/lazy.py), so that the
settings classes (settings.py, evaluate/settings.py) import without numba,
DuckDB or pandas: the command line builds its options from them at start-up."""
from typing import Any

from wla.archive.kernel.lazy import names_on_first_use

from . import parts  # noqa: F401  (first: the compiled parts are registered before anything compiles)

_WHERE = {
    "ShakeResult": ".evaluate.shake", "perturb": ".evaluate.perturb", "shake": ".evaluate.shake",
    "resample": ".evaluate.resample.workload", "SimResult": ".result", "SimSettings": ".settings",
    "simulate": ".simulate", "Workload": ".workload", "from_archive": ".workload", "from_frame": ".workload",
}


def _prepare(name: str, value: Any) -> None:
    if name == "shake":  # wla.sim.shake.perturb: the study's perturbation
        from .evaluate.perturb import perturb

        value.perturb = perturb


__getattr__ = names_on_first_use(__name__, _WHERE, _prepare)
__all__ = sorted(_WHERE)
