"""The calls to HiGHS (archive/analysis/capacity/highs.py) on programs small
enough to solve by hand."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from wla.archive.analysis.capacity.highs import mip, quiet, relaxation

# Two cliques over three jobs: jobs 0 and 1 run in the first, which must
# free 2 processors; jobs 1 and 2 in the second, which must free 1.
A = sp.csc_array(np.array([[1.0, 2.0, 0.0],
                           [0.0, 1.0, 1.0]]))
NEED = np.array([2.0, 1.0])


def test_the_cheapest_deletion():
    # Job 1 alone frees both (cost 3); jobs 0 and 2 together cost 2 + 2 = 4,
    # and job 0 with any other costs more.
    with quiet():
        found = mip(np.array([2.0, 3.0, 2.0]), A, NEED, np.full(2, np.inf), node_limit=100)
    assert found.x.tolist() == [False, True, False] and found.optimal and not found.infeasible
    assert found.bound is None or found.bound <= 3.0 + 1e-9


def test_an_impossible_program_is_infeasible():
    with quiet():
        found = mip(np.ones(3), A, np.array([9.0, 1.0]), np.full(2, np.inf), node_limit=100)
    assert found.x is None and found.infeasible and not found.optimal


def test_the_relaxation_bounds_the_program():
    # With x in [0, 1]: x1 = 1 costs 3 and meets both rows; half of job 1
    # meets the first row only with job 0 at 1 (cost 2 + 1.5 > 3). So 3,
    # the 0/1 answer itself.
    with quiet():
        lp = relaxation(np.array([2.0, 3.0, 2.0]), A, NEED)
    assert abs(lp.value - 3.0) < 1e-9 and np.allclose(lp.x, [0, 1, 0])
    assert lp.reduced.shape == (3,)
