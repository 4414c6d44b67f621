"""Evaluations built on simulate(): shaking (perturbed copies of a workload,
summarized against the original), and the executors that run them here, on
local processes or on a Dask cluster."""
from ..seeds import run_rng
from .executors import Executor, executor
from .perturb import ATTRIBUTES, perturb
from .shake import ShakeResult, Shaking, shake

__all__ = ["ATTRIBUTES", "Executor", "ShakeResult", "Shaking", "executor", "perturb", "run_rng", "shake"]
