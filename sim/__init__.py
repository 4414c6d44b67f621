"""Scheduler simulation over the archive: a workload, a policy, its schedule and metrics."""
from . import parts  # noqa: F401  (first: the compiled parts are registered before anything compiles)
from .evaluate import ShakeResult, perturb, shake
from .evaluate.resample.workload import resample
from .result import SimResult
from .simulate import simulate
from .workload import Workload, from_archive, from_frame

shake.perturb = perturb  # type: ignore[attr-defined]  # wla.sim.shake.perturb: the study's perturbation

__all__ = ["ShakeResult", "SimResult", "Workload", "from_archive", "from_frame", "perturb", "resample", "shake",
           "simulate"]
