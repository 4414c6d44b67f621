"""One component's program (archive/analysis/capacity/programs.py: Problem)
and the greedy deletion and its pruning (archive/analysis/capacity/parts.py),
on four jobs over three cliques, worked out by hand."""
from __future__ import annotations

import numpy as np
from wla.archive.analysis.capacity.parts import greedy, prune
from wla.archive.analysis.capacity.programs import Problem

# Job j runs in cliques a[j] .. b[j]-1 on p[j] processors; each clique must
# free need[k] processors.
#   job 0: clique 0,     4 processors,  400 processor-seconds
#   job 1: cliques 0-1,  2 processors,  100
#   job 2: cliques 1-2,  3 processors,  300
#   job 3: clique 2,     1 processor,    10
PROB = Problem(index=0, jobs=np.arange(4), a=np.array([0, 0, 1, 2]), b=np.array([1, 2, 3, 3]),
               need=np.array([3, 2, 1]), p=np.array([4, 2, 3, 1]),
               processor_seconds=np.array([400.0, 100.0, 300.0, 10.0]))


def test_the_matrix_caps_each_coefficient_at_the_clique_s_need():
    assert PROB.matrix().toarray().tolist() == [[3, 2, 0, 0],
                                                [0, 2, 2, 0],
                                                [0, 0, 1, 1]]


def test_freed_and_feasible():
    x = np.array([True, False, True, False])
    assert PROB.freed(x).tolist() == [4, 3, 3] and PROB.feasible(x)
    assert not PROB.feasible(np.array([False, True, False, True]))  # frees 2, 2, 1


def test_costs():
    assert PROB.cost("S").tolist() == [400, 100, 300, 10]
    assert np.allclose(PROB.cost("L"), 1 + np.array([400, 100, 300, 10]) / 811)


def test_greedy_fewest_jobs():
    # Largest first: clique 0 takes job 0 (4 >= 3); clique 1, short 2, takes
    # job 2 (3 >= 2), which also covers clique 2. Neither can be kept again.
    assert greedy(PROB, "L").tolist() == [True, False, True, False]


def test_greedy_fewest_processor_seconds():
    # Cheapest per processor first (3, 1, then 0 before 2 at 100 each, the
    # larger first): clique 0 takes job 1 and then job 0 (2 < 3 <= 6);
    # clique 1 is then covered (2); clique 2 takes job 3. 510 processor-
    # seconds: every deletion must hold job 0, and 0 with 2 costs 700.
    x = greedy(PROB, "S")
    assert x.tolist() == [True, True, False, True] and PROB.processor_seconds[x].sum() == 510


def test_prune_keeps_again_what_is_not_needed_costliest_first():
    everything = np.ones(4, bool)
    # Freed 6, 5, 4: a surplus of 3 in each clique. Job 0 (400) stays
    # (4 > 3); job 2 (300) is kept again (3 >= 3), leaving 3, 0, 0; job 1
    # (2 > 0) and job 3 (1 > 0) stay.
    assert prune(PROB, everything, PROB.cost("S")).tolist() == [True, True, False, True]
