"""The simulator's compiled code loaded, or compiled into numba's cache,
ahead of a first real run (`wla doctor --warm`)."""
from __future__ import annotations


def warm() -> None:
    """One tiny simulation through the path every simulation takes, checked
    under exact estimates: numba compiles the core and the schedule check for
    the argument types real runs give them, so that those runs find them."""
    import numpy as np

    from .simulate import simulate
    from .workload import Columns, from_frame

    # numpy columns, as a log read from the archive gives them (no pandas)
    jobs = Columns({"job": np.array([1, 2, 3]), "submit": np.array([0.0, 1.0, 2.0]),
                    "run": np.array([5.0, 5.0, 5.0]), "procs": np.array([1, 2, 2]),
                    "req_time": np.array([5.0, 9.0, 9.0]), "user_id": np.array([1, 2, 1])})
    w = from_frame(jobs, procs=2)
    simulate(w, estimate="exact", check=True)
    simulate(w, policy="conservative", check=True)
