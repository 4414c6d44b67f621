"""The simulator's compiled code loaded, or compiled into numba's cache,
ahead of a first real run (`wla doctor --warm`)."""
from __future__ import annotations


def warm() -> None:
    """One tiny simulation through the path every simulation takes, checked
    under exact estimates: numba compiles the core and the schedule check for
    the argument types real runs give them, so that those runs find them."""
    import pandas as pd

    from .simulate import simulate

    jobs = pd.DataFrame({"job": [1, 2, 3], "submit": [0.0, 1.0, 2.0], "run": [5.0, 5.0, 5.0],
                         "procs": [1, 2, 2], "req_time": [5.0, 9.0, 9.0], "user_id": [1, 2, 1]})
    simulate(jobs, procs=2, estimate="exact", check=True)
