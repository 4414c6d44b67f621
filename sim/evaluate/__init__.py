"""Evaluations built on simulate(): shaking (perturbed copies of a workload,
summarized against the original), sweeps, comparisons, resampled studies,
and the executors that run them here, on local processes or on a Dask
cluster. The names below load when first used (archive/kernel/lazy.py)."""
from wla.archive.kernel.lazy import names_on_first_use

_WHERE = {
    "ATTRIBUTES": ".settings", "Executor": ".executors", "executor": ".executors", "perturb": ".perturb",
    "ShakeResult": ".shake", "Shaking": ".shake", "shake": ".shake", "ShakeSettings": ".settings",
    "run_rng": "..seeds",
}

__getattr__ = names_on_first_use(__name__, _WHERE)
__all__ = sorted(_WHERE)
