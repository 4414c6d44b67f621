"""Evaluations built on simulate(): shaking (perturbed copies of a workload,
summarized against the original), sweeps, comparisons, resampled studies,
and the executors that run them here, on local processes or on a Dask
cluster. The names below load when first used (see wla.sim)."""
import sys
import types
from importlib import import_module
from typing import Any

_WHERE = {
    "ATTRIBUTES": ".settings", "Executor": ".executors", "executor": ".executors", "perturb": ".perturb",
    "ShakeResult": ".shake", "Shaking": ".shake", "shake": ".shake", "ShakeSettings": ".settings",
    "run_rng": "..seeds",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_WHERE[name], __name__), name)
    globals()[name] = value
    return value


class _Package(types.ModuleType):
    """A function keeps its name when its module of the same name loads
    (Python would bind the module there), as an eager import left it."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("perturb", "shake",) and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
