"""wla: a workload log archive for parallel-job scheduling research."""
from __future__ import annotations

__version__ = "0.1.0"
