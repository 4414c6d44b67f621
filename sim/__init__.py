"""Scheduler simulation over the archive: a workload, a policy, its schedule and metrics."""
from .result import SimResult
from .simulate import simulate
from .workload import Workload, from_archive, from_frame

__all__ = ["SimResult", "Workload", "from_archive", "from_frame", "simulate"]
