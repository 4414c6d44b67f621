"""Scheduler simulation over the archive: a workload, a policy, its schedule and metrics.

The names below load when first used (PEP 562), so that the settings
classes (settings.py, evaluate/settings.py) import without numba, DuckDB
or pandas: the command line builds its options from them at start-up."""
import sys
import types
from importlib import import_module
from typing import Any

from . import parts  # noqa: F401  (first: the compiled parts are registered before anything compiles)

_WHERE = {
    "ShakeResult": ".evaluate.shake", "perturb": ".evaluate.perturb", "shake": ".evaluate.shake",
    "resample": ".evaluate.resample.workload", "SimResult": ".result", "SimSettings": ".settings",
    "simulate": ".simulate", "Workload": ".workload", "from_archive": ".workload", "from_frame": ".workload",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_WHERE[name], __name__), name)
    if name == "shake":
        value.perturb = getattr(import_module(".evaluate.perturb", __name__), "perturb")  # wla.sim.shake.perturb
    globals()[name] = value
    return value


class _Package(types.ModuleType):
    """A function keeps its name when its module of the same name loads
    (Python would bind the module there), as an eager import left it."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("simulate",) and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
