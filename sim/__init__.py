"""Scheduler simulation over archive views (policies, metrics, shaking, resampling)."""
from .result import SimResult
from .simulate import simulate
from .workload import Workload, from_archive, from_frame

__all__ = ["SimResult", "Workload", "from_archive", "from_frame", "simulate"]
