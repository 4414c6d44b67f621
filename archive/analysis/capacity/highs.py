"""Capacity, the calls to HiGHS (scipy's `milp` and `linprog`), set so that
the same program gives the same answer on any machine and under any load:
one thread, a fixed seed, no clock; the work of a search is bounded by a
number of branch-and-bound nodes instead.
"""
from __future__ import annotations

import contextlib
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Iterator

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from .quiet import quiet_stdout

# Above this many nonzeros HiGHS's presolve takes minutes (RICC's largest
# component: 6.2 M nonzeros, 190 s); the solver then starts from the model
# as it is.
PRESOLVE_MAX_NONZEROS = 2_000_000

# scipy passes the options it does not know to HiGHS as they are, with a
# warning (`quiet` below keeps it from the user).
# One thread: HiGHS's parallel parts (symmetry detection) then run in a fixed
# order, and components already run side by side on wla's own threads.
_MIP_OPTIONS = {"threads": 1, "random_seed": 0, "mip_rel_gap": 0.0}


@dataclass(frozen=True, eq=False)
class Found:
    """What a search found: `x` (0/1, or None when it found nothing),
    whether it is proven optimal, and a bound no solution costs less than
    (None when HiGHS gives none)."""

    x: np.ndarray | None
    optimal: bool
    infeasible: bool
    bound: float | None


def mip(cost: np.ndarray, a: sp.csc_array, lower: np.ndarray, upper: np.ndarray, node_limit: int) -> Found:
    """The 0/1 program min cost @ x, lower <= a @ x <= upper, searched over at
    most `node_limit` branch-and-bound nodes."""
    res = milp(cost, integrality=np.ones(len(cost)), bounds=Bounds(0, 1),
               constraints=LinearConstraint(a, lower, upper),
               options={**_MIP_OPTIONS, "node_limit": int(node_limit),
                        "presolve": a.nnz <= PRESOLVE_MAX_NONZEROS})
    bound = res.get("mip_dual_bound")
    return Found(x=None if res.x is None else res.x > 0.5, optimal=res.status == 0,
                 infeasible=res.status == 2,
                 bound=None if bound is None or not np.isfinite(bound) else float(bound))


@dataclass(frozen=True, eq=False)
class Relaxed:
    """The LP relaxation: its value (a bound on the 0/1 program), its
    solution, and each variable's reduced cost."""

    value: float
    x: np.ndarray
    reduced: np.ndarray


def relaxation(cost: np.ndarray, a: sp.csc_array, need: np.ndarray) -> Relaxed:
    """min cost @ x, a @ x >= need, 0 <= x <= 1, by the dual simplex.

    On a thread of its own: HiGHS fixes a thread's scheduler at the first
    call made on it, and `linprog` cannot ask for one thread as `milp` above
    does (the simplex here is serial either way)."""
    def solve():
        return linprog(cost, A_ub=-a, b_ub=-need.astype(np.float64), bounds=(0, 1), method="highs-ds")

    with ThreadPoolExecutor(1) as own:
        res = own.submit(solve).result()
    if res.status != 0:  # cannot happen for a program that deleting every job solves
        raise ArithmeticError(f"the LP relaxation failed: {res.message}")
    return Relaxed(value=float(res.fun), x=np.asarray(res.x), reduced=np.asarray(res.lower.marginals))


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Around every search of one call, entered once by the calling thread
    (warning filters are the whole process's; entered on each worker thread
    they could be restored out of order): no warning about the options
    above, no stray print of HiGHS's on standard output."""
    with quiet_stdout(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Unrecognized options", category=RuntimeWarning)
        yield
